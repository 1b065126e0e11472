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
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/iterator"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/resource"
)

// queryIterator implements iterator.Interface to fetch documents from the database.
type queryIterator struct {
	// the order of fields is weird to make the struct smaller due to alignment

	ctx           context.Context
	rows          *fsql.Rows // protected by m
	token         *resource.Token
	m             sync.Mutex
	onlyRecordIDs bool
	text          sql.RawBytes // protected by m; gridfsd patch (PATCHES.md, "fewer copies on reads")
	fields        []string     // gridfsd patch (PATCHES.md item 14): decode only these, when not nil
}

// newQueryIterator returns a new queryIterator for the given *sql.Rows.
//
// Iterator's Close method closes rows.
// They are also closed by the Next method on any error, including context cancellation,
// to make sure that the database connection is released as early as possible.
// In that case, the iterator's Close method should still be called.
//
// Nil rows are possible and return already done iterator.
// It still should be Close'd.
func newQueryIterator(ctx context.Context, rows *fsql.Rows, onlyRecordIDs bool, fields []string) types.DocumentsIterator {
	iter := &queryIterator{
		ctx:           ctx,
		rows:          rows,
		onlyRecordIDs: onlyRecordIDs,
		fields:        fields,
		token:         resource.NewToken(),
	}
	resource.Track(iter, iter.token)

	return iter
}

// Next implements iterator.Interface.
func (iter *queryIterator) Next() (struct{}, *types.Document, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	var unused struct{}

	// ignore context error, if any, if iterator is already closed
	if iter.rows == nil {
		return unused, nil, iterator.ErrIteratorDone
	}

	if err := context.Cause(iter.ctx); err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	if !iter.rows.Next() {
		err := iter.rows.Err()

		iter.close()

		if err == nil {
			err = iterator.ErrIteratorDone
		}

		return unused, nil, lazyerrors.Error(err)
	}

	columns, err := iter.rows.Columns()
	if err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	var recordID int64
	var dest []any

	// gridfsd patch (PATCHES.md item 31): the length of the bytes beside the text, which were not read
	var sideLen sql.NullInt64
	var sideUnread bool

	// gridfsd patch (PATCHES.md, "fewer copies on reads"): one buffer for every row's text, as Unmarshal
	// keeps nothing of it; a new []byte per row was a 340 KiB allocation per GridFS chunk.
	b := &iter.text

	// gridfsd patch (PATCHES.md items 23 and 28): the binary data beside the text, given to the
	// document (see sideBytes).
	side := new(sideBytes)

	switch {
	case slices.Equal(columns, []string{metadata.RecordIDColumn, metadata.DefaultColumn, metadata.SideColumn}):
		dest = []any{&recordID, b, side}
	case slices.Equal(columns, []string{metadata.RecordIDColumn}):
		dest = []any{&recordID}
	case slices.Equal(columns, []string{metadata.DefaultColumn, metadata.SideColumn}):
		dest = []any{b, side}
	case slices.Equal(columns, []string{metadata.RecordIDColumn, metadata.DefaultColumn, metadata.SideLengthColumn}):
		dest, sideUnread = []any{&recordID, b, &sideLen}, true
	case slices.Equal(columns, []string{metadata.DefaultColumn, metadata.SideLengthColumn}):
		dest, sideUnread = []any{b, &sideLen}, true
	default:
		panic(fmt.Sprintf("cannot scan unknown columns: %v", columns))
	}

	if err = iter.rows.Scan(dest...); err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	doc := must.NotFail(types.NewDocument())

	if !iter.onlyRecordIDs {
		if sideUnread {
			doc, err = sjson.UnmarshalFieldsUnread(*b, int(sideLen.Int64), iter.fields)
		} else {
			doc, err = sjson.UnmarshalFieldsSideShared(*b, *side, iter.fields)
		}

		if err != nil {
			iter.close()
			return unused, nil, lazyerrors.Error(err)
		}
	}

	doc.SetRecordID(recordID)

	return unused, doc, nil
}

// Close implements iterator.Interface.
func (iter *queryIterator) Close() {
	iter.m.Lock()
	defer iter.m.Unlock()

	iter.close()
}

// close closes iterator without holding mutex.
//
// This should be called only when the caller already holds the mutex.
func (iter *queryIterator) close() {
	if iter.rows != nil {
		iter.rows.Close()
		iter.rows = nil
	}

	resource.Untrack(iter, iter.token)
}

// sideBytes scans the column of binary data beside the text keeping the driver's slice, which the
// document read then shares (gridfsd patch, PATCHES.md item 28). database/sql allows a driver to
// reuse it, but modernc.org/sqlite allocates each BLOB it returns (conn.columnBlob) and never
// writes into it again; TestSideBytesAreTheRows fails on a version that does. Anything else
// (text, if a value were ever stored as such) is copied.
type sideBytes []byte

// Scan implements [sql.Scanner].
func (s *sideBytes) Scan(src any) error {
	switch src := src.(type) {
	case nil:
		*s = nil
	case []byte:
		*s = src
	case string:
		*s = []byte(src)
	default:
		return lazyerrors.Errorf("side column: unexpected %T", src)
	}

	return nil
}

// check interfaces
var (
	_ types.DocumentsIterator = (*queryIterator)(nil)
)
