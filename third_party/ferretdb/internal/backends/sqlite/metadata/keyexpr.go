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

// gridfsd patch (PATCHES.md, "index keys"): the SQL expression an index stores for a document field.

package metadata

import (
	"fmt"
	"strings"
)

// KeyExpr returns the SQL expression an index built by this fork stores for the top-level field,
// or "" when the field cannot have one (nested paths, names SQLite's JSON paths cannot quote).
//
// Upstream indexed `_ferretdb_sjson->"field"`, the field's JSON text: its order is not numeric order
// ("10" < "9"), so a range or a sort on a number could not use the index. The key is instead the SQL
// number for BSON int, long and double values (so 1, 1L and 1.0 are one key, as in MongoDB), and the
// JSON text for every other value (strings and ObjectIds as quoted text, documents and arrays as their
// JSON, dates, timestamps and booleans as text too, so they never mix with numbers). A missing field
// is NULL. SQLite orders NULL < numbers < text, so all numbers of a key come out of the index in
// numeric order, before any text.
//
// Equal keys do not prove equal BSON values (an ObjectId and the string of its hex digits share a
// key), which is why the handler filters again what an index returns.
func KeyExpr(field string) string {
	if !KeyField(field) {
		return ""
	}

	return fmt.Sprintf(
		`(CASE WHEN %[1]s->>'$."$s".p."%[2]s".t' IN ('int', 'long', 'double') `+
			`THEN %[1]s->>'$."%[2]s"' ELSE %[1]s->'$."%[2]s"' END)`,
		DefaultColumn, field,
	)
}

// KeyField reports whether field is one KeyExpr serves: a top-level field whose name needs no escaping
// inside a quoted JSON path label and a SQL string literal.
func KeyField(field string) bool {
	return field != "" && !strings.ContainsAny(field, `."'\$`) && !strings.ContainsFunc(field, func(r rune) bool {
		return r < 0x20
	})
}

// KeyIndexMarker is part of every index definition this fork creates with KeyExpr;
// an index of the same name without it was created by upstream FerretDB and is upgraded at start.
const KeyIndexMarker = `->>'$."$s".p."`

// indexColumn returns the SQL expression of one index column.
func indexColumn(key IndexKeyPair) string {
	col := KeyExpr(key.Field)

	if col == "" {
		// nested paths keep upstream's expression; queries never push down on them
		fields := strings.Split(key.Field, ".")
		for j, f := range fields {
			fields[j] = fmt.Sprintf("%q", f)
		}

		col = fmt.Sprintf("%s->%s", DefaultColumn, strings.Join(fields, "->"))
	}

	if key.Descending {
		col += " DESC"
	}

	return col
}
