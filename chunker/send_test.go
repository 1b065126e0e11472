package chunker_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
)

// failAfter accepts limit bytes, then fails every write.
type failAfter struct {
	buf   bytes.Buffer
	limit int
}

var errClientGone = errors.New("client gone")

func (w *failAfter) Write(p []byte) (int, error) {
	if room := w.limit - w.buf.Len(); len(p) > room {
		w.buf.Write(p[:room])
		return room, errClientGone
	}
	return w.buf.Write(p)
}

func TestReaderSend(t *testing.T) {
	const chunkSize = 1000
	coll := mustChunks(t)
	data := randomBytes(12, 5*chunkSize+123)
	f := mustWrite(t, coll, "f", data, chunkSize)

	// A range across chunks, from an offset inside one: every byte, and
	// one wait reported for each chunk it had to load.
	r := mustReader(t, coll, f)
	if _, err := r.Seek(1500, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	loads := 0
	n, err := r.Send(&got, 3000, func(time.Duration) { loads++ })
	if err != nil || n != 3000 || !bytes.Equal(got.Bytes(), data[1500:4500]) {
		t.Fatalf("Send(3000) from 1500: %d bytes, %v; bytes equal: %v", n, err, bytes.Equal(got.Bytes(), data[1500:4500]))
	}
	if loads != 4 {
		t.Errorf("Send over chunks 1-4 reported %d chunk loads, want 4", loads)
	}

	// The client's failure is a WriteError; the store's errors are not.
	r = mustReader(t, coll, f)
	w := &failAfter{limit: 2345}
	n, err = r.Send(w, int64(len(data)), nil)
	if n != 2345 || !chunker.IsWriteError(err) || !errors.Is(err, errClientGone) {
		t.Fatalf("Send to a writer failing after 2345 bytes: %d, %v", n, err)
	}

	// Asked for more than the file holds: what there is, then
	// io.ErrUnexpectedEOF, which is not the client's.
	r = mustReader(t, coll, f)
	got.Reset()
	n, err = r.Send(&got, int64(len(data))+1, nil)
	if n != int64(len(data)) || !errors.Is(err, io.ErrUnexpectedEOF) || chunker.IsWriteError(err) || !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("Send past the end: %d bytes, %v", n, err)
	}
}
