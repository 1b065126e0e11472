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
	"encoding/binary"
	"fmt"

	"github.com/gridfsd/gridfsd/third_party/wire/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/wire/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/wire/wirebson"
)

// CheckNaNs set to true returns an error if float64 NaN value is present in wire messages.
var CheckNaNs bool

// OpMsg is the main wire protocol message type.
type OpMsg struct {
	// The order of fields is weird to make the struct smaller due to alignment.
	// The wire order is: flags, sections, optional checksum.

	sections []OpMsgSection
	// doc is the only section, of kind 0, not encoded yet (gridfsd, PATCHES.md item 3): see
	// [NewOpMsgDocument]. sections is nil while it is set.
	doc      *wirebson.Document
	Flags    OpMsgFlags
	checksum uint32
}

// NewOpMsg creates a message with a single section of kind 0 with a single document.
func NewOpMsg(doc wirebson.AnyDocument) (*OpMsg, error) {
	raw, err := doc.Encode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	var msg OpMsg
	if err = msg.SetSections(OpMsgSection{documents: []wirebson.RawDocument{raw}}); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return &msg, nil
}

// NewOpMsgDocument creates a message with a single section of kind 0, doc, which it does not
// encode: [WriteMessage] writes it straight to the connection, binary data included, without
// a buffer of the message or of the document (gridfsd, PATCHES.md item 3). It is encoded only
// if something asks for its sections or bytes. doc and the values it holds must not change
// afterwards.
func NewOpMsgDocument(doc *wirebson.Document) *OpMsg {
	must.NotBeZero(doc)

	return &OpMsg{doc: doc}
}

// encode turns a document given to [NewOpMsgDocument] into the message's section.
func (msg *OpMsg) encode() {
	if msg.doc == nil {
		return
	}

	raw, err := msg.doc.Encode()
	must.NoError(err) // a Document's encoding fails only on an invalid value, which Add refuses
	msg.doc = nil
	msg.sections = []OpMsgSection{{documents: []wirebson.RawDocument{raw}}}
}

// Document returns the document of the section of kind 0, decoded at its top level
// ([wirebson.RawDocument.Decode]); for a message of [NewOpMsgDocument], the document it was
// given, not encoded (gridfsd, PATCHES.md item 3).
func (msg *OpMsg) Document() (*wirebson.Document, error) {
	if msg.doc != nil {
		return msg.doc, nil
	}

	raw, err := msg.RawDocument()
	if err != nil {
		return nil, err
	}

	return raw.Decode()
}

// Size returns the length of the message's body, which [OpMsg.MarshalBinary] returns,
// without encoding it (gridfsd, PATCHES.md item 3).
func (msg *OpMsg) Size() int {
	size := 4 // flags

	if msg.doc != nil {
		size += 1 + msg.doc.Size()
	}

	for _, section := range msg.sections {
		size++ // kind

		switch section.Kind {
		case 0:
			size += len(section.documents[0])

		case 1:
			size += 4 + wirebson.SizeCString(section.Identifier)

			for _, doc := range section.documents {
				size += len(doc)
			}
		}
	}

	if msg.Flags.FlagSet(OpMsgChecksumPresent) {
		size += 4
	}

	return size
}

// writeTo writes the message's body to w, as [OpMsg.MarshalBinary] returns it, without
// building it in a buffer first (gridfsd, PATCHES.md item 3). A message with a checksum is
// not written this way.
func (msg *OpMsg) writeTo(w *bufio.Writer) error {
	if msg.Flags.FlagSet(OpMsgChecksumPresent) {
		return lazyerrors.New("writeTo: a message with a checksum")
	}

	if msg.doc == nil {
		if err := checkSections(msg.sections); err != nil {
			return lazyerrors.Error(err)
		}
	}

	var b [4]byte

	binary.LittleEndian.PutUint32(b[:], uint32(msg.Flags))

	if _, err := w.Write(b[:]); err != nil {
		return lazyerrors.Error(err)
	}

	if msg.doc != nil {
		if err := w.WriteByte(0); err != nil {
			return lazyerrors.Error(err)
		}

		return msg.doc.EncodeTo(w)
	}

	for _, section := range msg.sections {
		if err := w.WriteByte(section.Kind); err != nil {
			return lazyerrors.Error(err)
		}

		switch section.Kind {
		case 0:
			if _, err := w.Write(section.documents[0]); err != nil {
				return lazyerrors.Error(err)
			}

		case 1:
			size := 4 + wirebson.SizeCString(section.Identifier)
			for _, doc := range section.documents {
				size += len(doc)
			}

			binary.LittleEndian.PutUint32(b[:], uint32(size))

			if _, err := w.Write(b[:]); err != nil {
				return lazyerrors.Error(err)
			}

			if _, err := w.WriteString(section.Identifier); err != nil {
				return lazyerrors.Error(err)
			}

			if err := w.WriteByte(0); err != nil {
				return lazyerrors.Error(err)
			}

			for _, doc := range section.documents {
				if _, err := w.Write(doc); err != nil {
					return lazyerrors.Error(err)
				}
			}

		default:
			return lazyerrors.Errorf("kind is %d", section.Kind)
		}
	}

	return nil
}

