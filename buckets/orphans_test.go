package buckets_test

import (
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

// TestFindOrphansReadsTheIndex: the orphan scan (fsck and the sweeper)
// reads the chunks' files_ids through the {files_id, n} index (hinted,
// projected to files_id alone, so that MongoDB answers from the index),
// never with a $group over every chunk; and over more files than one
// batch of lookups it finds exactly the orphans.
func TestFindOrphansReadsTheIndex(t *testing.T) {
	var mu sync.Mutex
	var chunkCommands []bson.Raw
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if coll, _ := e.Command.Lookup(e.CommandName).StringValueOK(); coll == "fs.chunks" {
			mu.Lock()
			chunkCommands = append(chunkCommands, append(bson.Raw(nil), e.Command...))
			mu.Unlock()
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	ctx := context.Background()
	db := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(client.Database(db.Name())).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "indexed", strings.NewReader(""), buckets.UploadOptions{}); err != nil { // creates the indexes
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	var files, chunks []any
	want := map[string]bool{}
	for i := range 1300 {
		id := any(int64(i))
		if i%2 == 1 {
			id = bson.NewObjectID()
		}
		for n := range 2 {
			chunks = append(chunks, bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(old)}, {Key: "files_id", Value: id},
				{Key: "n", Value: int32(n)}, {Key: "data", Value: bson.Binary{Data: []byte("ab")}}})
		}
		if i%13 == 0 {
			want[buckets.FormatID(id)] = true
			continue
		}
		files = append(files, bson.D{{Key: "_id", Value: id}, {Key: "length", Value: int64(4)}, {Key: "chunkSize", Value: int32(2)},
			{Key: "uploadDate", Value: bson.NewDateTimeFromTime(old)}, {Key: "filename", Value: "f"}})
	}
	if _, err := b.ChunksCollection().InsertMany(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	if _, err := b.FilesCollection().InsertMany(ctx, files); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	chunkCommands = nil
	mu.Unlock()
	orphans, err := b.FindOrphans(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, o := range orphans.Old {
		got[buckets.FormatID(o.FilesID)] = true
		if o.Chunks != 2 {
			t.Errorf("orphan %s: %d chunks, want 2", buckets.FormatID(o.FilesID), o.Chunks)
		}
	}
	if len(got) != len(want) || len(orphans.Pending) != 0 {
		t.Errorf("%d old orphans and %d pending, want %d old", len(got), len(orphans.Pending), len(want))
	}
	for id := range want {
		if !got[id] {
			t.Errorf("orphan %s not found", id)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	scans := 0
	for _, c := range chunkCommands {
		name := c.Index(0).Key()
		if name == "aggregate" {
			t.Errorf("an aggregate over the chunks: %s", c)
		}
		if name != "find" {
			continue
		}
		if _, err := c.LookupErr("filter", "files_id"); err == nil {
			continue // the candidates' chunk ids, by files_id
		}
		scans++
		hint, _ := c.Lookup("hint").DocumentOK()
		proj, _ := c.Lookup("projection").DocumentOK()
		if hint.String() != `{"files_id": {"$numberInt":"1"},"n": {"$numberInt":"1"}}` || proj.Lookup("data").Type != 0 ||
			proj.Lookup("_id").AsInt64() != 0 {
			t.Errorf("scan of the chunks is not covered by the {files_id, n} index: %s", c)
		}
	}
	if scans != 1 {
		t.Errorf("%d scans of the chunks, want 1", scans)
	}
}
