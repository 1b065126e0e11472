package fsql

// gridfsd patch (PATCHES.md item 70): the log's unsynced writes are sent to the disk as they are
// made, so that the synced commit after them waits for little.
//
// Commits without a sync (item 50) leave their frames in the page cache, and the next synced
// commit (an upload's files document, the journaled last insert of a resumable append) writes all
// of them to the disk before it returns: an 8 MiB append's 8 MiB, 5 ms and more of its reply
// while the client waits and the store has nothing else to do. So after each unsynced commit a
// goroutine of the database asks the kernel to start writing the log's dirty pages out
// (sync_file_range SYNC_FILE_RANGE_WRITE: it neither waits for the writes nor flushes the disk's
// cache, and durability is still the synced commit's), and that commit finds them mostly written.

import (
	"context"
	"os"
	"sync/atomic"
)

// writeBehind starts writing out the log's dirty pages after unsynced commits.
type writeBehind struct {
	path    string   // the log's
	f       *os.File // the log, opened once it exists; opened again when SQLite made it anew
	written chan struct{}
	done    chan struct{}
	starts  atomic.Int64
}

// newWriteBehind returns the write-behind of the log of the database in dbFile, or nil where the
// platform cannot start writes.
func newWriteBehind(dbFile string) *writeBehind {
	if !canWriteBehind || dbFile == "" {
		return nil
	}

	return &writeBehind{path: dbFile + "-wal", written: make(chan struct{}, 1), done: make(chan struct{})}
}

// unsynced tells the goroutine that a commit, or a transaction of an open group, left frames
// unsynced; it returns at once.
func (w *writeBehind) unsynced() {
	if w == nil {
		return
	}

	select {
	case w.written <- struct{}{}:
	default:
	}
}

// loop starts writes after unsynced commits until ctx ends.
func (w *writeBehind) loop(ctx context.Context) {
	defer close(w.done)

	defer func() {
		if w.f != nil {
			_ = w.f.Close()
		}
	}()

	for {
		select {
		case <-ctx.Done():
			return
		case <-w.written:
		}

		if w.start() {
			w.starts.Add(1)
		}
	}
}

// wait waits for the loop to end.
func (w *writeBehind) wait() {
	if w != nil {
		<-w.done
	}
}
