// gridfsd patch (PATCHES.md item 52): schema changes are parsed against the current schema.

package fsql

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// A connection that sat idle while another dropped a table and created it again still holds the
// old table's index in its copy of the schema: an index creation parsed there fails with "already
// exists" (what ExecContext gives), and ExecSchema, which makes the connection read the schema
// again first, succeeds.
func TestExecSchemaOnAStaleConnection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		exec    func(db *DB, ctx context.Context, q string) error
		wantErr bool
	}{
		{"ExecContext", func(db *DB, ctx context.Context, q string) error { _, err := db.ExecContext(ctx, q); return err }, true},
		{"ExecSchema", (*DB).ExecSchema, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			sqlDB, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "t.sqlite")+"?_journal_mode=wal")
			if err != nil {
				t.Fatal(err)
			}
			sqlDB.SetMaxOpenConns(2)
			db := WrapDB(sqlDB, "test", slog.New(slog.DiscardHandler))
			t.Cleanup(func() { db.Close() })

			stale, err := sqlDB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			other, err := sqlDB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			for _, q := range []string{"CREATE TABLE t (v)", "CREATE INDEX t_v ON t (v)"} {
				if _, err := stale.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			stale.Close() // idle in the pool, with t and t_v in its schema

			// the bucket dropped and created again, on the other connection
			for _, q := range []string{"SELECT count(*) FROM t", "DROP TABLE t", "CREATE TABLE t (v)"} {
				if _, err := other.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}

			// the only idle connection is the stale one
			err = tc.exec(db, ctx, "CREATE INDEX t_v ON t (v)")
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "already exists") {
					t.Fatalf("on the stale connection: %v; want index t_v already exists (the failure the change works around)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
