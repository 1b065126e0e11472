package chunker

import (
	"math/bits"
	"sync"
)

// Chunk and batch buffers come from pools shared by the whole process, so
// that concurrent uploads and downloads reuse megabytes instead of
// allocating them per chunk. The pools are by size class, a fixed set: a
// pool per exact size would keep one pool for every distinct size ever
// seen (the last chunk of every file has its own), and pools are never
// freed.
//
// A class is a power of two or one of three steps between it and the
// next, so a buffer wastes less than a quarter of its capacity; the
// default chunk (261120 bytes) and batch (4 chunks) use the 256 KiB and
// 1 MiB classes. Sizes below the smallest class or above the largest are
// allocated directly and left to the garbage collector.
const (
	minClassShift = 12 // 4 KiB
	maxClassShift = 25 // classes up to 32 MiB, past MaxChunkSize and large batches
	classSteps    = 4  // classes per doubling
	classCount    = (maxClassShift-minClassShift)*classSteps + 1
)

var (
	classPools [classCount]sync.Pool // of *[]byte with cap == classSize(i)
	// boxes recycles the *[]byte that carry slices through classPools, so
	// that putting a buffer back allocates nothing.
	boxes sync.Pool
)

// classSize is the capacity of the buffers of class i.
func classSize(i int) int {
	shift := minClassShift + i/classSteps
	step := i % classSteps
	return (1 << shift) + step*(1<<(shift-2))
}

// classOf is the smallest class whose buffers hold size bytes, or -1 when
// size is outside the pooled range.
func classOf(size int) int {
	if size <= 0 || size > 1<<maxClassShift {
		return -1
	}
	if size <= 1<<minClassShift {
		if size < 1<<minClassShift {
			return -1 // small: allocating is cheaper than pooling
		}
		return 0
	}
	shift := bits.Len(uint(size-1)) - 1 // 2^shift < size <= 2^(shift+1)
	quarter := 1 << (shift - 2)
	step := (size - (1 << shift) + quarter - 1) / quarter // 1..4
	return (shift-minClassShift)*classSteps + step
}

// getBuffer returns a slice of len size, pooled when size has a class.
func getBuffer(size int) []byte {
	c := classOf(size)
	if c < 0 {
		return make([]byte, size)
	}
	if bp, ok := classPools[c].Get().(*[]byte); ok {
		b := *bp
		*bp = nil
		boxes.Put(bp)
		return b[:size]
	}
	return make([]byte, size, classSize(c))
}

// putBuffer gives b back to its class's pool. Buffers that getBuffer
// allocated outside the classes, whose capacity is not a class size, are
// dropped.
func putBuffer(b []byte) {
	c := classOf(cap(b))
	if c < 0 || classSize(c) != cap(b) {
		return
	}
	bp, _ := boxes.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = b[:0]
	classPools[c].Put(bp)
}
