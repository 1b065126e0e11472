package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// binaryValue returns binary data of a size around the threshold from which the store keeps it
// beside the text (256 bytes), of several subtypes.
func binaryValue(r *rand.Rand) bson.Binary {
	sizes := []int{0, 1, 16, 255, 256, 257, 300, 300, 4096, 9000}
	b := make([]byte, sizes[r.IntN(len(sizes))])
	for i := range b {
		b[i] = byte(r.IntN(3)) // few distinct values, so that equal binaries happen
	}
	return bson.Binary{Subtype: []byte{0, 0, 4, 0x80}[r.IntN(4)], Data: b}
}

// binaryDocs returns documents with binary data at the top level (indexed and not), in _id, in
// nested documents and arrays, beside other types in the same fields.
func binaryDocs(r *rand.Rand, n int) []any {
	var docs []any
	for i := range n {
		d := bson.D{{Key: "_id", Value: any(int32(i))}}
		if i%5 == 0 {
			bin := binaryValue(r)
			bin.Data = append(bin.Data, byte(i), byte(i>>8)) // unique
			d[0].Value = bin
		}
		if r.IntN(10) != 0 {
			d = append(d, bson.E{Key: "data", Value: binaryValue(r)})
		} else {
			d = append(d, bson.E{Key: "data", Value: []any{int32(3), "x", nil}[r.IntN(3)]})
		}
		if r.IntN(3) != 0 {
			d = append(d, bson.E{Key: "files_id", Value: []any{binaryValue(r), int32(r.IntN(3)), "a"}[r.IntN(3)]})
		}
		d = append(d, bson.E{Key: "n", Value: int32(r.IntN(5))})
		if r.IntN(2) == 0 {
			d = append(d, bson.E{Key: "other", Value: binaryValue(r)})
		}
		if r.IntN(3) == 0 {
			d = append(d, bson.E{Key: "nested", Value: bson.D{{Key: "b", Value: binaryValue(r)}}})
		}
		if r.IntN(3) == 0 {
			d = append(d, bson.E{Key: "list", Value: bson.A{binaryValue(r), int32(1)}})
		}
		// equal length, different content: a unique index on it must hold
		d = append(d, bson.E{Key: "uniq", Value: bson.Binary{Data: fmt.Appendf(make([]byte, 0, 300), "%0300d", i)}})
		docs = append(docs, d)
	}
	return docs
}

// binaryQuery returns a random query on binary data.
func binaryQuery(r *rand.Rand, docs []any) (filter, sort bson.D) {
	doc := docs[r.IntN(len(docs))].(bson.D)
	v := func(key string) any {
		for _, e := range doc {
			if e.Key == key {
				return e.Value
			}
		}
		return binaryValue(r)
	}
	sorts := []bson.D{nil, {{Key: "data", Value: 1}}, {{Key: "data", Value: -1}}, {{Key: "n", Value: 1}}, {{Key: "other", Value: 1}}}
	sort = sorts[r.IntN(len(sorts))]
	switch r.IntN(11) {
	case 0:
		return bson.D{{Key: "data", Value: v("data")}}, sort
	case 1:
		return bson.D{{Key: "_id", Value: v("_id")}}, sort
	case 2:
		return bson.D{{Key: "files_id", Value: v("files_id")}, {Key: "n", Value: v("n")}}, sort
	case 3:
		return bson.D{{Key: "data", Value: bson.D{{Key: "$type", Value: "binData"}}}}, sort
	case 4:
		return bson.D{{Key: "other", Value: bson.D{{Key: "$exists", Value: r.IntN(2) == 0}}}}, sort
	case 5:
		return bson.D{{Key: "other", Value: bson.D{{Key: "$gte", Value: v("other")}}}}, sort
	case 6:
		return bson.D{{Key: "nested.b", Value: v("other")}}, sort
	case 7:
		return bson.D{{Key: "list", Value: v("data")}}, sort
	case 8:
		return bson.D{{Key: "data", Value: bson.D{{Key: "$in", Value: bson.A{v("data"), v("other")}}}}}, sort
	case 9:
		return bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "data", Value: v("other")}}, bson.D{{Key: "n", Value: v("n")}}}}}, sort
	default:
		return bson.D{}, sort
	}
}

