package fsql

// gridfsd patch (PATCHES.md item 51): the write-ahead log is checkpointed in the background, not
// by the writer whose commit makes it long.
//
// SQLite copies the log into the database file (a checkpoint) at the end of the commit that makes
// it longer than wal_autocheckpoint pages, before that commit returns. With 32 KiB pages that is
// every 32 MiB: the commit takes 45-60 ms instead of 2, and since writers take turns (item 24)
// every writer waits for it, so an upload stalls for that long every 32 MiB, about two fifths of
// its time in the store. A checkpoint need not hold writers up: SQLite lets one run beside a
// writer, copying the frames committed before it began. So a goroutine of the database does it,
// soon after commits, and the URI's wal_autocheckpoint is only a bound for when it falls behind.
//
// The log starts over only when a writer begins and finds every frame copied; with writes
// arriving all the time a checkpoint beside them never copies the last ones, and the log would
// grow without end. So once it is longer than restartBytes, the goroutine copies what the
// writers added meanwhile while they wait: after a pass or two beside them, a few MiB.

import (
	"context"
	"log/slog"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/logging"
)

const (
	// checkpointGather is how long the checkpointer lets commits gather after one, so that a pass
	// copies several.
	checkpointGather = 20 * time.Millisecond

	// checkpointCatchUp: while the writers added at least this much during the last pass, the
	// next one runs beside them too, at most checkpointPasses times, before the one they wait for.
	checkpointCatchUp = 2 << 20
	checkpointPasses  = 4
)

// checkpointer is a database's background checkpoints.
type checkpointer struct {
	commits chan struct{} // a commit happened (capacity 1)
	stop    context.CancelFunc
	done    chan struct{}
	behind  *writeBehind // the log's unsynced writes sent out (item 70), or nil
}

// StartCheckpoints checkpoints db's write-ahead log in the background from now on, until Close,
// and lets it start over once it is longer than restartBytes (see above). Its writers should
// checkpoint only as a last resort (a URI's wal_autocheckpoint well above restartBytes). When
// file, the database's file, is not empty, the log's writes not synced by their commits are sent
// to the disk as they are made (see writeBehind).
func (db *DB) StartCheckpoints(restartBytes int64, file string) error {
	var pageSize int64
	if err := db.sqlDB.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	db.ckpt = &checkpointer{commits: make(chan struct{}, 1), stop: cancel, done: make(chan struct{})}
	if db.ckpt.behind = newWriteBehind(file); db.ckpt.behind != nil {
		go db.ckpt.behind.loop(ctx)
	}

	go db.checkpointLoop(ctx, restartBytes/pageSize, max(checkpointCatchUp/pageSize, 1))

	return nil
}

// committed tells the checkpointer, if any, that a write committed; it returns at once.
func (db *DB) committed() {
	if db.ckpt == nil {
		return
	}

	select {
	case db.ckpt.commits <- struct{}{}:
	default:
	}
}

// stopCheckpoints stops the checkpointer, if any, and waits for it.
func (db *DB) stopCheckpoints() {
	if db.ckpt == nil {
		return
	}

	db.ckpt.stop()
	<-db.ckpt.done
	db.ckpt.behind.wait()
}

// WritesStarted is how many times the log's unsynced writes were sent to the disk (see
// writeBehind).
func (db *DB) WritesStarted() int64 {
	if db.ckpt == nil || db.ckpt.behind == nil {
		return 0
	}

	return db.ckpt.behind.starts.Load()
}

// BackgroundCheckpoints is how many checkpoints the checkpointer made.
func (db *DB) BackgroundCheckpoints() int64 { return db.checkpointsMade.Load() }

func (db *DB) checkpointLoop(ctx context.Context, restartFrames, catchUpFrames int64) {
	defer close(db.ckpt.done)

	for {
		select {
		case <-ctx.Done():
			return
		case <-db.ckpt.commits:
		}

		select {
		case <-ctx.Done():
			return
		case <-time.After(checkpointGather):
		}

		logged, err := db.passiveCheckpoint(ctx)
		for pass := 1; err == nil && logged >= restartFrames; pass++ {
			prev := logged
			if logged, err = db.passiveCheckpoint(ctx); err != nil {
				break
			}

			if logged-prev < catchUpFrames || pass == checkpointPasses {
				err = db.WithWriteLock(ctx, func() error {
					_, err := db.passiveCheckpoint(ctx)
					return err
				})

				break
			}
		}

		if err != nil && ctx.Err() == nil {
			db.l.WarnContext(ctx, "Background checkpoint failed", logging.Error(err))
		}
	}
}

// passiveCheckpoint copies the frames of the log that no reader still needs into the database
// file, without waiting for anyone, and returns how many frames the log holds.
func (db *DB) passiveCheckpoint(ctx context.Context) (logged int64, err error) {
	conn, err := db.sqlDB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()

	var busy, checkpointed int64
	if err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logged, &checkpointed); err != nil {
		return 0, err
	}

	db.checkpointsMade.Add(1)
	db.l.DebugContext(ctx, "Background checkpoint", slog.Int64("busy", busy), slog.Int64("logged", logged), slog.Int64("checkpointed", checkpointed))

	return logged, nil
}
