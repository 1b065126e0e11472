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

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// collection implements backends.Collection interface.
type collection struct {
	r      *metadata.Registry
	dbName string
	name   string
}

// newCollection creates a new Collection.
func newCollection(r *metadata.Registry, dbName, name string) backends.Collection {
	return backends.CollectionContract(&collection{
		r:      r,
		dbName: dbName,
		name:   name,
	})
}

// Query implements backends.Collection interface.
func (c *collection) Query(ctx context.Context, params *backends.QueryParams) (*backends.QueryResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return &backends.QueryResult{
			Iter: newQueryIterator(ctx, nil, params.OnlyRecordIDs, nil),
		}, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return &backends.QueryResult{
			Iter: newQueryIterator(ctx, nil, params.OnlyRecordIDs, nil),
		}, nil
	}

	// gridfsd patch (PATCHES.md item 31): a caller that reads only fields whose binaries the collection
	// keeps in the text (a count or a delete by _id or by indexed fields) leaves the bytes beside it
	// unread
	inline := c.r.Inline(meta)
	sideUnread := params.Fields != nil && !params.OnlyRecordIDs && !slices.ContainsFunc(params.Fields, func(f string) bool {
		return !inline(f)
	})

	q := prepareSelectClause(meta.TableName, params.Comment, meta.Capped(), params.OnlyRecordIDs, sideUnread)

	// gridfsd patch (PATCHES.md, "index pushdown"): upstream pushed down a lone _id equality only,
	// with an expression no index matched
	pd, err := c.pushdown(ctx, db, meta, params.Filter, params.Sort, params.FieldSort)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	var args []any
	var sorted bool

	if pd != nil {
		q += pd.where
		args = pd.args
		sorted = pd.sorted
	}

	if sorted {
		q += pd.orderBy
	} else {
		q += prepareOrderByClause(params.Sort)
	}

	if params.Limit != 0 {
		q += ` LIMIT ?`
		args = append(args, params.Limit)
	}

	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return &backends.QueryResult{
		Iter:   newQueryIterator(ctx, rows, params.OnlyRecordIDs, params.Fields),
		Sorted: sorted,
	}, nil
}

// pushdown returns the part of the query SQLite answers through an index, or nil
// (gridfsd patch, PATCHES.md "index pushdown").
func (c *collection) pushdown(ctx context.Context, db *fsql.DB, meta *metadata.Collection, filter, natural, sort *types.Document) (*pushdown, error) { //nolint:lll // for readability
	if natural.Len() != 0 {
		// $natural order is the record id's; the filter may still use an index
		sort = nil
	}

	pd := preparePushdown(meta, filter, sort)
	if pd == nil {
		return nil, nil
	}

	ok, err := pd.guardsPass(ctx, db, meta.TableName)
	if err != nil || !ok {
		return nil, err
	}

	return pd, nil
}

// InsertAll implements backends.Collection interface.
func (c *collection) InsertAll(ctx context.Context, params *backends.InsertAllParams) (*backends.InsertAllResult, error) {
	if _, err := c.r.CollectionCreate(ctx, &metadata.CollectionCreateParams{DBName: c.dbName, Name: c.name}); err != nil {
		return nil, lazyerrors.Error(err)
	}

	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	meta := c.r.CollectionGet(ctx, c.dbName, c.name)

	// gridfsd patch (PATCHES.md item 23): documents are encoded with the fields an index reads kept
	// in the text; if an index changed that set between the encoding and the insert (it commits
	// its settings with its rewrite of the documents), the insert is rolled back and done again.
	for range 10 {
		err := c.insertAll(ctx, db, meta, params)
		var changed inlineChanged
		if !errors.As(err, &changed) {
			if err != nil {
				return nil, err
			}

			return new(backends.InsertAllResult), nil
		}

		meta = &metadata.Collection{Name: meta.Name, TableName: meta.TableName, Settings: changed.settings}
	}

	return nil, lazyerrors.Errorf("the indexes of %s.%s kept changing during an insert", c.dbName, c.name)
}

// inlineChanged is insertAll's error when the fields kept in the text changed.
type inlineChanged struct{ settings metadata.Settings }

func (inlineChanged) Error() string { return "indexes changed" }

