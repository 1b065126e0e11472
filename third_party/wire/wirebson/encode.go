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

package wirebson

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gridfsd/gridfsd/third_party/wire/internal/bsonproto"
	"github.com/gridfsd/gridfsd/third_party/wire/internal/util/lazyerrors"
)

// Writer is what documents and arrays are encoded to: a *bytes.Buffer, or a *bufio.Writer
// in front of a connection (gridfsd, PATCHES.md item 3).
type Writer interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
}

// writeUint32 writes v, little-endian.
func writeUint32(w Writer, v uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)

	if _, err := w.Write(b[:]); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}

// writeName writes an element's type tag and name.
func writeName(w Writer, t tag, name string) error {
	if err := w.WriteByte(byte(t)); err != nil {
		return lazyerrors.Error(err)
	}

	if _, err := w.WriteString(name); err != nil {
		return lazyerrors.Error(err)
	}

	if err := w.WriteByte(0); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}

// encodeField encodes document/array field.
//
// It panics if v is not a valid type.
func encodeField(w Writer, name string, v any) error {
	switch v := v.(type) {
	case *Document:
		if err := writeName(w, tagDocument, name); err != nil {
			return err
		}

		if err := v.encodeTo(w); err != nil {
			return lazyerrors.Error(err)
		}

	case RawDocument:
		if err := writeName(w, tagDocument, name); err != nil {
			return err
		}

		if _, err := w.Write(v); err != nil {
			return lazyerrors.Error(err)
		}

	case *Array:
		if err := writeName(w, tagArray, name); err != nil {
			return err
		}

		if err := v.encodeTo(w); err != nil {
			return lazyerrors.Error(err)
		}

	case RawArray:
		if err := writeName(w, tagArray, name); err != nil {
			return err
		}

		if _, err := w.Write(v); err != nil {
			return lazyerrors.Error(err)
		}

	default:
		return encodeScalarField(w, name, v)
	}

	return nil
}

// encodeScalarField encodes scalar document field.
//
// It panics if v is not a scalar value.
func encodeScalarField(w Writer, name string, v any) error {
	var t tag

	switch v.(type) {
	case float64:
		t = tagFloat64
	case string:
		t = tagString
	case Binary:
		t = tagBinary
	case ObjectID:
		t = tagObjectID
	case bool:
		t = tagBool
	case time.Time:
		t = tagTime
	case NullType:
		t = tagNull
	case Regex:
		t = tagRegex
	case int32:
		t = tagInt32
	case Timestamp:
		t = tagTimestamp
	case int64:
		t = tagInt64
	case Decimal128:
		t = tagDecimal128
	default:
		panic(fmt.Sprintf("invalid BSON type %T", v))
	}

	if err := writeName(w, t, name); err != nil {
		return err
	}

	// gridfsd: binary data is written once, not encoded into a buffer of its own first
	// (PATCHES.md item 2).
	if bin, ok := v.(Binary); ok {
		var h [5]byte
		binary.LittleEndian.PutUint32(h[:], uint32(len(bin.B)))
		h[4] = byte(bin.Subtype)

		if _, err := w.Write(h[:]); err != nil {
			return lazyerrors.Error(err)
		}

		if _, err := w.Write(bin.B); err != nil {
			return lazyerrors.Error(err)
		}

		return nil
	}

	b := make([]byte, bsonproto.SizeAny(v))
	bsonproto.EncodeAny(b, v)

	if _, err := w.Write(b); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}
