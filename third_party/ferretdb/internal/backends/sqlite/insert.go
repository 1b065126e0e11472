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
	"unsafe"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// prepareInsertStatement returns a statement and arguments for inserting the given documents.
//
// If capped is true, it returns a statement and arguments for inserting record IDs and documents.
//
// gridfsd (PATCHES.md item 11): each document is inserted concatenated with an empty string, the same
// text. A bound parameter is not NUL-terminated, so every JSON function of every index key expression
// that reads the new row (two per key field) copied the whole document to terminate it; the
// concatenation makes one terminated copy that they all read.
func prepareInsertStatement(tableName string, capped bool, docs []*types.Document) (string, []any, error) {
	var args []any
	rows := make([]string, len(docs))

	for i, doc := range docs {
		b, err := sjson.Marshal(doc)
		if err != nil {
			return "", nil, lazyerrors.Error(err)
		}

		// gridfsd patch (PATCHES.md item 16): the text is bound as a string (a []byte would be
		// a BLOB, which SQLite's JSON functions read as JSONB) without copying it: b is new and
		// nothing writes to it, and the driver copies the text when it binds it.
		text := unsafe.String(unsafe.SliceData(b), len(b))

		if capped {
			rows[i] = "(?, ? || '')"
			args = append(args, doc.RecordID(), text)

			continue
		}

		rows[i] = "(? || '')"
		args = append(args, text)
	}

	columns := metadata.DefaultColumn
	if capped {
		columns = strings.Join([]string{metadata.RecordIDColumn, metadata.DefaultColumn}, ", ")
	}

	return fmt.Sprintf(
		`INSERT INTO %q (%s) VALUES %s`,
		tableName,
		columns,
		strings.Join(rows, ", "),
	), args, nil
}