// insertAll is InsertAll's transaction with the collection's metadata meta.
func (c *collection) insertAll(ctx context.Context, db *fsql.DB, meta *metadata.Collection, params *backends.InsertAllParams) error {
	inline := c.r.Inline(meta)

	inTransaction := db.InTransaction
	if params.Unjournaled {
		inTransaction = db.InUnjournaledTransaction
	}

	return inTransaction(ctx, func(tx *fsql.Tx) (err error) {
		// gridfsd patch (PATCHES.md item 60): an unjournaled insert may run in a group of them,
		// which its failure does not roll back: it deletes the rows it inserted first
		var rowids []int64

		defer func() {
			if err != nil && params.Unjournaled {
				err = undoInserts(ctx, tx, meta.TableName, rowids, err)
			}
		}()

		// gridfsd patch (PATCHES.md item 42): one INSERT per document, not one per BatchSize of
		// them. An INSERT of several rows (VALUES (...), (...)) may fail after writing some of
		// them, so inside a transaction SQLite keeps a statement journal for it: a copy of every
		// page it changes that existed before it, 32 KiB each, including the free pages that the
		// rows' overflow pages reuse. A single-row INSERT checks every constraint before it
		// writes, and needs none. The transaction is the unit either way: any failure rolls all
		// of it back. The statement's text is the same for every document, so it stays prepared
		// (item 30).
		for _, doc := range params.Docs {
			q, args, release, err := prepareInsertStatement(meta.TableName, meta.Capped(), []*types.Document{doc}, inline)
			if err != nil {
				return lazyerrors.Error(err)
			}

			res, err := tx.ExecContext(ctx, q, args...)
			release()

			if err == nil && params.Unjournaled {
				var id int64
				if id, err = res.LastInsertId(); err == nil {
					rowids = append(rowids, id)
				}
			}

			if err != nil {
				var se *sqlite3.Error
				if errors.As(err, &se) && se.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE {
					return backends.NewError(backends.ErrorCodeInsertDuplicateID, err)
				}

				return lazyerrors.Error(err)
			}
		}

		// SQLite's write lock is held: the settings read are the last committed
		settings, err := metadata.CurrentSettings(ctx, tx, meta.TableName)
		if err != nil {
			return err
		}

		if !meta.SameInline(settings) {
			return inlineChanged{settings: settings}
		}

		return nil
	})
}

// undoInserts deletes the rows of table with rowids, inserted by an insert that then failed with
// err, in its transaction (PATCHES.md item 60), and returns err, or err and the delete's failure
// wrapped in fsql.ErrNotUndone.
func undoInserts(ctx context.Context, tx *fsql.Tx, table string, rowids []int64, err error) error {
	q := fmt.Sprintf("DELETE FROM %q WHERE rowid = ?", table)

	for _, id := range rowids {
		if _, derr := tx.ExecContext(ctx, q, id); derr != nil {
			return fmt.Errorf("%w (%w: %w)", err, fsql.ErrNotUndone, derr)
		}
	}

	return err
}

// UpdateAll implements backends.Collection interface.
func (c *collection) UpdateAll(ctx context.Context, params *backends.UpdateAllParams) (*backends.UpdateAllResult, error) {
	var res backends.UpdateAllResult
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return &res, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return &res, nil
	}

	// gridfsd patch (PATCHES.md item 23): binary data beside the text
	set := fmt.Sprintf(`UPDATE %q SET %s = ?, %s = ?`, meta.TableName, metadata.DefaultColumn, metadata.SideColumn)
	q := fmt.Sprintf(`%s WHERE %s = ?`, set, metadata.IDColumn)

	// as in InsertAll: done again if an index changed the fields kept in the text meanwhile
	for range 10 {
		res.Updated = 0
		err := c.updateAll(ctx, db, meta, set, q, params, &res)
		var changed inlineChanged
		if !errors.As(err, &changed) {
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			return &res, nil
		}

		meta = &metadata.Collection{Name: meta.Name, TableName: meta.TableName, Settings: changed.settings}
	}

	return nil, lazyerrors.Errorf("the indexes of %s.%s kept changing during an update", c.dbName, c.name)
}

// updateAll is UpdateAll's transaction with the collection's metadata meta.
func (c *collection) updateAll(ctx context.Context, db *fsql.DB, meta *metadata.Collection, set, q string, params *backends.UpdateAllParams, res *backends.UpdateAllResult) error {
	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		inline := c.r.Inline(meta)

		for _, doc := range params.Docs {
			b, side, err := sjson.AppendMarshalSide(nil, nil, doc, inline)
			if err != nil {
				return lazyerrors.Error(err)
			}

			// never NULL: NULL marks a document written before (metadata.ConvertRows)
			sideArg := side
			if side == nil {
				sideArg = []byte{}
			}

			id, _ := doc.Get("_id")
			must.NotBeZero(id)

			q, args := q, []any{string(b), sideArg, string(must.NotFail(sjson.MarshalSingleValue(id)))}

			// gridfsd patch (PATCHES.md, "index pushdown"): through the _id index
			if where, idArgs, ok := idsWhere([]any{id}); ok {
				q = fmt.Sprintf(`%s WHERE %s`, set, where)
				args = append([]any{string(b), sideArg}, idArgs...)
			}

			r, err := tx.ExecContext(ctx, q, args...)
			if err != nil {
				return lazyerrors.Error(err)
			}

			ra, err := r.RowsAffected()
			if err != nil {
				return lazyerrors.Error(err)
			}

			res.Updated += int32(ra)
		}

		if len(params.Docs) == 0 {
			return nil
		}

		// SQLite's write lock is held: the settings read are the last committed
		settings, err := metadata.CurrentSettings(ctx, tx, meta.TableName)
		if err != nil {
			return err
		}

		if !meta.SameInline(settings) {
			return inlineChanged{settings: settings}
		}

		return nil
	})
}

