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

// gridfsd patch (PATCHES.md, "index pushdown"): filters and sorts answered through SQLite's indexes.

package sqlite

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// pushdown is the part of a query SQLite answers through one index.
//
// Its WHERE clause returns every row the filter matches (and maybe more: the handler filters again),
// and, when sorted is true, returns them in the order the handler's sort would give, so the handler
// does not sort. Both hold only when no guard finds a row: a guard looks, through the same index, for
// rows whose key could make the WHERE clause miss a match (an array, which MongoDB matches by its
// elements) or the order wrong (a non-number in the sort field).
type pushdown struct {
	where   string
	args    []any
	orderBy string
	sorted  bool
	guards  []sqlTerm
}

// sqlTerm is a piece of SQL with its arguments.
type sqlTerm struct {
	sql  string
	args []any
}

// condition is what a filter asks of one top-level field: equality, or a numeric range.
type condition struct {
	eq     *sqlTerm
	in     []sqlTerm // $in: one equality of several values (gridfsd patch, PATCHES.md "$in")
	bounds []sqlTerm // "op ?" pieces: "> ?", ">= ?", "< ?", "<= ?"
	upper  bool      // a bound from above excludes the text keys of arrays
}

// rangeOperators maps the MongoDB comparison operators pushed down to SQL.
var rangeOperators = map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}

// keyParam returns the SQL for the index key of value v (see metadata.KeyExpr), or false
// when v's key cannot be written as a parameter.
func keyParam(v any) (sqlTerm, bool) {
	switch v := v.(type) {
	case int32:
		return sqlTerm{sql: "?", args: []any{int64(v)}}, true
	case int64:
		return sqlTerm{sql: "?", args: []any{v}}, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return sqlTerm{}, false
		}

		return sqlTerm{sql: "?", args: []any{v}}, true
	case string, types.ObjectID:
		// the JSON text SQLite's -> gives for the same sjson value inside a document
		b, err := sjson.MarshalSingleValue(v)
		if err != nil {
			return sqlTerm{}, false
		}

		return sqlTerm{sql: "(? -> '$')", args: []any{string(b)}}, true
	default:
		return sqlTerm{}, false
	}
}

// filterConditions returns the conditions of the filter that can be pushed down, by field.
func filterConditions(filter *types.Document) map[string]*condition {
	conds := map[string]*condition{}
	seen := map[string]int{}

	for _, field := range filter.Keys() {
		seen[field]++
	}

	for _, field := range filter.Keys() {
		if seen[field] != 1 || !metadata.KeyField(field) {
			continue
		}

		v, _ := filter.Get(field)

		if op, ok := v.(*types.Document); ok {
			// {field: {$eq: v}} matches what {field: v} matches (the Go driver's GridFS asks
			// for its chunks so).
			if eq, err := op.Get("$eq"); err == nil && op.Len() == 1 {
				if p, ok := keyParam(eq); ok {
					conds[field] = &condition{eq: &p}
				}

				continue
			}

			if c := inCondition(op); c != nil {
				conds[field] = c

				continue
			}

			if c := rangeCondition(op); c != nil {
				conds[field] = c
			}

			continue
		}

		if p, ok := keyParam(v); ok {
			conds[field] = &condition{eq: &p}
		}
	}

	return conds
}

// rangeCondition returns the condition of an operator document made only of $gt, $gte, $lt and $lte
// with numbers (which, in MongoDB, match only numbers and arrays holding one), or with dates bounded on
// both sides (dateRange), or with strings bounded on both sides (stringRange), or nil.
func rangeCondition(op *types.Document) *condition {
	if op.Len() == 0 {
		return nil
	}

	if c := dateRange(op); c != nil {
		return c
	}

	if c := stringRange(op); c != nil {
		return c
	}

	var c condition

	for _, k := range op.Keys() {
		sqlOp, ok := rangeOperators[k]
		if !ok {
			return nil
		}

		v, _ := op.Get(k)

		switch v.(type) {
		case int32, int64, float64:
		default:
			return nil
		}

		p, ok := keyParam(v)
		if !ok {
			return nil
		}

		c.bounds = append(c.bounds, sqlTerm{sql: sqlOp + " " + p.sql, args: p.args})

		if sqlOp == "<" || sqlOp == "<=" {
			c.upper = true
		}
	}

	return &c
}

// preparePushdown returns what the filter and the sort (one ascending field, or nil) can push down
// through one of the collection's indexes, or nil.
func preparePushdown(meta *metadata.Collection, filter, sort *types.Document) *pushdown {
	conds := filterConditions(filter)
	if len(conds) == 0 {
		return nil
	}

	sortField := ""

	if sort.Len() == 1 {
		if v, _ := sort.Get(sort.Keys()[0]); v == int64(1) {
			sortField = sort.Keys()[0]
		}
	}

	var best *pushdown
	bestColumns := 0

	for _, index := range meta.Settings.Indexes {
		pd, columns := indexPushdown(index, conds, sortField)
		if pd == nil {
			continue
		}

		if best == nil || columns > bestColumns || (columns == bestColumns && pd.sorted && !best.sorted) {
			best, bestColumns = pd, columns
		}
	}

	return best
}

