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
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

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

	// unjournaled counts the transactions of InUnjournaledTransaction that succeeded.
	unjournaled atomic.Int64
	// syncLevel is the connections' synchronous level plus one, 0 until InUnjournaledTransaction
	// read it.
	syncLevel atomic.Int32

	// group is the open group of unjournaled transactions, or nil (PATCHES.md item 60): only the
	// holder of the write turn touches it or groupLost. grouped says whether it is set, for
	// readers; groupCommits counts the groups committed.
	group        *unjournaledGroup
	grouped      atomic.Bool
	groupLost    error
	groupCommits atomic.Int64

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

// Close calls [*sql.DB.Close], after it commits the open group of unjournaled transactions, if
// any.
func (db *DB) Close() error {
	_ = db.settle(context.Background())
	db.stopCheckpoints()
	resource.Untrack(db, db.token)
	return db.sqlDB.Close()
}

// Conn calls [*sql.DB.Conn]: one connection of the pool, for statements that must run on the
// same connection (gridfsd, PATCHES.md "space given back": a checkpoint that does not wait).
func (db *DB) Conn(ctx context.Context) (*sql.Conn, error) {
	if err := db.settle(ctx); err != nil {
		return nil, err
	}

	return db.sqlDB.Conn(ctx)
}

// Ping calls [*sql.DB.Ping].
func (db *DB) Ping(ctx context.Context) error {
	return db.sqlDB.Ping()
}

// QueryContext calls [*sql.DB.QueryContext].
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	// gridfsd patch (PATCHES.md item 60): the unjournaled transactions acknowledged before it
	if err := db.settle(ctx); err != nil {
		return nil, err
	}

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
	// gridfsd patch (PATCHES.md item 60): as QueryContext; a failure is the next writer's to report
	_ = db.settle(ctx)

	start := time.Now()

	fields := []any{slog.Any("args", args)}
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf(">>> %s", query))

	row := db.sqlDB.QueryRowContext(ctx, query, args...)

	fields = append(fields, slog.Duration("time", time.Since(start)), logging.Error(row.Err()))
	db.l.With(fields...).DebugContext(ctx, fmt.Sprintf("<<< %s", query))

	return row
}

