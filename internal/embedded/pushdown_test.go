package embedded

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// queryPlan runs explain on a find and returns SQLite's query plan lines and
// whether the store pushed the filter and the sort down.
func queryPlan(t *testing.T, db *mongo.Database, coll string, filter, sort bson.D) (plan string, filterPushdown, sortPushdown bool) {
	t.Helper()
	find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter}}
	if sort != nil {
		find = append(find, bson.E{Key: "sort", Value: sort})
	}
	var res struct {
		QueryPlanner struct {
			Plan []string `bson:"Plan"`
		} `bson:"queryPlanner"`
		FilterPushdown bool `bson:"filterPushdown"`
		SortPushdown   bool `bson:"sortPushdown"`
	}
	if err := db.RunCommand(context.Background(), bson.D{{Key: "explain", Value: find}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	return strings.Join(res.QueryPlanner.Plan, "\n"), res.FilterPushdown, res.SortPushdown
}

// wantIndexPlan fails the test unless the query is answered through the
// named index, in index order (no temporary B-tree sorting the rows).
func wantIndexPlan(t *testing.T, db *mongo.Database, coll string, filter, sort bson.D, index string) {
	t.Helper()
	plan, fp, sp := queryPlan(t, db, coll, filter, sort)
	if !fp || !strings.Contains(plan, "USING INDEX") || !strings.Contains(plan, index) || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("%s %v sort %v: filter pushdown %v, plan:\n%s\nwant a search of index %s without a temp B-tree", coll, filter, sort, fp, plan, index)
	}
	if sort != nil && !sp {
		t.Errorf("%s %v sort %v: sort not pushed down; plan:\n%s", coll, filter, sort, plan)
	}
}

// gridFSQueries checks that the queries GridFS issues in a bucket go through
// its indexes: chunks by files_id and n (equality, open and bounded ranges,
// sorted by n), files by _id and by filename.
func gridFSQueries(t *testing.T, db *mongo.Database, bucket string, fileID any, filename string) {
	t.Helper()
	chunks, files := bucket+".chunks", bucket+".files"
	wantIndexPlan(t, db, chunks, bson.D{{Key: "files_id", Value: fileID}, {Key: "n", Value: 3}}, nil, "files_id_1_n_1")
	wantIndexPlan(t, db, chunks, bson.D{{Key: "files_id", Value: fileID}, {Key: "n", Value: bson.D{{Key: "$gte", Value: 2}}}}, bson.D{{Key: "n", Value: 1}}, "files_id_1_n_1")
	wantIndexPlan(t, db, chunks, bson.D{{Key: "files_id", Value: fileID}, {Key: "n", Value: bson.D{{Key: "$gte", Value: 1}, {Key: "$lt", Value: 3}}}}, bson.D{{Key: "n", Value: 1}}, "files_id_1_n_1")
	wantIndexPlan(t, db, chunks, bson.D{{Key: "files_id", Value: fileID}}, bson.D{{Key: "n", Value: 1}}, "files_id_1_n_1")
	// the Go driver's GridFSBucket asks for a file's chunks with $eq
	wantIndexPlan(t, db, chunks, bson.D{{Key: "files_id", Value: bson.D{{Key: "$eq", Value: fileID}}}}, bson.D{{Key: "n", Value: 1}}, "files_id_1_n_1")
	wantIndexPlan(t, db, files, bson.D{{Key: "_id", Value: fileID}}, nil, "_id_")
	wantIndexPlan(t, db, files, bson.D{{Key: "filename", Value: filename}}, nil, "filename_1_uploadDate_1")
}