// indexPushdown returns the pushdown through the index (equalities on a prefix of its fields, then
// maybe a range on the next one) and the number of its fields used, or nil.
func indexPushdown(index metadata.IndexInfo, conds map[string]*condition, sortField string) (*pushdown, int) {
	var pd pushdown

	var terms []string
	var prefix []sqlTerm // equalities on the fields before the current one, for the guards

	used := 0

	for _, key := range index.Key {
		c := conds[key.Field]
		if key.Descending || c == nil || metadata.KeyExpr(key.Field) == "" {
			break
		}

		keyExpr := metadata.KeyExpr(key.Field)
		used++

		// arrays (JSON text starting with '[') match by their elements in MongoDB; an equality or an
		// upper bound on the key would miss them
		if c.eq != nil || c.in != nil || c.upper {
			pd.guards = append(pd.guards, guardTerm(prefix, keyExpr+` >= '[' AND `+keyExpr+` < '\'`))
		}

		if c.eq != nil {
			term := sqlTerm{sql: keyExpr + " = " + c.eq.sql, args: c.eq.args}
			terms = append(terms, term.sql)
			pd.args = append(pd.args, term.args...)
			prefix = append(prefix, term)

			continue
		}

		if c.in != nil {
			// the rows of several keys do not come out in the order of the next field: the last
			// field used, and no sort
			ps := make([]string, len(c.in))
			for i, p := range c.in {
				ps[i] = p.sql
				pd.args = append(pd.args, p.args...)
			}

			terms = append(terms, keyExpr+" IN ("+strings.Join(ps, ", ")+")")
			sortField = ""

			break
		}

		for _, b := range c.bounds {
			terms = append(terms, keyExpr+" "+b.sql)
			pd.args = append(pd.args, b.args...)
		}

		break
	}

	if used == 0 {
		return nil, 0
	}

	pd.where = " WHERE " + strings.Join(terms, " AND ")

	// the rows of equal prefix come out of the index ordered by the next field
	if sortField != "" && used <= len(index.Key) {
		next := used
		if conds[index.Key[used-1].Field].eq == nil {
			next = used - 1 // the range field
		}

		if next < len(index.Key) && index.Key[next].Field == sortField && !index.Key[next].Descending &&
			metadata.KeyExpr(sortField) != "" {
			keyExpr := metadata.KeyExpr(sortField)

			// SQLite orders text after numbers; MongoDB's order differs for them, so any text key
			// (a string, date, boolean, array ...) leaves the sort to the handler
			pd.guards = append(pd.guards, guardTerm(prefix[:next], keyExpr+` >= ''`))
			pd.orderBy = " ORDER BY " + keyExpr
			pd.sorted = true
		}
	}

	return &pd, used
}

// guardTerm returns the WHERE clause of a guard: the equalities before the field, then cond.
func guardTerm(prefix []sqlTerm, cond string) sqlTerm {
	var g sqlTerm

	for _, p := range prefix {
		g.sql += p.sql + " AND "
		g.args = append(g.args, p.args...)
	}

	g.sql += cond

	return g
}

// guardsPass reports whether no guard of the pushdown finds a row in the table.
func (pd *pushdown) guardsPass(ctx context.Context, db *fsql.DB, table string) (bool, error) {
	for _, g := range pd.guards {
		q := fmt.Sprintf(`SELECT 1 FROM %q WHERE %s LIMIT 1`, table, g.sql)

		rows, err := db.QueryContext(ctx, q, g.args...)
		if err != nil {
			return false, lazyerrors.Error(err)
		}

		found := rows.Next()
		err = rows.Err()

		_ = rows.Close()

		if err != nil {
			return false, lazyerrors.Error(err)
		}

		if found {
			return false, nil
		}
	}

	return true, nil
}

// idsWhere returns the WHERE clause (without WHERE) matching the documents with the given _id values
// through the _id index, or false when one of them has no key parameter.
//
// An _id key is exact here: the unique _id index keeps one document per key.
func idsWhere(ids []any) (string, []any, bool) {
	placeholders := make([]string, len(ids))
	args := make([]any, 0, len(ids))

	for i, id := range ids {
		p, ok := keyParam(id)
		if !ok {
			return "", nil, false
		}

		placeholders[i] = p.sql
		args = append(args, p.args...)
	}

	return fmt.Sprintf("%s IN (%s)", metadata.KeyExpr("_id"), strings.Join(placeholders, ", ")), args, true
}

// Dates bounding a range dateRange pushes down: those whose milliseconds since the epoch have 13 digits,
// 2001-09-09T01:46:40Z to 2286-11-20T17:46:39.999Z.
const (
	minKeyDate = 1_000_000_000_000
	maxKeyDate = 9_999_999_999_999
)

