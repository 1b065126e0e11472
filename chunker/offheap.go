package chunker

import "sync"

// offHeap holds the chunks of a Cache outside the Go heap. The collector
// paces itself on the live heap: with a cache of hundreds of MiB on the
// heap it would let as much garbage (the driver's reply buffers, a chunk's
// worth per chunk fetched) pile up before it runs, and the process would
// hold about twice the cache. Mapped memory is not counted, so the heap
// stays small and collected, and an evicted chunk's pages go back to the
// system at once (beyond a few kept for the next fetch).
type offHeap struct {
	mu   sync.Mutex
	free [classCount][][]byte // unmapped buffers kept for reuse, by size class
	kept int                  // bytes in free
}

// maxKeptBytes bounds the mapped buffers kept for reuse: enough that a
// full cache evicting one chunk for each it loads maps nothing.
const maxKeptBytes = 8 << 20

// get returns a buffer of len n: mapped, of its size class's capacity, for
// sizes that have a class; else from the heap.
func (h *offHeap) get(n int) []byte {
	c := classOf(n)
	if c < 0 {
		return make([]byte, n)
	}
	h.mu.Lock()
	if l := len(h.free[c]); l > 0 {
		b := h.free[c][l-1]
		h.free[c][l-1] = nil
		h.free[c] = h.free[c][:l-1]
		h.kept -= cap(b)
		h.mu.Unlock()
		return b[:n]
	}
	h.mu.Unlock()
	if b := mapChunk(classSize(c)); b != nil {
		return b[:n]
	}
	return make([]byte, n, classSize(c))
}

// put gives back a buffer get returned, which nobody uses any more.
func (h *offHeap) put(b []byte) {
	c := classOf(cap(b))
	if c < 0 || classSize(c) != cap(b) {
		return // from the heap
	}
	h.mu.Lock()
	if h.kept+cap(b) <= maxKeptBytes {
		h.free[c] = append(h.free[c], b[:cap(b)])
		h.kept += cap(b)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	unmapChunk(b[:cap(b)]) // a heap buffer (mapping refused) is not mapped: left to the collector
}
