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

// Package pool provides access to SQLite databases and their connections.
//
// It should be used only by the metadata package.
package pool

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/exp/maps"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/logging"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/resource"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// filenameExtension represents SQLite database filename extension.
const filenameExtension = ".sqlite"

// Parts of Prometheus metric names.
const (
	namespace = "ferretdb"
	subsystem = "sqlite_pool"
)

// Pool provides access to SQLite databases and their connections.
//
//nolint:vet // for readability
type Pool struct {
	uri url.URL
	l   *slog.Logger
	sp  *state.Provider

	rw  sync.RWMutex
	dbs map[string]*fsql.DB

	token *resource.Token
}

// New creates a pool for SQLite databases in the directory specified by SQLite URI.
//
// All databases are opened on creation.
//
// The returned map is the initial set of existing databases.
// It should not be modified.
//
// The conversions of databases written before report to notices (gridfsd patch, PATCHES.md item 43).
func New(u string, l, notices *slog.Logger, sp *state.Provider) (*Pool, map[string]*fsql.DB, error) {
	uri, err := parseURI(u)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to parse SQLite URI %q: %s", u, err)
	}

	p := &Pool{
		uri:   *uri,
		l:     l,
		sp:    sp,
		dbs:   map[string]*fsql.DB{},
		token: resource.NewToken(),
	}

	resource.Track(p, p.token)

	if p.memory() {
		return p, p.dbs, nil
	}

	matches, err := filepath.Glob(filepath.Join(uri.Path, "*"+filenameExtension))
	if err != nil {
		p.Close()
		return nil, nil, lazyerrors.Error(err)
	}

	for _, f := range matches {
		name := p.databaseName(f)
		uri := p.databaseURI(name)

		p.l.Debug("Opening existing database", slog.String("name", name), slog.String("uri", uri))

		// gridfsd patch (PATCHES.md, "space given back")
		if !p.autoVacuum() {
			// the URI chose a vacuum mode
		} else if err := convertAutoVacuum(f, pageSize(p.uri.Query()), notices); err != nil {
			p.Close()
			return nil, nil, lazyerrors.Error(err)
		}

		db, err := openDB(name, uri, f, p.memory(), p.autoVacuum(), l, p.sp)
		if err != nil {
			p.Close()
			return nil, nil, lazyerrors.Error(err)
		}

		p.dbs[name] = db
	}

	return p, p.dbs, nil
}

// autoVacuum reports whether the pool gives its databases auto_vacuum=INCREMENTAL (gridfsd,
// PATCHES.md "space given back"): unless the URI sets a mode of its own.
func (p *Pool) autoVacuum() bool {
	for _, v := range p.uri.Query()["_pragma"] {
		if strings.HasPrefix(v, "auto_vacuum") {
			return false
		}
	}
	return !p.uri.Query().Has("_auto_vacuum") && !p.uri.Query().Has("_vacuum")
}

// Dir is the directory of the pool's database files (gridfsd, PATCHES.md item 23); empty for an
// in-memory pool.
func (p *Pool) Dir() string {
	if p.memory() {
		return ""
	}

	return p.uri.Path
}

// DiskFree returns the bytes available on the filesystem of the pool's directory.
func (p *Pool) DiskFree() (int64, error) {
	return diskFree(p.uri.Path)
}

// memory returns true if the pool is for the in-memory database.
func (p *Pool) memory() bool {
	return p.uri.Query().Get("mode") == "memory"
}

// databaseName returns database name for given database file path.
func (p *Pool) databaseName(databaseFile string) string {
	if p.memory() {
		panic("should not be called for in-memory database")
	}

	return strings.TrimSuffix(filepath.Base(databaseFile), filenameExtension)
}

// databaseURI returns SQLite URI for the given database name,
// even for in-memory database.
func (p *Pool) databaseURI(databaseName string) string {
	dbURI := p.uri
	dbURI.Path = path.Join(dbURI.Path, databaseName+filenameExtension)
	dbURI.Opaque = dbURI.Path

	return dbURI.String()
}

// databaseFile returns database file path for the given database name,
// or empty string for in-memory database.
func (p *Pool) databaseFile(databaseName string) string {
	if p.memory() {
		return ""
	}

	return filepath.Join(p.uri.Path, databaseName+filenameExtension)
}

// Close closes all databases in the pool and frees all resources.
func (p *Pool) Close() {
	p.rw.Lock()
	defer p.rw.Unlock()

	for _, db := range p.dbs {
		_ = db.Close()
	}

	p.dbs = nil

	resource.Untrack(p, p.token)
}

// List returns a sorted list of database names in the pool.
func (p *Pool) List(ctx context.Context) []string {
	p.rw.RLock()
	defer p.rw.RUnlock()

	res := maps.Keys(p.dbs)
	sort.Strings(res)

	return res
}

// GetExisting returns an existing database by valid name, or nil.
func (p *Pool) GetExisting(ctx context.Context, name string) *fsql.DB {
	p.rw.RLock()
	defer p.rw.RUnlock()

	return p.dbs[name]
}

// GetOrCreate returns an existing database by valid name, or creates a new one.
//
// Returned boolean value indicates whether the database was created.
func (p *Pool) GetOrCreate(ctx context.Context, name string) (*fsql.DB, bool, error) {
	db := p.GetExisting(ctx, name)
	if db != nil {
		return db, false, nil
	}

	p.rw.Lock()
	defer p.rw.Unlock()

	// it might have been created by a concurrent call
	if db := p.dbs[name]; db != nil {
		return db, false, nil
	}

	uri := p.databaseURI(name)
	db, err := openDB(name, uri, p.databaseFile(name), p.memory(), p.autoVacuum(), p.l, p.sp)
	if err != nil {
		return nil, false, lazyerrors.Errorf("%s: %w", uri, err)
	}

	p.l.DebugContext(ctx, "Database created", slog.String("name", name), slog.String("uri", uri))

	p.dbs[name] = db

	return db, true, nil
}

// Drop closes and removes a database by valid name.
//
// It does nothing if the database does not exist.
//
// Returned boolean value indicates whether the database was removed.
func (p *Pool) Drop(ctx context.Context, name string) bool {
	p.rw.Lock()
	defer p.rw.Unlock()

	db, ok := p.dbs[name]
	if !ok {
		return false
	}

	if err := db.Close(); err != nil {
		p.l.WarnContext(ctx, "Failed to close database connection", slog.String("name", name), logging.Error(err))
	}

	delete(p.dbs, name)

	if f := p.databaseFile(name); f != "" {
		if err := os.Remove(f); err != nil {
			p.l.WarnContext(
				ctx,
				"Failed to remove database file",
				slog.String("file", f),
				slog.String("name", name),
				logging.Error(err),
			)
		}
	}

	p.l.DebugContext(ctx, "Database dropped", slog.String("name", name))

	return true
}

// Describe implements prometheus.Collector.
func (p *Pool) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(p, ch)
}

// Collect implements prometheus.Collector.
func (p *Pool) Collect(ch chan<- prometheus.Metric) {
	p.rw.RLock()
	defer p.rw.RUnlock()

	ch <- prometheus.MustNewConstMetric(
		prometheus.NewDesc(
			prometheus.BuildFQName(namespace, subsystem, "databases"),
			"The current number of database in the pool.",
			nil, nil,
		),
		prometheus.GaugeValue,
		float64(len(p.dbs)),
	)

	for _, db := range p.dbs {
		db.Collect(ch)
	}
}

// check interfaces
var (
	_ prometheus.Collector = (*Pool)(nil)
)
