package main

import (
	"io"
	"testing"
)

// TestPatternReaderMatchesAt checks the reader's block copies and XORs
// against the content byte by byte, across MiB boundaries and from odd
// offsets, in reads of odd sizes.
func TestPatternReaderMatchesAt(t *testing.T) {
	p := newPattern()
	for _, c := range []struct{ off, n int64 }{{0, 3*blockSize + 17}, {blockSize - 5, 2*blockSize + 9}, {255*blockSize + 3, 2 * blockSize}} {
		r := p.readerAt(c.off, c.n)
		buf := make([]byte, 70001)
		at := c.off
		for {
			m, err := r.Read(buf)
			if bad := p.verify(buf[:m], at); bad >= 0 {
				t.Fatalf("reader from %d: byte %d differs from the content", c.off, bad)
			}
			at += int64(m)
			if err == io.EOF {
				break
			}
		}
		if at != c.off+c.n {
			t.Fatalf("reader from %d: read to %d, want %d", c.off, at, c.off+c.n)
		}
	}
}
