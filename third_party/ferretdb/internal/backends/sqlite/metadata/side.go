package metadata

// gridfsd patch (PATCHES.md item 23, "binary as binary"): the binary data of a document's top-level
// fields is kept as bytes in a BLOB column beside its text (sjson.AppendMarshalSide), except in
// _id and in the fields an index reads, whose index expressions need it in the text.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// SideColumn holds the binary data kept beside a document's text, an empty BLOB when there is none,
// and NULL in the documents written before it (which convertRows rewrites).
const SideColumn = "_gridfsd_bin"

// SideLengthColumn is the name a query gives the length of SideColumn when it reads the text only
// (gridfsd patch, PATCHES.md item 31): length() of a BLOB is in its row's header, so SQLite reads
// none of the bytes (nor their overflow pages). NULL for a NULL SideColumn.
const SideLengthColumn = "_gridfsd_bin_length"

// inlineFields returns the top-level fields whose binary data stays in the text: _id and every
// field (or the top of every dotted path) an index reads.
func inlineFields(s Settings) map[string]bool {
	fields := map[string]bool{"_id": true}

	for _, index := range s.Indexes {
		for _, k := range index.Key {
			top, _, _ := strings.Cut(k.Field, ".")
			fields[top] = true
		}
	}

	return fields
}

// Inline reports whether binary data of a top-level field of the collection's documents stays in
// the text.
func (c *Collection) Inline() func(string) bool {
	fields := inlineFields(c.Settings)
	return func(key string) bool { return fields[key] }
}

// SameInline reports whether the collection's documents keep the same fields' binary data in the
// text with settings as with c's.
func (c *Collection) SameInline(settings Settings) bool {
	a, b := inlineFields(c.Settings), inlineFields(settings)
	if len(a) != len(b) {
		return false
	}

	for f := range a {
		if !b[f] {
			return false
		}
	}

	return true
}

// CurrentSettings reads the collection's settings inside tx: a writer that holds SQLite's write lock
// sees the settings of the last committed index change.
func CurrentSettings(ctx context.Context, tx *fsql.Tx, tableName string) (Settings, error) {
	var s Settings
	q := fmt.Sprintf("SELECT settings FROM %q WHERE table_name = ?", metadataTableName)

	if err := tx.QueryRowContext(ctx, q, tableName).Scan(&s); err != nil {
		return s, lazyerrors.Error(err)
	}

	return s, nil
}

