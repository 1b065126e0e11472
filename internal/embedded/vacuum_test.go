package embedded

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// convertPauseEnv is the fork's test knob (third_party/ferretdb/PATCHES.md, "space given back"):
// it stops the conversion of an older database at a point until the process is killed.
const convertPauseEnv = "GRIDFSD_TEST_CONVERT_PAUSE"

// incrementalVacuum reports whether the database file at path has auto_vacuum=INCREMENTAL, from
// its header: a largest root page (offset 52) and the incremental flag (offset 64).
func incrementalVacuum(t *testing.T, path string) bool {
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
	return binary.BigEndian.Uint32(h[52:56]) != 0 && binary.BigEndian.Uint32(h[64:68]) != 0
}

// A database written by an earlier release (auto_vacuum=NONE, 4 KiB pages for the oldest) is
// converted when the store opens it: 32 KiB pages, auto_vacuum=INCREMENTAL, WAL, every file intact.
func TestExistingDatabaseIsConverted(t *testing.T) {
	for _, fixture := range []string{"v1-release", "v2-613c51d"} {
		t.Run(fixture, func(t *testing.T) {
			dir := copyFixture(t, fixture)
			path := filepath.Join(dir, "test.sqlite")
			if incrementalVacuum(t, path) {
				t.Fatal("the fixture already has incremental vacuum")
			}
			db := connect(t, startStore(t, dir)).Database("test")
			checkFixtureFiles(t, db, readManifest(t, fixture))
			putAndGet(t, db, "pages")
			if size, wal := sqliteHeader(t, path); size != 32768 || !wal || !incrementalVacuum(t, path) {
				t.Errorf("page size %d, WAL %v, incremental vacuum %v; want 32768, true, true", size, wal, incrementalVacuum(t, path))
			}
			if left, _ := filepath.Glob(path + ".converting*"); len(left) > 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

// A new database has incremental vacuum from the start, and 32 KiB pages.
func TestNewDatabaseHasIncrementalVacuum(t *testing.T) {
	dir := t.TempDir()
	putAndGet(t, connect(t, startStore(t, dir)).Database("vac"), "fs")
	size, mode, journal := sqliteFormat(t, filepath.Join(dir, "vac.sqlite"))
	if mode != 2 || size != 32768 || journal != "wal" {
		t.Errorf("auto_vacuum %d, page size %d, journal mode %s; want 2, 32768, wal", mode, size, journal)
	}
}

// killChildAt runs the test binary as a store on dir (crash_test.go's child) with env, waits
// until it prints line and kills it with SIGKILL. It reports false when the child started
// without printing it.
func killChildAt(t *testing.T, dir, env, line string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), upgradeChildEnv+"="+dir, env)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			switch {
			case !ok:
				t.Fatalf("child with %s: stopped without a word", env)
			case l == line:
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				for range lines {
				}
				return true
			case l == "gridfsd-upgrade-done":
				for range lines {
				}
				return false
			case strings.HasPrefix(l, "gridfsd-upgrade-child:"):
				t.Fatalf("child with %s: %s", env, l)
			}
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("child with %s: no %q and no end after 60 s", env, line)
		}
	}
}

// TestConversionSurvivesKill kills the store with SIGKILL at every point of the conversion of a
// database written by an earlier release: while the copy is being written (the process is
// stopped mid-copy), after the copy is complete, after the old database is closed, and after the
// copy has taken its name. After each kill the database file is the old one or the converted one,
// whole; started again, the store converts it if need be and reads every file back byte for byte.
func TestConversionSurvivesKill(t *testing.T) {
	const fixture = "v2-613c51d"
	files := readManifest(t, fixture)
	for _, point := range []string{"copying", "copied", "closed", "renamed"} {
		t.Run(point, func(t *testing.T) {
			dir := copyFixture(t, fixture)
			path := filepath.Join(dir, "test.sqlite")
			padDatabase(t, path)
			original := fileSum(t, path)
			if !killChildAt(t, dir, convertPauseEnv+"="+point, "gridfsd-convert-paused "+point) {
				t.Fatalf("the conversion did not reach %s", point)
			}

			var partial int64 = -1
			if fi, err := os.Stat(path + ".converting"); err == nil {
				partial = fi.Size()
			}
			switch point {
			case "copying", "copied", "closed":
				if fileSum(t, path) != original {
					t.Errorf("killed at %s: the old database changed", point)
				}
				if partial < 0 {
					t.Errorf("killed at %s: no copy", point)
				}
			case "renamed":
				if !incrementalVacuum(t, path) || partial >= 0 {
					t.Errorf("killed at %s: incremental vacuum %v, copy left %v", point, incrementalVacuum(t, path), partial >= 0)
				}
				var check string
				sdb, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				if err := sdb.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
					t.Errorf("killed at %s: integrity check %q, %v", point, check, err)
				}
				sdb.Close()
			}

			db := connect(t, startStore(t, dir)).Database("test")
			checkFixtureFiles(t, db, files)
			if !incrementalVacuum(t, path) {
				t.Error("not converted after the restart")
			}
			if left, _ := filepath.Glob(path + ".converting*"); len(left) > 0 {
				t.Errorf("left %v", left)
			}
			if point == "copying" {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if partial >= fi.Size() {
					t.Errorf("killed while copying: the copy had %d bytes, the whole copy has %d", partial, fi.Size())
				}
				t.Logf("killed with %d of %d bytes copied", partial, fi.Size())
			}
		})
	}
}

