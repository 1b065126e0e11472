// gridfsd patch (PATCHES.md item 2): in-place encoding against the Go driver's BSON.

package wirebson

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// randomPair returns one random value twice: as wirebson holds it and as the
// Go driver's bson package does, nested up to depth.
func randomPair(r *rand.Rand, depth int) (any, any) {
	switch n := r.IntN(12); {
	case n == 0 && depth > 0:
		d, e := MakeDocument(0), bson.D{}
		for i := range r.IntN(4) {
			v, w := randomPair(r, depth-1)
			d.Add(fmt.Sprintf("k%d", i), v)
			e = append(e, bson.E{Key: fmt.Sprintf("k%d", i), Value: w})
		}
		return d, e
	case n == 1 && depth > 0:
		a, e := MakeArray(0), bson.A{}
		for range r.IntN(12) {
			v, w := randomPair(r, depth-1)
			a.Add(v)
			e = append(e, w)
		}
		return a, e
	case n == 2:
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		st := []byte{0, 4, 5, 0x80}[r.IntN(4)] // not 2: the driver writes the old binary's inner length
		return Binary{B: b, Subtype: BinarySubtype(st)}, bson.Binary{Subtype: st, Data: b}
	case n == 3:
		s := []string{"", "x", "ünïcødé"}[r.IntN(3)]
		return s, s
	case n == 4:
		v := r.Int32()
		return v, v
	case n == 5:
		v := r.Int64()
		return v, v
	case n == 6:
		v := []float64{0, -1.5, 1e300}[r.IntN(3)]
		return v, v
	case n == 7:
		id := bson.NewObjectID()
		return ObjectID(id), id
	case n == 8:
		v := r.IntN(2) == 0
		return v, v
	case n == 9:
		ms := r.Int64N(1 << 40)
		return time.UnixMilli(ms).UTC(), bson.DateTime(ms)
	case n == 10:
		return Null, nil
	default:
		t, i := r.Uint32(), r.Uint32()
		return Timestamp(uint64(t)<<32 | uint64(i)), bson.Timestamp{T: t, I: i}
	}
}

func TestEncodeMatchesDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		d, e := MakeDocument(0), bson.D{}
		arr, arrD := MakeArray(0), bson.A{}
		for i := range 1 + r.IntN(5) {
			v, w := randomPair(r, 4)
			d.Add(fmt.Sprintf("f%d", i), v)
			e = append(e, bson.E{Key: fmt.Sprintf("f%d", i), Value: w})
			arr.Add(v)
			arrD = append(arrD, w)
		}
		got, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := bson.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Document.Encode:\n%x\nthe driver:\n%x", []byte(got), want)
		}
		gotArr, err := arr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		_, wantArr, err := bson.MarshalValue(arrD)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotArr, wantArr) {
			t.Fatalf("Array.Encode:\n%x\nthe driver:\n%x", []byte(gotArr), wantArr)
		}
	}
}
