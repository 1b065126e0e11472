package flaky

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
)

// A DELETE that removed the files document, and whose removal of the
// chunks then failed (the store's connection cut as that command went
// out), has happened for every client: it is answered 204, the file is
// gone, and its chunks are orphans the sweeper removes. Before, it was
// answered 503 (500 when the store said SQLITE_BUSY) for a delete that had
// taken effect, and a client that tried again met a 404. By name, by name
// with a precondition (under the name's lease), and by id.
func TestDeleteHalfDone(t *testing.T) {
	var armed atomic.Bool
	var r *rig
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "delete" || !armed.Load() {
			return
		}
		if coll, _ := e.Command.Lookup("delete").StringValueOK(); strings.HasSuffix(coll, ".chunks") {
			armed.Store(false)
			r.proxy.ResetAll() // before the command is written
		}
	}}
	r = newRigWith(t, mon)
	ctx := context.Background()
	b, err := r.db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	body := content(3, 100<<10)
	for i, how := range []string{"name", "name if", "id"} {
		name := fmt.Sprintf("half%d", i)
		res := r.do("PUT", "/b/fs/"+name+"?chunkSize=16384", body, nil)
		if res.status != 201 {
			t.Fatalf("PUT: %d %v", res.status, res.err)
		}
		var f struct {
			ID struct {
				OID string `json:"$oid"`
			} `json:"id"`
		}
		if err := json.Unmarshal(res.body, &f); err != nil || f.ID.OID == "" {
			t.Fatalf("PUT answered %s (%v)", res.body, err)
		}
		path, hdr := "/b/fs/"+name, map[string]string(nil)
		switch how {
		case "name if":
			hdr = map[string]string{"If-Match": "*"}
		case "id":
			path = "/id/fs/" + f.ID.OID
		}
		armed.Store(true)
		res = r.do("DELETE", path, nil, hdr)
		if armed.Load() {
			t.Fatalf("%s: the chunks' delete was never sent", how)
		}
		if res.status != 204 {
			t.Errorf("%s: DELETE answered %d %s (%v), want 204", how, res.status, res.body, res.err)
		}
		r.waitReady()
		if res = r.do("GET", "/b/fs/"+name, nil, nil); res.status != 404 {
			t.Errorf("%s: GET after the DELETE: %d, want 404", how, res.status)
		}
	}
	orphans, err := b.FindOrphans(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans.Old) != 3 {
		t.Fatalf("%d files' chunks left, want 3 (the fault hit no chunks?)", len(orphans.Old))
	}
	if _, chunks, err := b.RemoveOrphans(ctx, orphans.Old); err != nil || chunks != 3*7 {
		t.Errorf("the sweeper removed %d chunks (%v), want %d", chunks, err, 3*7)
	}
}
