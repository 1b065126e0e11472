// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package cursor

import (
	"context"
	"log/slog"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/exp/maps"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/debugbuild"
)

// Parts of Prometheus metric names.
const (
	namespace = "ferretdb"
	subsystem = "cursors"
)

// Global last cursor ID.
var lastCursorID atomic.Uint32

// IdleTimeout closes a cursor nobody has read for that long, as MongoDB's cursorTimeoutMillis (10 minutes
// by default) does: a cursor no longer ends with the connection that created it (gridfsd patch, PATCHES.md,
// "cursors outlive connections"), so one a client abandons without killCursors would otherwise stay open,
// holding an SQLite read transaction.
var IdleTimeout = 10 * time.Minute

func init() {
	// to make debugging easier
	if !debugbuild.Enabled {
		lastCursorID.Store(rand.Uint32())
	}
}

// Registry stores cursors.
//
//nolint:vet // for readability
type Registry struct {
	rw sync.RWMutex
	m  map[int64]*Cursor

	l  *slog.Logger
	wg sync.WaitGroup

	created  *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewRegistry creates a new Registry.
func NewRegistry(l *slog.Logger) *Registry {
	return &Registry{
		m: map[int64]*Cursor{},
		l: l,
		created: prometheus.NewCounterVec(
			prometheus.CounterOpts{
				Namespace: namespace,
				Subsystem: subsystem,
				Name:      "created_total",
				Help:      "Total number of cursors created.",
			},
			[]string{"type", "db", "collection", "username"},
		),
		duration: prometheus.NewHistogramVec(
			prometheus.HistogramOpts{
				Namespace: namespace,
				Subsystem: subsystem,
				Name:      "duration_seconds",
				Help:      "Cursors lifetime in seconds.",
				Buckets: []float64{
					(1 * time.Millisecond).Seconds(),
					(5 * time.Millisecond).Seconds(),
					(10 * time.Millisecond).Seconds(),
					(25 * time.Millisecond).Seconds(),
					(50 * time.Millisecond).Seconds(),
					(100 * time.Millisecond).Seconds(),
					(250 * time.Millisecond).Seconds(),
					(500 * time.Millisecond).Seconds(),
					(1000 * time.Millisecond).Seconds(),
					(2500 * time.Millisecond).Seconds(),
					(5000 * time.Millisecond).Seconds(),
					(10000 * time.Millisecond).Seconds(),
				},
			},
			[]string{"type", "db", "collection", "username"},
		),
	}
}

// Close waits for all cursors to be closed and removed from the registry.
func (r *Registry) Close() {
	// gridfsd patch (PATCHES.md, "cursors outlive connections"): cursors no longer end with their connection
	for _, c := range r.All() {
		r.CloseAndRemove(c)
	}

	r.wg.Wait()
}

// NewParams represent parameters for NewCursor.
type NewParams struct {
	// Data stored, but not used by this package.
	// Used to pass *handler.findCursorData between `find` and `getMore` command implementations.
	// Stored as any to avoid dependency cycle.
	Data any

	// those fields are used for limited authorization checks
	// before we implement proper authz and/or sessions
	DB         string
	Collection string
	Username   string

	Type         Type
	ShowRecordID bool

	_ struct{} // prevent unkeyed literals
}

// NewCursor creates and stores a new cursor.
//
// The cursor of any type will be closed automatically when a given context is canceled,
// even if the cursor is not being used at that time.
func (r *Registry) NewCursor(ctx context.Context, iter types.DocumentsIterator, params *NewParams) *Cursor {
	r.rw.Lock()
	defer r.rw.Unlock()

	// use global, sequential, positive, short cursor IDs to make debugging easier
	var id int64
	for id == 0 || r.m[id] != nil {
		id = int64(lastCursorID.Add(1))
	}

	r.l.DebugContext(
		ctx,
		"Creating cursor",
		slog.Int64("id", id),
		slog.String("type", params.Type.String()),
		slog.String("db", params.DB),
		slog.String("collection", params.Collection),
		slog.String("username", params.Username),
	)

	r.created.WithLabelValues(params.Type.String(), params.DB, params.Collection, params.Username).Inc()

	c := newCursor(id, iter, params, r)
	r.m[id] = c

	r.wg.Add(1)
	go func() {
		defer r.wg.Done()

		// gridfsd patch (PATCHES.md, "cursors outlive connections"): closed when idle, as MongoDB does
		tick := time.NewTicker(min(IdleTimeout/10, time.Minute))
		defer tick.Stop()

	wait:
		for {
			select {
			case <-ctx.Done():
				r.CloseAndRemove(c)
				break wait
			case <-c.removed: // for c.Close() and normal cursors
				break wait
			case <-tick.C:
				if c.idle() > IdleTimeout {
					r.l.Debug("Closing idle cursor", slog.Int64("id", c.ID))
					r.CloseAndRemove(c)

					break wait
				}
			}
		}

		<-c.removed
	}()

	return c
}

// Get returns stored cursor by ID, or nil.
func (r *Registry) Get(id int64) *Cursor {
	r.rw.RLock()
	defer r.rw.RUnlock()

	return r.m[id]
}

// All returns a shallow copy of all stored cursors.
func (r *Registry) All() []*Cursor {
	r.rw.RLock()
	defer r.rw.RUnlock()

	return maps.Values(r.m)
}

// CloseAndRemove closes the given cursors, then removes it from the registry.
func (r *Registry) CloseAndRemove(c *Cursor) {
	c.Close()

	r.rw.Lock()
	defer r.rw.Unlock()

	if r.m[c.ID] == nil {
		return
	}

	d := time.Since(c.created)
	r.l.Debug(
		"Removing cursor",
		slog.Int64("id", c.ID),
		slog.String("type", c.Type.String()),
		slog.Int("total", len(r.m)),
		slog.Duration("duration", d),
	)

	r.duration.WithLabelValues(c.Type.String(), c.DB, c.Collection, c.Username).Observe(d.Seconds())

	delete(r.m, c.ID)
	close(c.removed)
}

// Describe implements [prometheus.Collector].
func (r *Registry) Describe(ch chan<- *prometheus.Desc) {
	r.created.Describe(ch)
	r.duration.Describe(ch)
}

// Collect implements [prometheus.Collector].
func (r *Registry) Collect(ch chan<- prometheus.Metric) {
	r.created.Collect(ch)
	r.duration.Collect(ch)
}

// check interfaces
var (
	_ prometheus.Collector = (*Registry)(nil)
)
