package embedded

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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
