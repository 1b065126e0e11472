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

// gridfsd patch (PATCHES.md, "fast sjson reads"): a document's top-level fields and its binary values
// without encoding/json's byte-by-byte scanner.
//
// A GridFS chunk is one binary value of 255 KiB, stored as 340 KiB of base64 in a JSON string. Upstream's
// Unmarshal ran encoding/json's scanner over those bytes three times (finding the document's end, skipping
// the value into a json.RawMessage, finding the value's end again) before unquoting and decoding them:
// half of the store's CPU on every read and every delete of chunks. These fast paths find the same bytes
// with bytes.IndexByte and decode base64 directly; anything they do not recognize with certainty goes the
// way upstream went, which also reports the errors.

package sjson

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
)

// splitObject returns the top-level fields of a JSON object by key, their values as raw JSON (sub-slices
// of data, not validated: every value is decoded by its own type afterwards, which validates it). ok is
// false when data is not a JSON object of plain keys (no escapes, no control characters, valid UTF-8),
// or is malformed; the caller then decodes it with encoding/json.
func splitObject(data []byte) (fields map[string]json.RawMessage, ok bool) {
	// no whitespace around the object: upstream's decoder rejects trailing bytes, and Marshal writes none
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return nil, false
	}

	i := 0

	fields = map[string]json.RawMessage{}

	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return fields, i+1 == len(data)
	}

	for {
		if i >= len(data) || data[i] != '"' {
			return nil, false
		}

		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return nil, false
		}

		key := data[i+1 : i+1+end]
		if !plainString(key) {
			return nil, false
		}

		i = skipSpace(data, i+1+end+1)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}

		i = skipSpace(data, i+1)

		end, ok = skipValue(data, i)
		if !ok {
			return nil, false
		}

		fields[string(key)] = data[i:end]

		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, false
		}

		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return fields, i+1 == len(data)
		default:
			return nil, false
		}
	}
}

// plainString reports whether s is the content of a JSON string that needs no unquoting.
func plainString(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}

	return utf8.Valid(s)
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}

	return i
}

// skipValue returns the index just after the JSON value that starts at i.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}

	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0

		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return 0, false
				}

				i = end

				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}

		return 0, false
	default:
		start := i
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, i > start
			}
			i++
		}

		return 0, false
	}
}

// skipString returns the index just after the JSON string that starts at i: the first quote not
// escaped by an odd number of backslashes.
func skipString(data []byte, i int) (int, bool) {
	j := i + 1

	for {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return 0, false
		}

		j += q

		backslashes := 0
		for k := j - 1; k > i && data[k] == '\\'; k-- {
			backslashes++
		}

		if backslashes%2 == 0 {
			return j + 1, true
		}

		j++
	}
}

// decodeBase64String decodes a JSON string of standard base64 as encoding/json decodes it into a []byte.
// ok is false for anything else (escapes, line breaks, which base64 would skip and JSON forbids, invalid
// base64); the caller then decodes it with encoding/json.
func decodeBase64String(data []byte) ([]byte, bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return nil, false
	}

	s := data[1 : len(data)-1]
	if bytes.IndexAny(s, "\\\"\r\n") >= 0 {
		return nil, false
	}

	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))

	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, false
	}

	return b[:n], true
}

// fastScalar decodes a string, int, long, date, objectId or bool value without encoding/json, when
// data is in the form Marshal writes (gridfsd patch, PATCHES.md item 29): a string without escapes,
// control characters or invalid UTF-8; an integer without sign other than '-', leading zeros,
// fraction or exponent, in range; an ObjectID's 24 hex digits; true or false. ok is false for anything
// else, which the caller decodes the way upstream does (and which reports the errors). Upstream made a
// json.Decoder, with a buffer of its own, for every such value: a third of what the store allocated
// per query besides the documents' data.
func fastScalar(data []byte, t elemType) (v any, ok bool) {
	switch t {
	case elemTypeString:
		if s, ok := plainQuoted(data); ok {
			return string(s), true
		}

	case elemTypeInt:
		if i, ok := plainInt(data); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return int32(i), true
		}

	case elemTypeLong:
		if i, ok := plainInt(data); ok {
			return i, true
		}

	case elemTypeDate:
		if i, ok := plainInt(data); ok {
			// as dateTimeType.UnmarshalJSON
			return time.UnixMilli(i), true
		}

	case elemTypeObjectID:
		if s, ok := plainQuoted(data); ok && len(s) == 2*types.ObjectIDLen {
			var id types.ObjectID
			if _, err := hex.Decode(id[:], s); err == nil {
				return id, true
			}
		}

	case elemTypeBool:
		switch string(data) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}

	return nil, false
}

// plainQuoted returns the content of data when data is a JSON string that needs no unquoting.
func plainQuoted(data []byte) ([]byte, bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return nil, false
	}

	s := data[1 : len(data)-1]

	return s, plainString(s)
}

// plainInt returns the value of data when data is a JSON integer: an optional '-', then 0 or digits
// without a leading zero, within int64.
func plainInt(data []byte) (int64, bool) {
	digits := data
	neg := len(digits) > 0 && digits[0] == '-'

	if neg {
		digits = digits[1:]
	}

	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}

	var u uint64 // 19 digits fit

	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}

		u = u*10 + uint64(c-'0')
	}

	switch {
	case neg && u <= 1<<63:
		return -int64(u), true // -(1<<63) wraps to itself, math.MinInt64
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	default:
		return 0, false
	}
}
