package gateway_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/gateway"
)

type listJSON struct {
	Files []fileJSON `json:"files"`
	Next  string     `json:"next"`
}

func (e *env) list(path string) listJSON {
	e.t.Helper()
	res, body := e.do("GET", path, nil, "")
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	var l listJSON
	mustJSON(e.t, body, &l)
	return l
}

func names(l listJSON) string {
	var s []string
	for _, f := range l.Files {
		s = append(s, f.Filename)
	}
	return strings.Join(s, ",")
}

func TestList(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.put("/b/fs/a/1.txt", "1", map[string]string{"X-Meta-Owner": "ann", "X-Gridfs-Metadata": `{"n": 1}`})
	e.put("/b/fs/a/2.txt", "2", map[string]string{"X-Meta-Owner": "bob", "X-Gridfs-Metadata": `{"n": 2}`})
	e.put("/b/fs/a/2.txt", "2b", map[string]string{"X-Meta-Owner": "ann"})
	e.put("/b/fs/b.log", "3", nil)
	e.put("/b/other/z", "elsewhere", nil)

	for _, c := range []struct{ path, want string }{
		{"/b/fs", "a/1.txt,a/2.txt,a/2.txt,b.log"},
		{"/b/fs/", "a/1.txt,a/2.txt,a/2.txt,b.log"},
		{"/b/fs?prefix=a/", "a/1.txt,a/2.txt,a/2.txt"},
		{"/b/fs?prefix=" + url.QueryEscape("a/1."), "a/1.txt"},
		{"/b/fs?regex=" + url.QueryEscape(`\.log$`), "b.log"},
		{"/b/fs?meta.owner=ann", "a/1.txt,a/2.txt"},
		{"/b/fs?meta.owner=ann&prefix=a/2", "a/2.txt"},
		{"/b/fs?metajson.n=2", "a/2.txt"},
		{"/b/fs?meta.n=2", ""}, // meta. matches strings only
		{"/b/fs?meta.owner=carol", ""},
		{"/b/nobucket", ""},
	} {
		if got := names(e.list(c.path)); got != c.want {
			t.Errorf("GET %s: %q, want %q", c.path, got, c.want)
		}
	}

	// Keyset pagination visits every file once, in order.
	var all []string
	path := "/b/fs?limit=1"
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		l := e.list(path)
		if len(l.Files) > 1 {
			t.Fatalf("page of %d files with limit=1", len(l.Files))
		}
		for _, f := range l.Files {
			all = append(all, f.Filename)
		}
		if l.Next == "" {
			break
		}
		path = "/b/fs?limit=1&cursor=" + url.QueryEscape(l.Next)
	}
	if got := strings.Join(all, ","); got != "a/1.txt,a/2.txt,a/2.txt,b.log" {
		t.Errorf("paginated %q", got)
	}

	e.run([]httpTest{
		{name: "JSON shape", method: "GET", path: "/b/fs?prefix=b", code: 200,
			contains:  []string{`"files":[{"id":{"$oid":`, `"filename":"b.log"`, `"length":1`, `"sha256":`, `"next":""`},
			resHeader: map[string]string{"Content-Type": "application/json"}},
		{name: "limit 0", method: "GET", path: "/b/fs?limit=0", code: 400, errCode: "invalid_query"},
		{name: "limit too large", method: "GET", path: "/b/fs?limit=100000", code: 400, errCode: "invalid_query"},
		{name: "limit not a number", method: "GET", path: "/b/fs?limit=ten", code: 400, errCode: "invalid_query"},
		{name: "bad regex", method: "GET", path: "/b/fs?regex=" + url.QueryEscape("a("), code: 400, errCode: "invalid_query"},
		{name: "bad cursor", method: "GET", path: "/b/fs?cursor=zzz", code: 400, errCode: "invalid_query"},
		{name: "bad metajson", method: "GET", path: "/b/fs?metajson.n=" + url.QueryEscape("{nope"), code: 400, errCode: "invalid_query"},
		{name: "unknown parameter", method: "GET", path: "/b/fs?owner=ann", code: 400, errCode: "invalid_query"},
		{name: "bad bucket", method: "GET", path: "/b/a$b", code: 400, errCode: "invalid_bucket_name"},
	})
}

