// gridfsd patch (PATCHES.md item 5): large messages read into recycled buffers.

package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/wire/wirebson"
)

// withHeader is an OP_MSG body with its header.
func withHeader(body []byte) []byte {
	h := binary.LittleEndian.AppendUint32(nil, uint32(MsgHeaderLen+len(body)))
	h = binary.LittleEndian.AppendUint32(h, 1)
	h = binary.LittleEndian.AppendUint32(h, 0)
	h = binary.LittleEndian.AppendUint32(h, uint32(OpCodeMsg))
	return append(h, body...)
}

// TestRecycledBuffersFitTheMessage: a buffer given back serves the next message of about its size,
// not one less than half of it (which could keep it), and a message shorter than
// RecycledMessageMin gets no release.
func TestRecycledBuffersFitTheMessage(t *testing.T) {
	if poisonReleased {
		t.Skip("race builds' sync.Pool drops what it is given at random")
	}
	big := withHeader(message(t, chunks()))
	small := withHeader(message(t, wirebson.MustDocument("insert", "c", "documents", wirebson.MustArray(wirebson.MustDocument("data", wirebson.Binary{B: make([]byte, 100<<10)})), "$db", "test")))
	tiny := withHeader(message(t, wirebson.MustDocument("ping", int32(1), "$db", "test")))
	read := func(raw []byte) (backing int, release func()) {
		t.Helper()
		_, body, release, err := ReadMessageRecycled(bufio.NewReaderSize(bytes.NewReader(raw), 64<<10))
		if err != nil {
			t.Fatal(err)
		}
		doc := body.(*OpMsg).RawSection0()
		return cap(doc) + 5, release // the section starts after flags and kind; cap reaches the buffer's end
	}

	first, release := read(big)
	release()
	for range 3 {
		again, release := read(big)
		if again != first {
			t.Errorf("a message of %d bytes read into a buffer of %d, want the %d given back", len(big), again, first)
		}
		release()
	}
	if got, release := read(small); got > 2*len(small) {
		t.Errorf("a message of %d bytes read into a buffer of %d", len(small), got)
	} else {
		release()
	}
	if _, release := read(tiny); release != nil {
		t.Errorf("a message of %d bytes has a release", len(tiny))
	}
}