func TestGridFSQueriesUseIndexes(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := connect(t, s).Database("test")
	b := db.GridFSBucket(options.GridFSBucket().SetChunkSizeBytes(1024))
	data := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	id, err := b.UploadFromStream(context.Background(), "f.bin", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	gridFSQueries(t, db, "fs", id, "f.bin")

	var got bytes.Buffer
	if _, err := b.DownloadToStream(context.Background(), id, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("download differs: %d bytes, want %d", got.Len(), len(data))
	}
}

// TestDateRangesUseIndexes checks the expiry sweeper's queries (fork item
// "date ranges"): a range of dates bounded on both sides searches the index
// of the field, and returns what a store that scans returns, whatever
// else the field holds (dates outside the 13-digit range, numbers,
// strings, timestamps, documents); an array in the field, which MongoDB
// matches by its elements, makes the query scan.
func TestDateRangesUseIndexes(t *testing.T) {
	ctx := context.Background()
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := connect(t, s).Database("test")
	coll := db.Collection("fs.files")
	for _, keys := range []bson.D{{{Key: "expireAt", Value: 1}}, {{Key: "uploadDate", Value: 1}}} {
		if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys}); err != nil {
			t.Fatal(err)
		}
	}
	at := func(ms int64) bson.DateTime { return bson.DateTime(ms) }
	values := []any{
		at(1_700_000_000_000), at(1_700_000_000_001), at(1_800_000_000_000), at(999_999_999_999), at(5_000_000_000),
		at(-1_000), at(0), at(9_999_999_999_999), at(1_000_000_000_000), at(12_345_678_901_234),
		int64(1_700_000_000_000), 1.7e12, "1700000000000", bson.Timestamp{T: 1_700_000_000}, bson.D{{Key: "a", Value: 1}}, nil, true,
	}
	for i, v := range values {
		doc := bson.D{{Key: "_id", Value: i}, {Key: "expireAt", Value: v}, {Key: "uploadDate", Value: v}}
		if _, err := coll.InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "none"}}); err != nil {
		t.Fatal(err)
	}
	ranges := []bson.D{
		{{Key: "$gte", Value: at(1_000_000_000_000)}, {Key: "$lte", Value: at(1_700_000_000_000)}},
		{{Key: "$gt", Value: at(1_000_000_000_000)}, {Key: "$lt", Value: at(9_999_999_999_999)}},
		{{Key: "$gte", Value: at(1_700_000_000_001)}, {Key: "$lt", Value: at(1_800_000_000_001)}},
	}
	want := [][]int{{8, 0}, {0, 1, 2}, {1, 2}}
	for i, r := range ranges {
		for _, field := range []string{"expireAt", "uploadDate"} {
			filter := bson.D{{Key: field, Value: r}}
			wantIndexPlan(t, db, "fs.files", filter, nil, field+"_1")
			cur, err := coll.Find(ctx, filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []struct {
				ID int `bson:"_id"`
			}
			if err := cur.All(ctx, &got); err != nil {
				t.Fatal(err)
			}
			ids := map[int]bool{}
			for _, g := range got {
				ids[g.ID] = true
			}
			if len(ids) != len(want[i]) {
				t.Errorf("%s %v: got %v, want %v", field, r, got, want[i])
			}
			for _, w := range want[i] {
				if !ids[w] {
					t.Errorf("%s %v: got %v, want %v", field, r, got, want[i])
				}
			}
		}
	}
	// One-sided, or with a bound outside the range: no pushdown, still
	// right.
	for _, r := range []bson.D{
		{{Key: "$lte", Value: at(1_700_000_000_000)}},
		{{Key: "$gte", Value: at(0)}, {Key: "$lte", Value: at(1_700_000_000_000)}},
	} {
		n, err := coll.CountDocuments(ctx, bson.D{{Key: "expireAt", Value: r}})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(map[bool]int{true: 6, false: 5}[len(r) == 1]); n != want {
			t.Errorf("expireAt %v: %d documents, want %d", r, n, want)
		}
	}
	// An array of dates matches by its elements: the guard sees it and
	// the query reads the collection.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "arr"}, {Key: "expireAt", Value: bson.A{at(1_500_000_000_000)}}}); err != nil {
		t.Fatal(err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "expireAt", Value: ranges[0][0:2]}})
	if err != nil || n != 3 {
		t.Errorf("with an array: %d documents, %v; want 3", n, err)
	}
}

