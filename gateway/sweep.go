package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// liveUploads are the uploads this process is writing, by bucket and
// formatted files_id. The sweeper never removes their chunks, whatever
// their age: a client that sends less than a chunk batch in the grace
// period would otherwise see its upload's first chunks swept. Uploads of
// other gateways are protected by the grace period alone.
type liveUploads struct {
	mu  sync.Mutex
	ids map[string]bool
}

func liveKey(bucket string, id any) string { return bucket + "\x00" + buckets.FormatID(id) }

// add marks an upload live until the returned function is called.
func (l *liveUploads) add(bucket string, id any) (done func()) {
	k := liveKey(bucket, id)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil {
		l.ids = make(map[string]bool)
	}
	l.ids[k] = true
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.ids, k)
	}
}

func (l *liveUploads) has(bucket string, id any) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[liveKey(bucket, id)]
}

// runSweeper removes orphaned chunks from every bucket every SweepInterval
// until ctx ends; it does nothing when SweepInterval is 0. Orphans are the
// chunks of uploads whose process died before the files document was
// written; those younger than SweepGrace are left alone, since an upload
// still streaming looks exactly like one that died, except that it keeps
// writing chunks with fresh ObjectId timestamps.
func (s *Server) runSweeper(ctx context.Context) {
	if s.cfg.SweepInterval <= 0 {
		return
	}
	s.cfg.Logger.Info("orphan sweeper started", "interval", s.cfg.SweepInterval.String(), "grace", s.cfg.SweepGrace.String())
	t := time.NewTicker(s.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.Sweep(ctx)
	}
}

// Sweep removes the orphaned chunks older than SweepGrace from every
// bucket once, except those of uploads this server is running, logging
// what it removed, and returns how many chunks it removed. Failures are
// logged and the next bucket is tried: a sweep is housekeeping, and a store
// outage is reported by /readyz already.
func (s *Server) Sweep(ctx context.Context) int64 {
	log := s.cfg.Logger.With("component", "sweeper")
	names, err := s.cfg.DB.Names(ctx)
	if err != nil {
		log.Warn("sweep: list buckets", "error", err)
		return 0
	}
	var total int64
	for _, name := range names {
		b, err := s.cfg.DB.Bucket(ctx, name)
		if err != nil {
			log.Warn("sweep: open bucket", "bucket", name, "error", err)
			continue
		}
		orphans, err := b.FindOrphans(ctx, s.cfg.SweepGrace)
		if err != nil {
			log.Warn("sweep: find orphans", "bucket", name, "error", err)
			continue
		}
		var old []buckets.Orphan
		for _, o := range orphans.Old {
			if !s.live.has(name, o.FilesID) {
				old = append(old, o)
			}
		}
		if len(old) == 0 {
			continue
		}
		removed, chunks, err := b.RemoveOrphans(ctx, old)
		if err != nil {
			log.Warn("sweep: remove orphans", "bucket", name, "error", err)
		}
		for _, o := range removed {
			log.Info("sweep: removed orphaned chunks", "bucket", name, "files_id", o.FilesID,
				"chunks", o.Chunks, "newest_chunk", o.Newest().UTC().Format(time.RFC3339))
		}
		total += chunks
	}
	if total > 0 {
		s.metrics.sweptChunks.Add(float64(total))
	}
	return total
}
