package pool

import (
	"bytes"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oldDatabase writes a database as releases before the conversion did: 4 KiB pages,
// auto_vacuum=NONE, WAL mode, a table of 2 MiB of rows of which half are deleted.
func oldDatabase(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.sqlite")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=auto_vacuum(none)&_journal_mode=wal")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 64) INSERT INTO t SELECT i, randomblob(32768) FROM n",
		"DELETE FROM t WHERE id % 2 = 0",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// rowsText returns the rows of the table as text.
func rowsText(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s string
	if err := db.QueryRow("SELECT group_concat(id || ':' || hex(b), ',') FROM t").Scan(&s); err != nil {
		t.Fatal(err)
	}
	if len(s) < 32*65536 {
		t.Fatalf("rows text of %d bytes", len(s))
	}
	return s
}

func pragma(t *testing.T, path, name string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int64
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A disk too small for the copy leaves the database as it is, with a warning that says what is
// needed and what to do.
func TestConvertNeedsSpace(t *testing.T) {
	path := oldDatabase(t)
	rows := rowsText(t, path)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	saved := diskFree
	t.Cleanup(func() { diskFree = saved })
	diskFree = func(string) (int64, error) { return 10 << 20, nil }

	var log bytes.Buffer
	if err := convertAutoVacuum(path, 32768, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"level=WARN", path, "auto_vacuum=NONE", "MiB free on its disk", "10.0 MiB available", "free some space and restart", "not enough free disk space"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the database changed")
	}
	if left, _ := filepath.Glob(path + convertingSuffix + "*"); len(left) > 0 {
		t.Errorf("left %v", left)
	}

	diskFree = saved
	log.Reset()
	if err := convertAutoVacuum(path, 32768, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
		t.Fatal(err)
	}
	if mode, size, free := pragma(t, path, "auto_vacuum"), pragma(t, path, "page_size"), pragma(t, path, "freelist_count"); mode != 2 || size != 32768 || free != 0 {
		t.Errorf("converted: auto_vacuum %d, page size %d, %d free pages; want 2, 32768, 0", mode, size, free)
	}
	if got := rowsText(t, path); got != rows {
		t.Error("the rows changed")
	}
	for _, want := range []string{"Converting " + path, "Converted " + path} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
