package metadata

// gridfsd patch (PATCHES.md, "space given back"): databases have auto_vacuum=INCREMENTAL (the pool
// converts older ones), so the pages deletes free can be handed back to the filesystem. A
// goroutine of the registry does it in the background, soon after deletes and once a minute
// otherwise, in small steps (each a short write transaction that moves pages from the end of the
// file into free ones and truncates it), with pauses between them so that writers are not held
// up for long, then checkpoints the write-ahead log so the file itself shrinks.

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

const (
	// vacuumStepBytes is how much one step gives back at most: 128 pages of 32 KiB, which took
	// 10-120 ms (once 420 ms with steps twice as large) on a busy machine of 2 cores.
	vacuumStepBytes = 4 << 20

	// vacuumDelay is how long the vacuum waits after a delete before it starts, so that the
	// deletes of one file (its chunks, then its files document) are given back together.
	vacuumDelay = time.Second

	// vacuumEvery is how often the vacuum looks for freed pages when nothing told it about a
	// delete (updates that shrink documents free pages too).
	vacuumEvery = time.Minute
)

// vacuum is the registry's background vacuum.
type vacuum struct {
	// pending holds the databases whose last checkpoint could not empty the log (readers were
	// using it), so their files have not shrunk yet; only the goroutine uses it.
	pending map[string]bool

	poke chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// startVacuum starts the registry's background vacuum; Close stops it.
func (r *Registry) startVacuum() {
	ctx, cancel := context.WithCancel(context.Background())
	r.vacuum = &vacuum{pending: map[string]bool{}, poke: make(chan struct{}, 1), stop: cancel, done: make(chan struct{})}

	go func() {
		defer close(r.vacuum.done)

		t := time.NewTicker(vacuumEvery)
		defer t.Stop()

		for {
			var retry <-chan time.Time
			if len(r.vacuum.pending) > 0 {
				retry = time.After(vacuumDelay)
			}

			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-retry:
			case <-r.vacuum.poke:
				select {
				case <-ctx.Done():
					return
				case <-time.After(vacuumDelay):
				}
			}

			for _, name := range r.p.List(ctx) {
				db := r.p.GetExisting(ctx, name)
				if db == nil {
					continue
				}

				err := r.vacuumDB(ctx, name, db)
				if err == nil || ctx.Err() != nil {
					continue
				}

				// gridfsd patch (PATCHES.md item 53): a database dropped meanwhile was closed under
				// the vacuum; that is no failure (Drop holds the pool's lock until it is gone)
				if r.p.GetExisting(ctx, name) != db {
					delete(r.vacuum.pending, name)
					continue
				}

				r.notices.WarnContext(ctx, "Incremental vacuum failed", slog.String("db", name), slog.String("error", err.Error()))
			}
		}
	}()
}

// stopVacuum stops the background vacuum and waits for it.
func (r *Registry) stopVacuum() {
	if r.vacuum == nil {
		return
	}

	r.vacuum.stop()
	<-r.vacuum.done
}

// SpaceFreed tells the background vacuum that pages were freed; it returns at once.
func (r *Registry) SpaceFreed() {
	if r.vacuum == nil {
		return
	}

	select {
	case r.vacuum.poke <- struct{}{}:
	default:
	}
}

// vacuumDB gives the free pages of one database back to the filesystem.
func (r *Registry) vacuumDB(ctx context.Context, name string, db *fsql.DB) error {
	var mode, pageSize, free int64

	for q, v := range map[string]*int64{
		"PRAGMA auto_vacuum": &mode, "PRAGMA page_size": &pageSize, "PRAGMA freelist_count": &free,
	} {
		if err := db.QueryRowContext(ctx, q).Scan(v); err != nil {
			return lazyerrors.Error(err)
		}
	}

	if mode != 2 || free == 0 && !r.vacuum.pending[name] {
		return nil
	}

	start := time.Now()
	step := max(vacuumStepBytes/pageSize, 1)
	freed := free
	var steps int
	var longest time.Duration

	for free > 0 {
		t := time.Now()

		if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", step)); err != nil {
			return lazyerrors.Error(err)
		}

		d := time.Since(t)
		longest = max(longest, d)
		steps++

		if err := db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return lazyerrors.Error(err)
		}

		if free == 0 {
			break
		}

		// as long again for everybody else
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(d, 5*time.Millisecond)):
		}
	}

	// The file shrinks once the write-ahead log is checkpointed up to the last step, and the log
	// once it is emptied. Readers of older snapshots keep a checkpoint from finishing: this one
	// does not wait for them (nor hold up writers), and the next run tries again.
	done, err := checkpoint(ctx, db)
	if err != nil {
		return lazyerrors.Error(err)
	}

	if r.vacuum.pending[name] = !done; !done {
		return nil
	}
	delete(r.vacuum.pending, name)

	if steps == 0 {
		return nil
	}

	r.l.DebugContext(
		ctx, "Gave free pages back to the filesystem", slog.String("db", name),
		slog.Int64("bytes", (freed-free)*pageSize), slog.Int("steps", steps),
		slog.Duration("longest_step", longest), slog.Duration("took", time.Since(start)),
	)

	return nil
}

// checkpoint copies the write-ahead log into the database file and truncates both, unless a
// reader or a writer is using the log; it reports whether it did. It holds the write lock while it
// copies, so it takes its turn among the writers (PATCHES.md item 24).
func checkpoint(ctx context.Context, db *fsql.DB) (done bool, err error) {
	err = db.WithWriteLock(ctx, func() error {
		done, err = checkpointConn(ctx, db)
		return err
	})

	return done, err
}

// checkpointConn is checkpoint's work, on a connection of its own.
func checkpointConn(ctx context.Context, db *fsql.DB) (bool, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()

	if _, err = conn.ExecContext(ctx, "PRAGMA busy_timeout=0"); err != nil {
		return false, err
	}

	var busy, logged, checkpointed int64
	err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &checkpointed)

	// not back into the pool without the URI's busy timeout
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })

	return err == nil && busy == 0, err
}
