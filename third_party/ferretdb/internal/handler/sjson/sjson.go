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

// Package sjson provides converters from/to jsonb with some extensions for built-in and `types` types.
//
// See contributing guidelines and documentation for package `types` for details.
//
// # Mapping
//
// SJSON uses schema to map values to data types.
// Schema is stored in the `$s` field of the document and contains information about the fields.
// A document with schema looks like this:
//
//	{
//	   "$s": {
//	     "$k": ["field1", "field2", ...],
//	     "p": {
//	       "field1": {<schema>},
//	       "field2": {<schema>},
//	       ...
//	   }
//	   "field1": <json representation>,
//	   "field2": <json representation>,
//	   ...
//	}
//
// Composite types
//
//	Alias      types package    sjson package        sjson schema                                             JSON representation
//
//	object     *types.Document  *sjson.documentType  {"t":"object", "$s": {"$k":[<keys>], "p":{<properties>}} JSON object
//	array      *types.Array     *sjson.arrayType     {"t":"array", "i": [<item 1>, <item 2>]}                 JSON array
//
// Scalar types
//
//	Alias      types package    sjson package         sjson schema                           JSON representation
//
//	double     float64          *sjson.doubleType     {"t":"double"}                         JSON number
//	string     string           *sjson.stringType     {"t":"string"}                         JSON string
//	binData    types.Binary     *sjson.binaryType     {"t":"binData",
//	                                                   "s":<subtype number>}                 "<base 64 string>"
//	objectId   types.ObjectID   *sjson.objectIDType   {"t":"objectId"}                       "<ObjectID as 24 character hex string>"
//	bool       bool             *sjson.boolType       {"t":"bool"}                           JSON true / false values
//	date       time.Time        *sjson.dateTimeType   {"t":"date"}                           milliseconds since epoch as JSON number
//	null       types.NullType   *sjson.nullType       {"t":"null"}                           JSON null
//	regex      types.Regex      *sjson.regexType      {"t":"regex",
//	                                                   "o": "<string w/o terminating 0x0>"}  "<string w/o terminating 0x0>"
//	int        int32            *sjson.int32Type      {"t":"int"}                            JSON number
//	timestamp  types.Timestamp  *sjson.timestampType  {"t":"timestamp"}                      JSON number
//	long       int64            *sjson.int64Type      {"t":"long"}                           JSON number
//
//nolint:lll // for readability
package sjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/AlekSi/pointer"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// sjsontype is a type that can be marshaled from/to sjson.
//
//sumtype:decl
type sjsontype interface {
	sjsontype() // seal for sumtype

	json.Marshaler
}

// appender is an sjsontype that knows the length of its text and appends it in place, so that
// Marshal writes it straight into the document's buffer (gridfsd, PATCHES.md item 16: binary data,
// a GridFS chunk's 340 KiB of base64).
type appender interface {
	sjsonLen() int
	appendSJSON(dst []byte) []byte
}

// checkConsumed returns error if decoder or reader have buffered or unread data.
func checkConsumed(dec *json.Decoder, r *bytes.Reader) error {
	if dr := dec.Buffered().(*bytes.Reader); dr.Len() != 0 {
		b, _ := io.ReadAll(dr)

		if l := len(b); l != 0 {
			return lazyerrors.Errorf("%d bytes remains in the decoder: %s", l, b)
		}
	}

	if l := r.Len(); l != 0 {
		b, _ := io.ReadAll(r)
		return lazyerrors.Errorf("%d bytes remains in the reader: %s", l, b)
	}

	return nil
}

// fromSJSON converts sjsontype value to matching built-in or types' package value.
func fromSJSON(v sjsontype) any {
	switch v := v.(type) {
	case *documentType:
		return pointer.To(types.Document(*v))
	case *arrayType:
		return pointer.To(types.Array(*v))
	case *doubleType:
		return float64(*v)
	case *stringType:
		return string(*v)
	case *binaryType:
		return types.Binary(*v)
	case *objectIDType:
		return types.ObjectID(*v)
	case *boolType:
		return bool(*v)
	case *dateTimeType:
		return time.Time(*v)
	case *nullType:
		return types.Null
	case *regexType:
		return types.Regex(*v)
	case *int32Type:
		return int32(*v)
	case *timestampType:
		return types.Timestamp(*v)
	case *int64Type:
		return int64(*v)
	}

	panic(fmt.Sprintf("not reached: %T", v)) // for sumtype to work
}

