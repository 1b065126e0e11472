package pool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// testDB opens a database of a pool in a new directory, as the backend does.
func testDB(t testing.TB) *fsql.DB {
	t.Helper()
	sp, err := state.NewProvider("")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := New("file:"+t.TempDir()+"/", slog.Default(), slog.Default(), sp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	db, _, err := p.GetOrCreate(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// onConn runs f with one connection of db and the driver connection under it.
func onConn(t testing.TB, db *fsql.DB, f func(c *sql.Conn, sc *stmtConn)) {
	t.Helper()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var sc *stmtConn
	if err := c.Raw(func(dc any) error {
		var ok bool
		if sc, ok = dc.(*stmtConn); !ok {
			return fmt.Errorf("driver connection %T, want *stmtConn", dc)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f(c, sc)
}

func mustExec(t testing.TB, c interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// keptWrites is the number of write statements sc keeps.
func keptWrites(sc *stmtConn) int {
	n := 0
	for e := sc.order.Front(); e != nil; e = e.Next() {
		if cachedWrite(e.Value.(*cachedStmt).query) {
			n++
		}
	}
	return n
}

// An insert run again and again on a connection is prepared once, in transactions or not, and the
// rows are all there; statements other than writes are not kept.
func TestWritesStayPrepared(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t (j TEXT, b BLOB)`)
	mustExec(t, db, `CREATE UNIQUE INDEX t_j ON t (j->'$.id')`)
	const insert = `INSERT INTO "t" (j, b) VALUES (? || '', ?), (? || '', ?)`

	onConn(t, db, func(c *sql.Conn, sc *stmtConn) {
		for i := range 50 {
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, tx, insert, fmt.Sprintf(`{"id":%d}`, 2*i), []byte{byte(i)}, fmt.Sprintf(`{"id":%d}`, 2*i+1), []byte{})
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			mustExec(t, c, `UPDATE "t" SET b = ? WHERE j->>'$.id' = ?`, []byte("u"), 2*i)
			mustExec(t, c, `PRAGMA user_version = 1`)
		}
		if sc.prepared != 2 || keptWrites(sc) != 2 {
			t.Errorf("prepared %d statements, %d kept; want the insert and the update, once each", sc.prepared, keptWrites(sc))
		}

		var n, u, empty int
		q := `SELECT count(*), sum(b = x'75'), sum(length(b) = 0) FROM t`
		if err := c.QueryRowContext(ctx, q).Scan(&n, &u, &empty); err != nil {
			t.Fatal(err)
		}
		if n != 100 || u != 50 || empty != 50 {
			t.Errorf("%d rows, %d updated, %d empty; want 100, 50, 50", n, u, empty)
		}
	})
}

// A kept statement sees the schema as it is when it runs: an index created and a table dropped and
// created again on another connection are written by the next insert, and a failed insert (here a
// duplicate key) costs the statement nothing but a new preparation.
func TestPreparedWritesFollowTheSchema(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t (j TEXT, b BLOB)`)
	const insert = `INSERT INTO "t" (j, b) VALUES (? || '', ?)`

	onConn(t, db, func(a *sql.Conn, sa *stmtConn) {
		mustExec(t, a, insert, `{"id":1}`, []byte("a"))

		onConn(t, db, func(b *sql.Conn, _ *stmtConn) {
			mustExec(t, b, `CREATE UNIQUE INDEX t_j ON t (j->'$.id')`)
		})

		// the kept statement writes the new index: a duplicate is refused
		_, err := a.ExecContext(ctx, insert, `{"id":1}`, []byte("b"))
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code() != sqlite3lib.SQLITE_CONSTRAINT_UNIQUE {
			t.Fatalf("duplicate insert after the index: %v, want a unique constraint failure", err)
		}
		if keptWrites(sa) != 0 {
			t.Errorf("%d statements kept after a failure, want 0", keptWrites(sa))
		}
		mustExec(t, a, insert, `{"id":2}`, []byte("c"))

		onConn(t, db, func(b *sql.Conn, _ *stmtConn) {
			mustExec(t, b, `DROP TABLE t`)
			mustExec(t, b, `CREATE TABLE t (k INTEGER, j TEXT, b BLOB NOT NULL)`)
		})

		mustExec(t, a, insert, `{"id":3}`, []byte("d"))
		var k sql.NullInt64
		var j string
		if err := a.QueryRowContext(ctx, `SELECT k, j FROM t`).Scan(&k, &j); err != nil {
			t.Fatal(err)
		}
		if k.Valid || j != `{"id":3}` {
			t.Errorf("row %v, %q in the new table; want NULL, {\"id\":3}", k, j)
		}
		_, err = a.ExecContext(ctx, insert, `{"id":4}`, nil)
		if err == nil || !strings.Contains(err.Error(), "NOT NULL") {
			t.Errorf("insert of NULL into the new table's NOT NULL column: %v", err)
		}
	})
}

// A connection keeps at most stmtCacheSize statements, the last used, and finalizes the others;
// closing the database finalizes the rest.
func TestPreparedWritesAreBounded(t *testing.T) {
	db := testDB(t)
	mustExec(t, db, `CREATE TABLE t (j TEXT, b BLOB)`)

	insert := func(n int) string {
		return `INSERT INTO "t" (j, b) VALUES ` + strings.TrimSuffix(strings.Repeat(`(? || '', ?), `, n), ", ")
	}
	args := func(n int) []any {
		var a []any
		for range n {
			a = append(a, `{}`, []byte("x"))
		}
		return a
	}

	onConn(t, db, func(c *sql.Conn, sc *stmtConn) {
		status := func() int {
			var used int
			if err := c.Raw(func(dc any) error {
				var err error
				used, _, err = dc.(*stmtConn).sqliteConn.(interface {
					Status(sqlite.DBStatusOp, bool) (int, int, error)
				}).Status(sqlite.DBStatusStmtUsed, false)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return used
		}
		for n := 1; n <= 3*stmtCacheSize; n++ {
			mustExec(t, c, insert(n), args(n)...)
		}
		if sc.order.Len() != stmtCacheSize {
			t.Fatalf("%d statements kept, want %d", sc.order.Len(), stmtCacheSize)
		}
		used := status()
		t.Logf("%d statements kept: %d bytes of SQLite's memory", sc.order.Len(), used)

		// the last used are kept: running them again prepares nothing
		prepared := sc.prepared
		for n := 2*stmtCacheSize + 1; n <= 3*stmtCacheSize; n++ {
			mustExec(t, c, insert(n), args(n)...)
		}
		if sc.prepared != prepared {
			t.Errorf("%d statements prepared again, want 0", sc.prepared-prepared)
		}

		// the others were finalized: their memory is back
		for n := 1; n <= 3*stmtCacheSize; n++ {
			mustExec(t, c, insert(n), args(n)...)
		}
		if now := status(); now > used*11/10 {
			t.Errorf("statements' memory %d bytes after going round again, was %d", now, used)
		}
	})

	if err := db.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// BenchmarkInsertChunks times the INSERT of GridFS chunks of 255 KiB, four per transaction as
// gridfsd's uploads do (the transaction's BEGIN and COMMIT are not timed), into a table with the two
// indexes of a chunks collection: through a connection that keeps the INSERT prepared, and through
// the same connection's driver, which prepares it each time.
//
//	go test ./third_party/ferretdb/internal/backends/sqlite/metadata/pool -run - -bench InsertChunks -count 5
func BenchmarkInsertChunks(b *testing.B) {
	for _, kept := range []bool{true, false} {
		name := map[bool]string{true: "prepared", false: "each-time"}[kept]
		b.Run(name, func(b *testing.B) {
			db := testDB(b)
			ctx := context.Background()
			// the index expressions of metadata.KeyExpr
			key := func(f string) string {
				return fmt.Sprintf(`iif(json_type(_ferretdb_sjson, '$.%[1]s') IN ('integer', 'real'), _ferretdb_sjson->>'$.%[1]s', _ferretdb_sjson->'$.%[1]s')`, f)
			}
			for _, q := range []string{
				`CREATE TABLE t (_ferretdb_sjson TEXT, _gridfsd_bin BLOB)`,
				`CREATE UNIQUE INDEX t_id ON t (_ferretdb_sjson->'$._id')`,
				`CREATE UNIQUE INDEX t_fn ON t (` + key("files_id") + `, ` + key("n") + `)`,
			} {
				mustExec(b, db, q)
			}
			const perTx = 4
			insert := `INSERT INTO "t" (_ferretdb_sjson, _gridfsd_bin) VALUES ` + strings.TrimSuffix(strings.Repeat(`(? || '', ?), `, perTx), ", ")
			data := make([]byte, benchChunk)

			onConn(b, db, func(c *sql.Conn, sc *stmtConn) {
				exec := sc.ExecContext
				if !kept {
					exec = sc.sqliteConn.ExecContext
				}
				args := make([]driver.NamedValue, 2*perTx)
				b.SetBytes(perTx * int64(len(data)))
				b.ResetTimer()
				for i := range b.N {
					b.StopTimer()
					if _, err := sc.sqliteConn.ExecContext(ctx, "BEGIN", nil); err != nil {
						b.Fatal(err)
					}
					for j := range perTx {
						n := i*perTx + j
						args[2*j] = driver.NamedValue{Ordinal: 2*j + 1, Value: fmt.Sprintf(`{"$s":{},"_id":"%024x","files_id":1,"n":%d,"data":%d}`, n, n, len(data))}
						args[2*j+1] = driver.NamedValue{Ordinal: 2*j + 2, Value: data}
					}
					b.StartTimer()
					if _, err := exec(ctx, insert, args); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if _, err := sc.sqliteConn.ExecContext(ctx, "COMMIT", nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

var benchChunk = 255 << 10

// queryAll returns the j column of q's rows.
func queryAll(t testing.TB, c interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args ...any) []string {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var js []string
	for rows.Next() {
		var j string
		if err := rows.Scan(&j); err != nil {
			t.Fatal(err)
		}
		js = append(js, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return js
}

// A query run again and again on a connection (a find's, a pushdown guard's) is prepared once, with
// its rows right each time, empty or not, in transactions or not (PATCHES.md item 32).
func TestQueriesStayPrepared(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t (j TEXT, b BLOB)`)
	for i := range 10 {
		mustExec(t, db, `INSERT INTO t (j, b) VALUES (?, ?)`, fmt.Sprintf(`{"id":%d}`, i), []byte{byte(i)})
	}
	const q = `SELECT j FROM "t" WHERE j->>'$.id' >= ? AND j->>'$.id' < ? ORDER BY j->>'$.id'`

	onConn(t, db, func(c *sql.Conn, sc *stmtConn) {
		before := sc.preparedQueries
		for i := range 50 {
			lo := i % 12
			var got []string
			if i%2 == 0 {
				got = queryAll(t, c, q, lo, lo+3)
			} else {
				tx, err := c.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				got = queryAll(t, tx, q, lo, lo+3)
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			var want []string
			for k := lo; k < min(lo+3, 10); k++ {
				want = append(want, fmt.Sprintf(`{"id":%d}`, k))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d: %v, want %v", i, got, want)
			}
		}
		if n := sc.preparedQueries - before; n != 1 {
			t.Errorf("the query was prepared %d times, want once", n)
		}
		mustExec(t, c, `PRAGMA user_version = 1`)
		if _, ok := sc.stmts[`PRAGMA user_version = 1`]; ok {
			t.Error("a pragma is kept")
		}
	})
}

// Two rows of one query open at once on a connection (in a transaction) read their own rows; a
// kept query whose rows are open when the cache lets it go reads on, and is finalized when they
// are closed; a query that fails is prepared again; a table dropped and created again with other
// columns is read as it is now.
func TestPreparedQueriesOpenTogether(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t (j TEXT, b BLOB)`)
	for i := range 10 {
		mustExec(t, db, `INSERT INTO t (j, b) VALUES (?, ?)`, fmt.Sprintf(`{"id":%d}`, i), []byte{byte(i)})
	}
	const q = `SELECT j FROM "t" WHERE j->>'$.id' >= ? ORDER BY j->>'$.id'`

	onConn(t, db, func(c *sql.Conn, sc *stmtConn) {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := tx.QueryContext(ctx, q, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Next() {
			t.Fatal(a.Err())
		}
		// the same text while a's rows are open: a statement of its own
		if got := queryAll(t, tx, q, 7); fmt.Sprint(got) != `[{"id":7} {"id":8} {"id":9}]` {
			t.Errorf("second query: %v", got)
		}
		// enough other queries to push q out of the cache
		for i := range stmtCacheSize + 1 {
			queryAll(t, tx, fmt.Sprintf(`SELECT j FROM "t" WHERE j->>'$.id' = %d`, i))
		}
		if _, ok := sc.stmts[q]; ok {
			t.Fatal("q still kept")
		}
		got := []string{}
		for {
			var j string
			if err := a.Scan(&j); err != nil {
				t.Fatal(err)
			}
			got = append(got, j)
			if !a.Next() {
				break
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 8 || got[0] != `{"id":2}` || got[7] != `{"id":9}` {
			t.Errorf("first query read %v after the cache let it go", got)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		// a failed query (a cancelled context) leaves nothing kept that does not work
		if got := queryAll(t, c, q, 8); len(got) != 2 {
			t.Fatalf("%v", got)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.QueryContext(cctx, q, 1); err == nil {
			t.Error("query with a cancelled context succeeded")
		}
		if got := queryAll(t, c, q, 8); len(got) != 2 {
			t.Fatalf("after a failure: %v", got)
		}

		onConn(t, db, func(b *sql.Conn, _ *stmtConn) {
			mustExec(t, b, `DROP TABLE t`)
			mustExec(t, b, `CREATE TABLE t (k INTEGER, j TEXT, b BLOB)`)
			mustExec(t, b, `INSERT INTO t (k, j, b) VALUES (1, '{"id":9}', x'00')`)
		})
		if got := queryAll(t, c, q, 8); fmt.Sprint(got) != `[{"id":9}]` {
			t.Errorf("after the table was created again: %v", got)
		}
	})
	if err := db.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
