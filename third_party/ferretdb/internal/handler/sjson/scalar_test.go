package sjson

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// upstreamScalar decodes data as upstream did, with the type's own json.Decoder.
func upstreamScalar(data []byte, t elemType) (any, error) {
	var v sjsontype
	var err error
	switch t {
	case elemTypeString:
		var s stringType
		err, v = s.UnmarshalJSON(data), &s
	case elemTypeInt:
		var i int32Type
		err, v = i.UnmarshalJSON(data), &i
	case elemTypeLong:
		var l int64Type
		err, v = l.UnmarshalJSON(data), &l
	case elemTypeDate:
		var d dateTimeType
		err, v = d.UnmarshalJSON(data), &d
	case elemTypeObjectID:
		var o objectIDType
		err, v = o.UnmarshalJSON(data), &o
	case elemTypeBool:
		var b boolType
		err, v = b.UnmarshalJSON(data), &b
	default:
		panic(t)
	}
	if err != nil {
		return nil, err
	}
	return fromSJSON(v), nil
}

// TestFastScalarAgrees (PATCHES.md item 29): every value fastScalar decodes, upstream's decoder decodes
// to the same value: the values Marshal writes for random strings, int32s, int64s, dates, ObjectIDs and
// bools (which fastScalar must take), and 20,000 mutations of them and hand-made edge cases (leading
// zeros, exponents, -0, overflow, escapes, invalid UTF-8, whitespace, uppercase hex), which it must
// take only where upstream agrees.
func TestFastScalarAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	strs := []string{"", "a", "ünïcødé", "with \"quote\"", "back\\slash", "tab\there", "\x00", "<>&", "\u2028", "a/b.bin", "\xff"}
	random := func() (any, elemType) {
		switch r.IntN(6) {
		case 0:
			return strs[r.IntN(len(strs))] + strconv.Itoa(r.IntN(1000)), elemTypeString
		case 1:
			return []int32{0, -1, 1, math.MaxInt32, math.MinInt32, r.Int32(), -r.Int32()}[r.IntN(7)], elemTypeInt
		case 2:
			return []int64{0, -1, math.MaxInt64, math.MinInt64, r.Int64(), -r.Int64()}[r.IntN(6)], elemTypeLong
		case 3:
			return time.UnixMilli(r.Int64N(1<<45) - 1<<44), elemTypeDate
		case 4:
			var id types.ObjectID
			for i := range id {
				id[i] = byte(r.Uint32())
			}
			return id, elemTypeObjectID
		default:
			return r.IntN(2) == 0, elemTypeBool
		}
	}
	// the raw JSON Marshal writes for v
	raw := func(v any) []byte {
		fields, ok := splitObject(must.NotFail(Marshal(must.NotFail(types.NewDocument("v", v)))))
		if !ok {
			t.Fatalf("splitObject declined a document of %#v", v)
		}
		return fields["v"]
	}
	check := func(data []byte, typ elemType, mustTake bool) bool {
		got, ok := fastScalar(data, typ)
		if !ok {
			if mustTake {
				t.Fatalf("%s %s: fastScalar declined what Marshal writes", typ, data)
			}
			return false
		}
		want, err := upstreamScalar(data, typ)
		if err != nil {
			t.Fatalf("%s %s: fastScalar took %#v, upstream refuses: %v", typ, data, got, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s: fastScalar %#v, upstream %#v", typ, data, got, want)
		}
		return true
	}
	var values, mutated int
	for range 4000 {
		v, typ := random()
		data := raw(v)
		// what Marshal writes is taken, unless it escaped something in a string
		check(data, typ, !bytes.ContainsRune(data, '\\'))
		for range 5 {
			m := append([]byte(nil), data...)
			switch k := r.IntN(5); {
			case k == 0 && len(m) > 0:
				m[r.IntN(len(m))] = "0-1 9e.\"\\aAfF+x\t"[r.IntN(16)]
			case k == 1:
				i := r.IntN(len(m) + 1)
				m = append(m[:i], append([]byte{"0- e.\"\\Ff+\n"[r.IntN(11)]}, m[i:]...)...)
			case k == 2 && len(m) > 0:
				i := r.IntN(len(m))
				m = append(m[:i], m[i+1:]...)
			default:
				m = append(m, '0')
			}
			if check(m, typ, false) {
				mutated++
			}
		}
		values++
	}
	edge := map[elemType][]string{
		elemTypeInt:      {"0", "-0", "00", "01", "-01", "1e2", "1.0", "+1", " 1", "1 ", "2147483647", "2147483648", "-2147483648", "-2147483649", "", "-", "null"},
		elemTypeLong:     {"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "0", "-0", "1E3"},
		elemTypeDate:     {"0", "-1", "1700000000000", "1.5", "\"1\""},
		elemTypeString:   {`""`, `"a"`, `"\u0041"`, `"a\"b"`, "\"\xff\"", "\"\x01\"", `"`, `a"`, `"a`, `"é"`},
		elemTypeObjectID: {`"0123456789abcdef01234567"`, `"0123456789ABCDEF01234567"`, `"0123456789abcdef0123456"`, `"0123456789abcdef012345678"`, `"0123456789abcdef0123456g"`, `"\u0030123456789abcdef0123456"`},
		elemTypeBool:     {"true", "false", "True", "1", " true", "truee"},
	}
	for typ, cases := range edge {
		for _, c := range cases {
			check([]byte(c), typ, false)
		}
	}
	t.Logf("%d values, %d of their %d mutations taken by fastScalar (and upstream agrees)", values, mutated, values*5)
	if mutated == 0 {
		t.Fatal("no mutation taken: the test checks nothing of the fast paths' edges")
	}
}