// toSJSON converts built-in or types' package value to sjsontype value.
func toSJSON(v any) sjsontype {
	switch v := v.(type) {
	case *types.Document:
		return pointer.To(documentType(*v))
	case *types.Array:
		return pointer.To(arrayType(*v))
	case float64:
		return pointer.To(doubleType(v))
	case string:
		return pointer.To(stringType(v))
	case types.Binary:
		return pointer.To(binaryType(v))
	case types.ObjectID:
		return pointer.To(objectIDType(v))
	case bool:
		return pointer.To(boolType(v))
	case time.Time:
		return pointer.To(dateTimeType(v))
	case types.NullType:
		return pointer.To(nullType(v))
	case types.Regex:
		return pointer.To(regexType(v))
	case int32:
		return pointer.To(int32Type(v))
	case types.Timestamp:
		return pointer.To(timestampType(v))
	case int64:
		return pointer.To(int64Type(v))
	}

	panic(fmt.Sprintf("not reached: %T", v)) // for sumtype to work
}

// Unmarshal decodes the top-level document.
// It decodes document's schema from the `$s` field and uses it to decode the data of the document.
func Unmarshal(data []byte) (*types.Document, error) {
	return UnmarshalFields(data, nil)
}

// UnmarshalFields is Unmarshal that decodes only the given top-level fields when fields is not nil, and
// leaves the others out of the document (gridfsd patch, PATCHES.md item 14): a count of GridFS chunks by
// files_id then skips decoding each chunk's data.
func UnmarshalFields(data []byte, fields []string) (*types.Document, error) {
	return UnmarshalFieldsSide(data, nil, fields)
}

// UnmarshalFieldsSide is UnmarshalFields for a document written by AppendMarshalSide, whose binary
// data of side is copied out (side may be reused afterwards).
func UnmarshalFieldsSide(data, side []byte, fields []string) (*types.Document, error) {
	return unmarshalFieldsSide(data, side, fields, false)
}

// UnmarshalFieldsSideShared is UnmarshalFieldsSide whose binary values share side's bytes
// instead of copies (gridfsd patch, PATCHES.md item 28): the caller gives side to the document
// and never writes into it or reuses it. data is still not kept.
func UnmarshalFieldsSideShared(data, side []byte, fields []string) (*types.Document, error) {
	return unmarshalFieldsSide(data, side, fields, true)
}

// UnmarshalFieldsUnread is UnmarshalFields for a document written by AppendMarshalSide whose sideLen
// bytes beside the text were not read (gridfsd patch, PATCHES.md item 31): the lengths of its binaries
// beside the text are checked against sideLen, and asking for one of them is an error, never a
// document without it. fields must not be nil.
func UnmarshalFieldsUnread(data []byte, sideLen int, fields []string) (*types.Document, error) {
	if fields == nil {
		return nil, lazyerrors.Errorf("sjson.UnmarshalFieldsUnread: no fields")
	}

	return unmarshalFields(data, nil, sideLen, fields, false)
}

func unmarshalFieldsSide(data, side []byte, fields []string, share bool) (*types.Document, error) {
	return unmarshalFields(data, side, len(side), fields, share)
}

