// gridfsd patch (PATCHES.md item 50): transactions committed without a sync.

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"testing"

	_ "modernc.org/sqlite"
)

// openWAL opens a database in WAL mode with SQLite's default synchronous=FULL, on one
// connection, so that every transaction below runs on the connection the one before left.
func openWAL(t *testing.T) *DB {
	t.Helper()
	sqlDB, err := sql.Open("sqlite", "file:"+t.TempDir()+"/t.sqlite?_journal_mode=wal")
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1)
	db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(context.Background(), "CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	return db
}

// synchronousIn is the synchronous level a transaction of db runs at.
func synchronousIn(t *testing.T, db *DB, inTransaction func(context.Context, func(*Tx) error) error) int {
	t.Helper()
	var level int
	err := inTransaction(context.Background(), func(tx *Tx) error {
		if _, err := tx.ExecContext(context.Background(), "INSERT INTO t VALUES (1)"); err != nil {
			return err
		}
		return tx.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&level)
	})
	if err != nil {
		t.Fatal(err)
	}
	return level
}

// An unjournaled transaction commits at synchronous=NORMAL (no fsync of the log), and the
// connection it ran on is back at FULL for the next one, also after a rollback: before the
// change every commit was FULL; without the restore the next transaction runs unsynced.
func TestUnjournaledTransaction(t *testing.T) {
	db := openWAL(t)
	ctx := context.Background()

	if got := synchronousIn(t, db, db.InTransaction); got != 2 {
		t.Fatalf("a transaction runs at synchronous %d; want 2 (FULL)", got)
	}
	for round := range 3 {
		if got := synchronousIn(t, db, db.InUnjournaledTransaction); got != 1 {
			t.Fatalf("round %d: an unjournaled transaction runs at synchronous %d; want 1 (NORMAL)", round, got)
		}
		if got := synchronousIn(t, db, db.InTransaction); got != 2 {
			t.Fatalf("round %d: the transaction after an unjournaled one runs at synchronous %d; want 2 (FULL)", round, got)
		}
	}
	if got := db.UnjournaledCommits(); got != 3 {
		t.Errorf("UnjournaledCommits = %d; want 3", got)
	}

	failed := errors.New("failed")
	err := db.InUnjournaledTransaction(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("InUnjournaledTransaction = %v; want %v", err, failed)
	}
	if got := synchronousIn(t, db, db.InTransaction); got != 2 {
		t.Fatalf("the transaction after a rolled back unjournaled one runs at synchronous %d; want 2", got)
	}
	var rows, rolledBack int
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE v = 2) FROM t").Scan(&rows, &rolledBack); err != nil {
		t.Fatal(err)
	}
	if rows != 8 || rolledBack != 0 {
		t.Errorf("%d rows, %d of the rolled back transaction; want 8 and 0", rows, rolledBack)
	}
	if got := db.UnjournaledCommits(); got != 3 {
		t.Errorf("UnjournaledCommits after a rollback = %d; want 3", got)
	}
}