func TestDelete(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.put("/b/fs/gone?chunkSize=4", "revision one", nil)
	e.put("/b/fs/gone?chunkSize=4", "revision two", nil)
	keep := e.put("/b/fs/keep?chunkSize=4", "kept", nil)
	byID := e.put("/b/fs/by-id?chunkSize=4", "by id", nil)
	e.run([]httpTest{
		{name: "every revision", method: "DELETE", path: "/b/fs/gone", code: 204, resBody: str("")},
		{name: "gone", method: "GET", path: "/b/fs/gone", code: 404, errCode: "file_not_found"},
		{name: "again", method: "DELETE", path: "/b/fs/gone", code: 404, errCode: "file_not_found"},
		{name: "by id with a stale If-Match", method: "DELETE", path: "/id/fs/" + byID.oid(t), header: map[string]string{"If-Match": `"stale"`}, code: 412},
		{name: "by id", method: "DELETE", path: "/id/fs/" + byID.oid(t), header: map[string]string{"If-Match": byID.ETag}, code: 204},
		{name: "by id again", method: "DELETE", path: "/id/fs/" + byID.oid(t), code: 404, errCode: "file_not_found"},
		{name: "bad id", method: "DELETE", path: "/id/fs/%7Bbad", code: 400, errCode: "invalid_id"},
		{name: "empty name", method: "DELETE", path: "/b/fs/", code: 400, errCode: "invalid_filename"},
	})
	if files, chunks := e.counts("fs"); files != 1 || chunks != 1 {
		t.Errorf("%d files, %d chunks left; want only %s", files, chunks, keep.Filename)
	}
}

func TestPatch(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/old-name", "content", map[string]string{"Content-Type": "text/plain", "X-Meta-A": "1"})
	id := "/id/fs/" + f.oid(t)
	e.run([]httpTest{
		{name: "stale If-Match", method: "PATCH", path: id, header: map[string]string{"If-Match": `"stale"`},
			body: `{"filename": "new-name"}`, code: 412, errCode: "precondition_failed"},
		{name: "rename", method: "PATCH", path: id, header: map[string]string{"If-Match": f.ETag},
			body: `{"filename": "dir/new-name"}`, code: 200, contains: []string{`"filename":"dir/new-name"`, `"metadata":{"a":"1","contentType":"text/plain"}`},
			resHeader: map[string]string{"ETag": f.ETag}},
		{name: "old name gone", method: "GET", path: "/b/fs/old-name", code: 404},
		{name: "new name", method: "GET", path: "/b/fs/dir/new-name", code: 200, resBody: str("content")},
		{name: "replace metadata", method: "PATCH", path: id,
			body: `{"metadata": {"b": {"$numberLong": "2"}, "contentType": "text/markdown"}}`, code: 200,
			contains: []string{`"metadata":{"b":2,"contentType":"text/markdown"}`}},
		{name: "metadata is served", method: "HEAD", path: id, code: 200,
			resHeader: map[string]string{"X-Gridfs-Metadata": `{"b":2,"contentType":"text/markdown"}`, "Content-Type": "text/markdown"}},
		{name: "both at once", method: "PATCH", path: id, body: `{"filename": "final", "metadata": {"c": true}}`, code: 200,
			contains: []string{`"filename":"final"`, `"metadata":{"c":true}`}},
		{name: "remove metadata", method: "PATCH", path: id, body: `{"metadata": null}`, code: 200},
		{name: "no metadata left", method: "HEAD", path: "/b/fs/final", code: 200, resHeader: map[string]string{"X-Gridfs-Metadata": ""}},
		{name: "empty body", method: "PATCH", path: id, code: 400, errCode: "bad_request"},
		{name: "nothing to change", method: "PATCH", path: id, body: `{}`, code: 400, errCode: "bad_request"},
		{name: "unknown field", method: "PATCH", path: id, body: `{"length": 3}`, code: 400, errCode: "bad_request"},
		{name: "bad filename", method: "PATCH", path: id, body: `{"filename": "a/../b"}`, code: 400, errCode: "invalid_filename"},
		{name: "filename not a string", method: "PATCH", path: id, body: `{"filename": 3}`, code: 400, errCode: "invalid_filename"},
		{name: "bad metadata", method: "PATCH", path: id, body: `{"metadata": [1]}`, code: 400, errCode: "invalid_metadata"},
		{name: "bad metadata leaves the name", method: "PATCH", path: id, body: `{"filename": "x", "metadata": {"$bad": 1}}`, code: 400, errCode: "invalid_metadata"},
		{name: "still final", method: "GET", path: "/b/fs/final", code: 200},
		{name: "missing file", method: "PATCH", path: "/id/fs/000000000000000000000000", body: `{"filename": "x"}`, code: 404, errCode: "file_not_found"},
	})
}

