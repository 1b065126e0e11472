// gridfsd patch (PATCHES.md item 1): DecodeCheck against DecodeDeep.

package wirebson

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// randomValue returns a value of any type wirebson encodes, nested up to depth.
func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(12); {
	case n == 0 && depth > 0:
		d := MakeDocument(0)
		for i := range r.IntN(4) {
			d.Add(fmt.Sprintf("k%d", i), randomValue(r, depth-1))
		}
		return d
	case n == 1 && depth > 0:
		a := MakeArray(0)
		for range r.IntN(4) {
			a.Add(randomValue(r, depth-1))
		}
		return a
	case n == 2:
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return Binary{B: b, Subtype: BinarySubtype(r.IntN(3))}
	case n == 3:
		return []string{"", "x", "ünïcødé", "a\x00b"[:1]}[r.IntN(4)]
	case n == 4:
		return r.Int32()
	case n == 5:
		return r.Int64()
	case n == 6:
		return []float64{0, -1.5, math.Inf(1), math.NaN(), 1e300}[r.IntN(5)]
	case n == 7:
		return ObjectID{byte(r.Uint32()), 1, 2, 3}
	case n == 8:
		return r.IntN(2) == 0
	case n == 9:
		return time.UnixMilli(r.Int64N(1 << 40)).UTC()
	case n == 10:
		return Null
	default:
		return Timestamp(r.Uint64())
	}
}

func encoded(t *testing.T, r *rand.Rand) RawDocument {
	d := MakeDocument(0)
	for i := range 1 + r.IntN(5) {
		if err := d.Add(fmt.Sprintf("f%d", i), randomValue(r, 3)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestDecodeCheckAgrees: on valid documents and on thousands of corrupted ones, DecodeCheck accepts
// exactly what DecodeDeep accepts and returns the same values.
func TestDecodeCheckAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var valid, invalid int
	for range 3000 {
		raw := encoded(t, r)
		for mutation := range 4 {
			b := append(RawDocument(nil), raw...)
			if mutation > 0 {
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
			}
			deep, deepErr := b.DecodeDeep()
			check, checkErr := b.DecodeCheck()
			if (deepErr == nil) != (checkErr == nil) {
				t.Fatalf("%x: DecodeDeep error %v, DecodeCheck error %v", []byte(b), deepErr, checkErr)
			}
			if deepErr != nil {
				invalid++
				continue
			}
			valid++
			// compared encoded: NaN is not equal to itself
			deepRaw, err1 := deep.Encode()
			checkRaw, err2 := check.Encode()
			if err1 != nil || err2 != nil || !bytes.Equal(deepRaw, checkRaw) || !bytes.Equal(deepRaw, b) {
				t.Fatalf("%x: DecodeDeep %v, DecodeCheck %v (%v, %v)", []byte(b), deep, check, err1, err2)
			}
		}
	}
	if valid < 3000 || invalid < 1000 {
		t.Fatalf("only %d valid and %d invalid documents compared", valid, invalid)
	}
}

// TestDecodeCheckCopiesNoBinary: a document of 1 MiB of binary data is checked without copying it.
func TestDecodeCheckCopiesNoBinary(t *testing.T) {
	raw, err := MustDocument("a", Binary{B: make([]byte, 1<<20)}, "b", MustArray(Binary{B: make([]byte, 1<<20)})).Encode()
	if err != nil {
		t.Fatal(err)
	}
	allocated := func(decode func() (*Document, error)) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			if _, err := decode(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 10
	}
	if deep := allocated(raw.DecodeDeep); deep < 2<<20 {
		t.Fatalf("DecodeDeep allocated %d bytes; the comparison needs it to copy the binaries", deep)
	}
	if check := allocated(raw.DecodeCheck); check > 4<<10 {
		t.Fatalf("DecodeCheck allocated %d bytes for a document of 2 MiB of binary data, want no copy", check)
	}
}