// unmarshalFields decodes fields of data, whose binaries of sideLen bytes in all are side, or were
// not read when side is nil.
func unmarshalFields(data, side []byte, sideLen int, fields []string, share bool) (*types.Document, error) {
	// gridfsd patch (PATCHES.md, "fast sjson reads")
	v, ok := splitObject(data)
	if !ok {
		var err error
		if v, err = splitObjectJSON(data); err != nil {
			return nil, err
		}
	}

	// decode schema from the $s field of the document
	jsch, ok := v["$s"]
	if !ok {
		return nil, lazyerrors.Errorf("schema is not set")
	}

	var sch schema
	r := bytes.NewReader(jsch)
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()

	if err := dec.Decode(&sch); err != nil {
		return nil, lazyerrors.Error(err)
	}

	if err := checkConsumed(dec, r); err != nil {
		return nil, lazyerrors.Error(err)
	}

	delete(v, "$s")

	// decode data from the rest of the document using the schema
	if len(sch.Keys) != len(v) {
		return nil, lazyerrors.Errorf(
			"sjson.Unmarshal: the data must have the same number of schema keys and document fields (keys: %d, fields: %d)",
			len(sch.Keys), len(v),
		)
	}

	d := must.NotFail(types.NewDocument())

	var off int

	for _, key := range sch.Keys {
		b, ok := v[key]

		if !ok {
			return nil, lazyerrors.Errorf("sjson.Unmarshal: missing key %q", key)
		}

		// gridfsd patch (PATCHES.md item 23): binary data beside the text
		if sch := sch.Properties[key]; sch != nil && sch.Type == elemTypeBinData && len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
			n, err := strconv.Atoi(string(b))
			if err != nil || n < 0 || n > sideLen-off || sch.Subtype == nil {
				return nil, lazyerrors.Errorf("sjson.Unmarshal: binary %q of %s bytes beyond the %d stored beside the text", key, b, sideLen-off)
			}

			if fields == nil || slices.Contains(fields, key) {
				// gridfsd patch (PATCHES.md item 31): the caller did not read what it asks for
				if side == nil {
					return nil, lazyerrors.Errorf("sjson.Unmarshal: binary %q is beside the text, which was not read", key)
				}

				b := side[off : off+n : off+n]
				if !share {
					b = bytes.Clone(b)
				}

				d.Set(key, types.Binary{B: b, Subtype: *sch.Subtype})
			}

			off += n

			continue
		}

		if fields != nil && !slices.Contains(fields, key) {
			continue
		}

		v, err := unmarshalSingleValue(b, sch.Properties[key])
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		d.Set(key, v)
	}

	if off != sideLen {
		return nil, lazyerrors.Errorf("sjson.Unmarshal: %d bytes stored beside the text, %d read", sideLen, off)
	}

	return d, nil
}

// splitObjectJSON is upstream's way to the top-level fields of data, through encoding/json.
func splitObjectJSON(data []byte) (map[string]json.RawMessage, error) {
	var v map[string]json.RawMessage
	r := bytes.NewReader(data)
	dec := json.NewDecoder(r)

	err := dec.Decode(&v)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if err = checkConsumed(dec, r); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return v, nil
}

// unmarshalSingleValue decodes the given sjson-encoded data element by the given schema.
func unmarshalSingleValue(data json.RawMessage, sch *elem) (any, error) {
	if bytes.Equal(data, []byte("null")) {
		return fromSJSON(new(nullType)), nil
	}

	if sch == nil {
		return nil, lazyerrors.Errorf("schema is not set")
	}

	// gridfsd patch (PATCHES.md item 29): the common scalars without a json.Decoder each
	if v, ok := fastScalar(data, sch.Type); ok {
		return v, nil
	}

	var res sjsontype
	var err error

	switch sch.Type {
	case elemTypeObject:
		if sch.Schema == nil {
			return nil, lazyerrors.Errorf("sjson.unmarshalSingleValue: schema is not set")
		}

		var d documentType
		err = d.UnmarshalJSONWithSchema(data, sch.Schema)
		res = &d
	case elemTypeArray:
		if sch.Items == nil {
			return nil, lazyerrors.Errorf("sjson.unmarshalSingleValue: schema's items are not set")
		}

		var a arrayType
		err = a.UnmarshalJSONWithSchema(data, sch.Items)
		res = &a
	case elemTypeDouble:
		var d doubleType
		err = d.UnmarshalJSON(data)
		res = &d
	case elemTypeString:
		var s stringType
		err = s.UnmarshalJSON(data)
		res = &s
	case elemTypeBinData:
		var b binaryType
		err = b.UnmarshalJSONWithSchema(data, sch)
		res = &b
	case elemTypeObjectID:
		var o objectIDType
		err = o.UnmarshalJSON(data)
		res = &o
	case elemTypeBool:
		var b boolType
		err = b.UnmarshalJSON(data)
		res = &b
	case elemTypeDate:
		var d dateTimeType
		err = d.UnmarshalJSON(data)
		res = &d
	case elemTypeNull:
		return nil, lazyerrors.Errorf("sjson.unmarshalSingleValue: expected null, got %s", data)
	case elemTypeRegex:
		var r regexType
		err = r.UnmarshalJSONWithSchema(data, sch)
		res = &r
	case elemTypeInt:
		var i int32Type
		err = i.UnmarshalJSON(data)
		res = &i
	case elemTypeTimestamp:
		var t timestampType
		err = t.UnmarshalJSON(data)
		res = &t
	case elemTypeLong:
		var l int64Type
		err = l.UnmarshalJSON(data)
		res = &l
	default:
		return nil, lazyerrors.Errorf("sjson.unmarshalSingleValue: unhandled type %q", sch.Type)
	}

	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return fromSJSON(res), nil
}

