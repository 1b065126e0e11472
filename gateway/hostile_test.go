package gateway_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
)

func mustBucket(t *testing.T, e *env, name string) *buckets.Bucket {
	t.Helper()
	b, err := e.db.Bucket(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// nested is an X-Gridfs-Metadata object nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + `{"a":1}` + strings.Repeat("}", depth-1)
}

// TestHostileInput: every request here gets a 4xx JSON error, writes
// nothing, and leaves the server healthy.
func TestHostileInput(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/keep", pattern(100), nil)
	long := strings.Repeat("n", 1025)
	put := func(name, path string, header map[string]string, code int, errCode string) httpTest {
		return httpTest{name: name, method: "PUT", path: path, body: "x", header: header, code: code, errCode: errCode}
	}
	get := func(name, rng string) httpTest {
		return httpTest{name: name, method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": rng}, code: 416,
			errCode: "range_not_satisfiable", resHeader: map[string]string{"Content-Range": "bytes */100"}}
	}
	md := func(v string) map[string]string { return map[string]string{"X-Gridfs-Metadata": v} }

	e.run([]httpTest{
		// Path traversal, raw and encoded, in names and buckets.
		put("dot-dot", "/b/fs/../../etc/passwd", nil, 400, "invalid_filename"),
		put("dot-dot alone", "/b/fs/..", nil, 400, "invalid_filename"),
		put("dot-dot last", "/b/fs/a/..", nil, 400, "invalid_filename"),
		put("encoded dot-dot", "/b/fs/a/%2e%2e/b", nil, 400, "invalid_filename"),
		put("upper-case encoded dot-dot", "/b/fs/%2E%2E/b", nil, 400, "invalid_filename"),
		put("encoded slash dot-dot", "/b/fs/..%2Fetc%2Fpasswd", nil, 400, "invalid_filename"),
		put("encoded slashes", "/b/fs/a%2F..%2F..%2Fb", nil, 400, "invalid_filename"),
		put("double-encoded stays literal", "/b/fs/%252e%252e/x", nil, 201, ""),
		put("dot-dot bucket", "/b/../x", nil, 400, "invalid_bucket_name"),
		put("encoded dot-dot bucket", "/b/%2e%2e/x", nil, 400, "invalid_bucket_name"),
		put("bucket with encoded slash", "/b/..%2Ffs/x", nil, 400, "invalid_bucket_name"),
		put("bucket with backslash", "/b/a%5Cb/x", nil, 400, "invalid_bucket_name"),
		{name: "id bucket traversal", method: "GET", path: "/id/..%2Ffs/" + f.oid(t), code: 400, errCode: "invalid_bucket_name"},

		// NUL, control characters and invalid UTF-8.
		put("NUL in name", "/b/fs/a%00b", nil, 400, "invalid_filename"),
		put("newline in name", "/b/fs/a%0Ab", nil, 400, "invalid_filename"),
		put("DEL in name", "/b/fs/a%7Fb", nil, 400, "invalid_filename"),
		put("invalid UTF-8 in name", "/b/fs/a%ffb", nil, 400, "invalid_filename"),
		put("overlong UTF-8 in name", "/b/fs/%c0%af", nil, 400, "invalid_filename"),
		put("NUL in bucket", "/b/f%00s/x", nil, 400, "invalid_bucket_name"),
		put("invalid UTF-8 in bucket", "/b/f%ffs/x", nil, 400, "invalid_bucket_name"),
		// Reads accept names other tools wrote, so a hostile name is only not found.
		{name: "NUL in name on GET", method: "GET", path: "/b/fs/a%00b", code: 404, errCode: "file_not_found"},

		// Lengths.
		put("name over 1 KiB", "/b/fs/"+long, nil, 400, "invalid_filename"),
		put("bucket over 120 bytes", "/b/"+strings.Repeat("b", 121)+"/x", nil, 400, "invalid_bucket_name"),

		// Reserved and operator-looking bucket names.
		put("system bucket", "/b/system.x/x", nil, 400, "invalid_bucket_name"),
		put("system.profile", "/b/system.profile/x", nil, 400, "invalid_bucket_name"),
		put("dollar bucket", "/b/a$b/x", nil, 400, "invalid_bucket_name"),
		put("encoded dollar bucket", "/b/%24cmd/x", nil, 400, "invalid_bucket_name"),
		{name: "create system bucket", method: "PUT", path: "/buckets/system.js", code: 400, errCode: "invalid_bucket_name"},
		{name: "create dollar bucket", method: "PUT", path: "/buckets/$x", code: 400, errCode: "invalid_bucket_name"},
		{name: "drop system bucket", method: "DELETE", path: "/buckets/system.x", code: 400, errCode: "invalid_bucket_name"},

		// Metadata: invalid Extended JSON, too deep, too large.
		put("metadata bad $numberInt", "/b/fs/x", md(`{"a": {"$numberInt": "x"}}`), 400, "invalid_metadata"),
		put("metadata bad $oid", "/b/fs/x", md(`{"a": {"$oid": "zz"}}`), 400, "invalid_metadata"),
		put("metadata bad $date", "/b/fs/x", md(`{"a": {"$date": "yesterday"}}`), 400, "invalid_metadata"),
		put("metadata $ key", "/b/fs/x", md(`{"$set": {"a": 1}}`), 400, "invalid_metadata"),
		put("metadata $ key in array", "/b/fs/x", md(`{"a": [{"$where": "1"}]}`), 400, "invalid_metadata"),
		put("metadata empty key", "/b/fs/x", md(`{"": 1}`), 400, "invalid_metadata"),
		put("metadata trailing garbage", "/b/fs/x", md(`{"a": 1} {"b": 2}`), 400, "invalid_metadata"),
		put("metadata invalid UTF-8", "/b/fs/x", md("{\"a\": \"\xff\"}"), 400, "invalid_metadata"),
		put("metadata nested 101 levels", "/b/fs/x", md(nested(101)), 400, "invalid_metadata"),
		put("metadata nested 10000 levels", "/b/fs/x", md(nested(10000)), 400, "invalid_metadata"),
		put("metadata arrays 200 deep", "/b/fs/x", md(`{"a":`+strings.Repeat("[", 200)+strings.Repeat("]", 200)+`}`), 400, "invalid_metadata"),
		put("metadata twice", "/b/fs/x", map[string]string{"X-Gridfs-Metadata": `{}`, "X-Meta-A": "\xff"}, 400, "invalid_metadata"),
		{name: "PATCH metadata nested too deep", method: "PATCH", path: "/id/fs/" + f.oid(t), body: `{"metadata":` + nested(200) + `}`, code: 400, errCode: "invalid_metadata"},
		{name: "PATCH metadata larger than a document", method: "PATCH", path: "/id/fs/" + f.oid(t),
			body: `{"metadata":{"a":"` + strings.Repeat("x", 17<<20) + `"}}`, code: 413, errCode: "too_large"},
		{name: "PATCH metadata just over the document limit", method: "PATCH", path: "/id/fs/" + f.oid(t),
			body: `{"metadata":{"a":"` + strings.Repeat("x", 16<<20-1000) + `"}}`, code: 400, errCode: "invalid_metadata"},

		// Chunk sizes.
		put("chunkSize negative", "/b/fs/x?chunkSize=-1", nil, 400, "invalid_chunk_size"),
		put("chunkSize min int", "/b/fs/x?chunkSize=-9223372036854775808", nil, 400, "invalid_chunk_size"),
		put("chunkSize over int32", "/b/fs/x?chunkSize=2147483648", nil, 400, "invalid_chunk_size"),
		put("chunkSize over int64", "/b/fs/x?chunkSize=99999999999999999999", nil, 400, "invalid_chunk_size"),
		put("chunkSize 1 GB", "/b/fs/x?chunkSize=1000000000", nil, 400, "invalid_chunk_size"),
		put("chunkSize float", "/b/fs/x?chunkSize=1.5", nil, 400, "invalid_chunk_size"),
		put("chunkSize hex", "/b/fs/x?chunkSize=0x10", nil, 400, "invalid_chunk_size"),
		{name: "bucket chunkSize negative", method: "PUT", path: "/buckets/neg", body: `{"chunkSize":-1}`, code: 400, errCode: "invalid_chunk_size"},
		{name: "bucket chunkSize huge", method: "PUT", path: "/buckets/huge", body: `{"chunkSize":99999999999}`, code: 400, errCode: "invalid_chunk_size"},

		// Malformed ranges: 416 JSON, never 500.
		get("range garbage", "bytes=abc"),
		get("range reversed", "bytes=5-1"),
		get("range double dash", "bytes=--1"),
		get("range empty suffix", "bytes=-0"),
		get("range beyond the end", "bytes=100-"),
		get("range overflowing start", "bytes=99999999999999999999-"),
		get("range negative start", "bytes=-5-10"),
		get("range only commas", "bytes=,,,"),
		get("range zero suffixes", "bytes=-0,-00"),
		{name: "range overflowing end is clamped", method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": "bytes=98-99999999999999999999"}, code: 206, resBody: str(pattern(100)[98:])},
		{name: "range end past the file is clamped", method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": "bytes=98-1000"}, code: 206, resBody: str(pattern(100)[98:])},
		{name: "range empty elements are skipped", method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": "bytes=,1-2,"}, code: 206, resBody: str(pattern(100)[1:3])},
		{name: "range with a huge count is ignored", method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": "bytes=" + strings.Repeat("0-99,", 500) + "0-99"}, code: 200},
		{name: "range of another unit is ignored", method: "GET", path: "/b/fs/keep", header: map[string]string{"Range": "items=0-1"}, code: 200},

		// Preconditions and digests.
		put("If-Match garbage", "/b/fs/keep", map[string]string{"If-Match": "garbage"}, 412, "precondition_failed"),
		put("If-Match weak", "/b/fs/keep", map[string]string{"If-Match": "W/" + f.ETag}, 412, "precondition_failed"),
		put("If-Match on a missing name", "/b/fs/missing", map[string]string{"If-Match": "*"}, 412, "precondition_failed"),
		put("If-None-Match star on an existing name", "/b/fs/keep", map[string]string{"If-None-Match": "*"}, 412, "precondition_failed"),
		{name: "DELETE If-Match garbage", method: "DELETE", path: "/id/fs/" + f.oid(t), header: map[string]string{"If-Match": `"nope"`}, code: 412, errCode: "precondition_failed"},
		{name: "PATCH If-Match garbage", method: "PATCH", path: "/id/fs/" + f.oid(t), header: map[string]string{"If-Match": `"nope"`}, body: `{"filename":"y"}`, code: 412, errCode: "precondition_failed"},
		put("Content-MD5 not base64", "/b/fs/x", map[string]string{"Content-MD5": "!!!"}, 400, "bad_request"),
		put("Content-MD5 wrong length", "/b/fs/x", map[string]string{"Content-MD5": "AAAA"}, 400, "bad_request"),
		put("Content-MD5 mismatch", "/b/fs/x", map[string]string{"Content-MD5": "1B2M2Y8AsgTpgAmY7PhCfg=="}, 400, "digest_mismatch"),
		put("Repr-Digest not a byte sequence", "/b/fs/x", map[string]string{"Repr-Digest": "sha-256=abc"}, 400, "bad_request"),
		put("Repr-Digest wrong length", "/b/fs/x", map[string]string{"Repr-Digest": "sha-256=:AAAA:"}, 400, "bad_request"),
		put("Repr-Digest mismatch", "/b/fs/x", map[string]string{"Repr-Digest": "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"}, 400, "digest_mismatch"),
		put("Repr-Digest and Content-Digest disagree", "/b/fs/x", map[string]string{
			"Repr-Digest":    "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:",
			"Content-Digest": "sha-256=:LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564=:"}, 400, "bad_request"),

		// Ids.
		{name: "id bad $oid", method: "GET", path: `/id/fs/{"$oid":"zz"}`, code: 400, errCode: "invalid_id"},
		{name: "id NUL", method: "GET", path: "/id/fs/%00", code: 404, errCode: "file_not_found"},
	})

	// Nothing was written: the kept file and the one literal "%2e%2e" name.
	if files, _ := e.counts("fs"); files != 2 {
		t.Errorf("fs holds %d files, want 2", files)
	}
	names, err := e.db.Database().ListCollectionNames(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		// fs.* and the leases its uploads' commits take.
		if !strings.HasPrefix(n, "fs.") && n != buckets.LeasesCollection {
			t.Errorf("hostile requests created collection %s", n)
		}
	}
	e.run([]httpTest{
		{name: "still healthy", method: "GET", path: "/healthz", code: 200},
		{name: "still ready", method: "GET", path: "/readyz", code: 200},
		{name: "kept file intact", method: "GET", path: "/b/fs/keep", code: 200, resBody: str(pattern(100))},
		{name: "literal percent name", method: "GET", path: "/b/fs/%252e%252e/x", code: 200, resBody: str("x")},
	})
	fsck, err := mustBucket(t, e, "fs").Fsck(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(fsck.Damaged) != 0 || len(fsck.Old)+len(fsck.Pending) != 0 {
		t.Errorf("fsck after hostile input: %+v", fsck)
	}
}

// TestMetadataDepthLimit: metadata up to the limit is stored and read back.
func TestMetadataDepthLimit(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/deep", "x", map[string]string{"X-Gridfs-Metadata": nested(gateway.MaxMetadataDepth)})
	m := f.Metadata
	for range gateway.MaxMetadataDepth - 1 {
		next, ok := m["a"].(map[string]any)
		if !ok {
			t.Fatalf("metadata lost its nesting: %v", f.Metadata)
		}
		m = next
	}
}

// TestHostileRawRequests sends what an HTTP client library would refuse to:
// net/http answers them 400 itself, before any handler, and the server
// stays healthy.
func TestHostileRawRequests(t *testing.T) {
	e, ln := serveEnv(t, gateway.Config{})
	for _, raw := range []string{
		"PUT /b/fs/a%zzb HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
		"PUT /b/fs/a\x00b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
		"PUT /b/fs/a b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
		"PUT /b/fs/x HTTP/1.1\r\nHost: x\r\nX-Meta-A: a\x00b\r\nContent-Length: 1\r\n\r\nx",
		"PUT /b/fs/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
		"PUT /b/fs/x HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\nx",
		"PUT ../../etc/passwd HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
	} {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte(raw))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if res.StatusCode < 400 || res.StatusCode >= 500 {
			t.Errorf("%q: status %d, want 4xx", raw, res.StatusCode)
		}
	}
	e.mustBeEmpty("fs")
	if res, _ := e.do("GET", "/healthz", nil, ""); res.StatusCode != 200 {
		t.Errorf("healthz after hostile requests: %d", res.StatusCode)
	}
}

// TestMetadataHeaderLargerThanADocument: with header limits raised far
// enough to carry it, metadata larger than a files document may hold is
// refused before anything is written; under the default limit the header
// never reaches the gateway (431).
func TestMetadataHeaderLargerThanADocument(t *testing.T) {
	e, _ := serveEnv(t, gateway.Config{MaxHeaderBytes: 20 << 20})
	big := `{"a":"` + strings.Repeat("x", 17<<20) + `"}`
	e.run([]httpTest{
		{name: "17 MiB of metadata", method: "PUT", path: "/b/fs/x", body: "x", header: map[string]string{"X-Gridfs-Metadata": big}, code: 400, errCode: "invalid_metadata"},
		{name: "17 MiB of X-Meta", method: "PUT", path: "/b/fs/x", body: "x", header: map[string]string{"X-Meta-A": big[6 : len(big)-2]}, code: 400, errCode: "invalid_metadata"},
	})
	e.mustBeEmpty("fs")
	small, _ := serveEnv(t, gateway.Config{})
	res, _ := small.do("PUT", "/b/fs/x", map[string]string{"X-Gridfs-Metadata": `{"a":"` + strings.Repeat("x", 100<<10) + `"}`}, "x")
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB metadata header under the default limit: %d, want 431", res.StatusCode)
	}
	small.mustBeEmpty("fs")
}
