package buckets_test

import (
	"context"
	"fmt"
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

// cursorWatch follows the server cursors of a client through its command
// monitor: opened by a find, aggregate or getMore reply with a cursor id,
// closed by a reply with id 0 (exhausted) or a successful killCursors.
type cursorWatch struct {
	mu     sync.Mutex
	open   map[int64]string // cursor id -> the command that opened it
	cancel func(name string)
}

func (w *cursorWatch) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			w.mu.Lock()
			defer w.mu.Unlock()
			switch e.CommandName {
			case "find", "aggregate", "getMore":
				id, ok := e.Reply.Lookup("cursor", "id").AsInt64OK()
				if ok && id != 0 {
					w.open[id] = e.CommandName
				}
				if ok && id == 0 && e.CommandName == "getMore" {
					// exhausted: the getMore's own cursor is gone
					for k := range w.open {
						delete(w.open, k)
					}
				}
			case "killCursors":
				killed, _ := e.Reply.Lookup("cursorsKilled").Array().Values()
				for _, v := range killed {
					if id, ok := v.AsInt64OK(); ok {
						delete(w.open, id)
					}
				}
			}
			if w.cancel != nil {
				w.cancel(e.CommandName)
			}
		},
	}
}

func (w *cursorWatch) stillOpen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var open []string
	for id, cmd := range w.open {
		open = append(open, fmt.Sprintf("%d (%s)", id, cmd))
	}
	return open
}

// TestCancelledListingClosesItsCursor: a listing whose request is
// cancelled as soon as the store answered (a client gone) still closes its
// server cursor (killCursors), which would otherwise live on the server
// until its idle timeout.
func TestCancelledListingClosesItsCursor(t *testing.T) {
	w := &cursorWatch{open: map[int64]string{}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(w.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	db := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(client.Database(db.Name())).Bucket(context.Background(), "fs")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := b.Upload(context.Background(), fmt.Sprintf("d/f%02d", i), strings.NewReader("x"), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// 150 revisions of one name: more than a first batch (101), so that
	// DeleteName's cursor outlives the find.
	var revisions []any
	for range 150 {
		revisions = append(revisions, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "length", Value: int64(0)},
			{Key: "chunkSize", Value: int32(1024)}, {Key: "uploadDate", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "filename", Value: "many"}})
	}
	if _, err := b.FilesCollection().InsertMany(context.Background(), revisions); err != nil {
		t.Fatal(err)
	}
	chunkID := bson.NewObjectID() // an old orphan, so that fsck lists chunks
	if _, err := b.ChunksCollection().InsertOne(context.Background(), bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(time.Now().Add(-time.Hour))},
		{Key: "files_id", Value: chunkID}, {Key: "n", Value: int32(0)}, {Key: "data", Value: bson.Binary{Data: []byte("x")}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"DeleteName", func(ctx context.Context) error { _, err := b.DeleteName(ctx, "many"); return err }},
		{"Find", func(ctx context.Context) error { _, err := b.Find(ctx, buckets.Query{Limit: 3}); return err }},
		{"FindFolder", func(ctx context.Context) error {
			_, err := b.FindFolder(ctx, buckets.Query{Prefix: "d/", Limit: 3}, "/")
			return err
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		w.mu.Lock()
		w.cancel = func(name string) {
			if name == "find" {
				cancel()
			}
		}
		w.mu.Unlock()
		err := tc.run(ctx)
		cancel()
		w.mu.Lock()
		w.cancel = nil
		w.mu.Unlock()
		t.Logf("%s: %v", tc.name, err)
		if open := w.stillOpen(); len(open) > 0 {
			t.Errorf("%s cancelled: server cursors left open: %v", tc.name, open)
		}
	}
}
