package embedded

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// sqliteHeader reports a database file's page size and whether it is in WAL
// mode, from its 100-byte header (https://www.sqlite.org/fileformat.html).
func sqliteHeader(t *testing.T, path string) (pageSize int, wal bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := make([]byte, 100)
	if _, err := io.ReadFull(f, h); err != nil {
		t.Fatal(err)
	}
	pageSize = int(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	return pageSize, h[18] == 2 && h[19] == 2
}

// putAndGet stores a file of 3 MiB through the driver's GridFS and reads it back.
func putAndGet(t *testing.T, db *mongo.Database, bucket string) {
	t.Helper()
	ctx := context.Background()
	data := bytes.Repeat([]byte("gridfsd pages "), 3<<20/14)
	b := db.GridFSBucket(options.GridFSBucket().SetName(bucket))
	id, err := b.UploadFromStream(ctx, "pages.bin", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := b.DownloadToStream(ctx, id, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("read back %d bytes, not the %d written", got.Len(), len(data))
	}
}

// A new database gets 32 KiB pages in WAL mode (PATCHES.md item 15): a chunk's
// row then spans 11 pages instead of 85, each a WAL frame and a checkpoint
// write. Before the change the WAL switch ran first and fixed 4 KiB pages.
func TestNewDatabaseHasLargePages(t *testing.T) {
	dir := t.TempDir()
	putAndGet(t, connect(t, startStore(t, dir)).Database("pages"), "fs")
	size, wal := sqliteHeader(t, filepath.Join(dir, "pages.sqlite"))
	if size != 32768 || !wal {
		t.Errorf("new database: page size %d, WAL %v; want 32768, true", size, wal)
	}
}

// CheckPageSize takes SQLite's page sizes and 0 (the default) only.
func TestCheckPageSize(t *testing.T) {
	for size, ok := range map[int64]bool{0: true, 512: true, 4096: true, 32768: true, 65536: true, 256: false, 3000: false, 131072: false, -4096: false} {
		if err := CheckPageSize(size); (err == nil) != ok {
			t.Errorf("CheckPageSize(%d) = %v, want ok %v", size, err, ok)
		}
	}
	if _, err := Start(Config{DataDir: t.TempDir(), PageSize: 3000}); err == nil {
		t.Error("a store started with 3000-byte pages")
	}
}

// startWithPages starts a store on dir with pages of size (0: the default) and connects to its
// database test; stop disconnects and stops the store.
func startWithPages(t *testing.T, dir string, size int64) (db *mongo.Database, stop func()) {
	t.Helper()
	return startWithPagesNotices(t, dir, size, io.Discard)
}

// startWithPagesNotices is startWithPages with the store's notices (Config.Notices) written to w.
func startWithPagesNotices(t *testing.T, dir string, size int64, w io.Writer) (db *mongo.Database, stop func()) {
	t.Helper()
	s, err := Start(Config{DataDir: dir, PageSize: size, Notices: slog.New(slog.NewTextHandler(w, nil))})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	return c.Database("test"), func() {
		c.Disconnect(context.Background())
		s.Close()
	}
}

// sqliteFormat opens the database at path with SQLite and returns its page size, auto_vacuum
// mode (2: incremental) and journal mode, as SQLite reads them: the newest first page may be
// in the write-ahead log, not yet in the file's header.
func sqliteFormat(t *testing.T, path string) (pageSize, autoVacuum int, journal string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for pragma, v := range map[string]any{"page_size": &pageSize, "auto_vacuum": &autoVacuum, "journal_mode": &journal} {
		if err := db.QueryRow("PRAGMA " + pragma).Scan(v); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
	}
	return pageSize, autoVacuum, journal
}

// checkPages fails t unless the database at path has pages of size, WAL and incremental vacuum,
// as SQLite reads it (sqliteFormat: a new database's first page may still be in the log after
// its store stopped; CI once read "incremental vacuum false" from the header), and no
// conversion copy beside it.
func checkPages(t *testing.T, path string, size int) {
	t.Helper()
	if got, autoVacuum, mode := sqliteFormat(t, path); got != size || mode != "wal" || autoVacuum != 2 {
		t.Errorf("page size %d, journal mode %s, auto_vacuum %d; want %d, wal, 2 (incremental)", got, mode, autoVacuum, size)
	}
	if left, _ := filepath.Glob(path + ".converting*"); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

// A store started with another page size than its databases have converts them (fork item
// 19's conversion): 32 KiB pages to 4 KiB and back, every file read back byte for byte each
// time. Without Config.PageSize the databases keep 32 KiB pages.
func TestPageSizeConverts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test.sqlite")
	ctx := context.Background()
	files := map[string][]byte{}
	for i, size := range []int64{0, 4096, 0} {
		var notices proctest.Log
		db, stop := startWithPagesNotices(t, dir, size, &notices)
		b := db.GridFSBucket()
		for name, want := range files {
			var got bytes.Buffer
			if _, err := b.DownloadToStreamByName(ctx, name, &got); err != nil {
				t.Fatalf("start %d: %s: %v", i, name, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("start %d: %s read back %d bytes, not the %d written", i, name, got.Len(), len(want))
			}
		}
		data := make([]byte, 300<<10+i*5000)
		rand.Read(data)
		name := fmt.Sprintf("f%d.bin", i)
		if _, err := b.UploadFromStream(ctx, name, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		files[name] = data
		stop()
		want := int(size)
		if size == 0 {
			want = DefaultPageSize
		}
		checkPages(t, path, want)
		if i > 0 {
			from := map[int]int{4096: DefaultPageSize, DefaultPageSize: 4096}[want] // the start before's
			if says := fmt.Sprintf("Converting %s from %d-byte to %d-byte pages", path, from, want); !strings.Contains(notices.String(), says) {
				t.Errorf("start %d: the notices do not say %q:\n%s", i, says, notices.String())
			}
		}
	}
}

// TestPageSizeConversionSurvivesKill kills the store with SIGKILL while it converts a database
// of 32 KiB pages to 4 KiB ones: mid-copy and after the copy took the old file's name. The file is
// the old one, unchanged, or the converted one, whole; started again with 4 KiB pages, the store
// reads every file back byte for byte.
func TestPageSizeConversionSurvivesKill(t *testing.T) {
	const fixture = "v2-613c51d"
	files := readManifest(t, fixture)
	for _, point := range []string{"copying", "renamed"} {
		t.Run(point, func(t *testing.T) {
			dir := copyFixture(t, fixture)
			path := filepath.Join(dir, "test.sqlite")
			_, stop := startWithPages(t, dir, 0) // the release's 4 KiB pages become 32 KiB ones
			stop()
			checkPages(t, path, DefaultPageSize)
			padDatabase(t, path)
			original := fileSum(t, path)
			t.Setenv(childPageSizeEnv, "4096")
			if !killChildAt(t, dir, convertPauseEnv+"="+point, "gridfsd-convert-paused "+point) {
				t.Fatalf("the conversion did not reach %s", point)
			}
			switch point {
			case "copying":
				if fileSum(t, path) != original {
					t.Error("killed while copying: the old database changed")
				}
				if _, err := os.Stat(path + ".converting"); err != nil {
					t.Errorf("killed while copying: no copy: %v", err)
				}
			case "renamed":
				if size, _ := sqliteHeader(t, path); size != 4096 {
					t.Errorf("killed after the rename: page size %d, want 4096", size)
				}
				sdb, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				var check string
				if err := sdb.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
					t.Errorf("killed after the rename: integrity check %q, %v", check, err)
				}
				sdb.Close()
			}
			db, stop := startWithPages(t, dir, 4096)
			checkFixtureFiles(t, db, files)
			stop()
			checkPages(t, path, 4096)
		})
	}
}
