// gridfsd patch (PATCHES.md item 51): the write-ahead log is checkpointed in the background.

package fsql

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// With writers that never checkpoint (wal_autocheckpoint off) and never pause, the background
// checkpoints copy the log into the database and make it start over once it passes restartBytes:
// after 24 MiB written in one stream of commits the log's file holds a few MiB, and the rows are
// all there. Before the change nothing checkpoints the log and it holds all 24 MiB; with
// checkpoints that only run beside the writers, the last frames are never copied while they write,
// so the log never starts over either.
func TestBackgroundCheckpoints(t *testing.T) {
	dir := t.TempDir()
	sqlDB, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "t.sqlite")+
		"?_pragma=page_size(4096)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(10000)&_journal_mode=wal")
	if err != nil {
		t.Fatal(err)
	}
	db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err = db.ExecContext(ctx, "CREATE TABLE t (v BLOB)"); err != nil {
		t.Fatal(err)
	}
	const restart = 2 << 20
	if err = db.StartCheckpoints(restart); err != nil {
		t.Fatal(err)
	}

	row := make([]byte, 64<<10)
	const rows = 384 // 24 MiB
	for range rows {
		err := db.InTransaction(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (?)", row)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if db.BackgroundCheckpoints() == 0 {
		t.Fatal("no background checkpoint while 24 MiB were written")
	}

	fi, err := os.Stat(filepath.Join(dir, "t.sqlite-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 4*restart {
		t.Errorf("the log's file holds %d bytes after 24 MiB written; want at most %d (it did not start over)", fi.Size(), 4*restart)
	}
	var n int
	if err = db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != rows {
		t.Errorf("%d rows; want %d", n, rows)
	}
}
