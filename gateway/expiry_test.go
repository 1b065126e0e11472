package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestExpiryOverHTTP(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	soon := time.Now().Add(time.Second).UTC().Truncate(time.Millisecond)
	f := e.put("/b/fs/soon.txt", "short-lived", map[string]string{"X-Gridfs-Expires": soon.Format(time.RFC3339Nano)})
	g := e.put("/b/fs/later.txt", "long-lived", map[string]string{"X-Gridfs-Expires": "72h"})
	e.put("/b/fs/plain.txt", "forever", nil)
	in72h := time.Now().Add(72 * time.Hour)
	id := "/id/fs/" + f.oid(t)
	e.run([]httpTest{
		{name: "the file JSON shows it", method: "GET", path: "/b/fs/", code: 200, contains: []string{`"expires":"` + soon.Format(time.RFC3339Nano) + `"`}},
		{name: "GET sends it", method: "GET", path: "/b/fs/soon.txt", code: 200, resBody: str("short-lived"),
			resHeader: map[string]string{"X-Gridfs-Expires": soon.Format(time.RFC3339Nano)}},
		{name: "HEAD by id sends it", method: "HEAD", path: id, code: 200, resHeader: map[string]string{"X-Gridfs-Expires": soon.Format(time.RFC3339Nano)}},
		{name: "none without expiry", method: "HEAD", path: "/b/fs/plain.txt", code: 200, resHeader: map[string]string{"X-Gridfs-Expires": ""}},
		{name: "bad date", method: "PUT", path: "/b/fs/bad", header: map[string]string{"X-Gridfs-Expires": "next tuesday"}, body: "x", code: 400, errCode: "invalid_expiry"},
		{name: "negative delay", method: "PUT", path: "/b/fs/bad", header: map[string]string{"X-Gridfs-Expires": "-5m"}, body: "x", code: 400, errCode: "invalid_expiry"},
		{name: "bad PATCH", method: "PATCH", path: id, body: `{"expires": "soonish"}`, code: 400, errCode: "invalid_expiry"},
		{name: "PATCH not a string", method: "PATCH", path: id, body: `{"expires": 5, "filename": "renamed"}`, code: 400, errCode: "invalid_expiry"},
		{name: "nothing was renamed", method: "GET", path: "/b/fs/soon.txt", code: 200},
		{name: "the bad uploads stored nothing", method: "GET", path: "/b/fs/bad", code: 404},
	})
	// The delay was counted from the request.
	l := e.list("/b/fs/?prefix=later")
	if len(l.Files) != 1 {
		t.Fatalf("listing %v", names(l))
	}
	var raw map[string]any
	_, body := e.do("GET", "/b/fs/?prefix=later", nil, "")
	mustJSON(t, body, &struct{ Files []*map[string]any }{Files: []*map[string]any{&raw}})
	at, err := time.Parse(time.RFC3339Nano, raw["expires"].(string))
	if err != nil || at.Sub(in72h).Abs() > 5*time.Second {
		t.Errorf("expires %v, want about %v", raw["expires"], in72h)
	}
	// PATCH null clears, a date sets.
	gid := "/id/fs/" + g.oid(t)
	e.run([]httpTest{
		{name: "clear", method: "PATCH", path: gid, body: `{"expires": null}`, code: 200},
		{name: "cleared", method: "HEAD", path: gid, code: 200, resHeader: map[string]string{"X-Gridfs-Expires": ""}},
		{name: "set", method: "PATCH", path: gid, body: `{"expires": "Wed, 02 Jan 2030 15:04:05 GMT"}`, code: 200, contains: []string{`"expires":"2030-01-02T15:04:05Z"`}},
	})
	time.Sleep(time.Until(soon) + 20*time.Millisecond)
	e.run([]httpTest{
		{name: "404 by name at once", method: "GET", path: "/b/fs/soon.txt", code: 404, errCode: "file_not_found"},
		{name: "404 by id at once", method: "GET", path: id, code: 404, errCode: "file_not_found"},
		{name: "HEAD 404", method: "HEAD", path: id, code: 404},
		{name: "PATCH cannot bring it back", method: "PATCH", path: id, body: `{"expires": null}`, code: 404},
		{name: "DELETE by name is 404 too", method: "DELETE", path: "/b/fs/soon.txt", code: 404, errCode: "file_not_found"},
		{name: "the listing leaves it out", method: "GET", path: "/b/fs/", code: 200, contains: []string{"later.txt", "plain.txt"}},
	})
	if l := e.list("/b/fs/"); names(l) != "later.txt,plain.txt" {
		t.Errorf("listing %q", names(l))
	}
	res, body := e.do("GET", "/buckets", nil, "")
	if res.StatusCode != 200 || !strings.Contains(string(body), `"files":2`) {
		t.Errorf("GET /buckets counts the expired file: %s", body)
	}
	// Still stored until the sweep, which removes it with its chunks.
	// (The DELETE above removed it already, chunks and all.)
	if files, _ := e.counts("fs"); files != 2 {
		t.Fatalf("%d files documents before the sweep", files)
	}
	e.put("/b/fs/gone.txt", "short-lived", map[string]string{"X-Gridfs-Expires": "1s"})
	time.Sleep(1100 * time.Millisecond)
	if files, _ := e.counts("fs"); files != 3 {
		t.Fatalf("%d files documents before the sweep", files)
	}
	if n := e.srv.SweepExpired(context.Background()); n != 1 {
		t.Errorf("sweep removed %d files, want 1", n)
	}
	chunks, err := e.db.Database().Collection("fs.chunks").CountDocuments(context.Background(), bson.D{{Key: "files_id", Value: bson.D{{Key: "$exists", Value: true}}}})
	if files, _ := e.counts("fs"); files != 2 || chunks != 2 || err != nil {
		t.Errorf("after the sweep: %d files, %d chunks (%v)", files, chunks, err)
	}
	_, metrics := e.do("GET", "/metrics", nil, "")
	for _, m := range []string{"gridfsd_expired_files_total 1", "gridfsd_expired_bytes_total 11", "gridfsd_expiry_sweeper_lag_seconds"} {
		if !strings.Contains(string(metrics), m) {
			t.Errorf("metrics lack %q", m)
		}
	}
}