// Marshal encodes given document fields and set its schema in the field $s.
// Use it when you need to encode a document with schema, for example, when you want to store it in a database.
func Marshal(d *types.Document) ([]byte, error) {
	return AppendMarshal(nil, d)
}

// AppendMarshal is Marshal appending the document to dst (gridfsd, PATCHES.md item 17: the SQLite
// backend encodes the documents it inserts into buffers it recycles).
func AppendMarshal(dst []byte, d *types.Document) ([]byte, error) {
	b, _, err := AppendMarshalSide(dst, nil, d, nil)
	return b, err
}

// SideMin is the size from which AppendMarshalSide stores binary data beside the text.
const SideMin = 256

// AppendMarshalSide is AppendMarshal that keeps the binary data of top-level fields of at least
// SideMin bytes out of the text (gridfsd, PATCHES.md item 23, "binary as binary"), unless inline
// says a field must stay in it (a field an index reads; a nil inline keeps every field in it).
// Each such value is written as its length, a JSON number (a binary value's text is otherwise a
// string or null, so nothing else reads it as a binary), and its bytes are appended to side, in
// the document's order. UnmarshalFieldsSide takes them back from there.
func AppendMarshalSide(dst, side []byte, d *types.Document, inline func(key string) bool) ([]byte, []byte, error) {
	if d == nil {
		panic("v is nil")
	}

	schema, err := marshalSchemaForDoc(d)
	if err != nil {
		return nil, nil, err
	}

	keys := d.Keys()
	values := d.Values()

	// gridfsd patch (PATCHES.md item 16): the document is written into a buffer of its final
	// size, values that can (binary data) appending their text straight into it. A bytes.Buffer
	// grown through a chunk's 340 KiB of base64, after a copy of its own for the value, allocated
	// about three times the text for every chunk inserted.
	encoded := make([][]byte, len(values))
	appenders := make([]appender, len(values))
	size := len(`{"$s":`) + len(schema) + len(`}`)

	for i, v := range values {
		size += len(`,"":`) + len(keys[i])

		if bin, ok := v.(types.Binary); ok && len(bin.B) >= SideMin && inline != nil && !inline(keys[i]) {
			b := strconv.AppendInt(nil, int64(len(bin.B)), 10)
			encoded[i] = b
			size += len(b)
			side = append(side, bin.B...)

			continue
		}

		sv := toSJSON(v)

		if a, ok := sv.(appender); ok {
			appenders[i] = a
			size += a.sjsonLen()

			continue
		}

		b, err := sv.MarshalJSON()
		if err != nil {
			return nil, nil, lazyerrors.Error(err)
		}

		encoded[i] = b
		size += len(b)
	}

	buf := dst
	if cap(buf)-len(buf) < size {
		// Not slices.Grow: race builds allocate twice in it.
		buf = append(make([]byte, 0, len(dst)+size), dst...)
	}

	buf = append(buf, `{"$s":`...)
	buf = append(buf, schema...)

	for i, key := range keys {
		buf = append(buf, `,"`...)
		buf = append(buf, key...)
		buf = append(buf, `":`...)

		if a := appenders[i]; a != nil {
			buf = a.appendSJSON(buf)
			continue
		}

		buf = append(buf, encoded[i]...)
	}

	buf = append(buf, '}')

	return buf, side, nil
}

// MarshalSingleValue encodes given built-in or types' package value into sjson.
// Use it when you need to encode a single value, for example in a where clause.
func MarshalSingleValue(v any) ([]byte, error) {
	if v == nil {
		panic("v is nil")
	}

	b, err := toSJSON(v).MarshalJSON()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return b, nil
}