// TestStringRangesUseIndexes checks gridfsd's folder listings (fork item
// "string ranges"): a range of strings bounded on both sides, as
// {filename: {$gte: prefix, $lt: <its successor>}}, searches the filename
// index, and returns what a scan returns whatever the names hold
// (characters JSON escapes, non-ASCII, an ObjectId whose key is a quoted
// string too) and whatever else the field holds; an array holding a name
// in range matches, as in MongoDB.
func TestStringRangesUseIndexes(t *testing.T) {
	ctx := context.Background()
	var colls [2]*mongo.Collection
	var db *mongo.Database
	for i, disable := range []bool{false, true} {
		s, err := Start(Config{DataDir: t.TempDir(), disablePushdown: disable})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		d := connect(t, s).Database("test")
		c := d.Collection("fs.files")
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		colls[i] = c
		if i == 0 {
			db = d
		}
	}
	names := []any{
		"a", "a/", "a/b", "a/b/c", "a/é", "a/é/x", "a/\"q", "a/<b>", "a/&", "a/\\", "a/\u2028", "a/\x7f", "a/\x01",
		"a0", "a.", "b/", "", "é/a", "é/b", "<>/a", "\"/a", "A/", bson.ObjectID{0x61, 0x2f}, "612f",
		int32(7), 1.5, bson.DateTime(1_700_000_000_000), nil, bson.D{{Key: "a", Value: "a/b"}}, true,
	}
	for i, n := range names {
		for _, c := range colls {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "filename", Value: n}, {Key: "uploadDate", Value: bson.DateTime(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ranges := []bson.D{
		{{Key: "$gte", Value: "a/"}, {Key: "$lt", Value: "a0"}},
		{{Key: "$gte", Value: "a/b/"}, {Key: "$lt", Value: "a/b0"}},
		{{Key: "$gt", Value: "a/"}, {Key: "$lte", Value: "a/é"}},
		{{Key: "$gte", Value: "a/é/"}, {Key: "$lt", Value: "a/é0"}},
		{{Key: "$gte", Value: "é/"}, {Key: "$lt", Value: "é0"}},
		{{Key: "$gte", Value: "\"/"}, {Key: "$lt", Value: "\"0"}},
		{{Key: "$gte", Value: "<>/"}, {Key: "$lt", Value: "<>0"}},
		{{Key: "$gte", Value: "a/\u2028"}, {Key: "$lt", Value: "a/\u2029"}},
		{{Key: "$gte", Value: ""}, {Key: "$lt", Value: "b"}},
		{{Key: "$gte", Value: "a/"}, {Key: "$lt", Value: "a0"}, {Key: "$gt", Value: "a/b"}},
	}
	for _, r := range ranges {
		filter := bson.D{{Key: "filename", Value: r}}
		sort := bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: "_id", Value: 1}}
		plan, fp, _ := queryPlan(t, db, "fs.files", filter, sort)
		if !fp || !strings.Contains(plan, "USING INDEX") || !strings.Contains(plan, "filename_1_uploadDate_1") {
			t.Errorf("%v: filter pushdown %v, plan:\n%s\nwant a search of the filename index", r, fp, plan)
		}
		got := differentialFind(t, colls[0], filter, sort)
		want := differentialFind(t, colls[1], filter, sort)
		if len(want) == 0 || !sameDocuments(got, want, sort) {
			t.Errorf("%v: with pushdown %v\nwithout %v", r, got, want)
		}
	}
	// One-sided, or bounds that are not all strings: no pushdown, still right.
	for _, r := range []bson.D{
		{{Key: "$gte", Value: "a/"}},
		{{Key: "$gte", Value: "a/"}, {Key: "$lt", Value: 5}},
	} {
		filter := bson.D{{Key: "filename", Value: r}}
		if _, fp, _ := queryPlan(t, db, "fs.files", filter, nil); fp {
			t.Errorf("%v: pushed down", r)
		}
		if got, want := differentialFind(t, colls[0], filter, nil), differentialFind(t, colls[1], filter, nil); !sameDocuments(got, want, nil) {
			t.Errorf("%v: with pushdown %v\nwithout %v", r, got, want)
		}
	}
	// An array holding a name in range matches by its element: the guard
	// sees it and the query reads the collection.
	for _, c := range colls {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "arr"}, {Key: "filename", Value: bson.A{"z", "a/zz"}}}); err != nil {
			t.Fatal(err)
		}
	}
	filter := bson.D{{Key: "filename", Value: ranges[0]}}
	got, want := differentialFind(t, colls[0], filter, nil), differentialFind(t, colls[1], filter, nil)
	if !sameDocuments(got, want, nil) || len(got) != 13 {
		t.Errorf("with an array: %d documents %v, want 13: %v", len(got), got, want)
	}
}

// TestInUsesIndexes checks the expiry sweeper's batched deletes (fork item
// "$in"): {_id: {$in: [...]}} and {files_id: {$in: [...]}} search their
// indexes and match what a scan matches, numbers of any type and strings
// included; an array under the field makes the query scan and still match.
func TestInUsesIndexes(t *testing.T) {
	ctx := context.Background()
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := connect(t, s).Database("test")
	b := db.GridFSBucket(options.GridFSBucket().SetChunkSizeBytes(16))
	var ids []any
	for i := range 6 {
		id, err := b.UploadFromStream(ctx, "f", bytes.NewReader(bytes.Repeat([]byte{byte(i)}, 40)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	files, chunks := db.Collection("fs.files"), db.Collection("fs.chunks")
	for _, id := range []any{int32(7), int64(8), 9.0, "ten"} {
		if _, err := files.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "length", Value: 0}}); err != nil {
			t.Fatal(err)
		}
	}
	in := bson.A{ids[1], ids[3], int64(7), int32(8), 9, "ten", "none"}
	wantIndexPlan(t, db, "fs.files", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}}, nil, "_id_")
	wantIndexPlan(t, db, "fs.chunks", bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: in}}}}, nil, "files_id_1_n_1")
	if n, err := files.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}}); err != nil || n != 6 {
		t.Errorf("files: %d, %v; want 6", n, err)
	}
	if n, err := chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: in}}}}); err != nil || n != 6 {
		t.Errorf("chunks: %d, %v; want 6 (3 of each of 2 files)", n, err)
	}
	res, err := chunks.DeleteMany(ctx, bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: bson.A{ids[0], ids[5]}}}}})
	if err != nil || res.DeletedCount != 6 {
		t.Errorf("delete: %v, %v", res, err)
	}
	if _, err := chunks.InsertOne(ctx, bson.D{{Key: "files_id", Value: bson.A{ids[2], "x"}}, {Key: "n", Value: 9}}); err != nil {
		t.Fatal(err)
	}
	if n, err := chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: bson.A{ids[2]}}}}}); err != nil || n != 4 {
		t.Errorf("with an array: %d, %v; want 4", n, err)
	}
}
