package embedded

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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
