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

package wire

import (
	"bufio"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/gridfsd/gridfsd/third_party/wire/internal/util/lazyerrors"
)

// MsgBody is a wire protocol message body.
//
//sumtype:decl
type MsgBody interface {
	encoding.BinaryMarshaler

	// UnmarshalBinaryNocopy is a variant of [encoding.BinaryUnmarshaler] that does not have to copy the data.
	UnmarshalBinaryNocopy([]byte) error

	fmt.Stringer

	// StringBlock returns an indented string representation for logging.
	StringBlock() string

	// StringFlow returns an unindented string representation for logging.
	StringFlow() string

	// check performs deep (and slow) validity check.
	check() error

	msgbody() // seal for go-check-sumtype linter
}

// ErrZeroRead is returned when zero bytes was read from connection,
// indicating that connection was closed by the client.
var ErrZeroRead = errors.New("zero bytes read")

// ReadMessage reads from reader and returns wire header and body.
//
// Error is (possibly wrapped) [ErrZeroRead] if zero bytes was read.
func ReadMessage(r *bufio.Reader) (*MsgHeader, MsgBody, error) {
	header, body, _, err := readMessage(r, false)
	return header, body, err
}

// RecycledMessageMin is the length from which [ReadMessageRecycled] reads a message's body into a
// recycled buffer (gridfsd, PATCHES.md item 5); a shorter one costs little to allocate.
const RecycledMessageMin = 64 << 10

// messageBuffers holds *[]byte buffers of message bodies given back by the release functions of
// [ReadMessageRecycled].
var messageBuffers sync.Pool

// ReadMessageRecycled is [ReadMessage] reading a message of at least [RecycledMessageMin] bytes
// into a buffer taken from a pool (gridfsd, PATCHES.md item 5). Calling release gives the buffer
// back for another message: only once nothing uses the message, nor anything decoded from it that
// shares its memory (binary data decoded with wirebson's DecodeShared, raw subdocuments), for the
// buffer will be overwritten. Not calling it is always safe: the buffer is then garbage, as
// [ReadMessage]'s is. release is nil for a shorter message and on errors.
func ReadMessageRecycled(r *bufio.Reader) (header *MsgHeader, body MsgBody, release func(), err error) {
	return readMessage(r, true)
}

// readMessage is ReadMessage, with a recycled buffer if recycle is set (see ReadMessageRecycled).
func readMessage(r *bufio.Reader, recycle bool) (*MsgHeader, MsgBody, func(), error) {
	var header MsgHeader
	if err := header.readFrom(r); err != nil {
		return nil, nil, nil, lazyerrors.Error(err)
	}

	n := int(header.MessageLength - MsgHeaderLen)

	var b []byte
	var release func()

	if recycle && n >= RecycledMessageMin {
		// a buffer too small, or more than twice the message (which a command that keeps part
		// of its message, such as a cursor's filter, would hold on to), is left to the collector:
		// given back, it would be taken first again
		p, _ := messageBuffers.Get().(*[]byte)
		if p == nil || cap(*p) < n || cap(*p) > 2*n {
			p = new([]byte)
			*p = make([]byte, n)
		}

		b = (*p)[:n]
		release = func() {
			if poisonReleased {
				for i := range b {
					b[i] = 0xdb
				}
			}

			messageBuffers.Put(p)
		}
	} else {
		b = make([]byte, n)
	}

	resHeader, body, err := readBody(&header, r, b)
	if err != nil {
		return resHeader, nil, nil, err
	}

	return resHeader, body, release, nil
}

// readBody reads the body of the message of header into b and parses it.
func readBody(header *MsgHeader, r *bufio.Reader, b []byte) (*MsgHeader, MsgBody, error) {
	if n, err := io.ReadFull(r, b); err != nil {
		return nil, nil, lazyerrors.Errorf("expected %d, read %d: %w", len(b), n, err)
	}

	switch header.OpCode {
	case OpCodeReply: // not sent by clients, but we should be able to read replies from a proxy
		var reply OpReply
		if err := reply.UnmarshalBinaryNocopy(b); err != nil {
			return nil, nil, lazyerrors.Error(err)
		}

		return header, &reply, nil

	case OpCodeMsg:
		if err := validateChecksum(header, b); err != nil {
			return header, nil, lazyerrors.Error(err)
		}

		var msg OpMsg
		if err := msg.UnmarshalBinaryNocopy(b); err != nil {
			return header, nil, lazyerrors.Error(err)
		}

		return header, &msg, nil

	case OpCodeQuery:
		var query OpQuery
		if err := query.UnmarshalBinaryNocopy(b); err != nil {
			return nil, nil, lazyerrors.Error(err)
		}

		return header, &query, nil

	case OpCodeUpdate:
		fallthrough
	case OpCodeInsert:
		fallthrough
	case OpCodeGetByOID:
		fallthrough
	case OpCodeGetMore:
		fallthrough
	case OpCodeDelete:
		fallthrough
	case OpCodeKillCursors:
		fallthrough
	case OpCodeCompressed:
		return nil, nil, lazyerrors.Errorf("unhandled opcode %s", header.OpCode)

	default:
		return nil, nil, lazyerrors.Errorf("unexpected opcode %s", header.OpCode)
	}
}

