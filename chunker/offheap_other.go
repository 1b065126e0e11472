//go:build !unix

package chunker

// mapChunk: no mapping outside the heap on this system; the cache's chunks
// live on the Go heap.
func mapChunk(int) []byte { return nil }

func unmapChunk([]byte) {}