// dateRange returns the condition of an operator document of $gt/$gte and $lt/$lte bounds that are all
// dates between minKeyDate and maxKeyDate, with at least one bound on each side, or nil.
//
// gridfsd patch (PATCHES.md, "date ranges"): an index key of a date is the JSON text of its
// milliseconds (metadata.KeyExpr), which SQLite compares as text. Between two 13-digit bounds that text
// order is the numeric order of every 13-digit key, and every date the range matches has 13 digits, so
// the index returns each match; it may return more (a timestamp, a 12-digit date whose text sorts
// between the bounds), which the handler filters out as it filters everything. Numbers are keyed as SQL
// numbers, which sort before all text, and never fall in the range: MongoDB's date bounds do not match
// them either.
func dateRange(op *types.Document) *condition {
	var c condition

	var lower bool

	for _, k := range op.Keys() {
		sqlOp, ok := rangeOperators[k]
		if !ok {
			return nil
		}

		v, _ := op.Get(k)

		t, ok := v.(time.Time)
		if !ok {
			return nil
		}

		ms := t.UnixMilli()
		if ms < minKeyDate || ms > maxKeyDate {
			return nil
		}

		c.bounds = append(c.bounds, sqlTerm{sql: sqlOp + " ?", args: []any{strconv.FormatInt(ms, 10)}})

		if sqlOp == "<" || sqlOp == "<=" {
			c.upper = true
		} else {
			lower = true
		}
	}

	if !lower || !c.upper {
		return nil
	}

	return &c
}

// maxInValues bounds the values of an $in pushed down (SQLite's default limit of bound parameters is
// 32766; an index search per value stays cheaper than a scan well past this).
const maxInValues = 1000

// inCondition returns the condition of {$in: [v1, v2, ...]} whose values all have key parameters (see
// keyParam), or nil.
//
// gridfsd patch (PATCHES.md, "$in"): gridfsd's expiry sweeper removes a batch of files documents by
// {_id: {$in: [...]}} and their chunks by {files_id: {$in: [...]}}, one command each instead of one per
// file. Each value is an equality on the key, so the index returns every match, and the handler filters
// again as always.
func inCondition(op *types.Document) *condition {
	if op.Len() != 1 {
		return nil
	}

	v, err := op.Get("$in")
	if err != nil {
		return nil
	}

	arr, ok := v.(*types.Array)
	if !ok || arr.Len() == 0 || arr.Len() > maxInValues {
		return nil
	}

	var c condition

	for i := 0; i < arr.Len(); i++ {
		e, _ := arr.Get(i)

		p, ok := keyParam(e)
		if !ok {
			return nil
		}

		c.in = append(c.in, p)
	}

	return &c
}

// stringRange returns the condition of an operator document of $gt/$gte and $lt/$lte bounds that are
// all strings, with at least one bound on each side, or nil.
//
// gridfsd patch (PATCHES.md, "string ranges"): gridfsd lists the names under a prefix ("a folder") by
// {filename: {$gte: prefix, $lt: <prefix's successor>}}, and without this every listing read the whole
// files collection. An index key of a string is its JSON text, quotes and escapes included, whose order
// is not the strings' order where a character is escaped. But every string between two bounds starts
// with the prefix the bounds share, and the JSON text of every string that starts with a plain prefix
// (printable ASCII that no JSON encoder escapes) starts with a quote and that prefix: the index returns
// every match between those two texts (and maybe more, filtered by the handler as always). Numbers are
// keyed as SQL numbers and other types by JSON text that does not start with a quote, as MongoDB's string
// bounds do not match them either; an array holding a string in range does match in MongoDB, which the
// array guard of item 4 sees.
func stringRange(op *types.Document) *condition {
	var lower, upper bool

	prefix := ""

	for i, k := range op.Keys() {
		sqlOp, ok := rangeOperators[k]
		if !ok {
			return nil
		}

		v, _ := op.Get(k)

		s, ok := v.(string)
		if !ok {
			return nil
		}

		if i == 0 {
			prefix = s
		}

		prefix = prefix[:commonPrefix(prefix, s)]

		if sqlOp == "<" || sqlOp == "<=" {
			upper = true
		} else {
			lower = true
		}
	}

	if !lower || !upper {
		return nil
	}

	plain := strings.IndexFunc(prefix, func(r rune) bool {
		return r < 0x20 || r > 0x7e || strings.ContainsRune(`"\<>&`, r)
	})
	if plain >= 0 {
		prefix = prefix[:plain]
	}

	// the texts starting with `"`+prefix: up to the same text with its last byte (printable ASCII, so
	// below 0x7f) one higher
	from := `"` + prefix
	to := from[:len(from)-1] + string(from[len(from)-1]+1)

	return &condition{
		bounds: []sqlTerm{{sql: ">= ?", args: []any{from}}, {sql: "< ?", args: []any{to}}},
		upper:  true,
	}
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}

	return n
}
