//go:build unix

package chunker

import "syscall"

// mapChunk returns n bytes of memory mapped outside the Go heap (see
// offHeap), or nil when the system refuses.
func mapChunk(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

// unmapChunk gives b, which mapChunk returned, back to the system.
func unmapChunk(b []byte) { syscall.Munmap(b) }