// DeleteAll implements backends.Collection interface.
func (c *collection) DeleteAll(ctx context.Context, params *backends.DeleteAllParams) (*backends.DeleteAllResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return &backends.DeleteAllResult{Deleted: 0}, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return &backends.DeleteAllResult{Deleted: 0}, nil
	}

	// TODO https://github.com/FerretDB/FerretDB/issues/3888

	var column string
	var placeholders []string
	var args []any

	if params.RecordIDs == nil {
		placeholders = make([]string, len(params.IDs))
		args = make([]any, len(params.IDs))

		for i, id := range params.IDs {
			placeholders[i] = "?"
			args[i] = string(must.NotFail(sjson.MarshalSingleValue(id)))
		}

		column = metadata.IDColumn
	} else {
		placeholders = make([]string, len(params.RecordIDs))
		args = make([]any, len(params.RecordIDs))

		for i, id := range params.RecordIDs {
			placeholders[i] = "?"
			args[i] = id
		}

		column = metadata.RecordIDColumn
	}

	q := fmt.Sprintf(`DELETE FROM %q WHERE %s IN (%s)`, meta.TableName, column, strings.Join(placeholders, ", "))

	// gridfsd patch (PATCHES.md, "index pushdown"): through the _id index
	if params.RecordIDs == nil {
		if where, idArgs, ok := idsWhere(params.IDs); ok {
			q, args = fmt.Sprintf(`DELETE FROM %q WHERE %s`, meta.TableName, where), idArgs
		}
	}

	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	ra, err := res.RowsAffected()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	// gridfsd patch (PATCHES.md, "space given back")
	if ra > 0 {
		c.r.SpaceFreed()
	}

	return &backends.DeleteAllResult{
		Deleted: int32(ra),
	}, nil
}

// Explain implements backends.Collection interface.
func (c *collection) Explain(ctx context.Context, params *backends.ExplainParams) (*backends.ExplainResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return &backends.ExplainResult{
			QueryPlanner: must.NotFail(types.NewDocument()),
		}, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return &backends.ExplainResult{
			QueryPlanner: must.NotFail(types.NewDocument()),
		}, nil
	}

	selectClause := prepareSelectClause(meta.TableName, "", meta.Capped(), false, false)

	var filterPushdown bool
	var whereClause string
	var args []any

	// gridfsd patch (PATCHES.md, "index pushdown"): the same pushdown as Query
	pd, err := c.pushdown(ctx, db, meta, params.Filter, params.Sort, params.FieldSort)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	orderByClause := prepareOrderByClause(params.Sort)

	if pd != nil {
		filterPushdown = true
		whereClause = pd.where
		args = pd.args

		if pd.sorted {
			orderByClause = pd.orderBy
		}
	}

	sortPushdown := orderByClause != ""

	q := `EXPLAIN QUERY PLAN ` + selectClause + whereClause + orderByClause

	var limitPushdown bool

	if params.Limit != 0 {
		q += ` LIMIT ?`
		args = append(args, params.Limit)
		limitPushdown = true
	}

	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	defer rows.Close()

	queryPlan, err := types.NewArray()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	for rows.Next() {
		var id int32
		var parent int32
		var notused int32
		var detail string

		// SQLite query plan can be interpreted as a tree.
		// Each row of query plan represents a node of this tree,
		// it contains node id, parent id, auxiliary integer field, and a description.
		// See https://www.sqlite.org/eqp.html for further details.
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, lazyerrors.Error(err)
		}

		queryPlan.Append(fmt.Sprintf("id=%d parent=%d notused=%d detail=%s", id, parent, notused, detail))
	}

	return &backends.ExplainResult{
		QueryPlanner:   must.NotFail(types.NewDocument("Plan", queryPlan)),
		FilterPushdown: filterPushdown,
		SortPushdown:   sortPushdown,
		LimitPushdown:  limitPushdown,
	}, nil
}

