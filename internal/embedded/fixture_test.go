package embedded

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// copyFixture copies a committed data directory into a temporary one, so a
// test never changes the fixture.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", name, "test.sqlite")
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, "test.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

type fixtureFile struct {
	bucket, name string
	revision     int32
	sha256       string
	length       int64
}

func readManifest(t *testing.T, name string) []fixtureFile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name, "manifest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var files []fixtureFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			t.Fatalf("manifest line %q", sc.Text())
		}
		length, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ff := fixtureFile{bucket: fields[0], name: fields[1], revision: -1, sha256: fields[2], length: length}
		if base, rev, ok := strings.Cut(ff.name, "#"); ok {
			r, err := strconv.Atoi(rev)
			if err != nil {
				t.Fatal(err)
			}
			ff.name, ff.revision = base, int32(r)
		}
		files = append(files, ff)
	}
	return files
}

// startStore starts a store on dir for the test. It closes after the test's
// clients have disconnected (cleanups run last first), which it waits for.
func startStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Start(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func connect(t *testing.T, s *Store) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

// chunksCollection starts a store of its own for t (closed when t ends) and
// returns it with its collection test.fs.chunks, which has the {files_id,
// n} index of every GridFS chunks collection, unique if asked.
func chunksCollection(t *testing.T, unique bool) (*Store, *mongo.Collection) {
	t.Helper()
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	chunks := connect(t, s).Database("test").Collection("fs.chunks")
	if _, err := chunks.Indexes().CreateOne(context.Background(), mongo.IndexModel{
		Keys:    bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}},
		Options: options.Index().SetUnique(unique),
	}); err != nil {
		t.Fatal(err)
	}
	return s, chunks
}

// checkFixtureFiles downloads every file of the manifest through the Go
// driver's GridFS and compares it byte for byte (by SHA-256 and length).
func checkFixtureFiles(t *testing.T, db *mongo.Database, files []fixtureFile) {
	t.Helper()
	ctx := context.Background()
	for _, ff := range files {
		b := db.GridFSBucket(options.GridFSBucket().SetName(ff.bucket))
		ds, err := b.OpenDownloadStreamByName(ctx, ff.name, options.GridFSName().SetRevision(ff.revision))
		if err != nil {
			t.Errorf("%s/%s rev %d: %v", ff.bucket, ff.name, ff.revision, err)
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, ds)
		ds.Close()
		if err != nil {
			t.Errorf("%s/%s: read: %v", ff.bucket, ff.name, err)
			continue
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != ff.sha256 || n != ff.length {
			t.Errorf("%s/%s rev %d: %d bytes sha256 %s, want %d bytes %s", ff.bucket, ff.name, ff.revision, n, got, ff.length, ff.sha256)
		}
	}
}

// TestReleaseDataDirOpens opens a data directory written by the release
// before the fork and reads back every file it holds.
func TestReleaseDataDirOpens(t *testing.T) {
	dir := copyFixture(t, "v1-release")
	db := connect(t, startStore(t, dir)).Database("test")
	files := readManifest(t, "v1-release")
	checkFixtureFiles(t, db, files)

	// the upgraded indexes serve GridFS's queries in every bucket
	seen := map[string]bool{}
	for _, ff := range files {
		if seen[ff.bucket] {
			continue
		}
		seen[ff.bucket] = true
		var doc struct {
			ID       any    `bson:"_id"`
			Filename string `bson:"filename"`
		}
		if err := db.Collection(ff.bucket+".files").FindOne(context.Background(), bson.D{}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		gridFSQueries(t, db, ff.bucket, doc.ID, doc.Filename)
	}
}

// TestRelease613c51dOpens opens a data directory written by the release at
// 613c51d (HTTP and S3 multipart uploads, a bucket with its own chunk size)
// and reads back every file it holds; the directory is stamped with the
// current format once open.
func TestRelease613c51dOpens(t *testing.T) {
	dir := copyFixture(t, "v2-613c51d")
	db := connect(t, startStore(t, dir)).Database("test")
	files := readManifest(t, "v2-613c51d")
	checkFixtureFiles(t, db, files)
	// gridfsd's own sha256 field was written by that release too (not for
	// a multipart upload, whose parts are joined without reading them).
	for _, ff := range files {
		if ff.revision != -1 || strings.HasPrefix(ff.name, "s3/") {
			continue
		}
		var doc struct {
			SHA256 string `bson:"sha256"`
		}
		opts := options.FindOne().SetSort(bson.D{{Key: "uploadDate", Value: -1}})
		if err := db.Collection(ff.bucket+".files").FindOne(context.Background(), bson.D{{Key: "filename", Value: ff.name}}, opts).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if doc.SHA256 != ff.sha256 {
			t.Errorf("%s/%s: files document sha256 %q, want %q", ff.bucket, ff.name, doc.SHA256, ff.sha256)
		}
	}
	if n, stamped, err := readFormat(dir); err != nil || !stamped || n != FormatVersion {
		t.Errorf("after opening: format %d, stamped %v, %v; want %d, stamped", n, stamped, err, FormatVersion)
	}
}

// TestNewerFormatRefused: a data directory stamped by a newer gridfsd is
// refused with a message that says so, and left untouched.
func TestNewerFormatRefused(t *testing.T) {
	dir := copyFixture(t, "v2-613c51d")
	stamp := fmt.Sprintf("gridfsd-format %d\n", FormatVersion+1)
	if err := os.WriteFile(filepath.Join(dir, FormatFile), []byte(stamp), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fileSum(t, filepath.Join(dir, "test.sqlite"))
	s, err := Start(Config{DataDir: dir})
	if err == nil {
		s.Close()
		t.Fatal("a data directory of a newer format was opened")
	}
	if !errors.Is(err, ErrNewerFormat) {
		t.Errorf("error %v is not ErrNewerFormat", err)
	}
	for _, want := range []string{"newer gridfsd", fmt.Sprintf("format %d", FormatVersion+1), "cannot read it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if after := fileSum(t, filepath.Join(dir, "test.sqlite")); after != before {
		t.Error("test.sqlite changed")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, FormatFile)); string(got) != stamp {
		t.Errorf("stamp became %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("data directory holds %d entries, want test.sqlite and the stamp", len(entries))
	}
}

// TestFormatStamp: a new data directory is stamped; a stamp that is not one
// is refused rather than overwritten.
func TestFormatStamp(t *testing.T) {
	dir := t.TempDir()
	s := startStore(t, dir)
	s.Close()
	got, err := os.ReadFile(filepath.Join(dir, FormatFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("gridfsd-format %d\n", FormatVersion); string(got) != want {
		t.Errorf("stamp %q, want %q", got, want)
	}
	for _, bad := range []string{"", "gridfsd-format x\n", "gridfsd-format 0\n", "something else\n"} {
		if err := os.WriteFile(filepath.Join(dir, FormatFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := Start(Config{DataDir: dir}); err == nil {
			s.Close()
			t.Errorf("stamp %q: opened", bad)
		} else if !strings.Contains(err.Error(), "damaged stamp") {
			t.Errorf("stamp %q: %v", bad, err)
		}
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
