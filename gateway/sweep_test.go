package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
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

// TestSweepSparesLiveUploads: an upload this server is running keeps its
// chunks through sweeps however old they are, here with a grace period of
// a nanosecond, and commits complete.
func TestSweepSparesLiveUploads(t *testing.T) {
	e := newEnv(t, gateway.Config{SweepGrace: time.Nanosecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const chunkSize, size = 64 << 10, 3 << 20
	content := pattern(size)
	fmt.Fprintf(conn, "PUT /b/fs/slow?chunkSize=%d HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", chunkSize, size)
	conn.Write([]byte(content[:size/2])) // more than one insert batch
	waitFor(t, "chunks of the slow upload", func() bool { _, c := e.counts("fs"); return c > 0 })
	time.Sleep(1100 * time.Millisecond) // ObjectId timestamps count whole seconds

	if n := e.srv.Sweep(context.Background()); n != 0 {
		t.Fatalf("the sweep removed %d chunks of a live upload", n)
	}
	conn.Write([]byte(content[size/2:]))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("slow upload: %d", res.StatusCode)
	}
	e.run([]httpTest{{name: "complete", method: "GET", path: "/b/fs/slow", code: 200, resBody: str(content)}})
	// Once the upload is over, its id is no longer spared: a dead upload's
	// chunks with the same age go.
	chunks := e.db.Database().Collection("fs.chunks")
	old := bson.NewObjectIDFromTimestamp(time.Now().Add(-time.Minute))
	if _, err := chunks.InsertOne(context.Background(), bson.D{{Key: "_id", Value: old}, {Key: "files_id", Value: "dead"}, {Key: "n", Value: int32(0)}, {Key: "data", Value: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Sweep(context.Background()); n != 1 {
		t.Errorf("swept %d chunks, want the dead upload's 1", n)
	}
}
