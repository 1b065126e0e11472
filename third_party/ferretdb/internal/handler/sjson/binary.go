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

package sjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// binaryType represents BSON Binary data type.
type binaryType types.Binary

// sjsontype implements sjsontype interface.
func (bin *binaryType) sjsontype() {}

// UnmarshalJSONWithSchema unmarshals the JSON data with the given schema.
func (bin *binaryType) UnmarshalJSONWithSchema(data []byte, sch *elem) error {
	if bytes.Equal(data, []byte("null")) {
		panic("null data")
	}

	// gridfsd patch (PATCHES.md, "fast sjson reads")
	o, ok := decodeBase64String(data)
	if !ok {
		r := bytes.NewReader(data)
		dec := json.NewDecoder(r)
		dec.DisallowUnknownFields()

		err := dec.Decode(&o)
		if err != nil {
			return lazyerrors.Error(err)
		}

		if err = checkConsumed(dec, r); err != nil {
			return lazyerrors.Error(err)
		}
	}

	bin.B = o

	if sch.Subtype == nil {
		return lazyerrors.Errorf("binary subtype in the schema is nil")
	}

	bin.Subtype = *sch.Subtype

	return nil
}

// MarshalJSON implements sjsontype interface.
//
// gridfsd patch (PATCHES.md item 16): what encoding/json writes for a []byte (null, or the standard
// base64 in quotes), encoded once into a buffer of its size. json.Marshal encoded it into a buffer of
// its own, copied that into its encoder, scanned it, and copied it out: three allocations of a GridFS
// chunk's 340 KiB for each one inserted.
func (bin *binaryType) MarshalJSON() ([]byte, error) {
	return bin.appendSJSON(make([]byte, 0, bin.sjsonLen())), nil
}

// sjsonLen implements appender.
func (bin *binaryType) sjsonLen() int {
	if bin.B == nil {
		return len("null")
	}

	return base64.StdEncoding.EncodedLen(len(bin.B)) + len(`""`)
}

// appendSJSON implements appender.
func (bin *binaryType) appendSJSON(dst []byte) []byte {
	if bin.B == nil {
		return append(dst, "null"...)
	}

	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, bin.B)

	return append(dst, '"')
}

// check interfaces
var (
	_ sjsontype = (*binaryType)(nil)
	_ appender  = (*binaryType)(nil)
)
