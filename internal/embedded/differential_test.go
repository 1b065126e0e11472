package embedded

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// differentialValues are the files_id, _id and filename values the
// differential test mixes: ObjectIds and the strings of their hex digits
// (which share an index key), every numeric type of one number, documents,
// arrays holding the other values, null and dates.
func differentialValues() []any {
	a := bson.ObjectID{0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	b := bson.ObjectID{0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}
	return []any{
		a, b, a.Hex(), "x", "",
		int32(1), int64(1), float64(1), 2.5, int32(-3),
		bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: 1.0}},
		bson.A{a, int32(1)}, bson.A{}, nil,
		bson.DateTime(1), true,
	}
}

// differentialN are the n values: mostly numbers, some of other types.
func differentialN(r *rand.Rand) any {
	switch r.IntN(12) {
	case 0:
		return float64(r.IntN(10)) + 0.5
	case 1:
		return int64(r.IntN(10))
	case 2:
		return fmt.Sprint(r.IntN(10))
	case 3:
		return bson.A{int32(r.IntN(10)), int32(r.IntN(10))}
	case 4:
		return bson.DateTime(r.IntN(10))
	case 5:
		return nil
	default:
		return int32(r.IntN(10))
	}
}

// differentialDocs returns the documents both stores hold, in insertion order.
func differentialDocs(r *rand.Rand, values []any) []any {
	var docs []any
	for i := range 400 {
		d := bson.D{{Key: "_id", Value: any(int32(i))}}
		switch i % 7 {
		case 0:
			d[0].Value = bson.NewObjectID()
		case 1:
			d[0].Value = fmt.Sprintf("id-%d", i)
		case 2:
			d[0].Value = float64(i) + 0.5
		}
		if r.IntN(20) != 0 {
			d = append(d, bson.E{Key: "files_id", Value: values[r.IntN(len(values))]})
		}
		if r.IntN(20) != 0 {
			d = append(d, bson.E{Key: "n", Value: differentialN(r)})
		}
		d = append(d, bson.E{Key: "filename", Value: values[r.IntN(len(values))]},
			bson.E{Key: "uploadDate", Value: bson.DateTime(r.IntN(5))},
			bson.E{Key: "nested", Value: bson.D{{Key: "files_id", Value: values[r.IntN(len(values))]}}})
		docs = append(docs, d)
	}
	return docs
}

// differentialQuery returns a random query: the shapes GridFS issues, which
// are pushed down, and shapes that must not be.
func differentialQuery(r *rand.Rand, values []any) (filter, sort bson.D) {
	v := func() any { return values[r.IntN(len(values))] }
	k := func() any { return []any{int32(r.IntN(10)), int64(r.IntN(10)), float64(r.IntN(10)) + 0.5}[r.IntN(3)] }
	byN := bson.D{{Key: "n", Value: 1}}
	switch r.IntN(13) {
	case 0:
		return bson.D{{Key: "files_id", Value: v()}, {Key: "n", Value: k()}}, nil
	case 1:
		return bson.D{{Key: "files_id", Value: v()}, {Key: "n", Value: bson.D{{Key: "$gte", Value: k()}}}}, byN
	case 2:
		return bson.D{{Key: "files_id", Value: v()}, {Key: "n", Value: bson.D{{Key: "$gte", Value: k()}, {Key: "$lte", Value: k()}}}}, byN
	case 3:
		return bson.D{{Key: "files_id", Value: v()}}, byN
	case 4:
		return bson.D{{Key: "files_id", Value: v()}, {Key: "n", Value: bson.D{{Key: "$gt", Value: k()}, {Key: "$lt", Value: k()}}}}, nil
	case 5:
		return bson.D{{Key: "_id", Value: []any{v(), int32(r.IntN(400)), float64(r.IntN(400)) + 0.5, fmt.Sprintf("id-%d", r.IntN(400))}[r.IntN(4)]}}, nil
	case 6:
		return bson.D{{Key: "filename", Value: v()}}, bson.D{{Key: "uploadDate", Value: 1}}
	case 7: // $or is not pushed down; $in is (fork item 20)
		return bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "files_id", Value: v()}}, bson.D{{Key: "n", Value: k()}}}}}, byN
	case 8:
		return bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: bson.A{v(), v()}}}}}, byN
	case 9: // nested field, and a type mismatch on n
		return bson.D{{Key: "nested.files_id", Value: v()}, {Key: "n", Value: bson.D{{Key: "$gte", Value: "3"}}}}, byN
	case 10: // descending sort is left to the handler
		if r.IntN(2) == 0 { // the Go driver's GridFS query
			return bson.D{{Key: "files_id", Value: bson.D{{Key: "$eq", Value: v()}}}}, byN
		}
		return bson.D{{Key: "files_id", Value: v()}}, bson.D{{Key: "n", Value: -1}}
	case 11: // a range of strings (fork item "string ranges"), or of strings and something else
		s := func() any { return []any{"", "x", "x0", "65", "6501", values[2], v()}[r.IntN(7)] }
		return bson.D{{Key: "filename", Value: bson.D{{Key: "$gte", Value: s()}, {Key: "$lt", Value: s()}}}}, bson.D{{Key: "uploadDate", Value: 1}}
	default: // a range on files_id, an equality with a document
		return bson.D{{Key: "files_id", Value: bson.D{{Key: "$gte", Value: k()}}}, {Key: "n", Value: v()}}, byN
	}
}