// TestBinaryColumnDifferential runs the same random queries, counts, updates, deletes and index
// creations against a store keeping binary data beside the text (FerretDB fork item 23) and one
// keeping it inside the text, as the format before did, and wants identical answers.
func TestBinaryColumnDifferential(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 29))
	docs := binaryDocs(r, 120)
	ctx := context.Background()

	var colls [2]*mongo.Collection
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for i, keep := range []bool{false, true} {
		s, err := Start(Config{DataDir: dirs[i], keepBinaryInText: keep})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		c := connect(t, s).Database("test").Collection("c")
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		colls[i] = c
	}
	side, text := colls[0], colls[1]

	// the binary column holds what it should: data and other beside the text, files_id and _id in it
	sdb, err := sql.Open("sqlite", "file:"+filepath.Join(dirs[0], "test.sqlite")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var table string
	if err := sdb.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = 'c'`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	// every top-level binary of 256 bytes or more outside _id and the indexed files_id and n
	var want int64
	for _, d := range docs {
		for _, e := range d.(bson.D) {
			if bin, ok := e.Value.(bson.Binary); ok && len(bin.Data) >= 256 && e.Key != "_id" && e.Key != "files_id" {
				want += int64(len(bin.Data))
			}
		}
	}
	var got int64
	if err := sdb.QueryRow(fmt.Sprintf(`SELECT sum(length(_gridfsd_bin)) FROM %q`, table)).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("%d bytes of binary data beside the text, want %d", got, want)
	}

	compare := func(what string, filter, sort bson.D, proj bson.D) {
		t.Helper()
		opts := options.Find()
		if sort != nil {
			opts.SetSort(sort)
		}
		if proj != nil {
			opts.SetProjection(proj)
		}
		find := func(c *mongo.Collection) []bson.Raw {
			cur, err := c.Find(ctx, filter, opts)
			if err != nil {
				t.Fatalf("%s: find %v: %v", what, filter, err)
			}
			var out []bson.Raw
			for cur.Next(ctx) {
				out = append(out, bson.Raw(append([]byte(nil), cur.Current...)))
			}
			if err := cur.Err(); err != nil {
				t.Fatalf("%s: find %v: %v", what, filter, err)
			}
			return out
		}
		got, want := find(side), find(text)
		if sort == nil {
			if !sameDocuments(got, want, nil) {
				t.Fatalf("%s: find %v: %d documents beside, %d in the text", what, filter, len(got), len(want))
			}
			return
		}
		// the same order: both stores sort in the handler the same way, or through the same index
		if len(got) != len(want) {
			t.Fatalf("%s: find %v sort %v: %d documents beside, %d in the text", what, filter, sort, len(got), len(want))
		}
		for i := range got {
			if !bsonEqual(got[i], want[i]) {
				t.Fatalf("%s: find %v sort %v: document %d differs:\n%v\n%v", what, filter, sort, i, got[i], want[i])
			}
		}
	}

	queries := func(what string) {
		t.Helper()
		for range 40 {
			filter, sort := binaryQuery(r, docs)
			var proj bson.D
			switch r.IntN(4) {
			case 0:
				proj = bson.D{{Key: "data", Value: 0}}
			case 1:
				proj = bson.D{{Key: "data", Value: 1}, {Key: "n", Value: 1}}
			}
			compare(what, filter, sort, proj)
			var counts [2]int64
			for i, c := range colls {
				n, err := c.CountDocuments(ctx, filter)
				if err != nil {
					t.Fatalf("%s: count %v: %v", what, filter, err)
				}
				counts[i] = n
			}
			if counts[0] != counts[1] {
				t.Fatalf("%s: count %v: %d beside, %d in the text", what, filter, counts[0], counts[1])
			}
		}
	}
	queries("inserted")

	for range 30 {
		filter, _ := binaryQuery(r, docs)
		var update bson.D
		switch r.IntN(5) {
		case 0:
			update = bson.D{{Key: "$set", Value: bson.D{{Key: "data", Value: binaryValue(r)}}}}
		case 1:
			update = bson.D{{Key: "$set", Value: bson.D{{Key: "other", Value: binaryValue(r)}, {Key: "fresh", Value: binaryValue(r)}}}}
		case 2:
			update = bson.D{{Key: "$unset", Value: bson.D{{Key: "data", Value: ""}}}}
		case 3:
			update = bson.D{{Key: "$push", Value: bson.D{{Key: "list", Value: binaryValue(r)}}}}
		default:
			update = bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
		}
		var modified [2]int64
		for i, c := range colls {
			res, err := c.UpdateMany(ctx, filter, update)
			if err != nil {
				t.Fatalf("update %v %v: %v", filter, update, err)
			}
			modified[i] = res.ModifiedCount
		}
		if modified[0] != modified[1] {
			t.Fatalf("update %v %v: %d beside, %d in the text", filter, update, modified[0], modified[1])
		}
	}
	replaced := binaryDocs(r, 1)[0].(bson.D)
	replaced[0].Value = int32(7)
	replaced[len(replaced)-1].Value = bson.Binary{Data: fmt.Appendf(nil, "%0300d", 1000)}
	for _, c := range colls {
		if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: int32(7)}}, replaced); err != nil {
			t.Fatal(err)
		}
	}
	queries("updated")

	// indexes on fields whose binary data was beside the text: the documents are rewritten with
	// it inside, so the index keys are the binary data's (a unique index holds, a sort by it
	// through the index comes out in MongoDB's order)
	for _, c := range colls {
		for _, m := range []mongo.IndexModel{
			{Keys: bson.D{{Key: "other", Value: 1}}},
			{Keys: bson.D{{Key: "uniq", Value: 1}}, Options: options.Index().SetUnique(true)},
		} {
			if _, err := c.Indexes().CreateOne(ctx, m); err != nil {
				t.Fatalf("create index %v: %v", m.Keys, err)
			}
		}
	}
	queries("indexed")
	compare("indexed", bson.D{}, bson.D{{Key: "other", Value: 1}}, nil)
	compare("indexed", bson.D{}, bson.D{{Key: "uniq", Value: 1}}, nil)

	for range 10 {
		del, _ := binaryQuery(r, docs)
		var deleted [2]int64
		for i, c := range colls {
			res, err := c.DeleteMany(ctx, del)
			if err != nil {
				t.Fatal(err)
			}
			deleted[i] = res.DeletedCount
		}
		if deleted[0] != deleted[1] {
			t.Fatalf("delete %v: %d beside, %d in the text", del, deleted[0], deleted[1])
		}
	}
	compare("deleted", bson.D{}, nil, nil)
}

// bsonEqual reports whether two documents are equal field by field, in order.
func bsonEqual(a, b bson.Raw) bool {
	return string(a) == string(b)
}
