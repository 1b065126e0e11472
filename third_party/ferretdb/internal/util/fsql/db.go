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

// Package fsql provides [database/sql] utilities.
package fsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/logging"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/resource"
)

// DB wraps [*database/sql.DB] with tracing, metrics, logging, and resource tracking.
//
// It exposes the subset of *sql.DB methods we use except that it returns *Rows instead of *sql.Rows.
// It also exposes additional methods.
type DB struct {
	*metricsCollector

	sqlDB     *sql.DB
	l         *slog.Logger
	token     *resource.Token
	BatchSize int

	// writes admits one writer at a time (gridfsd, PATCHES.md item 24): its waiters queue in
	// order, so that none times out in SQLite's busy handler while others keep the lock.
	writes chan struct{}

	// unjournaled counts the commits of InUnjournaledTransaction that were not synced.
	unjournaled atomic.Int64
	// syncLevel is the connections' synchronous level plus one, 0 until InUnjournaledTransaction
	// read it.
	syncLevel atomic.Int32

	// ckpt checkpoints the log in the background, or is nil (PATCHES.md item 51, StartCheckpoints).
	ckpt            *checkpointer
	checkpointsMade atomic.Int64
}

// WrapDB creates a new DB.
//
// Name is used for metric label values, etc.
// Logger (that will be named) is used for query logging.
func WrapDB(db *sql.DB, name string, l *slog.Logger) *DB {
	if db == nil {
		return nil
	}

	res := &DB{
		metricsCollector: newMetricsCollector(name, db.Stats),
		sqlDB:            db,
		l:                logging.WithName(l, name),
		token:            resource.NewToken(),
		writes:           make(chan struct{}, 1),
	}

	resource.Track(res, res.token)

	return res
}

// Close calls [*sql.DB.Close].
func (db *DB) Close() error {
	db.stopCheckpoints()
	resource.Untrack(db, db.token)
	return db.sqlDB.Close()
}

// Conn calls [*sql.DB.Conn]: one connection of the pool, for statements that must run on the
// same connection (gridfsd, PATCHES.md "space given back": a checkpoint that does not wait).
func (db *DB) Conn(ctx context.Context) (*sql.Conn, error) {
	return db.sqlDB.Conn(ctx)
}

// Ping calls [*sql.DB.Ping].
func (db *DB) Ping(ctx context.Context) error {
	return db.sqlDB.Ping()
}

// QueryContext calls [*sql.DB.QueryContext].
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	start := time.Now()

	fields := []any{slog.Any("args", args)}
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf(">>> %s", query))

	rows, err := db.sqlDB.QueryContext(ctx, query, args...)

	fields = append(fields, slog.Duration("time", time.Since(start)), logging.Error(err))
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf("<<< %s", query))

	return wrapRows(rows), err
}

// QueryRowContext calls [*sql.DB.QueryRowContext].
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	start := time.Now()

	fields := []any{slog.Any("args", args)}
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf(">>> %s", query))

	row := db.sqlDB.QueryRowContext(ctx, query, args...)

	fields = append(fields, slog.Duration("time", time.Since(start)), logging.Error(row.Err()))
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf("<<< %s", query))

	return row
}

// lockWrites waits until no other writer of this process is using the database, or until ctx
// is done, and returns the function that lets the next one in.
//
// gridfsd patch (PATCHES.md item 24): SQLite has one write lock per database, and a writer that
// finds it taken sleeps and tries again (busy_timeout) with no place in a queue: whoever asks
// when it is free gets it, so under many writers one could lose every time until its busy
// timeout ran out ("database is locked"). Writers wait here instead, in the order they came,
// for as long as their context allows; SQLite's busy handler is left for other processes.
func (db *DB) lockWrites(ctx context.Context) (func(), error) {
	select {
	case db.writes <- struct{}{}:
		return func() { <-db.writes }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// WithWriteLock runs f as this process's only writer of the database (see lockWrites), for
// writes that do not go through ExecContext or InTransaction (gridfsd, PATCHES.md item 24: a
// checkpoint on a connection of its own).
func (db *DB) WithWriteLock(ctx context.Context, f func() error) error {
	unlock, err := db.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	return f()
}

// ExecContext calls [*sql.DB.ExecContext]; every statement it runs writes, so it waits its turn
// (gridfsd, PATCHES.md item 24).
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	unlock, err := db.lockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	start := time.Now()

	fields := []any{slog.Any("args", args)}
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf(">>> %s", query))

	res, err := db.sqlDB.ExecContext(ctx, query, args...)
	if err == nil {
		db.committed()
	}

	if res != nil {
		ra, _ := res.RowsAffected()
		fields = append(fields, slog.Int64("rows", ra))
	}

	fields = append(fields, slog.Duration("time", time.Since(start)), logging.Error(err))
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf("<<< %s", query))

	return res, err
}

