package main

import (
	"crypto/subtle"
	"io"
	"math/rand/v2"
)

// pattern is deterministic file content that every reader can verify at
// any offset without keeping the file: a random 1 MiB block, varied per MiB.
type pattern struct{ block []byte }

const blockSize = 1 << 20

func newPattern() *pattern {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, blockSize)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return &pattern{block: b}
}

func (p *pattern) at(off int64) byte {
	return p.block[off%blockSize] ^ byte(off/blockSize)
}

// fill writes the content at off into buf.
func (p *pattern) fill(buf []byte, off int64) {
	for i := range buf {
		buf[i] = p.at(off + int64(i))
	}
}

// reader returns n bytes of content from offset 0.
func (p *pattern) reader(n int64) io.Reader { return &patternReader{p: p, n: n} }

// readerAt reads the n bytes of the content from off.
func (p *pattern) readerAt(off, n int64) io.Reader { return &patternReader{p: p, off: off, n: off + n} }

type patternReader struct {
	p    *pattern
	off  int64
	n    int64
	mask []byte // bytes all mask[0], for the XOR
}

func (r *patternReader) Read(b []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), r.n-r.off)]
	// Copy whole runs of the block rather than byte by byte: the benchmark
	// must not be limited by its own data source.
	done := 0
	for done < len(b) {
		off := r.off + int64(done)
		start := int(off % blockSize)
		n := copy(b[done:], r.p.block[start:])
		if x := byte(off / blockSize); x != 0 {
			r.xor(b[done:done+n], x)
		}
		done += n
	}
	r.off += int64(len(b))
	return len(b), nil
}

// xor XORs every byte of b with x. A byte at a time this cost the client
// 0.6 CPU s/GiB, which a two-core machine took from the gateway and the
// store being measured; crypto/subtle's XOR is vectorized.
func (r *patternReader) xor(b []byte, x byte) {
	if r.mask == nil {
		r.mask = make([]byte, 64<<10)
	}
	if r.mask[0] != x {
		for i := range r.mask {
			r.mask[i] = x
		}
	}
	for len(b) > 0 {
		n := subtle.XORBytes(b, b, r.mask)
		b = b[n:]
	}
}

// verify reports the first offset where got differs from the content at off, or -1.
func (p *pattern) verify(got []byte, off int64) int64 {
	for i, c := range got {
		if c != p.at(off+int64(i)) {
			return off + int64(i)
		}
	}
	return -1
}