// WriteMessage validates msg and headers and writes them to the writer.
//
// gridfsd (PATCHES.md item 3): an OP_MSG without a checksum is written to w as it is encoded,
// without a buffer of its bytes, so w should be buffered (small fields) and pass large writes
// through (binary data), as a [bufio.Writer] does.
func WriteMessage(w *bufio.Writer, header *MsgHeader, msg MsgBody) error {
	if m, ok := msg.(*OpMsg); ok && !m.Flags.FlagSet(OpMsgChecksumPresent) {
		if expected := m.Size() + MsgHeaderLen; int32(expected) != header.MessageLength {
			panic(fmt.Sprintf(
				"expected length %d (marshaled body size) + %d (fixed marshaled header size) = %d, got %d",
				m.Size(), MsgHeaderLen, expected, header.MessageLength,
			))
		}

		if err := header.writeTo(w); err != nil {
			return lazyerrors.Error(err)
		}

		return m.writeTo(w)
	}

	b, err := msg.MarshalBinary()
	if err != nil {
		return lazyerrors.Error(err)
	}

	if expected := len(b) + MsgHeaderLen; int32(expected) != header.MessageLength {
		panic(fmt.Sprintf(
			"expected length %d (marshaled body size) + %d (fixed marshaled header size) = %d, got %d",
			len(b), MsgHeaderLen, expected, header.MessageLength,
		))
	}

	if header.OpCode == OpCodeMsg {
		if err := validateChecksum(header, b); err != nil {
			return lazyerrors.Error(err)
		}
	}

	if err := header.writeTo(w); err != nil {
		return lazyerrors.Error(err)
	}

	if _, err := w.Write(b); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}

// getChecksum returns the checksum attached to an OP_MSG.
func getChecksum(data []byte) (uint32, error) {
	// ensure that the length of the body is at least the size of a flagbit
	// and a crc32 checksum
	n := len(data)
	if n < crc32.Size+flagsSize {
		return 0, lazyerrors.New("Invalid message size for an OpMsg containing a checksum")
	}

	return binary.LittleEndian.Uint32(data[n-crc32.Size:]), nil
}

// validateChecksum calculates checksum of the message (header + body)
// and compares it with the checksum from the last bytes of the message.
// If the flag bit for checksum presence is not set or the checksum is valid, it returns nil.
// If the checksum is invalid, it returns an error.
//
// The callers of checksum validation should be closer to OP_MSG handling.
// TODO https://github.com/FerretDB/FerretDB/issues/2690
func validateChecksum(header *MsgHeader, body []byte) error {
	if len(body) < flagsSize {
		return lazyerrors.New("Message contains illegal flags value")
	}

	flagBit := OpMsgFlags(binary.LittleEndian.Uint32(body[:flagsSize]))
	if !flagBit.FlagSet(OpMsgChecksumPresent) {
		return nil
	}

	want, err := getChecksum(body)
	if err != nil {
		return lazyerrors.Error(err)
	}

	// https://datatracker.ietf.org/doc/html/rfc4960#appendix-B
	hasher := crc32.New(crc32.MakeTable(crc32.Castagnoli))

	if err := binary.Write(hasher, binary.LittleEndian, header); err != nil {
		return lazyerrors.Error(err)
	}

	offset := len(body) - crc32.Size
	if err := binary.Write(hasher, binary.LittleEndian, body[:offset]); err != nil {
		return lazyerrors.Error(err)
	}

	got := hasher.Sum32()
	if want != got {
		return lazyerrors.New("OP_MSG checksum does not match contents.")
	}

	return nil
}