// takeTurn waits until no other writer of this process is using the database, or until ctx is
// done, and returns the function that lets the next one in.
//
// gridfsd patch (PATCHES.md item 24): SQLite has one write lock per database, and a writer that
// finds it taken sleeps and tries again (busy_timeout) with no place in a queue: whoever asks
// when it is free gets it, so under many writers one could lose every time until its busy
// timeout ran out ("database is locked"). Writers wait here instead, in the order they came,
// for as long as their context allows; SQLite's busy handler is left for other processes.
func (db *DB) takeTurn(ctx context.Context) (func(), error) {
	select {
	case db.writes <- struct{}{}:
		return func() { <-db.writes }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// lockWrites is takeTurn for a writer that is not an unjournaled transaction: it commits the open
// group of those first (PATCHES.md item 60), and fails if that commit fails, or if an earlier one
// failed that no caller was told of, since the writes that group acknowledged are lost.
func (db *DB) lockWrites(ctx context.Context) (func(), error) {
	unlock, err := db.takeTurn(ctx)
	if err != nil {
		return nil, err
	}

	if err = db.endGroup(); err == nil {
		err, db.groupLost = db.groupLost, nil
	}

	if err != nil {
		unlock()
		return nil, err
	}

	return unlock, nil
}

// WithWriteLock runs f as this process's only writer of the database (see lockWrites), for
// writes that do not go through ExecContext or InTransaction (gridfsd, PATCHES.md item 24: a
// checkpoint on a connection of its own).
//
// The open group of unjournaled transactions is committed first (PATCHES.md item 60); a failure
// of that is left for the next writer to report, and f runs.
func (db *DB) WithWriteLock(ctx context.Context, f func() error) error {
	unlock, err := db.takeTurn(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	_ = db.endGroupForNext()

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
// commit of the database makes it durable, with every commit before it.
//
// gridfsd patch (PATCHES.md item 50): in WAL mode a commit under synchronous=NORMAL writes its
// frames to the log without an fsync, and the log is one file written in order whose frames each
// carry a checksum of every frame before them, so a later fsync of it makes every earlier frame
// durable as well. The level is the connection's and cannot change inside a transaction, so the
// transaction runs on a connection of its own, set to NORMAL before it begins and back after.
//
// gridfsd patch (PATCHES.md item 60): the transactions are grouped. One that succeeds is left
// open, as the database's group, and the next unjournaled transaction runs inside it; the group
// commits when any other use of the database comes (a writer, which takes its turn after it, a
// read or Conn, which wait for it), when it holds groupMax transactions, or groupLinger after the
// last one. Every commit writes, besides the rows, the pages that every insert changes (the
// database's header, the table's and its indexes' last pages, the pointer map's), 32 KiB each:
// six of them for a 765 KiB insert of three chunks. Since every use of the database commits the
// group first, no reader or writer sees the database without a transaction that was
// acknowledged, as before. A process that dies loses the group: unjournaled writes may be lost
// before a sync, as on MongoDB (its journal is written every 100 ms). The group's statements run
// without the callers' cancellation, which would roll back all of it (sqlite3_interrupt inside a
// transaction).
//
// f must read and write through its Tx only, and when it fails it must first undo what it wrote,
// or return an error wrapping ErrNotUndone: a failed statement undoes itself, unless SQLite rolls
// back the whole transaction (a full disk, an I/O error), and then the group's transactions are
// lost, and the next writer is told. A savepoint per transaction would undo f's writes for it, but
// copies every page of the group that the transaction changes into memory, in 1 KiB pieces,
// which cost the store more than the commits it saves.
func (db *DB) InUnjournaledTransaction(ctx context.Context, f func(*Tx) error) (err error) {
	unlock, err := db.takeTurn(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	if db.group == nil {
		if err = db.beginGroup(ctx); err != nil {
			return err
		}
	}

	g := db.group
	tx := wrapTx(g.tx, db.l)
	tx.detached = true

	err = g.run(tx, f)
	resource.Untrack(tx, tx.token) // the group's transaction ends later

	if err != nil {
		switch {
		case g.joined == 0:
			// nothing acknowledged in it
			db.dropGroup()
		case g.broken:
			// what the group held is lost with it: the caller hears of its own failure, the next
			// writer of the loss
			_ = db.endGroupForNext()
		}

		return err
	}

	g.joined++
	g.last = time.Now()
	db.unjournaled.Add(1)

	// The group's pages past SQLite's page cache are in the log already
	// (spilled): their writes start now, not when the group commits, so
	// that the synced commit after the group (a resumable append's record,
	// while its client waits) finds them written (PATCHES.md item 71).
	if db.ckpt != nil {
		db.ckpt.behind.unsynced()
	}

	if g.joined >= groupMax {
		return db.endGroup()
	}

	g.timer.Reset(groupLinger)

	return nil
}

// groupMax is the most unjournaled transactions a group holds before it commits: with gridfsd's
// inserts of three chunks, 12 MiB, against the official driver's 16 MiB inserts.
const groupMax = 16

// groupLinger is how long a group waits for the next unjournaled transaction. An upload's next
// insert is on its way while one is in the store. A variable for tests (SetGroupLinger).
var groupLinger = 5 * time.Millisecond

// SetGroupLinger sets how long a group of unjournaled transactions waits for the next one, and
// returns the function that sets it back: for tests that must not depend on timing.
func SetGroupLinger(d time.Duration) (restore func()) {
	old := groupLinger
	groupLinger = d

	return func() { groupLinger = old }
}

// unjournaledGroup is an open transaction of unjournaled writes (see InUnjournaledTransaction).
type unjournaledGroup struct {
	conn   *sql.Conn
	tx     *sql.Tx
	level  int         // the connection's synchronous level, restored when the group ends
	joined int         // the transactions in it
	broken bool        // a failure rolled back more than its own transaction
	cause  error       // that failure, if it was f's
	timer  *time.Timer // commits it groupLinger after the last transaction (lingered)
	last   time.Time   // when the last transaction ended
}

// run runs f in g. If f fails with an error on which SQLite may roll back the whole transaction,
// or could not undo its writes, or does not return, g is broken (see keepsTransaction).
func (g *unjournaledGroup) run(tx *Tx, f func(*Tx) error) (err error) {
	var done bool

	defer func() {
		// as runTx: f may not return (runtime.Goexit in tests, a panic)
		if !done {
			g.broken, g.cause = true, errors.New("a transaction did not return")
		}
	}()

	err = f(tx)
	done = true

	if err != nil && !keepsTransaction(err) {
		g.broken, g.cause = true, err
	}

	// do not wrap f's error because the caller depends on it in some cases
	return err
}

// keepsTransaction reports whether the transaction is as it was before a failed f that returned
// err: SQLite rolls back only the failed statement, and f undid its other writes, unless the error
// is one on which SQLite may roll back the whole transaction (a full disk, an I/O error, and the
// like), or f could not undo them (ErrNotUndone).
func keepsTransaction(err error) bool {
	if errors.Is(err, ErrNotUndone) {
		return false
	}

	var se *sqlite.Error
	if !errors.As(err, &se) {
		return true
	}

	switch se.Code() & 0xff {
	case sqlite3lib.SQLITE_FULL, sqlite3lib.SQLITE_IOERR, sqlite3lib.SQLITE_BUSY, sqlite3lib.SQLITE_NOMEM,
		sqlite3lib.SQLITE_INTERRUPT, sqlite3lib.SQLITE_CORRUPT, sqlite3lib.SQLITE_NOTADB:
		return false
	default:
		return true
	}
}

// ErrNotUndone is what a failed transaction of InUnjournaledTransaction wraps when it could not
// undo its writes (PATCHES.md item 60): its group is then rolled back.
var ErrNotUndone = errors.New("fsql: a failed transaction's writes were not undone")

// beginGroup opens the database's group of unjournaled transactions (see
// InUnjournaledTransaction), with the write turn held.
func (db *DB) beginGroup(ctx context.Context) error {
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

	g := &unjournaledGroup{conn: conn, level: level}

	// a URI may have chosen NORMAL or OFF for every commit already
	if level > synchronousNormal {
		if _, err = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA synchronous = %d", synchronousNormal)); err != nil {
			g.release(db.l)
			return lazyerrors.Error(err)
		}
	}

	// not the caller's context: its end would roll the group back
	if g.tx, err = conn.BeginTx(context.Background(), nil); err != nil {
		g.release(db.l)
		return lazyerrors.Error(err)
	}

	g.timer = time.AfterFunc(time.Hour, func() { db.lingered(g) })
	g.timer.Stop()

	db.group = g
	db.grouped.Store(true)

	return nil
}

// release gives g's connection back to the pool at its level, or closes it (the group's outcome
// stands either way): a later transaction on it must not lose its durability.
func (g *unjournaledGroup) release(l *slog.Logger) {
	if g.level > synchronousNormal {
		restore := fmt.Sprintf("PRAGMA synchronous = %d", g.level)
		if _, err := g.conn.ExecContext(context.Background(), restore); err != nil {
			l.Warn("fsql: a connection left unsynced is closed", logging.Error(err))
			g.conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}

	g.conn.Close()
}

// endGroup commits the open group, if any, with the write turn held. An error means that the
// transactions it acknowledged are lost.
func (db *DB) endGroup() error {
	g := db.group
	if g == nil {
		return nil
	}

	var err error
	if g.broken {
		err = lazyerrors.Errorf("%d unjournaled transactions were lost: %w", g.joined, g.cause)
		_ = g.tx.Rollback()
	} else if err = g.tx.Commit(); err != nil {
		err = lazyerrors.Errorf("%d unjournaled transactions were lost: %w", g.joined, err)
	}

	db.dropGroup()

	if err == nil {
		db.groupCommits.Add(1)
		db.committed()

		if db.ckpt != nil {
			db.ckpt.behind.unsynced()
		}
	}

	return err
}

// endGroupForNext is endGroup for a caller that is not the writer the group's durability waits
// for (a reader, the checkpointer, the group's timer): a failure is also kept for the next writer
// to report (lockWrites).
func (db *DB) endGroupForNext() error {
	err := db.endGroup()
	if err != nil {
		db.groupLost = err
	}

	return err
}

// dropGroup forgets the open group, rolling back what it has not committed, with the write turn
// held.
func (db *DB) dropGroup() {
	g := db.group
	g.timer.Stop()
	_ = g.tx.Rollback() // after a commit: sql.ErrTxDone
	g.release(db.l)

	db.group = nil
	db.grouped.Store(false)
}

// lingered commits g if it is still the open group and no transaction joined it for groupLinger:
// the timer may have fired while one ran in it, which then set it again.
func (db *DB) lingered(g *unjournaledGroup) {
	unlock, err := db.takeTurn(context.Background())
	if err != nil {
		return
	}
	defer unlock()

	if db.group != g || time.Since(g.last) < groupLinger {
		return
	}

	_ = db.endGroupForNext()
}

// settle commits the open group of unjournaled transactions, if any, for a reader: it then sees
// every transaction acknowledged before it began. A failure of that commit is returned, and is
// the next writer's to report too (lockWrites).
func (db *DB) settle(ctx context.Context) error {
	if !db.grouped.Load() {
		return nil
	}

	unlock, err := db.takeTurn(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	return db.endGroupForNext()
}

// synchronousNormal is SQLite's synchronous=NORMAL.
const synchronousNormal = 1

// UnjournaledCommits is how many transactions InUnjournaledTransaction ran without a sync.
func (db *DB) UnjournaledCommits() int64 { return db.unjournaled.Load() }

// UnjournaledGroups is how many groups of those were committed (PATCHES.md item 60).
func (db *DB) UnjournaledGroups() int64 { return db.groupCommits.Load() }

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
