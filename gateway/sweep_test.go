package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSweep: one sweep removes orphaned chunks older than the grace period
// from every bucket, and leaves young orphans (uploads that may be in
// progress) and committed files alone.
func TestSweep(t *testing.T) {
	e := newEnv(t, gateway.Config{SweepGrace: time.Minute})
	e.put("/b/fs/keep?chunkSize=4", "committed", nil)
	e.put("/b/other/keep", "committed", nil)
	ctx := context.Background()
	old := bson.NewObjectIDFromTimestamp(time.Now().Add(-time.Hour))
	young := bson.NewObjectID()
	for _, bucket := range []string{"fs", "other"} {
		chunks := e.db.Database().Collection(bucket + ".chunks")
		_, err := chunks.InsertMany(ctx, []any{
			bson.D{{Key: "_id", Value: old}, {Key: "files_id", Value: "dead"}, {Key: "n", Value: int32(0)}, {Key: "data", Value: []byte("x")}},
			bson.D{{Key: "_id", Value: young}, {Key: "files_id", Value: "alive"}, {Key: "n", Value: int32(0)}, {Key: "data", Value: []byte("x")}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := e.srv.Sweep(ctx); n != 2 {
		t.Errorf("swept %d chunks, want 2 (one per bucket)", n)
	}
	for _, bucket := range []string{"fs", "other"} {
		o, err := mustBucket(t, e, bucket).FindOrphans(ctx, time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Old)+len(o.Pending) != 1 || (o.Old != nil && o.Old[0].FilesID != "alive") || (o.Pending != nil && o.Pending[0].FilesID != "alive") {
			t.Errorf("%s orphans after the sweep: %+v", bucket, o)
		}
	}
	e.run([]httpTest{
		{name: "fs file intact", method: "GET", path: "/b/fs/keep", code: 200, resBody: str("committed")},
		{name: "other file intact", method: "GET", path: "/b/other/keep", code: 200, resBody: str("committed")},
		{name: "counted", method: "GET", path: "/metrics", code: 200, contains: []string{"gridfsd_swept_chunks_total 2"}},
	})
}