// padDatabase adds a table of 24 MiB to a database file, so that copying it takes long enough
// for the test to stop the copy midway; the store ignores the table.
func padDatabase(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE gridfsd_test_padding (b BLOB)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 96) INSERT INTO gridfsd_test_padding SELECT randomblob(262144) FROM n",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// dirSize is the bytes the files of dir take.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !fi.IsDir() {
			n += fi.Size()
		}
	}
	return n
}

// Deleting files gives their space back to the filesystem while the store runs: deleting half
// of the files of a bucket halves the data directory.
func TestDeleteGivesSpaceBack(t *testing.T) {
	dir := t.TempDir()
	db := connect(t, startStore(t, dir)).Database("vac")
	b := db.GridFSBucket(options.GridFSBucket().SetName("fs"))
	ctx := context.Background()

	const n, size = 8, 2 << 20
	ids := make([]any, n)
	data := make([][]byte, n)
	for i := range n {
		data[i] = make([]byte, size)
		rand.Read(data[i])
		id, err := b.UploadFromStream(ctx, fmt.Sprintf("f%d", i), bytes.NewReader(data[i]))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	checkpointFile(t, filepath.Join(dir, "vac.sqlite"))
	full := dirSize(t, dir)

	for i := 0; i < n; i += 2 {
		if err := b.Delete(ctx, ids[i]); err != nil {
			t.Fatal(err)
		}
	}

	// half the files, and 5% for the indexes and the pages not yet reused
	want := full/2 + full/20
	deadline := time.Now().Add(60 * time.Second)
	var got int64
	for {
		if got = dirSize(t, dir); got <= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the data directory holds %d bytes 60 s after half of its %d bytes were deleted, want at most %d", got, full, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d bytes before the deletes, %d after", full, got)

	for i := 1; i < n; i += 2 {
		var got bytes.Buffer
		if _, err := b.DownloadToStream(ctx, ids[i], &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), data[i]) {
			t.Fatalf("file %d reads back differently", i)
		}
	}
	chunks, err := db.Collection("fs.chunks").CountDocuments(ctx, bson.D{})
	if want := int64(n / 2 * (size/(255<<10) + 1)); err != nil || chunks != want {
		t.Errorf("%d chunks left (%v), want %d", chunks, err, want)
	}
}

// checkpointFile copies the write-ahead log of a running store's database into its file and
// truncates the log, so the data directory holds what is stored and nothing pending.
func checkpointFile(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The store's own checkpoints (fork item 51) may hold the checkpoint
	// lock for a moment: try again for a while.
	var busy, logged, done int
	for try := 0; ; try++ {
		err := db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &done)
		if err == nil && busy == 0 {
			return
		}
		if try == 100 {
			t.Fatalf("checkpoint: busy %d, %v", busy, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The conversions of a data directory written by an earlier release report to Config.Notices
// (gridfsd serve's log at its level), not to Config.Logger (the store's own log, of which serve
// shows errors only): the copy with the new pages and the documents' rewrite, begun and done.
// Before fork item 43 they went to the store's log, and serve's showed none of them.
func TestConversionIsReported(t *testing.T) {
	dir := copyFixture(t, "v2-613c51d")
	var notices proctest.Log
	s, err := Start(Config{DataDir: dir, Notices: slog.New(slog.NewTextHandler(&notices, nil)), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	checkFixtureFiles(t, connect(t, s).Database("test"), readManifest(t, "v2-613c51d"))
	s.Close()
	for _, want := range []string{
		"Converting " + filepath.Join(dir, "test.sqlite") + " to give freed space back",
		"Converted " + filepath.Join(dir, "test.sqlite") + " in ",
		"documents of test.fs.chunks to keep binary data as bytes",
		"documents of test.fs.chunks in ",
	} {
		if !strings.Contains(notices.String(), want) {
			t.Errorf("the notices do not say %q:\n%s", want, notices.String())
		}
	}
}

// A database dropped while the background vacuum gives its freed pages back is no failure of the
// vacuum: before, the vacuum's next step on the closed database reported "Incremental vacuum
// failed ... database is closed" (seen at the end of test suites, which drop their database just
// before the store stops).
func TestDropWhileVacuuming(t *testing.T) {
	dir := t.TempDir()
	var notices proctest.Log
	s, err := Start(Config{DataDir: dir, Notices: slog.New(slog.NewTextHandler(&notices, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := connect(t, s)
	ctx := context.Background()
	for round := range 3 {
		db := c.Database(fmt.Sprintf("drop%d", round))
		b := db.GridFSBucket()
		data := make([]byte, 48<<20)
		rand.Read(data)
		id, err := b.UploadFromStream(ctx, "big", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, db.Name()+".sqlite")
		checkpointFile(t, path)
		full := fileSize(t, path)
		if err := b.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		// The file shrinks as the vacuum's first steps are checkpointed; it has more to go.
		deadline := time.Now().Add(30 * time.Second)
		for fileSize(t, path) > full-8<<20 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the vacuum did not start within 30 s", round)
			}
			time.Sleep(2 * time.Millisecond)
		}
		if got := fileSize(t, path); got < full/4 {
			t.Logf("round %d: the vacuum was nearly done (%d of %d bytes left) when the drop came", round, got, full)
		}
		if err := db.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the vacuum's next step
	}
	if strings.Contains(notices.String(), "vacuum failed") {
		t.Errorf("the vacuum reported a failure on a dropped database:\n%s", notices.String())
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
