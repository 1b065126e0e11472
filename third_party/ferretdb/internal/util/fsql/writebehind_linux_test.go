// gridfsd patch (PATCHES.md item 70): the log's unsynced writes are sent to the disk as they are
// made.

package fsql

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// After a commit that was not synced, the database's goroutine starts the log's writes; after
// synced commits it does nothing. Before the change nothing started them: the synced commit after an
// upload's unsynced chunks wrote all of them.
func TestWriteBehind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.sqlite")
	open := func() *DB {
		sqlDB, err := sql.Open("sqlite", "file:"+path+"?_journal_mode=wal")
		if err != nil {
			t.Fatal(err)
		}
		db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
		if err = db.StartCheckpoints(32<<20, path); err != nil {
			t.Fatal(err)
		}
		return db
	}
	ctx := context.Background()
	insert := func(db *DB, inTransaction func(context.Context, func(*Tx) error) error) {
		t.Helper()
		err := inTransaction(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (?)", make([]byte, 64<<10))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	waitStarted := func(db *DB, want int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); db.WritesStarted() < want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d writes of the log started 10 s after unsynced commits; want %d", db.WritesStarted(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	db := open()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (v BLOB)"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		insert(db, db.InTransaction)
	}
	time.Sleep(50 * time.Millisecond)
	if n := db.WritesStarted(); n != 0 {
		t.Errorf("%d writes of the log started after synced commits only; want 0", n)
	}
	insert(db, db.InUnjournaledTransaction)
	waitStarted(db, 1)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// A group of unjournaled transactions that outgrows SQLite's page cache writes its pages to the log
// before it commits (cache spill): their writes start while the group is still open (PATCHES.md
// item 71). Before, nothing started them until the group committed, and the synced commit after it
// wrote them while its caller waited.
func TestWriteBehindInGroup(t *testing.T) {
	defer SetGroupLinger(time.Hour)()

	path := filepath.Join(t.TempDir(), "t.sqlite")
	sqlDB, err := sql.Open("sqlite", "file:"+path+"?_journal_mode=wal&_pragma=cache_size(-256)")
	if err != nil {
		t.Fatal(err)
	}
	db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
	if err = db.StartCheckpoints(32<<20, path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	ctx := context.Background()
	if _, err = db.ExecContext(ctx, "CREATE TABLE t (v BLOB)"); err != nil {
		t.Fatal(err)
	}
	// 4 transactions of 1 MiB against a cache of 256 KiB: most pages spill to the log
	for range 4 {
		err = db.InUnjournaledTransaction(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (?)", make([]byte, 1<<20))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); db.WritesStarted() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no write of the log started while a group of 4 MiB was open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := db.UnjournaledGroups(); n != 0 {
		t.Fatalf("%d groups committed; want the group still open", n)
	}
}