// MustOpMsg creates a message with a single section of kind 0 with a single document
// constructed from the given pairs of field names and values.
// It panics on error.
func MustOpMsg(pairs ...any) *OpMsg {
	msg, err := NewOpMsg(wirebson.MustDocument(pairs...))
	if err != nil {
		panic(err)
	}
	return msg
}

// Sections returns the sections of the OpMsg.
func (msg *OpMsg) Sections() []OpMsgSection {
	msg.encode()

	return msg.sections
}

// SetSections sets sections of the OpMsg.
func (msg *OpMsg) SetSections(sections ...OpMsgSection) error {
	if err := checkSections(sections); err != nil {
		return lazyerrors.Error(err)
	}

	msg.sections = sections
	msg.doc = nil

	// gridfsd: not CheckNaNs. A message built here is one the store sends, made of documents
	// it holds or computed; what it receives is checked by UnmarshalBinaryNocopy
	// (PATCHES.md item 1).
	if debugbuild {
		if err := msg.check(); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// RawSection0 returns the value of first section with kind 0.
func (msg *OpMsg) RawSection0() wirebson.RawDocument {
	for _, s := range msg.Sections() {
		if s.Kind == 0 {
			return s.documents[0]
		}
	}

	return nil
}

// RawSections returns the value of section with kind 0 and the value of all sections with kind 1.
func (msg *OpMsg) RawSections() (wirebson.RawDocument, []byte) {
	var spec wirebson.RawDocument
	var seq []byte

	for _, s := range msg.Sections() {
		switch s.Kind {
		case 0:
			spec = s.documents[0]

		case 1:
			for _, d := range s.documents {
				seq = append(seq, d...)
			}
		}
	}

	return spec, seq
}

// RawDocument returns the value of msg as a [wirebson.RawDocument].
//
// The error is returned if msg contains anything other than a single section of kind 0
// with a single document.
func (msg *OpMsg) RawDocument() (wirebson.RawDocument, error) {
	msg.encode()

	if err := checkSections(msg.sections); err != nil {
		return nil, err
	}

	s := msg.sections[0]
	if s.Kind != 0 || s.Identifier != "" {
		return nil, lazyerrors.Errorf(`expected section 0/"", got %d/%q`, s.Kind, s.Identifier)
	}

	return s.documents[0], nil
}

func (msg *OpMsg) msgbody() {}

// check implements [MsgBody].
func (msg *OpMsg) check() error {
	msg.encode()

	for _, s := range msg.sections {
		for _, d := range s.documents {
			doc, err := d.DecodeCheck()
			if err != nil {
				return lazyerrors.Error(err)
			}

			if !CheckNaNs {
				continue
			}

			if err = checkNaN(doc); err != nil {
				return err
			}
		}
	}

	return nil
}

// UnmarshalBinaryNocopy implements [MsgBody].
func (msg *OpMsg) UnmarshalBinaryNocopy(b []byte) error {
	if len(b) < 6 {
		return lazyerrors.Errorf("len=%d", len(b))
	}

	msg.Flags = OpMsgFlags(binary.LittleEndian.Uint32(b[0:4]))

	offset := 4

	for {
		var section OpMsgSection
		section.Kind = b[offset]
		offset++

		switch section.Kind {
		case 0:
			l, err := wirebson.FindRaw(b[offset:])
			if err != nil {
				return lazyerrors.Error(err)
			}

			section.documents = []wirebson.RawDocument{b[offset : offset+l]}
			offset += l

		case 1:
			if len(b) < offset+4 {
				return lazyerrors.Errorf("len(b) = %d, offset = %d", len(b), offset)
			}

			secSize := int(binary.LittleEndian.Uint32(b[offset:offset+4])) - 4
			if secSize < 5 {
				return lazyerrors.Errorf("size = %d", secSize)
			}

			offset += 4

			var err error

			if len(b) < offset {
				return lazyerrors.Errorf("len(b) = %d, offset = %d", len(b), offset)
			}

			section.Identifier, err = wirebson.DecodeCString(b[offset:])
			if err != nil {
				return lazyerrors.Error(err)
			}

			offset += wirebson.SizeCString(section.Identifier)
			secSize -= wirebson.SizeCString(section.Identifier)

			for secSize != 0 {
				if secSize < 0 {
					return lazyerrors.Errorf("size = %d", secSize)
				}

				if len(b) < offset {
					return lazyerrors.Errorf("len(b) = %d, offset = %d", len(b), offset)
				}

				l, err := wirebson.FindRaw(b[offset:])
				if err != nil {
					return lazyerrors.Error(err)
				}

				section.documents = append(section.documents, b[offset:offset+l])
				offset += l
				secSize -= l
			}

		default:
			return lazyerrors.Errorf("kind is %d", section.Kind)
		}

		msg.sections = append(msg.sections, section)

		if msg.Flags.FlagSet(OpMsgChecksumPresent) {
			if offset == len(b)-4 {
				break
			}
		} else {
			if offset == len(b) {
				break
			}
		}
	}

	if msg.Flags.FlagSet(OpMsgChecksumPresent) {
		// Move checksum validation here. It needs header data to be available.
		// TODO https://github.com/FerretDB/FerretDB/issues/2690
		msg.checksum = binary.LittleEndian.Uint32(b[offset:])
	}

	if err := checkSections(msg.sections); err != nil {
		return lazyerrors.Error(err)
	}

	if debugbuild || CheckNaNs {
		if err := msg.check(); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// MarshalBinary writes an OpMsg to a byte array.
func (msg *OpMsg) MarshalBinary() ([]byte, error) {
	msg.encode()

	if err := checkSections(msg.sections); err != nil {
		return nil, lazyerrors.Error(err)
	}

	if debugbuild {
		if err := msg.check(); err != nil {
			return nil, lazyerrors.Error(err)
		}
	}

	b := make([]byte, 4, 16)

	binary.LittleEndian.PutUint32(b, uint32(msg.Flags))

	for _, section := range msg.sections {
		b = append(b, section.Kind)

		switch section.Kind {
		case 0:
			b = append(b, section.documents[0]...)

		case 1:
			sec := make([]byte, wirebson.SizeCString(section.Identifier))
			wirebson.EncodeCString(sec, section.Identifier)

			for _, doc := range section.documents {
				sec = append(sec, doc...)
			}

			var size [4]byte
			binary.LittleEndian.PutUint32(size[:], uint32(len(sec)+4))
			b = append(b, size[:]...)
			b = append(b, sec...)

		default:
			return nil, lazyerrors.Errorf("kind is %d", section.Kind)
		}
	}

	if msg.Flags.FlagSet(OpMsgChecksumPresent) {
		// Calculate checksum before writing it. It needs header data to be ready and available here.
		// TODO https://github.com/FerretDB/FerretDB/issues/2690
		var checksum [4]byte
		binary.LittleEndian.PutUint32(checksum[:], msg.checksum)
		b = append(b, checksum[:]...)
	}

	return b, nil
}

// logMessage returns a string representation for logging.
func (msg *OpMsg) logMessage(logFunc func(v any) string) string {
	if msg == nil {
		return "<nil>"
	}

	msg.encode()

	m := wirebson.MustDocument(
		"FlagBits", msg.Flags.String(),
		"Checksum", int64(msg.checksum),
	)

	sections := wirebson.MakeArray(len(msg.sections))
	for _, section := range msg.sections {
		s := wirebson.MustDocument(
			"Kind", int32(section.Kind),
		)

		switch section.Kind {
		case 0:
			doc, err := section.documents[0].DecodeDeep()
			if err == nil {
				must.NoError(s.Add("Document", doc))
			} else {
				must.NoError(s.Add("DocumentError", err.Error()))
			}

		case 1:
			must.NoError(s.Add("Identifier", section.Identifier))
			docs := wirebson.MakeArray(len(section.documents))

			for _, d := range section.documents {
				doc, err := d.DecodeDeep()
				if err == nil {
					must.NoError(docs.Add(doc))
				} else {
					must.NoError(docs.Add(wirebson.MustDocument("error", err.Error())))
				}
			}

			must.NoError(s.Add("Documents", docs))

		default:
			panic(fmt.Sprintf("unknown kind %d", section.Kind))
		}

		must.NoError(sections.Add(s))
	}

	must.NoError(m.Add("Sections", sections))

	return logFunc(m)
}

// String returns a string representation for logging.
func (msg *OpMsg) String() string {
	return msg.logMessage(wirebson.LogMessage)
}

// StringBlock returns an indented string representation for logging.
func (msg *OpMsg) StringBlock() string {
	return msg.logMessage(wirebson.LogMessageBlock)
}

// StringFlow returns an unindented string representation for logging.
func (msg *OpMsg) StringFlow() string {
	return msg.logMessage(wirebson.LogMessageFlow)
}

// check interfaces
var (
	_ MsgBody = (*OpMsg)(nil)
)
