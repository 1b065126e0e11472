package dav

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// writeSizes records the size of every Write.
type writeSizes struct {
	http.ResponseWriter
	sizes []int
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.ResponseWriter.Write(p)
}

// A download is written to the client a chunk at a time straight from the
// chunk cache, as the HTTP API's are, not copied through a 32 KiB buffer
// of its own; whole and ranged, byte for byte.
func TestDownloadWritesChunksFromTheCache(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 128 << 10
	data := bytes.Repeat([]byte("0123456789abcdef"), 4*chunk/16) // four chunks
	f, err := b.Upload(ctx, "f", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: chunk})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rng        string
		first, end int
		writes     []int
	}{
		{"", 0, len(data), []int{chunk, chunk, chunk, chunk}},
		{"bytes=100-300000", 100, 300001, []int{chunk - 100, chunk, 300001 - 2*chunk}},
	} {
		req := httptest.NewRequest(http.MethodGet, "/dav/fs/f", nil)
		if c.rng != "" {
			req.Header.Set("Range", c.rng)
		}
		q := &request{method: http.MethodGet, r: req}
		rec := httptest.NewRecorder()
		w := &writeSizes{ResponseWriter: rec}
		rf := &readFile{fsys: &fileSystem{s: &Server{metrics: newMetrics()}}, ctx: withRequest(ctx, q), b: b, info: fileInfoOf("f", f)}
		http.ServeContent(&reply{ResponseWriter: w, q: q}, req, "", time.Now(), rf)
		rf.Close()
		if !bytes.Equal(rec.Body.Bytes(), data[c.first:c.end]) {
			t.Fatalf("Range %q: %d bytes, not the file's %d to %d", c.rng, rec.Body.Len(), c.first, c.end)
		}
		if len(w.sizes) != len(c.writes) {
			t.Fatalf("Range %q: writes of %v bytes, want %v (one per chunk)", c.rng, w.sizes, c.writes)
		}
		for i := range c.writes {
			if w.sizes[i] != c.writes[i] {
				t.Fatalf("Range %q: writes of %v bytes, want %v (one per chunk)", c.rng, w.sizes, c.writes)
			}
		}
	}
}