// InTransaction wraps the given function f in a transaction.
//
// If f returns an error or context is canceled, the transaction is rolled back.
func (db *DB) InTransaction(ctx context.Context, f func(*Tx) error) (err error) {
	// gridfsd patch (PATCHES.md item 24): every transaction writes; it waits its turn, and the
	// next writer is let in once it is committed or rolled back
	unlock, err := db.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	sqlTx, err := db.sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return lazyerrors.Error(err)
	}

	if err = runTx(sqlTx, db.l, f); err == nil {
		db.committed()
	}

	return err
}

// InUnjournaledTransaction is InTransaction for a writer that asked for no journal (write concern
// j: false): its commit is not synced to disk, so a power loss may undo it, but the next synced
// commit of the database makes it durable, with every commit before it. A process that dies does
// not undo it.
//
// gridfsd patch (PATCHES.md item 50): in WAL mode a commit under synchronous=NORMAL writes its
// frames to the log without an fsync, and the log is one file written in order whose frames each
// carry a checksum of every frame before them, so a later fsync of it makes every earlier frame
// durable as well. The level is the connection's and cannot change inside a transaction, so the
// transaction runs on a connection of its own, set to NORMAL before it begins and back after.
func (db *DB) InUnjournaledTransaction(ctx context.Context, f func(*Tx) error) (err error) {
	unlock, err := db.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	conn, err := db.sqlDB.Conn(ctx)
	if err != nil {
		return lazyerrors.Error(err)
	}

	// every connection opens with the URI's pragmas: the level is read once
	level := int(db.syncLevel.Load()) - 1
	if level < 0 {
		if err = conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil {
			conn.Close()
			return lazyerrors.Error(err)
		}

		db.syncLevel.Store(int32(level) + 1)
	}

	defer func() {
		// the connection goes back to the pool at its level, or not at all (the transaction's
		// outcome stands either way): a later transaction on it must not lose its durability
		if level > synchronousNormal {
			restore := fmt.Sprintf("PRAGMA synchronous = %d", level)
			if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), restore); rerr != nil {
				db.l.Warn("fsql: a connection left unsynced is closed", logging.Error(rerr))
				conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}

		conn.Close()
	}()

	// a URI may have chosen NORMAL or OFF for every commit already
	if level > synchronousNormal {
		if _, err = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA synchronous = %d", synchronousNormal)); err != nil {
			return lazyerrors.Error(err)
		}
	}

	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return lazyerrors.Error(err)
	}

	if err = runTx(sqlTx, db.l, f); err == nil {
		db.unjournaled.Add(1)
		db.committed()
	}

	return err
}

// synchronousNormal is SQLite's synchronous=NORMAL.
const synchronousNormal = 1

// UnjournaledCommits is how many transactions InUnjournaledTransaction committed without a sync.
func (db *DB) UnjournaledCommits() int64 { return db.unjournaled.Load() }

// runTx runs f in sqlTx and commits, or rolls back if f fails or does not return.
func runTx(sqlTx *sql.Tx, l *slog.Logger, f func(*Tx) error) (err error) {

	tx := wrapTx(sqlTx, l)

	var done bool

	defer func() {
		// It is not enough to check `err == nil` there,
		// because in tests `f` could contain testify/require.XXX or `testing.TB.FailNow()` calls
		// that call `runtime.Goexit()`, leaving `err` unset in `err = f(tx)` below.
		// This situation would hang a test.
		//
		// As a bonus, checking a separate variable also handles any panics in `f`,
		// including `panic(nil)` that is problematic for tests too.
		if done {
			return
		}

		if err == nil {
			err = lazyerrors.Errorf("transaction was not committed")
		}

		_ = tx.Rollback()
	}()

	if err = f(tx); err != nil {
		// do not wrap f's error because the caller depends on it in some cases
		return
	}

	if err = tx.Commit(); err != nil {
		err = lazyerrors.Error(err)
		return
	}

	done = true

	return
}

// check interfaces
var (
	_ prometheus.Collector = (*DB)(nil)
)

// ExecSchema runs a statement that changes the schema (CREATE or DROP of a table or an index) as a
// writer, on a connection whose copy of the schema is current.
//
// gridfsd patch (PATCHES.md item 52): SQLite parses a statement against the schema its connection
// last read, and checks whether that is current only when the statement runs; "already exists" is
// decided while parsing. A connection of the pool that sat idle while another dropped a table and
// created it again (a bucket dropped and created at once) still held the old table's indexes, and
// the index creation on it failed with "index ... already exists". A read of sqlite_schema first,
// in the same transaction, finds the schema changed and makes the connection read it again.
func (db *DB) ExecSchema(ctx context.Context, query string) error {
	return db.InTransaction(ctx, func(tx *Tx) error {
		if err := RefreshSchema(ctx, tx); err != nil {
			return err
		}

		_, err := tx.ExecContext(ctx, query)

		return err
	})
}

// RefreshSchema makes tx's connection read the schema again if it changed since it last did, so
// that the statements after it in tx are parsed against the current one (see ExecSchema).
func RefreshSchema(ctx context.Context, tx *Tx) error {
	var n int
	return tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n)
}