// Stats implements backends.Collection interface.
func (c *collection) Stats(ctx context.Context, params *backends.CollectionStatsParams) (*backends.CollectionStatsResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return nil, backends.NewError(
			backends.ErrorCodeCollectionDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}

	coll := c.r.CollectionGet(ctx, c.dbName, c.name)
	if coll == nil {
		return nil, backends.NewError(
			backends.ErrorCodeCollectionDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}
	stats, err := collectionsStats(ctx, db, []*metadata.Collection{coll}, params.Refresh)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	placeholders := make([]string, 0, len(coll.Settings.Indexes))
	args := make([]any, 0, len(coll.Settings.Indexes))
	indexMap := map[string]string{}

	for _, index := range coll.Settings.Indexes {
		placeholders = append(placeholders, "?")
		args = append(args, coll.TableName+"_"+index.Name)
		indexMap[coll.TableName+"_"+index.Name] = index.Name
	}

	q := fmt.Sprintf(`
		SELECT
			name,
			pgsize
		FROM dbstat
		WHERE name IN (%s) AND aggregate = TRUE`,
		strings.Join(placeholders, ", "),
	)

	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	defer rows.Close()

	indexSizes := make([]backends.IndexSize, len(indexMap))
	var i int

	for rows.Next() {
		var name string
		var size int64

		if err = rows.Scan(&name, &size); err != nil {
			return nil, lazyerrors.Error(err)
		}

		indexName, ok := indexMap[name]
		if !ok {
			// new index have been created since fetching metadata
			continue
		}

		indexSizes[i] = backends.IndexSize{
			Name: indexName,
			Size: size,
		}
		i++
	}

	if rows.Err() != nil {
		return nil, lazyerrors.Error(rows.Err())
	}

	return &backends.CollectionStatsResult{
		CountDocuments:  stats.countDocuments,
		SizeTotal:       stats.sizeTables + stats.sizeIndexes,
		SizeIndexes:     stats.sizeIndexes,
		SizeCollection:  stats.sizeTables,
		IndexSizes:      indexSizes,
		SizeFreeStorage: stats.sizeFreeStorage,
	}, nil
}

// Compact implements backends.Collection interface.
func (c *collection) Compact(ctx context.Context, params *backends.CompactParams) (*backends.CompactResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return nil, backends.NewError(
			backends.ErrorCodeDatabaseDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}

	coll := c.r.CollectionGet(ctx, c.dbName, c.name)
	if coll == nil {
		return nil, backends.NewError(
			backends.ErrorCodeCollectionDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}

	q := `PRAGMA incremental_vacuum`
	if params != nil && params.Full {
		q = `VACUUM`
	}

	if _, err := db.ExecContext(ctx, q); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return new(backends.CompactResult), nil
}

// ListIndexes implements backends.Collection interface.
func (c *collection) ListIndexes(ctx context.Context, params *backends.ListIndexesParams) (*backends.ListIndexesResult, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return nil, backends.NewError(
			backends.ErrorCodeCollectionDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}

	coll := c.r.CollectionGet(ctx, c.dbName, c.name)
	if coll == nil {
		return nil, backends.NewError(
			backends.ErrorCodeCollectionDoesNotExist,
			lazyerrors.Errorf("no ns %s.%s", c.dbName, c.name),
		)
	}

	res := backends.ListIndexesResult{
		Indexes: make([]backends.IndexInfo, len(coll.Settings.Indexes)),
	}

	for i, index := range coll.Settings.Indexes {
		res.Indexes[i] = backends.IndexInfo{
			Name:   index.Name,
			Unique: index.Unique,
			Key:    make([]backends.IndexKeyPair, len(index.Key)),
		}

		for j, key := range index.Key {
			res.Indexes[i].Key[j] = backends.IndexKeyPair{
				Field:      key.Field,
				Descending: key.Descending,
			}
		}
	}

	sort.Slice(res.Indexes, func(i, j int) bool {
		return res.Indexes[i].Name < res.Indexes[j].Name
	})

	return &res, nil
}

// CreateIndexes implements backends.Collection interface.
func (c *collection) CreateIndexes(ctx context.Context, params *backends.CreateIndexesParams) (*backends.CreateIndexesResult, error) { //nolint:lll // for readability
	indexes := make([]metadata.IndexInfo, len(params.Indexes))
	for i, index := range params.Indexes {
		indexes[i] = metadata.IndexInfo{
			Name:   index.Name,
			Key:    make([]metadata.IndexKeyPair, len(index.Key)),
			Unique: index.Unique,
		}

		for j, key := range index.Key {
			indexes[i].Key[j] = metadata.IndexKeyPair{
				Field:      key.Field,
				Descending: key.Descending,
			}
		}
	}

	err := c.r.IndexesCreate(ctx, c.dbName, c.name, indexes)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return new(backends.CreateIndexesResult), nil
}

// DropIndexes implements backends.Collection interface.
func (c *collection) DropIndexes(ctx context.Context, params *backends.DropIndexesParams) (*backends.DropIndexesResult, error) {
	err := c.r.IndexesDrop(ctx, c.dbName, c.name, params.Indexes)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return new(backends.DropIndexesResult), nil
}

// check interfaces
var (
	_ backends.Collection = (*collection)(nil)
)
