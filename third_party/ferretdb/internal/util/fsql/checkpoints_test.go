// gridfsd patch (PATCHES.md item 51): the write-ahead log is checkpointed in the background.

package fsql

import (
	"context"
	"database/sql"
	"encoding/binary"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// With writers that never checkpoint (wal_autocheckpoint off) and never pause, the background
// checkpoints copy the log into the database and make it start over once it passes restartBytes:
// after 24 MiB written in one stream of commits the log has started over, and the rows are all
// there. Before the change nothing checkpoints the log and it holds all 24 MiB; with checkpoints
// that only run beside the writers, the last frames are never copied while they write, so the log
// never starts over either.
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
	if err = db.StartCheckpoints(restart, ""); err != nil {
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

	// The log's header counts its restarts (SQLite's "checkpoint sequence number", bytes 12-15):
	// a count, not the log's size, which depends on how much CPU the checkpointer got meanwhile.
	// A log that never starts over also holds all 24 MiB.
	hdr := make([]byte, 16)
	f, err := os.Open(filepath.Join(dir, "t.sqlite-wal"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err = io.ReadFull(f, hdr); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if restarts := binary.BigEndian.Uint32(hdr[12:]); restarts == 0 || fi.Size() >= rows*64<<10 {
		t.Errorf("the log started over %d times and its file holds %d bytes after 24 MiB written; want it to start over", restarts, fi.Size())
	}
	var n int
	if err = db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != rows {
		t.Errorf("%d rows; want %d", n, rows)
	}
}
