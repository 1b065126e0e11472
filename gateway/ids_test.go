package gateway_test

import (
	"net/url"
	"os"
	"testing"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// TestIDIsAValueNotAQuery: an id in /id/{bucket}/{id} that would act as a
// query ({"$ne": null}, a regular expression, an array) is 400 invalid_id
// on every method, and nothing is read, changed or removed. Before ids were
// checked, DELETE with {"$ne":null} answered 204 and removed the chunks of
// other files, and GET and PATCH reached an arbitrary file.
func TestIDIsAValueNotAQuery(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for _, name := range []string{"a", "b", "c"} {
		e.put("/b/fs/"+name+"?chunkSize=16", pattern(100), nil)
	}
	files, chunks := e.counts("fs")
	hostile := []string{
		`{"$ne":null}`,
		`{"$gt":{"$minKey":1}}`,
		`{"$exists":true}`,
		`{"$in":["a","b"]}`,
		`{"a":{"$ne":1}}`,
		`{"a":[{"$ne":1}]}`,
		`{"$regex":"."}`,
		`{"$regex":".","$options":""}`,
		`{"$regularExpression":{"pattern":".","options":""}}`,
		`[1,2]`,
		`{"$undefined":true}`,
		`{"$ref":"fs.files","$id":1}`,
		`{"$where":"true"}`,
	}
	for _, id := range hostile {
		p := "/id/fs/" + url.PathEscape(id)
		e.run([]httpTest{
			{name: "DELETE " + id, method: "DELETE", path: p, code: 400, errCode: "invalid_id"},
			{name: "GET " + id, method: "GET", path: p, code: 400, errCode: "invalid_id"},
			{name: "HEAD " + id, method: "HEAD", path: p, code: 400},
			{name: "PATCH " + id, method: "PATCH", path: p, body: `{"filename":"hijacked"}`, code: 400, errCode: "invalid_id"},
		})
	}
	if f, c := e.counts("fs"); f != files || c != chunks {
		t.Fatalf("after hostile ids: %d files and %d chunks, want %d and %d", f, c, files, chunks)
	}
	for _, name := range []string{"a", "b", "c"} {
		if res, body := e.do("GET", "/b/fs/"+name, nil, ""); res.StatusCode != 200 || string(body) != pattern(100) {
			t.Fatalf("GET %s: %d, %d bytes", name, res.StatusCode, len(body))
		}
	}
	// Extended JSON type wrappers stay ids: a document id without $-keys
	// and a typed value are addressed as values.
	e.run([]httpTest{
		{name: "plain document id", method: "GET", path: "/id/fs/" + url.PathEscape(`{"a":1}`), code: 404, errCode: "file_not_found"},
		{name: "date id", method: "GET", path: "/id/fs/" + url.PathEscape(`{"$date":"2020-01-01T00:00:00Z"}`), code: 404, errCode: "file_not_found"},
		{name: "long id", method: "DELETE", path: "/id/fs/" + url.PathEscape(`{"$numberLong":"7"}`), code: 404, errCode: "file_not_found"},
	})
}

// TestMetaJSONIsEquality: metajson.<key> matches a value; an operator
// document is refused instead of matching every file.
func TestMetaJSONIsEquality(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.put("/b/fs/one", "1", map[string]string{"X-Gridfs-Metadata": `{"k":1}`})
	e.put("/b/fs/two", "2", map[string]string{"X-Gridfs-Metadata": `{"k":2}`})
	e.run([]httpTest{
		{name: "equality", method: "GET", path: "/b/fs?metajson.k=2", code: 200, contains: []string{`"filename":"two"`}},
		{name: "$ne", method: "GET", path: "/b/fs?metajson.k=" + url.QueryEscape(`{"$ne":null}`), code: 400, errCode: "invalid_query"},
		{name: "$gt", method: "GET", path: "/b/fs?metajson.k=" + url.QueryEscape(`{"$gt":0}`), code: 400, errCode: "invalid_query"},
		{name: "nested $", method: "GET", path: "/b/fs?metajson.k=" + url.QueryEscape(`{"a":{"$exists":true}}`), code: 400, errCode: "invalid_query"},
		{name: "regex", method: "GET", path: "/b/fs?metajson.k=" + url.QueryEscape(`{"$regex":"."}`), code: 400, errCode: "invalid_query"},
		{name: "meta string $ne", method: "GET", path: "/b/fs?meta.k=" + url.QueryEscape(`{"$ne":null}`), code: 200, resBody: str(`{"files":[],"next":""}` + "\n")},
	})
}

// TestMetadataTheStoreCannotHoldIs4xx: metadata and filters the store
// would refuse or misread are 400 before anything is written, never a 5xx.
func TestMetadataTheStoreCannotHoldIs4xx(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/keep", "x", map[string]string{"X-Gridfs-Metadata": `{"k":"v"}`})
	files, chunks := e.counts("fs")
	var tests []httpTest
	for _, md := range []string{
		`{"a.b":1}`, `{"a":{"b.c":1}}`, `{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{"$set":1}`, `{"a":[{"$gt":1}]}`,
		`{"contentType":"text/html\u0000"}`, `{"contentType":"text/html\u007f"}`, `{"a":1} trailing`,
	} {
		tests = append(tests,
			httpTest{name: "PUT " + md, method: "PUT", path: "/b/fs/new", body: "x", header: map[string]string{"X-Gridfs-Metadata": md}, code: 400, errCode: "invalid_metadata"},
			httpTest{name: "PATCH " + md, method: "PATCH", path: "/id/fs/" + f.oid(t), body: `{"metadata":` + md + `}`, code: 400},
		)
	}
	for _, q := range []string{"meta.a%00b=1", "meta.a.=1", "meta.$x=1", "meta..a=1", "meta.a.$b=1", "meta.a%ffb=1", "metajson.a%00=1"} {
		tests = append(tests, httpTest{name: "GET ?" + q, method: "GET", path: "/b/fs?" + q, code: 400, errCode: "invalid_query"})
	}
	e.run(tests)
	if fl, c := e.counts("fs"); fl != files || c != chunks {
		t.Fatalf("refused writes left %d files and %d chunks, want %d and %d", fl, c, files, chunks)
	}
	if res, body := e.do("GET", "/id/fs/"+f.oid(t), nil, ""); res.Header.Get("X-Gridfs-Metadata") != `{"k":"v"}` {
		t.Fatalf("metadata changed: %q %s", res.Header.Get("X-Gridfs-Metadata"), body)
	}
}

// TestTypesTheStoreLacksAre4xx: on the embedded store, which has no
// Decimal128, MinKey or JavaScript, such metadata is 400, not the 503 with
// Retry-After of a dropped connection; on MongoDB it is stored.
func TestTypesTheStoreLacksAre4xx(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/keep", "x", nil)
	code := 400
	if os.Getenv(storetest.EnvURI) != "" {
		code = 201
	}
	for _, md := range []string{`{"d":{"$numberDecimal":"1.5"}}`, `{"m":{"$minKey":1}}`, `{"c":{"$code":"x"}}`} {
		e.run([]httpTest{
			{name: "PUT " + md, method: "PUT", path: "/b/fs/new", body: "x", header: map[string]string{"X-Gridfs-Metadata": md}, code: code},
			{name: "GET ?metajson " + md, method: "GET", path: "/b/fs?metajson.v=" + url.QueryEscape(md[5:len(md)-1]), code: map[int]int{400: 400, 201: 200}[code]},
		})
		if code == 400 {
			e.run([]httpTest{{name: "PATCH " + md, method: "PATCH", path: "/id/fs/" + f.oid(t), body: `{"metadata":` + md + `}`, code: 400, errCode: "invalid_metadata"}})
		}
	}
	if res, _ := e.do("GET", "/healthz", nil, ""); res.StatusCode != 200 {
		t.Fatalf("healthz %d after refused types", res.StatusCode)
	}
}
