// gridfsd patch (PATCHES.md item 3): a reply is written to the connection as it is encoded.

package wire

import (
	"bufio"
	"bytes"
	"io"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/wire/wirebson"
)

// reply is a find's reply holding n GridFS chunks of 255 KiB, as the store sends them.
func reply(n int) *wirebson.Document {
	batch := wirebson.MakeArray(n)
	for k := range n {
		data := make([]byte, 255<<10)
		data[0] = byte(k)
		batch.Add(wirebson.MustDocument("n", int32(k), "data", wirebson.Binary{B: data}))
	}
	cursor := wirebson.MustDocument("firstBatch", batch, "id", int64(0), "ns", "test.fs.chunks")
	return wirebson.MustDocument("cursor", cursor, "ok", float64(1))
}

// write writes msg as the store does (its length from Size) and returns the bytes.
func write(t *testing.T, msg *OpMsg) []byte {
	t.Helper()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	header := &MsgHeader{MessageLength: int32(MsgHeaderLen + msg.Size()), RequestID: 7, ResponseTo: 3, OpCode: OpCodeMsg}
	if err := WriteMessage(w, header, msg); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestWrittenMessageIsMarshalled: WriteMessage writes what MarshalBinary returns, after the
// header, for a message of NewOpMsgDocument, of NewOpMsg and of a kind 1 section, and the bytes
// read back are the document written.
func TestWrittenMessageIsMarshalled(t *testing.T) {
	seq := OpMsgSection{Kind: 1, Identifier: "documents", documents: []wirebson.RawDocument{
		ok(wirebson.MustDocument("a", int32(1)).Encode()),
		ok(wirebson.MustDocument("b", "two").Encode()),
	}}
	kind1 := new(OpMsg)
	if err := kind1.SetSections(OpMsgSection{documents: []wirebson.RawDocument{ok(wirebson.MustDocument("insert", "c").Encode())}}, seq); err != nil {
		t.Fatal(err)
	}
	for name, msg := range map[string]func() *OpMsg{
		"NewOpMsgDocument": func() *OpMsg { return NewOpMsgDocument(reply(3)) },
		"NewOpMsg":         func() *OpMsg { return ok(NewOpMsg(reply(3))) },
		"kind 1 section":   func() *OpMsg { return kind1 },
	} {
		m := msg()
		size := m.Size()
		got := write(t, m)
		want := ok(msg().MarshalBinary())
		if size != len(want) {
			t.Errorf("%s: Size %d, MarshalBinary %d bytes", name, size, len(want))
		}
		if len(got) != MsgHeaderLen+len(want) || !bytes.Equal(got[MsgHeaderLen:], want) {
			t.Errorf("%s: written %d bytes, not the header and the %d MarshalBinary returns", name, len(got), len(want))
			continue
		}
		header, body, err := ReadMessage(bufio.NewReader(bytes.NewReader(got)))
		if err != nil {
			t.Fatalf("%s: reading it back: %v", name, err)
		}
		if header.MessageLength != int32(len(got)) || header.RequestID != 7 || header.ResponseTo != 3 {
			t.Errorf("%s: header read back %+v", name, header)
		}
		if b := ok(body.(*OpMsg).MarshalBinary()); !bytes.Equal(b, want) {
			t.Errorf("%s: read back a different message", name)
		}
	}

	// what reads a message of NewOpMsgDocument gets its document encoded
	doc := reply(2)
	m := NewOpMsgDocument(doc)
	if d, err := m.Document(); err != nil || d != doc {
		t.Errorf("Document: %p, %v; want the document given, not encoded", d, err)
	}
	raw := ok(m.RawDocument())
	if want := ok(doc.Encode()); !bytes.Equal(raw, want) {
		t.Error("RawDocument is not the document's encoding")
	}
	if s := m.Sections(); len(s) != 1 || s[0].Kind != 0 || !bytes.Equal(s[0].Documents()[0], raw) {
		t.Errorf("Sections: %v", s)
	}
	if d, err := m.Document(); err != nil || d.Get("ok") != float64(1) {
		t.Errorf("Document after encoding: %v, %v", d, err)
	}
}

// TestWrittenMessageCopiesNoBinary: writing a reply of 16 chunks (4 MiB) to a connection allocates
// no copy of it; before, the store encoded it, marshalled it for its length and again to write it:
// three copies, 12,558,864 bytes (measured the same way).
func TestWrittenMessageCopiesNoBinary(t *testing.T) {
	doc := reply(16)
	w := bufio.NewWriter(io.Discard)
	got := allocated(t, func() error {
		msg := NewOpMsgDocument(doc)
		header := &MsgHeader{MessageLength: int32(MsgHeaderLen + msg.Size()), OpCode: OpCodeMsg}
		if err := WriteMessage(w, header, msg); err != nil {
			return err
		}
		return w.Flush()
	})
	size := NewOpMsgDocument(doc).Size()
	t.Logf("written: %d bytes allocated for a reply of %d bytes", got, size)
	if limit := uint64(16 << 10); got > limit {
		t.Errorf("writing a reply of %d bytes allocated %d bytes, want at most %d", size, got, limit)
	}
}

func ok[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