func TestLifecycleRulesOverHTTP(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.put("/b/logs/tmp/a", "a", nil)
	e.put("/b/logs/keep/b", "b", nil)
	e.run([]httpTest{
		{name: "set rules", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": [{"id": "tmp", "prefix": "tmp/", "expireAfter": "1s"}, {"prefix": "keep/", "keepRevisions": 2, "abortUnfinishedAfter": "7d"}]}`,
			code: 200, contains: []string{`"id":"tmp"`, `"expireAfter":"1s"`, `"keepRevisions":2`, `"abortUnfinishedAfter":"7d"`}},
		{name: "a file under the age rule shows when it expires", method: "HEAD", path: "/b/logs/tmp/a", code: 200},
		{name: "bad: no action", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": [{"prefix": "x"}]}`, code: 400, errCode: "invalid_lifecycle"},
		{name: "bad: unknown field", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": [{"prefix": "x", "expireAfterDays": 3}]}`, code: 400, errCode: "invalid_lifecycle"},
		{name: "bad: age", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": [{"expireAfter": "soon"}]}`, code: 400, errCode: "invalid_lifecycle"},
		{name: "bad: not a list", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": {"expireAfter": "1d"}}`, code: 400, errCode: "invalid_lifecycle"},
		{name: "rules unchanged", method: "GET", path: "/buckets", code: 200, contains: []string{`"id":"tmp"`, `"expireAfter":"1s"`}},
		{name: "chunkSize alone keeps the rules", method: "PUT", path: "/buckets/logs", body: `{"chunkSize": 1024}`, code: 200, contains: []string{`"id":"tmp"`}},
	})
	res, _ := e.do("HEAD", "/b/logs/tmp/a", nil, "")
	if at, err := time.Parse(time.RFC3339Nano, res.Header.Get("X-Gridfs-Expires")); err != nil || time.Until(at) > time.Second {
		t.Errorf("X-Gridfs-Expires %q under a rule of 1s", res.Header.Get("X-Gridfs-Expires"))
	}
	time.Sleep(1100 * time.Millisecond)
	e.run([]httpTest{
		{name: "expired by the rule at once", method: "GET", path: "/b/logs/tmp/a", code: 404},
		{name: "the other stays", method: "GET", path: "/b/logs/keep/b", code: 200},
	})
	for range 3 {
		e.put("/b/logs/keep/b", "b", nil)
		time.Sleep(2 * time.Millisecond)
	}
	if l := e.list("/b/logs/?prefix=keep/"); len(l.Files) != 2 {
		t.Errorf("keepRevisions 2: the listing shows %d revisions", len(l.Files))
	}
	e.run([]httpTest{
		{name: "revision 1 of 2", method: "HEAD", path: "/b/logs/keep/b?revision=1", code: 200},
		{name: "no third", method: "HEAD", path: "/b/logs/keep/b?revision=-3", code: 404},
		{name: "remove the rules", method: "PUT", path: "/buckets/logs", body: `{"lifecycle": null}`, code: 200},
	})
	if l := e.list("/b/logs/?prefix=keep/"); len(l.Files) != 4 {
		t.Errorf("without rules (and no sweep yet) the listing shows %d revisions, want 4", len(l.Files))
	}
}

// TestReaderOfAnExpiringFile reads a file while it expires and is swept:
// the reader gets the whole file, or a broken connection, never other
// bytes.
func TestReaderOfAnExpiringFile(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	want := pattern(16 << 20)
	for round := range 3 {
		f := e.put("/b/fs/big", want, nil)
		if r, body := e.do("PATCH", "/id/fs/"+f.oid(t), nil, `{"expires": "300ms"}`); r.StatusCode != 200 {
			t.Fatalf("PATCH: %d %s", r.StatusCode, body)
		}
		res, err := http.Get(e.url + "/id/fs/" + f.oid(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 {
			t.Fatalf("round %d: GET %d", round, res.StatusCode)
		}
		buf := make([]byte, 1000*(round+1))
		n, _ := io.ReadFull(res.Body, buf)
		time.Sleep(350 * time.Millisecond)
		e.srv.SweepExpired(context.Background())
		rest, err := io.ReadAll(res.Body)
		res.Body.Close()
		got := string(buf[:n]) + string(rest)
		if err == nil && got != want {
			t.Fatalf("round %d: a complete reply of %d bytes that differs from the file", round, len(got))
		}
		if err != nil && !strings.HasPrefix(want, got) {
			t.Fatalf("round %d: a broken reply whose %d bytes differ from the file's start", round, len(got))
		}
		t.Logf("round %d: %d bytes, %v", round, len(got), err)
		if r, _ := e.do("GET", "/id/fs/"+f.oid(t), nil, ""); r.StatusCode != 404 {
			t.Fatalf("round %d: %d after the sweep", round, r.StatusCode)
		}
	}
	e.mustBeEmpty("fs")
}
