package buckets

import (
	"bytes"
	"crypto/md5"
	"math/rand/v2"
	"testing"
)

// The hash computed on its own goroutine is the hash of every byte written,
// in order, whatever the sizes of the writes (pieces larger than one copy
// buffer included), and the caller may reuse its buffer as soon as Write
// returns, as the chunk writer's reads do.
func TestAsyncHash(t *testing.T) {
	for round := range 20 {
		data := make([]byte, rand.IntN(3<<20))
		for i := range data {
			data[i] = byte(rand.Uint32())
		}
		a := newAsyncHash(md5.New())
		buf := make([]byte, asyncHashPiece+1000)
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rand.IntN(len(buf)))
			copy(buf, rest[:n])
			a.Write(buf[:n])
			for i := range buf[:n] {
				buf[i] = 0xff // reused at once
			}
			rest = rest[n:]
		}
		want := md5.Sum(data)
		if got := a.Sum(); !bytes.Equal(got, want[:]) {
			t.Fatalf("round %d (%d bytes): %x, want %x", round, len(data), got, want)
		}
		if got := a.Sum(); !bytes.Equal(got, want[:]) {
			t.Fatalf("round %d: second Sum %x", round, got)
		}
		a.Close() // after Sum: nothing
	}
	a := newAsyncHash(md5.New())
	a.Write([]byte("abandoned"))
	a.Close()
	a.Close()
	<-a.done
}
