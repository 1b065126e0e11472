// gridfsd patch (PATCHES.md item 4): DecodeShared against Decode.

package wirebson

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestDecodeSharedAgrees: on valid documents and on thousands of corrupted ones, DecodeShared
// accepts exactly what Decode accepts and returns the same values, its binary data inside raw's
// memory, and the values stay raw's when Decode's copies are changed.
func TestDecodeSharedAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var valid, invalid, shared int
	inside := func(b, raw []byte) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
		return p >= start && p+uintptr(len(b)) <= start+uintptr(len(raw))
	}
	for range 3000 {
		raw := encoded(t, r)
		for mutation := range 4 {
			b := append(RawDocument(nil), raw...)
			for range mutation {
				if len(b) == 0 {
					break
				}
				switch i := r.IntN(len(b)); r.IntN(3) {
				case 0:
					b[i] = byte(r.Uint32())
				case 1:
					b = b[:i]
				default:
					b[i] ^= 0x80
				}
			}
			if len(b) == 0 {
				continue
			}
			doc, docErr := b.Decode()
			sh, shErr := b.DecodeShared()
			if (docErr == nil) != (shErr == nil) {
				t.Fatalf("%x: Decode error %v, DecodeShared error %v", []byte(b), docErr, shErr)
			}
			if docErr != nil {
				invalid++
				continue
			}
			valid++
			docRaw, err1 := doc.Encode()
			shRaw, err2 := sh.Encode()
			if err1 != nil || err2 != nil || !bytes.Equal(docRaw, shRaw) {
				t.Fatalf("%x: Decode %v, DecodeShared %v (%v, %v)", []byte(b), doc, sh, err1, err2)
			}
			for i := range sh.Len() {
				_, v := sh.fields[i].name, sh.fields[i].value
				bin, ok := v.(Binary)
				if !ok || len(bin.B) == 0 {
					continue
				}
				if !inside(bin.B, b) {
					t.Fatalf("%x: a binary of DecodeShared is not raw's", []byte(b))
				}
				copied := doc.fields[i].value.(Binary)
				if inside(copied.B, b) {
					t.Fatalf("%x: a binary of Decode is raw's", []byte(b))
				}
				shared++
			}
		}
	}
	if valid < 3000 || invalid < 1000 || shared < 500 {
		t.Fatalf("only %d valid and %d invalid documents compared, %d binaries shared", valid, invalid, shared)
	}
}
