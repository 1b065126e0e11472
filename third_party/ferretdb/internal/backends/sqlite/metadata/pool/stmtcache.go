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

package pool

// gridfsd patch (PATCHES.md item 30): prepared statements kept per connection.

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	"modernc.org/sqlite"
)

// stmtCacheSize is how many prepared statements each connection keeps. The backend's writes are
// INSERTs of 1 to BatchSize documents, UPDATEs and DELETEs, one text per table and number of
// documents: a GridFS upload uses two or three (its batch size and a shorter last batch, the files
// document).
const stmtCacheSize = 32

// cachedWrite reports whether an ExecContext of query keeps its prepared statement: the backend's
// writes of documents, which run once per insert, update or delete call with the same text.
// Everything else (DDL, pragmas, BEGIN, the conversions at start) runs rarely and is prepared anew
// as before.
func cachedWrite(query string) bool {
	return strings.HasPrefix(query, "INSERT INTO ") ||
		strings.HasPrefix(query, "UPDATE ") ||
		strings.HasPrefix(query, "DELETE FROM ")
}

// stmtConnector opens connections of the SQLite driver that keep their write statements prepared.
type stmtConnector struct {
	c driver.Connector
}

// newStmtConnector returns a connector for uri.
func newStmtConnector(uri string) (driver.Connector, error) {
	c, err := sqlite.NewConnector(uri)
	if err != nil {
		return nil, err
	}

	return &stmtConnector{c: c}, nil
}

// Connect implements driver.Connector.
func (c *stmtConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.c.Connect(ctx)
	if err != nil {
		return nil, err
	}

	sc, ok := conn.(sqliteConn)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("pool: the SQLite driver's connection lacks a method of database/sql's interfaces")
	}

	return &stmtConn{sqliteConn: sc, stmts: make(map[string]*list.Element), order: list.New()}, nil
}

// Driver implements driver.Connector.
func (c *stmtConnector) Driver() driver.Driver {
	return c.c.Driver()
}

// sqliteConn is what database/sql uses of the SQLite driver's connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachedQuery reports whether a QueryContext of query keeps its prepared statement: the backend's
// queries, each run once per find, count, guard (pushdown.go) or getMore's query with the same text
// (gridfsd patch, PATCHES.md item 32).
func cachedQuery(query string) bool {
	return strings.HasPrefix(query, "SELECT ")
}

// cachedStmt is a statement of stmtConn's cache.
type cachedStmt struct {
	query string
	stmt  driver.Stmt

	// busy: the rows of a query of the statement are open; the statement is not run again until
	// they are closed. evicted: it left the cache meanwhile, and is finalized when they are.
	// finalized: the connection closed with them open (database/sql closes rows first).
	busy, evicted, finalized bool
}

// stmtConn is a connection of the SQLite driver whose ExecContext keeps the statements of
// cachedWrite prepared, the stmtCacheSize used last.
//
// Why: the driver prepares every statement it executes anew (sqlite3_prepare_v2, then
// sqlite3_finalize), and an INSERT's preparation compiles the key expressions of every index of its
// table, about 35 µs for a chunks collection's on a 2-core machine (BenchmarkInsertChunks), paid by
// every insert call. A statement kept prepared is reset after each execution, its parameters' memory
// freed (the driver's own path for prepared statements); SQLite prepares it again by itself when the
// schema changed (sqlite3_prepare_v2), so a new index or a dropped and re-created table is seen as
// before.
//
// database/sql uses a connection from one goroutine at a time, so the cache needs no lock.
type stmtConn struct {
	sqliteConn

	stmts map[string]*list.Element // of order, values *cachedStmt
	order *list.List               // most recently used first

	prepared        int // statements of cachedWrite prepared (for tests)
	preparedQueries int // statements of cachedQuery prepared (for tests)
}

// ExecContext implements driver.ExecerContext.
func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if !cachedWrite(query) {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}

	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}

	res, err := cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	if err != nil {
		// the driver has reset the statement, but nothing is lost by preparing it again after a
		// failure, which is rare (a duplicate key, a full disk, a cancelled context)
		c.drop(c.stmts[query])
		return nil, err
	}

	return res, nil
}

// stmt returns the kept statement of query, prepared now if it is not kept.
func (c *stmtConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if e, ok := c.stmts[query]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cachedStmt), nil
	}

	s, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}

	if cachedQuery(query) {
		c.preparedQueries++
	} else {
		c.prepared++
	}

	cs := &cachedStmt{query: query, stmt: s}
	c.stmts[query] = c.order.PushFront(cs)

	if c.order.Len() > stmtCacheSize {
		c.drop(c.order.Back())
	}

	return cs, nil
}

// QueryContext implements driver.QueryerContext.
//
// A query of cachedQuery runs its kept statement, whose rows reset it when they are closed instead
// of finalizing it (the driver's path for prepared statements). Two rows of one text may be open
// at once on a connection (in a transaction): the second runs a statement of its own, prepared
// and finalized as before.
func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if !cachedQuery(query) {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}

	if e, ok := c.stmts[query]; ok && e.Value.(*cachedStmt).busy {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}

	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}

	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		c.drop(c.stmts[query])
		return nil, err
	}

	sr, ok := rows.(sqliteRows)
	if !ok {
		_ = rows.Close()
		c.drop(c.stmts[query])

		return nil, errors.New("pool: the SQLite driver's rows lack a method of database/sql's interfaces")
	}

	cs.busy = true

	return &keptRows{sqliteRows: sr, cs: cs}, nil
}

// sqliteRows is what database/sql uses of the SQLite driver's rows.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// keptRows are the rows of a kept statement.
type keptRows struct {
	sqliteRows
	cs     *cachedStmt
	closed bool
}

// Close implements driver.Rows: the driver resets the statement, which may then run again (or is
// finalized, if it left the cache meanwhile).
func (r *keptRows) Close() error {
	if r.closed {
		return nil
	}

	r.closed = true

	if r.cs.finalized {
		return nil
	}

	err := r.sqliteRows.Close()
	r.cs.busy = false

	if r.cs.evicted {
		r.cs.finalized = true
		_ = r.cs.stmt.Close()
	}

	return err
}

// drop removes the statement of e from the cache and finalizes it, or, while its rows are open,
// leaves that to them.
func (c *stmtConn) drop(e *list.Element) {
	cs := e.Value.(*cachedStmt)
	c.order.Remove(e)
	delete(c.stmts, cs.query)

	if cs.busy {
		cs.evicted = true
		return
	}

	cs.finalized = true
	_ = cs.stmt.Close()
}

// Close implements driver.Conn: the cached statements are finalized before the connection closes.
func (c *stmtConn) Close() error {
	for c.order.Len() > 0 {
		cs := c.order.Front().Value.(*cachedStmt)
		cs.busy = false // rows left open die with the connection
		c.drop(c.order.Front())
	}

	return c.sqliteConn.Close()
}

// check interfaces
var (
	_ driver.Connector = (*stmtConnector)(nil)
	_ sqliteConn       = (*stmtConn)(nil)
)
