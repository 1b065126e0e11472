package buckets

import (
	"hash"
	"sync"
)

// asyncHash computes a hash on a goroutine of its own, fed copies of what
// is written to it, so that a second hash of an upload (S3's MD5 ETag) runs
// beside the chunk writer's SHA-256 instead of after it on the request's
// goroutine: on two cores the upload then costs the slower of the two
// hashes, not their sum. Write never blocks for long: at most
// asyncHashPending pieces wait, then Write waits for the hash to catch up.
// Sum or Close must be called once the upload ends, which ends the
// goroutine.
type asyncHash struct {
	h    hash.Hash
	work chan *[]byte
	done chan struct{}
	sum  []byte
	end  sync.Once
}

const (
	// asyncHashPiece is the most one piece copies: the writes of an
	// upload are reads of the request body, of at most a chunker batch.
	asyncHashPiece = 256 << 10
	// asyncHashPending bounds the pieces waiting, and so the memory an
	// upload holds for its hash (1 MiB).
	asyncHashPending = 4
)

var asyncHashPieces = sync.Pool{New: func() any { b := make([]byte, 0, asyncHashPiece); return &b }}

func newAsyncHash(h hash.Hash) *asyncHash {
	a := &asyncHash{h: h, work: make(chan *[]byte, asyncHashPending), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *asyncHash) run() {
	defer close(a.done)
	for p := range a.work {
		a.h.Write(*p)
		*p = (*p)[:0]
		asyncHashPieces.Put(p)
	}
}

// Write hands a copy of p to the hash; it never fails.
func (a *asyncHash) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		piece := asyncHashPieces.Get().(*[]byte)
		k := min(len(p), asyncHashPiece)
		*piece = append((*piece)[:0], p[:k]...)
		a.work <- piece
		p = p[k:]
	}
	return n, nil
}

// Sum waits for every byte written to be hashed and returns the hash; no
// Write may follow.
func (a *asyncHash) Sum() []byte {
	a.Close()
	<-a.done
	if a.sum == nil {
		a.sum = a.h.Sum(nil)
	}
	return a.sum
}

// Close ends the goroutine once it has hashed what is pending; no Write
// may follow. Calling it again does nothing.
func (a *asyncHash) Close() { a.end.Do(func() { close(a.work) }) }