func TestBuckets(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.run([]httpTest{
		{name: "none yet", method: "GET", path: "/buckets", code: 200, resBody: str(`{"buckets":[]}` + "\n")},
		{name: "create with settings", method: "PUT", path: "/buckets/photos", body: `{"chunkSize": 8, "maxFileSize": 1000}`, code: 200,
			resBody: str(`{"name":"photos","settings":{"chunkSize":8,"maxFileSize":1000},"files":0,"bytes":0}` + "\n")},
		{name: "create without body", method: "PUT", path: "/buckets/plain", code: 200},
		{name: "upload takes the bucket's chunk size", method: "PUT", path: "/b/photos/p.jpg", body: pattern(20), code: 201, contains: []string{`"chunkSize":8`}},
		{name: "update settings", method: "PUT", path: "/buckets/plain", body: `{"chunkSize": 4}`, code: 200},
		{name: "list with stats", method: "GET", path: "/buckets", code: 200, resBody: str(`{"buckets":[` +
			`{"name":"photos","settings":{"chunkSize":8,"maxFileSize":1000},"files":1,"bytes":20},` +
			`{"name":"plain","settings":{"chunkSize":4},"files":0,"bytes":0}]}` + "\n")},
		{name: "bad name", method: "PUT", path: "/buckets/a$b", code: 400, errCode: "invalid_bucket_name"},
		{name: "bad chunk size", method: "PUT", path: "/buckets/x", body: `{"chunkSize": 0}`, code: 400, errCode: "invalid_chunk_size"},
		{name: "chunk size too large", method: "PUT", path: "/buckets/x", body: `{"chunkSize": 99999999}`, code: 400, errCode: "invalid_chunk_size"},
		{name: "chunk size not a number", method: "PUT", path: "/buckets/x", body: `{"chunkSize": "8"}`, code: 400, errCode: "bad_request"},
		{name: "unknown option", method: "PUT", path: "/buckets/x", body: `{"chunksize": 8}`, code: 400, errCode: "bad_request"},
		{name: "negative max size", method: "PUT", path: "/buckets/x", body: `{"maxFileSize": -1}`, code: 400, errCode: "bad_request"},
		{name: "not JSON", method: "PUT", path: "/buckets/x", body: `chunkSize=8`, code: 400, errCode: "bad_request"},
		{name: "drop a non-empty bucket", method: "DELETE", path: "/buckets/photos", code: 409, errCode: "bucket_not_empty"},
		{name: "force", method: "DELETE", path: "/buckets/photos?force=true", code: 204},
		{name: "drop an empty bucket", method: "DELETE", path: "/buckets/plain", code: 204},
		{name: "drop a missing bucket", method: "DELETE", path: "/buckets/plain", code: 404, errCode: "bucket_not_found"},
		{name: "bad force", method: "DELETE", path: "/buckets/x?force=maybe", code: 400, errCode: "bad_request"},
		{name: "all gone", method: "GET", path: "/buckets", code: 200, resBody: str(`{"buckets":[]}` + "\n")},
	})
	names, err := e.db.Database().ListCollectionNames(t.Context(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "x.") {
			t.Errorf("bad requests created %s", n)
		}
	}
}

