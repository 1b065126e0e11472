package embedded

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// rowsPauseEnv is the fork's test knob (third_party/ferretdb/PATCHES.md item 23): it stops the
// conversion of documents to the binary column after its n-th batch until the process is killed.
const rowsPauseEnv = "GRIDFSD_TEST_ROWS_PAUSE"

// documentForms counts the documents of every collection of the database file at path that are
// in the form written before the binary column (NULL in it) and all of them, and the bytes of
// binary data beside the text.
func documentForms(t *testing.T, path string) (old, all, side int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT table_name FROM _ferretdb_collections`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var table string
		if err := rows.Scan(&table); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, table)
	}
	rows.Close()
	for _, table := range tables {
		var o, a int64
		var s sql.NullInt64
		q := fmt.Sprintf(`SELECT count(*) FILTER (WHERE _gridfsd_bin IS NULL), count(*), sum(length(_gridfsd_bin)) FROM %q`, table)
		if err := db.QueryRow(q).Scan(&o, &a, &s); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		old, all, side = old+o, all+a, side+s.Int64
	}
	return old, all, side
}

// TestDocumentsConverted: the documents of data directories written before the binary column are
// rewritten with their chunks' data beside the text when the store opens them, and read back byte
// for byte; the directory is stamped with the new format.
func TestDocumentsConverted(t *testing.T) {
	for _, fixture := range []string{"v1-release", "v2-613c51d"} {
		t.Run(fixture, func(t *testing.T) {
			dir := copyFixture(t, fixture)
			s := startStore(t, dir)
			db := connect(t, s).Database("test")
			checkFixtureFiles(t, db, readManifest(t, fixture))
			old, all, side := documentForms(t, filepath.Join(dir, "test.sqlite"))
			var stored int64
			for _, f := range readManifest(t, fixture) {
				stored += f.length
			}
			if old != 0 || all == 0 || side < stored*9/10 {
				t.Errorf("%d of %d documents in the old form, %d bytes beside the text for %d stored", old, all, side, stored)
			}
			if n, stamped, err := readFormat(dir); err != nil || !stamped || n != FormatVersion || n < 2 {
				t.Errorf("format %d, stamped %v, %v; want %d", n, stamped, err, FormatVersion)
			}
		})
	}
}

// TestDocumentConversionSurvivesKill kills the store with SIGKILL after the first batch of the
// conversion of a data directory written before the binary column: the documents are in one
// form or the other, and a restart finishes the conversion and reads every file back.
func TestDocumentConversionSurvivesKill(t *testing.T) {
	const fixture = "v2-613c51d"
	dir := copyFixture(t, fixture)
	if !killChildAt(t, dir, rowsPauseEnv+"=1", "gridfsd-rows-paused 1") {
		t.Fatal("the conversion did not reach its first batch")
	}
	path := filepath.Join(dir, "test.sqlite")
	old, all, _ := documentForms(t, path)
	if old == 0 || old == all {
		t.Errorf("killed after the first batch: %d of %d documents in the old form; want some, not all", old, all)
	}
	if n, _, err := readFormat(dir); err != nil || n != 1 {
		t.Errorf("killed mid-conversion: format %d (%v), want 1 still", n, err)
	}
	db := connect(t, startStore(t, dir)).Database("test")
	checkFixtureFiles(t, db, readManifest(t, fixture))
	if old, all, _ := documentForms(t, path); old != 0 {
		t.Errorf("after the restart %d of %d documents in the old form", old, all)
	}
}
