package flaky

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
)

// A DELETE that removed the files document, and whose removal of the
// chunks then failed (the store's connection cut as that command went
// out), has happened for every client: it is answered 204, the file is
// gone, and its chunks are orphans the sweeper removes. Before, it was
// answered 503 (500 when the store said SQLITE_BUSY) for a delete that had
// taken effect, and a client that tried again met a 404. By name, by name
// with a precondition (under the name's lease), and by id.
func TestDeleteHalfDone(t *testing.T) {
	r, cut := newCuttingRig(t)
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
		done := cut("fs.chunks", 1)
		res = r.do("DELETE", path, nil, hdr)
		if !done() {
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

// newCuttingRig is a rig whose gateway's store connections cut(coll, n)
// resets as the n-th delete command on collection coll from then on is
// about to be sent (the command fails; a delete of many documents is not
// retried); done reports whether that happened.
func newCuttingRig(t *testing.T) (r *rig, cut func(coll string, n int32) (done func() bool)) {
	var target atomic.Value // string
	var left atomic.Int32
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "delete" {
			return
		}
		coll, _ := e.Command.Lookup("delete").StringValueOK()
		if want, _ := target.Load().(string); coll == want && left.Add(-1) == 0 {
			r.proxy.ResetAll() // before the command is written
		}
	}}
	r = newRigWith(t, mon)
	return r, func(coll string, n int32) func() bool {
		left.Store(n)
		target.Store(coll)
		return func() bool { return left.Load() <= 0 }
	}
}

// A DELETE of a name with several revisions that the store fails part way
// never brings an older revision back as the newest: afterwards the name
// reads as its newest revision (the delete not done) or not at all. Before,
// a DELETE with a precondition removed the newest revision first, then the
// older ones: cut between the two, it answered 503 and the name read as the
// revision before, which no order of the requests explains.
func TestDeleteNeverResurrects(t *testing.T) {
	r, cut := newCuttingRig(t)
	for i, hdr := range []map[string]string{nil, {"If-Match": "*"}} {
		name := fmt.Sprintf("/b/fs/revs%d", i)
		older, newest := content(uint64(10*i+1), 5000), content(uint64(10*i+2), 6000)
		for _, body := range [][]byte{older, newest} {
			if res := r.do("PUT", name, body, nil); res.status != 201 {
				t.Fatalf("PUT: %d %v", res.status, res.err)
			}
		}
		done := cut("fs.files", 2)
		res := r.do("DELETE", name, nil, hdr)
		if !done() {
			t.Fatalf("%v: fewer than 2 deletes of files documents", hdr)
		}
		t.Logf("%v: DELETE answered %d", hdr, res.status)
		r.waitReady()
		switch got := r.do("GET", name, nil, nil); {
		case got.status == 404:
		case got.status == 200 && bytes.Equal(got.body, newest):
			if res.status == 204 {
				t.Errorf("%v: DELETE answered 204, and the newest revision is still there", hdr)
			}
		case got.status == 200 && bytes.Equal(got.body, older):
			t.Errorf("%v: DELETE answered %d, and the older revision came back as the newest", hdr, res.status)
		default:
			t.Errorf("%v: GET after the DELETE: %d %v", hdr, got.status, got.err)
		}
	}
}

// Two DELETEs of every revision of a name, the second sent while the first
// is between its files documents: the second waits for the first (the
// name's lease) and answers 404, as it would after it. Before, the first
// removed the older revision, the second the newest, and both answered 204,
// which no order of two deletes of one file explains (the linearizability
// test's history showed it, and a conditional replace of the newest landing
// between the two steps of a DELETE that answered 204).
func TestDeletesOfANameTakeTurns(t *testing.T) {
	var files atomic.Int32
	blocked, release := make(chan struct{}), make(chan struct{})
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if coll, _ := e.Command.Lookup("delete").StringValueOK(); e.CommandName == "delete" && coll == "fs.files" && files.Add(1) == 2 {
			close(blocked)
			select { // the first DELETE waits here for the second, or 3 s
			case <-release:
			case <-time.After(3 * time.Second):
			}
		}
	}}
	r := newRigWith(t, mon)
	for _, body := range [][]byte{content(1, 3000), content(2, 4000)} {
		if res := r.do("PUT", "/b/fs/twice", body, nil); res.status != 201 {
			t.Fatalf("PUT: %d %v", res.status, res.err)
		}
	}
	first := make(chan result, 1)
	go func() { first <- r.do("DELETE", "/b/fs/twice", nil, nil) }()
	select {
	case <-blocked:
	case res := <-first:
		t.Fatalf("the first DELETE answered %d %s without a second files document to delete", res.status, res.body)
	}
	second := r.do("DELETE", "/b/fs/twice", nil, nil)
	close(release)
	one := <-first
	if one.status != 204 || second.status != 404 {
		t.Errorf("the DELETEs answered %d and %d, want 204 and 404", one.status, second.status)
	}
	if res := r.do("GET", "/b/fs/twice", nil, nil); res.status != 404 {
		t.Errorf("GET after the DELETEs: %d", res.status)
	}
}
