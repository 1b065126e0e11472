package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// race sends 8 requests at once, request i with body(i) and header, and
// returns their statuses (0 for a request that got no answer).
func race(e *env, method, path string, header map[string]string, body func(i int) string) (codes []int) {
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body(i)))
			for k, v := range header {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			code := 0
			if err == nil {
				res.Body.Close()
				code = res.StatusCode
			}
			mu.Lock()
			defer mu.Unlock()
			codes = append(codes, code)
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// racePUT sends 8 PUTs of path at once with header, each with its own body.
func racePUT(e *env, path string, header map[string]string) (codes []int) {
	return race(e, http.MethodPut, path, header, func(i int) string { return fmt.Sprintf("writer %d", i) })
}

func countCodes(codes []int) map[int]int {
	m := map[int]int{}
	for _, c := range codes {
		m[c]++
	}
	return m
}

// TestCreateOnlyPUTRace: 20 rounds of 8 concurrent PUTs with
// If-None-Match: * of one name: exactly one 201, seven 412, one revision.
func TestCreateOnlyPUTRace(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for round := range 20 {
		name := fmt.Sprintf("create-%d", round)
		codes := racePUT(e, "/b/fs/"+name+"?chunkSize=4", map[string]string{"If-None-Match": "*"})
		if got := countCodes(codes); got[201] != 1 || got[412] != 7 {
			t.Fatalf("round %d: statuses %v, want one 201 and seven 412", round, got)
		}
		if n := e.revisions("fs", name); n != 1 {
			t.Fatalf("round %d: %d revisions", round, n)
		}
	}
	if _, chunks := e.counts("fs"); chunks != 20*2 {
		t.Errorf("%d chunks, want the winners' %d: the losers left theirs", chunks, 20*2)
	}
}

// TestReplaceIfMatchPUTRace: 20 rounds of 8 concurrent PUTs with the same
// If-Match: at most one succeeds (here exactly one, nothing else writes),
// the rest are 412 (never 404), and the winner's content stands alone: the
// revision it replaced is gone, no other revision is lost or added.
func TestReplaceIfMatchPUTRace(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for round := range 20 {
		name := fmt.Sprintf("replace-%d", round)
		base := e.put("/b/fs/"+name, "base", nil)
		codes := racePUT(e, "/b/fs/"+name+"?chunkSize=4", map[string]string{"If-Match": base.ETag})
		if got := countCodes(codes); got[201] != 1 || got[412] != 7 {
			t.Fatalf("round %d: statuses %v, want one 201 and seven 412", round, got)
		}
		if n := e.revisions("fs", name); n != 1 {
			t.Fatalf("round %d: %d revisions, want the winner's only", round, n)
		}
		res, body := e.do("GET", "/b/fs/"+name, nil, "")
		if res.StatusCode != 200 || !strings.HasPrefix(string(body), "writer ") {
			t.Fatalf("round %d: GET %d %q", round, res.StatusCode, body)
		}
	}
}

func (e *env) revisions(bucket, name string) int64 {
	e.t.Helper()
	n, err := e.db.Database().Collection(bucket+".files").CountDocuments(context.Background(), bson.D{{Key: "filename", Value: name}})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestWritePreconditions: every write route evaluates If-Match,
// If-None-Match and If-Unmodified-Since; a failure is 412 and changes
// nothing.
func TestWritePreconditions(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/p", "content", map[string]string{"Content-Type": "text/plain"})
	id := "/id/fs/" + f.oid(t)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	fail := func(name, method, path, body string, h map[string]string) httpTest {
		return httpTest{name: name, method: method, path: path, body: body, header: h, code: 412, errCode: "precondition_failed"}
	}
	e.run([]httpTest{
		fail("PUT If-Unmodified-Since past", "PUT", "/b/fs/p", "x", map[string]string{"If-Unmodified-Since": past}),
		fail("PUT If-Match of nothing", "PUT", "/b/fs/none", "x", map[string]string{"If-Match": "*"}),
		fail("PUT If-None-Match ETag", "PUT", "/b/fs/p", "x", map[string]string{"If-None-Match": f.ETag}),
		fail("PATCH If-Unmodified-Since past", "PATCH", id, `{"filename":"q"}`, map[string]string{"If-Unmodified-Since": past}),
		fail("PATCH If-None-Match *", "PATCH", id, `{"filename":"q"}`, map[string]string{"If-None-Match": "*"}),
		fail("PATCH If-None-Match ETag", "PATCH", id, `{"filename":"q"}`, map[string]string{"If-None-Match": f.ETag}),
		fail("DELETE id wrong If-Match", "DELETE", id, "", map[string]string{"If-Match": `"0"`}),
		fail("DELETE id If-Unmodified-Since past", "DELETE", id, "", map[string]string{"If-Unmodified-Since": past}),
		fail("DELETE id If-None-Match *", "DELETE", id, "", map[string]string{"If-None-Match": "*"}),
		fail("DELETE id If-Match of nothing", "DELETE", "/id/fs/000000000000000000000000", "", map[string]string{"If-Match": "*"}),
		fail("DELETE name wrong If-Match", "DELETE", "/b/fs/p", "", map[string]string{"If-Match": `"0"`}),
		fail("DELETE name If-Unmodified-Since past", "DELETE", "/b/fs/p", "", map[string]string{"If-Unmodified-Since": past}),
		fail("DELETE name If-None-Match *", "DELETE", "/b/fs/p", "", map[string]string{"If-None-Match": "*"}),
		{name: "nothing changed", method: "GET", path: "/b/fs/p", code: 200, resBody: str("content"), resHeader: map[string]string{"ETag": f.ETag}},
		{name: "If-Unmodified-Since not a date is ignored", method: "PATCH", path: id, body: `{"metadata":{"contentType":"text/html"}}`,
			header: map[string]string{"If-Unmodified-Since": "yesterday", "If-Match": f.ETag}, code: 200},
	})
	// The PATCH changed the ETag: the old one no longer revalidates a
	// cache holding the old Content-Type.
	res, _ := e.do("GET", "/b/fs/p", map[string]string{"If-None-Match": f.ETag}, "")
	if res.StatusCode != 200 || res.Header.Get("ETag") == f.ETag || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET with the pre-PATCH ETag: %d, ETag %s, Content-Type %s", res.StatusCode, res.Header.Get("ETag"), res.Header.Get("Content-Type"))
	}
	cur := res.Header.Get("ETag")
	e.run([]httpTest{
		{name: "DELETE name If-Unmodified-Since future", method: "DELETE", path: "/b/fs/p", header: map[string]string{"If-Unmodified-Since": future, "If-Match": cur}, code: 204},
		{name: "gone", method: "GET", path: "/b/fs/p", code: 404},
	})
	e.mustBeEmpty("fs")
}

// TestPATCHRace: 8 concurrent PATCHes with the same If-Match: one 200,
// seven 412; the metadata is the winner's.
func TestPATCHRace(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for round := range 20 {
		f := e.put(fmt.Sprintf("/b/fs/patch-%d", round), "x", nil)
		codes := race(e, http.MethodPatch, "/id/fs/"+f.oid(t), map[string]string{"If-Match": f.ETag},
			func(i int) string { return fmt.Sprintf(`{"metadata":{"w":%d}}`, i) })
		if got := countCodes(codes); got[200] != 1 || got[412] != 7 {
			t.Fatalf("round %d: statuses %v, want one 200 and seven 412", round, got)
		}
	}
}