// differentialFind returns the raw documents of a find.
func differentialFind(t *testing.T, c *mongo.Collection, filter, sort bson.D) []bson.Raw {
	t.Helper()
	opts := options.Find()
	if sort != nil {
		opts.SetSort(sort)
	}
	cur, err := c.Find(context.Background(), filter, opts)
	if err != nil {
		t.Fatalf("find %v sort %v: %v", filter, sort, err)
	}
	var docs []bson.Raw
	for cur.Next(context.Background()) {
		docs = append(docs, slices.Clone(cur.Current))
	}
	if err := cur.Err(); err != nil {
		t.Fatalf("find %v sort %v: %v", filter, sort, err)
	}
	return docs
}

// sameDocuments reports whether two results hold the same documents, in the
// same order when sorted (documents of equal sort keys in any order).
func sameDocuments(a, b []bson.Raw, sort bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(d bson.Raw) string {
		if sort == nil {
			return ""
		}
		v, err := d.LookupErr(sort[0].Key)
		if err != nil || v.Type == bson.TypeNull {
			return "null" // MongoDB sorts a missing field as null
		}
		if f, ok := v.AsFloat64OK(); ok {
			return fmt.Sprint(f)
		}
		// MongoDB sorts an array by its smallest element ascending, its largest descending
		if arr, ok := v.ArrayOK(); ok {
			if vals, err := arr.Values(); err == nil && len(vals) > 0 {
				var nums []float64
				for _, e := range vals {
					if f, ok := e.AsFloat64OK(); ok {
						nums = append(nums, f)
					}
				}
				if len(nums) == len(vals) {
					if sort[0].Value == -1 {
						return fmt.Sprint(slices.Max(nums))
					}
					return fmt.Sprint(slices.Min(nums))
				}
			}
		}
		return v.String()
	}
	// compare run by run of equal sort keys, as multisets
	for i := 0; i < len(a); {
		j := i
		for j < len(a) && key(a[j]) == key(a[i]) {
			j++
		}
		ra, rb := slices.Clone(a[i:j]), slices.Clone(b[i:j])
		for _, d := range rb {
			if key(d) != key(a[i]) {
				return false
			}
		}
		less := func(x, y bson.Raw) int { return bytes.Compare(x, y) }
		slices.SortFunc(ra, less)
		slices.SortFunc(rb, less)
		for k := range ra {
			if !bytes.Equal(ra[k], rb[k]) {
				return false
			}
		}
		i = j
	}
	return true
}

// TestPushdownDifferential runs the same random queries, deletes and updates
// against a store with index pushdown and one without, and wants identical
// answers.
func TestPushdownDifferential(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	values := differentialValues()
	docs := differentialDocs(r, values)

	var colls [2]*mongo.Collection
	for i, disable := range []bool{false, true} {
		s, err := Start(Config{DataDir: t.TempDir(), disablePushdown: disable})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		c := connect(t, s).Database("test").Collection("c")
		if _, err := c.Indexes().CreateMany(context.Background(), []mongo.IndexModel{
			{Keys: bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}}},
			{Keys: bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}}},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.InsertMany(context.Background(), docs); err != nil {
			t.Fatal(err)
		}
		colls[i] = c
	}
	pushed, plain := colls[0], colls[1]

	for range 300 {
		filter, sort := differentialQuery(r, values)
		got, want := differentialFind(t, pushed, filter, sort), differentialFind(t, plain, filter, sort)
		if !sameDocuments(got, want, sort) {
			t.Fatalf("find %v sort %v: with pushdown %d documents %v\nwithout %d documents %v", filter, sort, len(got), got, len(want), want)
		}
	}

	// deletes and updates by files_id and _id change the same documents
	for range 20 {
		filter, _ := differentialQuery(r, values)
		var updated [2]int64
		for i, c := range colls {
			res, err := c.UpdateMany(context.Background(), filter, bson.D{{Key: "$inc", Value: bson.D{{Key: "touched", Value: 1}}}})
			if err != nil {
				t.Fatal(err)
			}
			updated[i] = res.ModifiedCount
		}
		if updated[0] != updated[1] {
			t.Fatalf("update %v: %d with pushdown, %d without", filter, updated[0], updated[1])
		}
		del, _ := differentialQuery(r, values)
		var deleted [2]int64
		for i, c := range colls {
			res, err := c.DeleteMany(context.Background(), del)
			if err != nil {
				t.Fatal(err)
			}
			deleted[i] = res.DeletedCount
		}
		if deleted[0] != deleted[1] {
			t.Fatalf("delete %v: %d with pushdown, %d without", del, deleted[0], deleted[1])
		}
		all := bson.D{}
		if got, want := differentialFind(t, pushed, all, nil), differentialFind(t, plain, all, nil); !sameDocuments(got, want, nil) {
			t.Fatalf("after update %v and delete %v the collections differ: %d documents with pushdown, %d without", filter, del, len(got), len(want))
		}
	}
}
