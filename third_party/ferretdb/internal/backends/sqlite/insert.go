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
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// textBuffers holds *[]byte buffers for prepareInsertStatement's documents; maxRecycledText bounds
// the ones it keeps, so that a rare large document does not stay in memory.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxRecycledText = 4 << 20

// prepareInsertStatement returns a statement and arguments for inserting the given documents.
//
// If capped is true, it returns a statement and arguments for inserting record IDs and documents.
//
// gridfsd (PATCHES.md item 11): each document is inserted concatenated with an empty string, the same
// text. A bound parameter is not NUL-terminated, so every JSON function of every index key expression
// that reads the new row (two per key field) copied the whole document to terminate it; the
// concatenation makes one terminated copy that they all read.
//
// gridfsd (PATCHES.md item 17): the documents are encoded into recycled buffers; the returned release
// puts them back, and must be called once the statement has run, not before: the SQLite driver copies
// each text when it binds it, so nothing refers to a buffer afterwards. A GridFS chunk's 340 KiB of
// text was otherwise garbage after every insert.
func prepareInsertStatement(tableName string, capped bool, docs []*types.Document, inline func(string) bool) (string, []any, func(), error) {
	var args []any
	rows := make([]string, len(docs))
	texts := make([]*[]byte, 0, 2*len(docs))
	release := func() {
		for _, b := range texts {
			if cap(*b) <= maxRecycledText {
				*b = (*b)[:0]
				textBuffers.Put(b)
			}
		}
	}

	for i, doc := range docs {
		buf := textBuffers.Get().(*[]byte)
		sideBuf := textBuffers.Get().(*[]byte)

		// gridfsd patch (PATCHES.md item 23): binary data beside the text, as bytes
		b, side, err := sjson.AppendMarshalSide(*buf, *sideBuf, doc, inline)
		if err != nil {
			return "", nil, nil, lazyerrors.Error(err)
		}

		*buf, *sideBuf = b, side
		texts = append(texts, buf, sideBuf)

		// never NULL: NULL marks a document written before (metadata.ConvertRows)
		sideArg := side
		if side == nil {
			sideArg = []byte{}
		}

		// gridfsd patch (PATCHES.md item 16): the text is bound as a string (a []byte would be
		// a BLOB, which SQLite's JSON functions read as JSONB) without copying it: nothing writes
		// to b until release, and the driver copies the text when it binds it.
		text := unsafe.String(unsafe.SliceData(b), len(b))

		if capped {
			rows[i] = "(?, ? || '', ?)"
			args = append(args, doc.RecordID(), text, sideArg)

			continue
		}

		rows[i] = "(? || '', ?)"
		args = append(args, text, sideArg)
	}

	columns := metadata.DefaultColumn + ", " + metadata.SideColumn
	if capped {
		columns = strings.Join([]string{metadata.RecordIDColumn, metadata.DefaultColumn, metadata.SideColumn}, ", ")
	}

	return fmt.Sprintf(
		`INSERT INTO %q (%s) VALUES %s`,
		tableName,
		columns,
		strings.Join(rows, ", "),
	), args, release, nil
}
