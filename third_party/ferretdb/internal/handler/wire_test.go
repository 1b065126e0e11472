// gridfsd patch (PATCHES.md item 40): a request's binary data is shared with the message read.

package handler

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gridfsd/gridfsd/third_party/wire"
	"github.com/gridfsd/gridfsd/third_party/wire/wirebson"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/bson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
)

// chunkInsert is an OP_MSG as the Go driver sends an InsertMany of four 255 KiB GridFS chunks (the
// documents in a kind 1 section), with its header, and the chunks' data.
func chunkInsert(t *testing.T) ([]byte, [][]byte) {
	t.Helper()
	cmd, err := wirebson.MustDocument("insert", "fs.chunks", "$db", "test").Encode()
	if err != nil {
		t.Fatal(err)
	}
	var seq []byte
	var data [][]byte
	for n := range 4 {
		b := bytes.Repeat([]byte{byte(n + 1)}, 255<<10)
		data = append(data, b)
		doc, err := wirebson.MustDocument("_id", int32(n), "files_id", int32(1), "n", int32(n), "data", wirebson.Binary{B: b}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, doc...)
	}
	body := binary.LittleEndian.AppendUint32(nil, 0) // flags
	body = append(body, 0)
	body = append(body, cmd...)
	body = append(body, 1)
	body = binary.LittleEndian.AppendUint32(body, uint32(4+len("documents")+1+len(seq)))
	body = append(body, "documents\x00"...)
	body = append(body, seq...)
	header := binary.LittleEndian.AppendUint32(nil, uint32(wire.MsgHeaderLen+len(body)))
	header = binary.LittleEndian.AppendUint32(header, 1) // request id
	header = binary.LittleEndian.AppendUint32(header, 0)
	header = binary.LittleEndian.AppendUint32(header, uint32(wire.OpCodeMsg))
	return append(header, body...), data
}

// TestInsertSharesMessageData: the documents of an insert of four 255 KiB chunks are decoded from
// the message read without a copy of their data (before: 1 MiB allocated, a copy of each chunk),
// and hold the same values.
func TestInsertSharesMessageData(t *testing.T) {
	raw, data := chunkInsert(t)
	_, body, err := wire.ReadMessage(bufio.NewReaderSize(bytes.NewReader(raw), 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	msg := body.(*wire.OpMsg)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err = opMsgDocument(msg); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	got := (after.TotalAlloc - before.TotalAlloc) / 10
	t.Logf("%d bytes allocated to decode an insert of %d bytes", got, len(raw))
	if got > 64<<10 {
		t.Errorf("decoding an insert of 1 MiB of chunks allocated %d bytes, want no copy of its data", got)
	}

	doc, err := opMsgDocument(msg)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := doc.Get("documents")
	docs := v.(*types.Array)
	if docs.Len() != 4 {
		t.Fatalf("%d documents, want 4", docs.Len())
	}
	for n := range 4 {
		d, _ := docs.Get(n)
		b, _ := d.(*types.Document).Get("data")
		if !bytes.Equal(b.(types.Binary).B, data[n]) {
			t.Errorf("chunk %d: wrong data", n)
		}
		if got, _ := d.(*types.Document).Get("n"); got != int32(n) {
			t.Errorf("chunk %d: n %v", n, got)
		}
	}
}

// TestToDocumentSharedAgrees: nested documents and arrays with binaries of every length convert
// to the same document as ToDocument's, with their binary data in raw's memory.
func TestToDocumentSharedAgrees(t *testing.T) {
	bin := func(n int) wirebson.Binary {
		return wirebson.Binary{B: bytes.Repeat([]byte{byte(n)}, n), Subtype: wirebson.BinarySubtype(n % 3)}
	}
	raw, err := wirebson.MustDocument(
		"a", bin(0), "b", bin(1), "c", bin(300),
		"d", wirebson.MustDocument("x", bin(5), "y", wirebson.MustArray(bin(7), wirebson.MustDocument("z", bin(9)))),
		"e", wirebson.MustArray(bin(11), "s", int32(3)),
	).Encode()
	if err != nil {
		t.Fatal(err)
	}
	copied, err := bson.ToDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := bson.ToDocumentShared(raw)
	if err != nil {
		t.Fatal(err)
	}
	if types.Compare(copied, shared) != types.Equal {
		t.Fatalf("ToDocument %v, ToDocumentShared %v", copied, shared)
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	var check func(v any)
	count := 0
	check = func(v any) {
		switch v := v.(type) {
		case *types.Document:
			for _, k := range v.Keys() {
				f, _ := v.Get(k)
				check(f)
			}
		case *types.Array:
			for i := range v.Len() {
				f, _ := v.Get(i)
				check(f)
			}
		case types.Binary:
			if len(v.B) == 0 {
				return
			}
			p := uintptr(unsafe.Pointer(unsafe.SliceData(v.B)))
			if p < start || p+uintptr(len(v.B)) > start+uintptr(len(raw)) {
				t.Errorf("a binary of %d bytes is a copy", len(v.B))
			}
			count++
		}
	}
	check(shared)
	if count != 6 {
		t.Errorf("%d binaries checked, want 6", count)
	}
}
