// gridfsd patch (PATCHES.md item 1): what the store receives is checked without copying it; what it
// sends is not decoded again.

package wire

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/wire/wirebson"
)

// allocated returns the bytes f allocates, averaged over 10 calls.
func allocated(t *testing.T, f func() error) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / 10
}

// message is an OP_MSG body holding doc, as a client sends it.
func message(t *testing.T, doc *wirebson.Document) []byte {
	t.Helper()
	raw, err := doc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{0, 0, 0, 0, 0}, raw...) // flags, section kind 0
}

// chunks is an insert of four 255 KiB GridFS chunks, as gridfsd's uploads send them.
func chunks(extra ...any) *wirebson.Document {
	docs := wirebson.MakeArray(4)
	for n := range 4 {
		docs.Add(wirebson.MustDocument("files_id", int32(1), "n", int32(n), "data", wirebson.Binary{B: make([]byte, 255<<10)}))
	}
	return wirebson.MustDocument(append([]any{"insert", "fs.chunks", "documents", docs, "$db", "test"}, extra...)...)
}

func TestReceivedMessageIsCheckedWithoutCopies(t *testing.T) {
	CheckNaNs = true // as the FerretDB handler sets it
	body := message(t, chunks())
	got := allocated(t, func() error {
		var msg OpMsg
		return msg.UnmarshalBinaryNocopy(body)
	})
	t.Logf("received: %d bytes allocated", got)
	if got > 64<<10 {
		t.Errorf("reading a message of %d bytes allocated %d bytes, want no copy of its binary data", len(body), got)
	}

	for _, bad := range []*wirebson.Document{
		chunks("nan", math.NaN()),
		chunks("deep", wirebson.MustDocument("a", wirebson.MustArray(int32(1), math.NaN()))),
	} {
		var msg OpMsg
		if err := msg.UnmarshalBinaryNocopy(message(t, bad)); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("a message with a NaN: error %v, want NaN is not supported", err)
		}
	}
	var msg OpMsg
	if err := msg.UnmarshalBinaryNocopy(message(t, chunks())[:300]); err == nil {
		t.Errorf("a truncated message was accepted")
	}
}

func TestSentMessageIsNotDecodedAgain(t *testing.T) {
	CheckNaNs = true
	doc := chunks()
	raw, err := doc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// encoding it once and copying it into the message once is the least a reply costs
	got := allocated(t, func() error {
		msg, err := NewOpMsg(doc)
		if err != nil {
			return err
		}
		_, err = msg.MarshalBinary()
		return err
	})
	t.Logf("sent: %d bytes allocated for a reply of %d bytes", got, len(raw))
	if limit := uint64(len(raw)) * 5 / 2; got > limit {
		t.Errorf("building and marshalling a reply of %d bytes allocated %d bytes, want at most %d", len(raw), got, limit)
	}
}