// addSideColumns adds SideColumn to the tables of a database written before it.
func (r *Registry) addSideColumns(ctx context.Context, dbName string, db *fsql.DB) error {
	for _, c := range r.colls[dbName] {
		var n int

		q := `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`
		if err := db.QueryRowContext(ctx, q, c.TableName, SideColumn).Scan(&n); err != nil {
			return lazyerrors.Error(err)
		}

		if n > 0 {
			continue
		}

		if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %q ADD COLUMN %s BLOB", c.TableName, SideColumn)); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// inlineRows rewrites, inside tx, the documents of the collection whose binary data of a field
// that inline now keeps in the text is beside it. It holds one document at a time.
func inlineRows(ctx context.Context, tx *fsql.Tx, tableName string, inline func(string) bool) error {
	reencode := func(text, side []byte) ([]byte, []byte, bool, error) {
		doc, err := sjson.UnmarshalFieldsSide(text, side, nil)
		if err != nil {
			return nil, nil, false, lazyerrors.Error(err)
		}

		newText, newSide, err := sjson.AppendMarshalSide(nil, nil, doc, inline)
		if err != nil {
			return nil, nil, false, lazyerrors.Error(err)
		}

		return newText, newSide, len(newSide) != len(side), nil
	}

	q := fmt.Sprintf("SELECT rowid, %s, %s FROM %q WHERE %s IS NOT NULL", DefaultColumn, SideColumn, tableName, SideColumn)

	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return lazyerrors.Error(err)
	}

	var ids []int64

	for rows.Next() {
		var id int64
		var text, side []byte

		if err = rows.Scan(&id, &text, &side); err != nil {
			rows.Close()
			return lazyerrors.Error(err)
		}

		_, _, changed, err := reencode(text, side)
		if err != nil {
			rows.Close()
			return err
		}

		if changed {
			ids = append(ids, id)
		}
	}

	if err = rows.Err(); err != nil {
		rows.Close()
		return lazyerrors.Error(err)
	}

	rows.Close()

	get := fmt.Sprintf("SELECT %s, %s FROM %q WHERE rowid = ?", DefaultColumn, SideColumn, tableName)
	set := fmt.Sprintf("UPDATE %q SET %s = ? || '', %s = ? WHERE rowid = ?", tableName, DefaultColumn, SideColumn)

	for _, id := range ids {
		var text, side []byte
		if err = tx.QueryRowContext(ctx, get, id).Scan(&text, &side); err != nil {
			return lazyerrors.Error(err)
		}

		newText, newSide, _, err := reencode(text, side)
		if err != nil {
			return err
		}

		sideArg := newSide
		if newSide == nil {
			sideArg = []byte{}
		}

		if _, err = tx.ExecContext(ctx, set, string(newText), sideArg, id); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// convertBatch is how many documents convertRows rewrites in one transaction.
const convertBatch = 32

// convertRowsMargin is the free disk space convertRows wants before it starts.
const convertRowsMargin = 64 << 20

// convertRows rewrites the documents written before binary data was kept beside the text (those
// whose SideColumn is NULL), convertBatch at a time, each batch in a transaction of its own: a kill
// leaves every document in its old form or its new one, both of which read the same, and the next
// start goes on. It logs its progress every 5 seconds.
func (r *Registry) convertRows(ctx context.Context, dbName string, db *fsql.DB) error {
	for _, c := range r.colls[dbName] {
		var total int64

		q := fmt.Sprintf("SELECT count(*) FROM %q WHERE %s IS NULL", c.TableName, SideColumn)
		if err := db.QueryRowContext(ctx, q).Scan(&total); err != nil {
			return lazyerrors.Error(err)
		}

		if total == 0 {
			continue
		}

		// A batch rewrites its documents in the write-ahead log before their old pages are
		// freed: room for a few batches of GridFS chunks, and for what the store writes next.
		if dir := r.p.Dir(); dir != "" {
			if free, err := r.p.DiskFree(); err == nil && free < convertRowsMargin {
				r.notices.WarnContext(ctx, fmt.Sprintf(
					"%d documents of %s.%s keep binary data as base64 text (a third larger): converting them needs "+
						"%d MiB free on the disk of %s, %d MiB available; free some space and restart (docs/DEPLOYMENT.md)",
					total, dbName, c.Name, convertRowsMargin>>20, dir, free>>20))

				continue
			}
		}

		r.notices.InfoContext(ctx, fmt.Sprintf("Converting %d documents of %s.%s to keep binary data as bytes", total, dbName, c.Name))

		inline := r.Inline(c)
		start, logged := time.Now(), time.Now()
		var done int64
		var batches int
		last := int64(-1 << 63)

		sel := fmt.Sprintf("SELECT rowid, %s FROM %q WHERE %s IS NULL AND rowid > ? ORDER BY rowid LIMIT %d", DefaultColumn, c.TableName, SideColumn, convertBatch)
		set := fmt.Sprintf("UPDATE %q SET %s = ? || '', %s = ? WHERE rowid = ?", c.TableName, DefaultColumn, SideColumn)

		for {
			var n int

			err := db.InTransaction(ctx, func(tx *fsql.Tx) error {
				rows, err := tx.QueryContext(ctx, sel, last)
				if err != nil {
					return lazyerrors.Error(err)
				}

				type row struct {
					id         int64
					text, side []byte
				}

				var batch []row

				for rows.Next() {
					var id int64
					var text []byte

					if err = rows.Scan(&id, &text); err != nil {
						rows.Close()
						return lazyerrors.Error(err)
					}

					doc, err := sjson.UnmarshalFieldsSide(text, nil, nil)
					if err != nil {
						rows.Close()
						return lazyerrors.Error(err)
					}

					newText, side, err := sjson.AppendMarshalSide(nil, nil, doc, inline)
					if err != nil {
						rows.Close()
						return lazyerrors.Error(err)
					}

					batch = append(batch, row{id: id, text: newText, side: side})
				}

				if err = rows.Err(); err != nil {
					rows.Close()
					return lazyerrors.Error(err)
				}

				rows.Close()

				for _, r := range batch {
					side := r.side
					if side == nil {
						side = []byte{}
					}

					if _, err = tx.ExecContext(ctx, set, string(r.text), side, r.id); err != nil {
						return lazyerrors.Error(err)
					}

					last = r.id
				}

				n = len(batch)

				return nil
			})
			if err != nil {
				var se *sqlite3.Error
				if errors.As(err, &se) && se.Code() == sqlite3lib.SQLITE_FULL {
					r.notices.WarnContext(ctx, fmt.Sprintf(
						"The disk of %s filled while converting %s.%s (%d of %d documents done, the rest keep binary data "+
							"as base64 text); free some space and restart (docs/DEPLOYMENT.md)", r.p.Dir(), dbName, c.Name, done, total))

					break
				}

				return err
			}

			if n == 0 {
				break
			}

			done += int64(n)
			batches++
			convertPause(batches)

			if time.Since(logged) >= 5*time.Second {
				logged = time.Now()
				r.notices.InfoContext(ctx, fmt.Sprintf("Converting %s.%s: %d of %d documents (%d%%) in %s",
					dbName, c.Name, done, total, done*100/total, time.Since(start).Round(time.Second)))
			}
		}

		r.notices.InfoContext(ctx, fmt.Sprintf("Converted %d documents of %s.%s in %s", done, dbName, c.Name, time.Since(start).Round(time.Millisecond)))
		r.SpaceFreed()
	}

	return nil
}

// convertPauseEnv is a test knob (PATCHES.md item 23): GRIDFSD_TEST_ROWS_PAUSE=<n> stops the
// conversion of documents after its n-th batch is committed, prints "gridfsd-rows-paused <n>" to
// standard error and waits to be killed.
const convertPauseEnv = "GRIDFSD_TEST_ROWS_PAUSE"

func convertPause(n int) {
	if os.Getenv(convertPauseEnv) != strconv.Itoa(n) {
		return
	}

	fmt.Fprintf(os.Stderr, "gridfsd-rows-paused %d\n", n)

	for {
		time.Sleep(time.Hour)
	}
}
