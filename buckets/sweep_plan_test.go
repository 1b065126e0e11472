package buckets_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestSweepQueriesUseIndexes records the queries a sweep sends to the
// bucket's collections (its finds and the filters of its deletes) and asks
// the store to explain each as a find: on MongoDB no plan may hold a
// collection scan; on the embedded store each filter must be pushed down
// to a search of an index. The sweep removes files by their expireAt and
// by a rule's age, with the chunks of both.
func TestSweepQueriesUseIndexes(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	type query struct {
		coll   string
		filter bson.Raw
	}
	var queries []query
	record := false
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		mu.Lock()
		defer mu.Unlock()
		if !record {
			return
		}
		switch e.CommandName {
		case "find":
			coll, _ := e.Command.Lookup("find").StringValueOK()
			filter, _ := e.Command.Lookup("filter").DocumentOK()
			queries = append(queries, query{coll, filter})
		case "delete":
			coll, _ := e.Command.Lookup("delete").StringValueOK()
			// The statements travel in a document sequence the event
			// shows as the array "deletes".
			if arr, ok := e.Command.Lookup("deletes").ArrayOK(); ok {
				vals, _ := arr.Values()
				for _, v := range vals {
					if q, ok := v.Document().Lookup("q").DocumentOK(); ok {
						queries = append(queries, query{coll, q})
					}
				}
			}
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	mdb := client.Database(storetest.MustOpenDB(t).Name())
	db := buckets.NewDB(mdb)
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "tmp/", ExpireAfter: buckets.Age(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 100)
	for i := range 5 {
		if _, err := b.Upload(ctx, "gone", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16, ExpireAt: time.Now().Add(-time.Duration(i+1) * time.Second)}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Upload(ctx, "tmp/old", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Upload(ctx, "live", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	record = true
	mu.Unlock()
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{Batch: 4, Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
	mu.Lock()
	record = false
	mu.Unlock()
	if err != nil || res.Files != 10 {
		t.Fatalf("sweep %+v, %v; want 10 files", res, err)
	}
	checked := 0
	for _, q := range queries {
		if q.coll != "fs.files" && q.coll != "fs.chunks" {
			continue // the lease, by _id
		}
		checked++
		var plan bson.Raw
		if err := mdb.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: q.coll}, {Key: "filter", Value: q.filter}}}}).Decode(&plan); err != nil {
			t.Fatal(err)
		}
		if winning, ok := plan.Lookup("queryPlanner", "winningPlan").DocumentOK(); ok { // MongoDB
			if strings.Contains(winning.String(), `"COLLSCAN"`) {
				t.Errorf("%s %s: collection scan: %s", q.coll, q.filter, winning)
			}
			continue
		}
		pushed, _ := plan.Lookup("filterPushdown").BooleanOK()
		steps, _ := plan.Lookup("queryPlanner", "Plan").ArrayOK()
		if !pushed || !strings.Contains(steps.String(), "USING INDEX") {
			t.Errorf("%s %s: pushdown %v, plan %s; want a search of an index", q.coll, q.filter, pushed, steps)
		}
	}
	if checked < 6 {
		t.Errorf("recorded %d queries of the bucket, want at least 6 (finds by expireAt and uploadDate, deletes of files and chunks)", checked)
	}
}

// TestSweepBatchesBoundedByBytes: a batch's chunks go in one delete, so a
// batch holds at most BatchBytes of files (and at least one file, however
// large).
func TestSweepBatchesBoundedByBytes(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var perDelete []int
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if coll, _ := e.Command.Lookup("delete").StringValueOK(); e.CommandName != "delete" || coll != "fs.chunks" {
			return
		}
		arr, _ := e.Command.Lookup("deletes").ArrayOK()
		vals, _ := arr.Values()
		for _, v := range vals {
			in, _ := v.Document().Lookup("q", "files_id", "$in").ArrayOK()
			ids, _ := in.Values()
			mu.Lock()
			perDelete = append(perDelete, len(ids))
			mu.Unlock()
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	b, err := buckets.NewDB(client.Database(storetest.MustOpenDB(t).Name())).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{100, 100, 100, 100, 400, 100} {
		if _, err := b.Upload(ctx, "f", bytes.NewReader(make([]byte, size)), buckets.UploadOptions{ChunkSize: 64, ExpireAt: time.Now().Add(-time.Duration(10-i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{BatchBytes: 250, Rest: -1})
	if err != nil || res.Files != 6 {
		t.Fatalf("sweep %+v, %v; want 6 files", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// At most two files of 100 bytes a batch, the one of 400 alone.
	total := 0
	for _, n := range perDelete {
		total += n
		if n > 2 {
			t.Errorf("a delete of chunks for %d files (%v); at most 2 fit in 250 bytes", n, perDelete)
		}
	}
	if total != 6 || len(perDelete) < 4 {
		t.Errorf("files per delete of chunks %v, want 6 files in at least 4 deletes", perDelete)
	}
}