func TestService(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.put("/b/fs/m", pattern(40), map[string]string{"Content-Type": "text/plain"})
	e.do("GET", "/b/fs/m", map[string]string{"Range": "bytes=1-2"}, "")
	e.do("GET", "/b/fs/m", map[string]string{"Range": "bytes=1-2,5-6"}, "")
	e.run([]httpTest{
		{name: "healthz", method: "GET", path: "/healthz", code: 200, resBody: str(`{"status":"ok"}` + "\n")},
		{name: "readyz", method: "GET", path: "/readyz", code: 200, resBody: str(`{"status":"ready"}` + "\n")},
		{name: "metrics", method: "GET", path: "/metrics", code: 200, contains: []string{
			`gridfsd_http_requests_total{method="PUT",route="/b/:bucket/*",status="201"} 1`,
			`gridfsd_http_requests_total{method="GET",route="/b/:bucket/*",status="206"} 2`,
			`gridfsd_range_requests_total{kind="single"} 1`,
			`gridfsd_range_requests_total{kind="multi"} 1`,
			"gridfsd_http_request_bytes_total 40",
			"gridfsd_upload_duration_seconds_count 1",
			"gridfsd_download_duration_seconds_count 2",
			"gridfsd_chunk_fetch_seconds_count",
			"gridfsd_store_read_bytes_total",
			"go_goroutines",
		}},
		{name: "root redirects to the UI", method: "GET", path: "/", code: 200, contains: []string{"<html"}},
		{name: "UI", method: "GET", path: "/ui/", code: 200, contains: []string{"gridfsd"}},
		{name: "unknown route", method: "GET", path: "/nope", code: 404, errCode: "not_found"},
		{name: "unknown method", method: "POST", path: "/b/fs/m", code: 405, errCode: "method_not_allowed"},
	})
	res, _ := e.do("GET", "/", map[string]string{}, "")
	if res.Request.URL.Path != "/ui/" {
		t.Errorf("/ led to %s", res.Request.URL)
	}
}

// TestHeadOnEveryGetRoute: HEAD answers with the status and headers GET
// would, and no body (RFC 9110 9.3.2).
func TestHeadOnEveryGetRoute(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/m.txt", pattern(40), nil)
	for _, path := range []string{
		"/healthz", "/readyz", "/metrics", "/auth", "/buckets", "/b/fs", "/b/fs/", "/b/fs/?prefix=m",
		"/b/fs/m.txt", "/id/fs/" + f.oid(t), "/ui/", "/b/fs/missing", "/b/nobucket/",
	} {
		get, _ := e.do("GET", path, nil, "")
		head, body := e.do("HEAD", path, nil, "")
		if head.StatusCode != get.StatusCode || len(body) != 0 {
			t.Errorf("HEAD %s: status %d and %d bytes, GET %d", path, head.StatusCode, len(body), get.StatusCode)
		}
		for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Content-Disposition"} {
			if path == "/metrics" && k == "Content-Length" {
				continue // the counts change between the two requests
			}
			if g, h := get.Header.Get(k), head.Header.Get(k); g != h {
				t.Errorf("HEAD %s: %s %q, GET %q", path, k, h, g)
			}
		}
	}
}

// TestMetricLabelsAreBounded: what a client sends cannot make new series.
func TestMetricLabelsAreBounded(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for i := 0; i < 3; i++ {
		e.do(fmt.Sprintf("BREW%d", i), "/b/fs/x", nil, "")
		e.do("GET", fmt.Sprintf("/nothing/here/%d", i), nil, "")
	}
	_, body := e.do("GET", "/metrics", nil, "")
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "gridfsd_http_requests_total{") && (strings.Contains(line, "BREW") || strings.Contains(line, "/nothing")) {
			t.Errorf("a client's input became a label: %s", line)
		}
	}
	if !strings.Contains(string(body), `gridfsd_http_requests_total{method="other",route="/b/:bucket/*",status="405"} 3`) {
		t.Errorf("invented methods are not counted as other:\n%s", body)
	}
}

// TestStoreUnavailable points a gateway at a MongoDB that does not exist:
// requests fail with 503, never 500.
func TestStoreUnavailable(t *testing.T) {
	e := newUnreachableEnv(t)
	e.run([]httpTest{
		{name: "readyz", method: "GET", path: "/readyz", code: 503, errCode: "store_unavailable"},
		{name: "healthz still fine", method: "GET", path: "/healthz", code: 200},
		{name: "download", method: "GET", path: "/b/fs/x", code: 503, errCode: "store_unavailable"},
		{name: "upload", method: "PUT", path: "/b/fs/x", body: "x", code: 503, errCode: "store_unavailable"},
		{name: "list", method: "GET", path: "/buckets", code: 503, errCode: "store_unavailable"},
	})
	_, body := e.do("GET", "/b/fs/x", nil, "")
	if strings.Contains(string(body), "server selection") || strings.Contains(string(body), "127.0.0.1") {
		t.Errorf("driver text in the reply: %s", body)
	}
}
