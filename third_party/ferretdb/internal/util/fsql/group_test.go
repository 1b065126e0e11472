// gridfsd patch (PATCHES.md item 60): unjournaled transactions grouped into one commit.

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// openIndexed opens a database in WAL mode with 4 KiB pages, no checkpoints (so that the log
// keeps every frame written) and a pool of connections, with a table of blobs and an index.
func openIndexed(t *testing.T) *DB {
	t.Helper()
	sqlDB, err := sql.Open("sqlite", "file:"+t.TempDir()+"/t.sqlite?_pragma=page_size(4096)&_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE t (k INTEGER, v BLOB)", "CREATE UNIQUE INDEX t_k ON t (k)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// insertRows inserts rows keys in one unjournaled transaction, each with 16 KiB of data; when one
// fails it deletes those it inserted, as InUnjournaledTransaction asks.
func insertRows(ctx context.Context, db *DB, keys ...int) error {
	return db.InUnjournaledTransaction(ctx, func(tx *Tx) error {
		var rowids []any
		for _, k := range keys {
			res, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (?, zeroblob(16384))", k)
			if err == nil {
				var id int64
				id, err = res.LastInsertId()
				rowids = append(rowids, id)
			}
			if err != nil {
				for _, id := range rowids {
					if _, uerr := tx.ExecContext(ctx, "DELETE FROM t WHERE rowid = ?", id); uerr != nil {
						return fmt.Errorf("%w: %w", ErrNotUndone, uerr)
					}
				}
				return err
			}
		}
		return nil
	})
}

// logFrames is how many frames db's write-ahead log holds.
func logFrames(t *testing.T, db *DB) int64 {
	t.Helper()
	var busy, logged, checkpointed int64
	if err := db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logged, &checkpointed); err != nil {
		t.Fatal(err)
	}
	return logged
}

// keys is the table's keys in order.
func keys(t *testing.T, db *DB) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRowContext(context.Background(), "SELECT group_concat(k, ',') FROM (SELECT k FROM t ORDER BY k)").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s.String
}

// Unjournaled transactions one after the other commit as groups: 64 inserts of 3 rows of 16 KiB
// (4 overflow pages each) write the pages that every commit changes (the header, the table's and
// the index's last pages) once a group, not once an insert. Every insert committing (before, or
// groupMax 1): 995 frames; grouped: 4 commits, 800 frames.
func TestUnjournaledGroups(t *testing.T) {
	t.Cleanup(SetGroupLinger(time.Hour)) // not timed: the groups end at groupMax
	db := openIndexed(t)
	ctx := context.Background()
	before := logFrames(t, db)
	const inserts = 64
	for i := range inserts {
		if err := insertRows(ctx, db, 3*i, 3*i+1, 3*i+2); err != nil {
			t.Fatal(err)
		}
	}
	frames := logFrames(t, db) - before // the read commits the last group
	if got := db.UnjournaledCommits(); got != inserts {
		t.Errorf("UnjournaledCommits = %d; want %d", got, inserts)
	}
	groups := db.UnjournaledGroups()
	t.Logf("%d inserts: %d frames, %d groups", inserts, frames, groups)
	if groups != inserts/groupMax {
		t.Errorf("%d groups committed; want %d", groups, inserts/groupMax)
	}
	// 768 overflow pages, the leaves the rows fill, and a few pages per commit
	if frames > 850 {
		t.Errorf("%d frames for %d inserts of 3 rows", frames, inserts)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3*inserts {
		t.Errorf("%d rows (%v); want %d", n, err, 3*inserts)
	}
}

// Every transaction acknowledged before a read is in what the read sees, on any connection; a
// transaction of a group that fails leaves the group's others; a group outlives the context of
// the transaction that began it; and a writer that is not unjournaled commits the group first.
func TestUnjournaledGroupsAreSeen(t *testing.T) {
	db := openIndexed(t)
	ctx := context.Background()

	var want []string
	for i := range 10 {
		cctx, cancel := context.WithCancel(ctx)
		err := insertRows(cctx, db, i)
		cancel() // the group began with it must not roll back
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(rune('0'+i)))
		if got := keys(t, db); got != strings.Join(want, ",") {
			t.Fatalf("after insert %d a read sees %q; want %q", i, got, strings.Join(want, ","))
		}
		// and one that fails in the group
		if err := insertRows(ctx, db, 100+i, i); err == nil {
			t.Fatalf("insert %d of a duplicate key succeeded", i)
		}
	}

	// a group of three, failures in it (a duplicate key after a new one; an error of f's own
	// after it undid its write), another transaction, then a journaled writer
	for _, k := range []int{20, 21, 22} {
		if err := insertRows(ctx, db, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := insertRows(ctx, db, 30, 21); err == nil {
		t.Fatal("an insert of a duplicate key succeeded")
	}
	failed := errors.New("failed")
	err := db.InUnjournaledTransaction(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (23, NULL)"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM t WHERE k = 23"); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("InUnjournaledTransaction = %v; want %v", err, failed)
	}
	if err := insertRows(ctx, db, 25); err != nil {
		t.Fatal(err)
	}
	if got := db.UnjournaledGroups(); got != 10 {
		t.Errorf("%d groups committed before the journaled writer; want 10 (the reads')", got)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (24, NULL)"); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(t, db), "0,1,2,3,4,5,6,7,8,9,20,21,22,24,25"; got != want {
		t.Errorf("keys %q; want %q", got, want)
	}
}

// A failure that leaves the group's transaction as it should not be (SQLite rolls all of it back
// itself on a full disk or an I/O error; here a transaction that could not undo its write) loses
// the transactions the group acknowledged: the next writer is told, once, and is not run.
func TestUnjournaledGroupLost(t *testing.T) {
	db := openIndexed(t)
	ctx := context.Background()
	for _, k := range []int{1, 2} {
		if err := insertRows(ctx, db, k); err != nil {
			t.Fatal(err)
		}
	}
	err := db.InUnjournaledTransaction(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (3, NULL)"); err != nil {
			return err
		}
		return fmt.Errorf("%w: failed", ErrNotUndone)
	})
	if err == nil {
		t.Fatal("InUnjournaledTransaction succeeded")
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (3, NULL)"); err == nil || !strings.Contains(err.Error(), "unjournaled") {
		t.Fatalf("the next writer: %v; want the loss", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (4, NULL)"); err != nil {
		t.Fatal(err)
	}
	if got := keys(t, db); got != "4" {
		t.Errorf("keys %q; want %q", got, "4")
	}
}

// Writers of unjournaled transactions and readers at once: every read sees at least the rows
// acknowledged before it began (a read commits the open group first), and every row is there at
// the end. Run with -race.
func TestUnjournaledGroupsConcurrent(t *testing.T) {
	db := openIndexed(t)
	ctx := context.Background()
	const writers, each, readers = 4, 50, 4
	var acked atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := insertRows(ctx, db, w*each+i); err != nil {
					errs <- err
					return
				}
				acked.Add(1)
			}
		}()
	}
	done := make(chan struct{})
	var rg sync.WaitGroup
	for range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				want := acked.Load()
				var n int64
				if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
					errs <- err
					return
				}
				if n < want {
					errs <- fmt.Errorf("a read saw %d rows after %d were acknowledged", n, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != writers*each {
		t.Errorf("%d rows (%v); want %d", n, err, writers*each)
	}
	t.Logf("%d transactions in %d groups", db.UnjournaledCommits(), db.UnjournaledGroups())
}
