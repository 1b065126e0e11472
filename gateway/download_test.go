package gateway_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestDownloadRanges reads a 100-byte file of 16-byte chunks: ranges inside
// a chunk, across and at chunk boundaries, suffix, open and past the end.
func TestDownloadRanges(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(100)
	f := e.put("/b/fs/r.bin?chunkSize=16", content, map[string]string{"Content-Type": "application/x-test"})
	part := func(from, to int) *string { return str(content[from : to+1]) }
	cr := func(from, to int) map[string]string {
		return map[string]string{"Content-Range": fmt.Sprintf("bytes %d-%d/100", from, to), "Content-Length": strconv.Itoa(to - from + 1)}
	}
	rng := func(s string) map[string]string { return map[string]string{"Range": s} }
	e.run([]httpTest{
		{name: "whole", method: "GET", path: "/b/fs/r.bin", code: 200, resBody: str(content),
			resHeader: map[string]string{"Content-Length": "100", "Accept-Ranges": "bytes", "ETag": f.ETag, "Content-Type": "application/x-test"}},
		{name: "first byte", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=0-0"), code: 206, resBody: part(0, 0), resHeader: cr(0, 0)},
		{name: "last byte of chunk 0", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=15-15"), code: 206, resBody: part(15, 15), resHeader: cr(15, 15)},
		{name: "first byte of chunk 1", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=16-16"), code: 206, resBody: part(16, 16), resHeader: cr(16, 16)},
		{name: "across a boundary", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=15-16"), code: 206, resBody: part(15, 16), resHeader: cr(15, 16)},
		{name: "exactly chunk 1", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=16-31"), code: 206, resBody: part(16, 31), resHeader: cr(16, 31)},
		{name: "three chunks and a bit", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=10-60"), code: 206, resBody: part(10, 60), resHeader: cr(10, 60)},
		{name: "the short last chunk", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=96-99"), code: 206, resBody: part(96, 99), resHeader: cr(96, 99)},
		{name: "suffix", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=-5"), code: 206, resBody: part(95, 99), resHeader: cr(95, 99)},
		{name: "suffix longer than the file", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=-500"), code: 206, resBody: part(0, 99), resHeader: cr(0, 99)},
		{name: "open", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=80-"), code: 206, resBody: part(80, 99), resHeader: cr(80, 99)},
		{name: "end past the end", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=90-1000"), code: 206, resBody: part(90, 99), resHeader: cr(90, 99)},
		{name: "unit in capitals", method: "GET", path: "/b/fs/r.bin", header: rng("Bytes=1-2"), code: 206, resBody: part(1, 2), resHeader: cr(1, 2)},
		{name: "start past the end", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=100-"), code: 416, errCode: "range_not_satisfiable",
			resHeader: map[string]string{"Content-Range": "bytes */100"}},
		{name: "reversed", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=9-3"), code: 416, errCode: "range_not_satisfiable",
			resHeader: map[string]string{"Content-Range": "bytes */100"}},
		{name: "end beyond int64 is clamped", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=0-99999999999999999999"), code: 206, resBody: part(0, 99), resHeader: cr(0, 99)},
		{name: "suffix beyond int64 is clamped", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=-99999999999999999999"), code: 206, resBody: part(0, 99), resHeader: cr(0, 99)},
		{name: "start beyond int64", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=99999999999999999999-"), code: 416, errCode: "range_not_satisfiable",
			resHeader: map[string]string{"Content-Range": "bytes */100"}},
		{name: "not modified before unsatisfiable", method: "GET", path: "/b/fs/r.bin", header: map[string]string{"Range": "bytes=500-", "If-None-Match": f.ETag}, code: 304},
		{name: "not modified before a zero suffix", method: "GET", path: "/b/fs/r.bin", header: map[string]string{"Range": "bytes=-0", "If-None-Match": f.ETag}, code: 304},
		{name: "precondition failed before unsatisfiable", method: "GET", path: "/b/fs/r.bin", header: map[string]string{"Range": "bytes=500-", "If-Match": `"other"`}, code: 412},
		{name: "overlapping ranges merged", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=0-9,5-19,20-29"), code: 206, resBody: part(0, 29), resHeader: cr(0, 29)},
		{name: "adjacent single bytes merged", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=" + manyRanges(100, func(i int) string { return fmt.Sprintf("%d-%d", i, i) })), code: 206, resBody: part(0, 99), resHeader: cr(0, 99)},
		{name: "more than 200 ranges: the whole file", method: "GET", path: "/b/fs/r.bin", header: rng("bytes=" + manyRanges(201, func(i int) string { return fmt.Sprintf("%d-%d", i%50*2, i%50*2) })), code: 200, resBody: str(content)},
		{name: "another unit is ignored (RFC 9110 14.2)", method: "GET", path: "/b/fs/r.bin", header: rng("items=0-5"), code: 200, resBody: str(content)},
		{name: "HEAD", method: "HEAD", path: "/b/fs/r.bin", code: 200, resBody: str(""),
			resHeader: map[string]string{"Content-Length": "100", "ETag": f.ETag, "Accept-Ranges": "bytes"}},
		{name: "HEAD with a range", method: "HEAD", path: "/b/fs/r.bin", header: rng("bytes=16-31"), code: 206, resBody: str(""), resHeader: cr(16, 31)},
	})
}

// manyRanges joins n ranges made by one.
func manyRanges(n int, one func(int) string) string {
	r := make([]string, n)
	for i := range r {
		r[i] = one(i)
	}
	return strings.Join(r, ",")
}

func TestDownloadMultipleRanges(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(100)
	e.put("/b/fs/m?chunkSize=16", content, map[string]string{"Content-Type": "text/plain"})
	res, body := e.do("GET", "/b/fs/m", map[string]string{"Range": "bytes=0-1,15-16,40-47,-3"}, "")
	if res.StatusCode != http.StatusPartialContent {
		t.Fatalf("status %d", res.StatusCode)
	}
	mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		t.Fatalf("Content-Type %q", res.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
	want := [][2]int{{0, 1}, {15, 16}, {40, 47}, {97, 99}}
	for i, w := range want {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, _ := io.ReadAll(p)
		if cr := p.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/100", w[0], w[1]) {
			t.Errorf("part %d: Content-Range %q", i, cr)
		}
		if p.Header.Get("Content-Type") != "text/plain" {
			t.Errorf("part %d: Content-Type %q", i, p.Header.Get("Content-Type"))
		}
		if string(got) != content[w[0]:w[1]+1] {
			t.Errorf("part %d: %q, want %q", i, got, content[w[0]:w[1]+1])
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Errorf("more parts than asked for: %v", err)
	}
}

func TestDownloadConditional(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(40)
	f := e.put("/b/fs/c?chunkSize=16", content, nil)
	res, _ := e.do("HEAD", "/b/fs/c", nil, "")
	lastMod := res.Header.Get("Last-Modified")
	mod, err := http.ParseTime(lastMod)
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", lastMod, err)
	}
	if up, _ := time.Parse(time.RFC3339Nano, f.UploadDate); !mod.Equal(up.Truncate(time.Second)) {
		t.Errorf("Last-Modified %v, uploadDate %v", mod, up)
	}
	later := mod.Add(time.Hour).Format(http.TimeFormat)
	earlier := mod.Add(-time.Hour).Format(http.TimeFormat)
	e.run([]httpTest{
		{name: "If-None-Match same", method: "GET", path: "/b/fs/c", header: map[string]string{"If-None-Match": f.ETag}, code: 304,
			resHeader: map[string]string{"ETag": f.ETag}, resBody: str("")},
		{name: "If-None-Match weak form", method: "GET", path: "/b/fs/c", header: map[string]string{"If-None-Match": `"x", W/` + f.ETag}, code: 304},
		{name: "If-None-Match star", method: "HEAD", path: "/b/fs/c", header: map[string]string{"If-None-Match": "*"}, code: 304},
		{name: "If-None-Match other", method: "GET", path: "/b/fs/c", header: map[string]string{"If-None-Match": `"other"`}, code: 200, resBody: str(content)},
		{name: "If-Modified-Since later", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Modified-Since": later}, code: 304},
		{name: "If-Modified-Since same", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Modified-Since": lastMod}, code: 304},
		{name: "If-Modified-Since earlier", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Modified-Since": earlier}, code: 200},
		{name: "If-None-Match wins over If-Modified-Since", method: "GET", path: "/b/fs/c",
			header: map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": later}, code: 200},
		{name: "If-Range same ETag", method: "GET", path: "/b/fs/c", header: map[string]string{"Range": "bytes=20-", "If-Range": f.ETag}, code: 206, resBody: str(content[20:])},
		{name: "If-Range stale ETag", method: "GET", path: "/b/fs/c", header: map[string]string{"Range": "bytes=20-", "If-Range": `"stale"`}, code: 200, resBody: str(content)},
		{name: "If-Range date", method: "GET", path: "/b/fs/c", header: map[string]string{"Range": "bytes=20-", "If-Range": lastMod}, code: 206, resBody: str(content[20:])},
		{name: "If-Range older date", method: "GET", path: "/b/fs/c", header: map[string]string{"Range": "bytes=20-", "If-Range": earlier}, code: 200},
		{name: "If-Match same", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Match": f.ETag}, code: 200},
		{name: "If-Match other", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Match": `"other"`}, code: 412, errCode: "precondition_failed"},
		{name: "If-Unmodified-Since earlier", method: "GET", path: "/b/fs/c", header: map[string]string{"If-Unmodified-Since": earlier}, code: 412},
	})
}

func TestDownloadHeaders(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/docs/r%C3%A9sum%C3%A9%20%22final%22.pdf", "%PDF-1.4 ...", map[string]string{
		"Content-Type":      "application/pdf",
		"X-Gridfs-Metadata": `{"owner": "Zoë", "n": 7}`,
	})
	big := e.put("/b/fs/big-metadata", "x", map[string]string{"X-Gridfs-Metadata": `{"pad": "` + strings.Repeat("p", 3000) + `"}`})
	e.run([]httpTest{
		{name: "descriptive headers", method: "GET", path: "/b/fs/docs/r%C3%A9sum%C3%A9%20%22final%22.pdf", code: 200, resHeader: map[string]string{
			"Content-Type":           "application/pdf",
			"Content-Disposition":    `inline; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
			"X-Content-Type-Options": "nosniff",
			"Accept-Ranges":          "bytes",
			"X-Gridfs-Id":            `{"$oid":"` + f.oid(t) + `"}`,
			"X-Gridfs-Metadata":      `{"owner":"Zo\u00eb","n":7,"contentType":"application/pdf"}`,
			"ETag":                   f.ETag,
		}},
		{name: "download=1 is an attachment", method: "HEAD", path: "/id/fs/" + f.oid(t) + "?download=1", code: 200, resHeader: map[string]string{
			"Content-Disposition": `attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
		}},
		{name: "large metadata stays out of headers", method: "HEAD", path: "/b/fs/big-metadata", code: 200,
			resHeader: map[string]string{"X-Gridfs-Metadata": "", "ETag": big.ETag}},
		{name: "request id is returned", method: "HEAD", path: "/b/fs/big-metadata", header: map[string]string{"X-Request-Id": "trace-42"}, code: 200,
			resHeader: map[string]string{"X-Request-Id": "trace-42"}},
	})
}

// TestDownloadContentType covers the order: uploader's type, legacy
// top-level contentType, extension, sniffing.
func TestDownloadContentType(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	b, err := e.db.Bucket(context.Background(), "fs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(context.Background(), "legacy.txt", strings.NewReader("GIF89a"), buckets.UploadOptions{
		Extra: bson.D{{Key: "contentType", Value: "image/gif"}},
	}); err != nil {
		t.Fatal(err)
	}
	e.put("/b/fs/given.txt", "hello", map[string]string{"Content-Type": "application/x-given"})
	e.put("/b/fs/by-ext.json", "hello", nil)
	e.put("/b/fs/sniffed-html", "<!DOCTYPE html><html><p>hi</p></html>", nil)
	e.put("/b/fs/sniffed-text", "just words", nil)
	e.put("/b/fs/sniffed-binary", "\x00\x01\x02\x03", nil)
	e.put("/b/fs/empty", "", nil)
	ct := func(v string) map[string]string { return map[string]string{"Content-Type": v} }
	e.run([]httpTest{
		{name: "given", method: "GET", path: "/b/fs/given.txt", code: 200, resHeader: ct("application/x-given")},
		{name: "legacy", method: "GET", path: "/b/fs/legacy.txt", code: 200, resHeader: ct("image/gif")},
		{name: "extension", method: "GET", path: "/b/fs/by-ext.json", code: 200, resHeader: ct("application/json")},
		{name: "sniffed html", method: "GET", path: "/b/fs/sniffed-html", code: 200, resHeader: ct("text/html; charset=utf-8")},
		{name: "sniffed text", method: "GET", path: "/b/fs/sniffed-text", code: 200, resHeader: ct("text/plain; charset=utf-8")},
		{name: "sniffed text, a range", method: "GET", path: "/b/fs/sniffed-text", header: map[string]string{"Range": "bytes=0-0"}, code: 206, resHeader: ct("text/plain; charset=utf-8")},
		// HEAD reads no content, so it cannot sniff.
		{name: "HEAD of an untyped file", method: "HEAD", path: "/b/fs/sniffed-text", code: 200, resHeader: ct("application/octet-stream")},
		{name: "sniffed binary", method: "GET", path: "/b/fs/sniffed-binary", code: 200, resHeader: ct("application/octet-stream")},
		{name: "empty file", method: "GET", path: "/b/fs/empty", code: 200, resBody: str(""), resHeader: map[string]string{"Content-Length": "0"}},
		// ServeContent ignores ranges on an empty file rather than refuse them.
		{name: "range of an empty file", method: "GET", path: "/b/fs/empty", header: map[string]string{"Range": "bytes=0-"}, code: 200, resBody: str("")},
	})
}

func TestDownloadRevisions(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for i := range 3 {
		e.put("/b/fs/rev", fmt.Sprintf("v%d", i), nil)
	}
	e.run([]httpTest{
		{name: "newest by default", method: "GET", path: "/b/fs/rev", code: 200, resBody: str("v2")},
		{name: "0 is the oldest", method: "GET", path: "/b/fs/rev?revision=0", code: 200, resBody: str("v0")},
		{name: "1", method: "GET", path: "/b/fs/rev?revision=1", code: 200, resBody: str("v1")},
		{name: "-1 is the newest", method: "GET", path: "/b/fs/rev?revision=-1", code: 200, resBody: str("v2")},
		{name: "-3", method: "GET", path: "/b/fs/rev?revision=-3", code: 200, resBody: str("v0")},
		{name: "3 does not exist", method: "GET", path: "/b/fs/rev?revision=3", code: 404, errCode: "revision_not_found"},
		{name: "-4 does not exist", method: "GET", path: "/b/fs/rev?revision=-4", code: 404, errCode: "revision_not_found"},
		{name: "not a number", method: "GET", path: "/b/fs/rev?revision=last", code: 400, errCode: "bad_request"},
		{name: "unknown name", method: "GET", path: "/b/fs/nope", code: 404, errCode: "file_not_found"},
		{name: "unknown bucket", method: "GET", path: "/b/nobucket/rev", code: 404, errCode: "file_not_found"},
		{name: "HEAD of an unknown name", method: "HEAD", path: "/b/fs/nope", code: 404},
	})
}

// TestDownloadByID addresses files by ObjectId, string and numeric ids.
func TestDownloadByID(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	ctx := context.Background()
	b, err := e.db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		id      any
		content string
	}{
		{"plain-id", "by string"},
		{"a/b c", "string with a slash"},
		{"5f0000000000000000000001", "hex-looking string"},
		{int64(7), "by number"},
	} {
		if _, err := b.Upload(ctx, "x", strings.NewReader(u.content), buckets.UploadOptions{ID: u.id}); err != nil {
			t.Fatal(err)
		}
	}
	f := e.put("/b/fs/oid", "by ObjectId", nil)
	e.run([]httpTest{
		{name: "ObjectId hex", method: "GET", path: "/id/fs/" + f.oid(t), code: 200, resBody: str("by ObjectId")},
		{name: "ObjectId hex in capitals", method: "GET", path: "/id/fs/" + strings.ToUpper(f.oid(t)), code: 200, resBody: str("by ObjectId")},
		{name: "ObjectId as Extended JSON", method: "GET", path: `/id/fs/{"$oid":"` + f.oid(t) + `"}`, code: 200, resBody: str("by ObjectId")},
		{name: "plain string", method: "GET", path: "/id/fs/plain-id", code: 200, resBody: str("by string"),
			resHeader: map[string]string{"X-Gridfs-Id": `"plain-id"`}},
		{name: "quoted string", method: "GET", path: "/id/fs/%22plain-id%22", code: 200, resBody: str("by string")},
		{name: "string with an escaped slash", method: "GET", path: "/id/fs/a%2Fb%20c", code: 200, resBody: str("string with a slash")},
		{name: "string with a slash", method: "GET", path: "/id/fs/a/b%20c", code: 200, resBody: str("string with a slash")},
		{name: "hex string must be quoted", method: "GET", path: "/id/fs/%225f0000000000000000000001%22", code: 200, resBody: str("hex-looking string")},
		{name: "unquoted hex is an ObjectId", method: "GET", path: "/id/fs/5f0000000000000000000001", code: 404, errCode: "file_not_found"},
		{name: "numberLong", method: "GET", path: `/id/fs/{"$numberLong":"7"}`, code: 200, resBody: str("by number"),
			resHeader: map[string]string{"X-Gridfs-Id": `{"$numberLong":"7"}`}},
		{name: "bare number", method: "GET", path: "/id/fs/7", code: 200, resBody: str("by number")},
		{name: "HEAD", method: "HEAD", path: "/id/fs/7", code: 200, resHeader: map[string]string{"Content-Length": "9"}},
		{name: "bad Extended JSON", method: "GET", path: `/id/fs/{"$oid":"zz"}`, code: 400, errCode: "invalid_id"},
		{name: "broken JSON", method: "GET", path: "/id/fs/%7Bnope", code: 400, errCode: "invalid_id"},
		{name: "missing", method: "GET", path: "/id/fs/000000000000000000000000", code: 404, errCode: "file_not_found"},
		{name: "bad bucket", method: "GET", path: "/id/a$b/7", code: 400, errCode: "invalid_bucket_name"},
	})
}

// TestVideoSeek replays what a browser's <video> element does: an open
// range from 0, dropped after a few bytes once it has the metadata, then an
// open range from the seek position with If-Range.
func TestVideoSeek(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(200)
	f := e.put("/b/fs/movie.mp4?chunkSize=16", content, nil)

	req, _ := http.NewRequest("GET", e.url+"/b/fs/movie.mp4", nil)
	req.Header.Set("Range", "bytes=0-")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 206 || res.Header.Get("Content-Range") != "bytes 0-199/200" || res.Header.Get("Content-Type") != "video/mp4" {
		t.Fatalf("first request: %d %v", res.StatusCode, res.Header)
	}
	head := make([]byte, 20)
	if _, err := io.ReadFull(res.Body, head); err != nil || string(head) != content[:20] {
		t.Fatalf("first bytes %q, %v", head, err)
	}
	res.Body.Close() // the browser drops the connection

	e.run([]httpTest{
		{name: "seek", method: "GET", path: "/b/fs/movie.mp4", header: map[string]string{"Range": "bytes=150-", "If-Range": f.ETag}, code: 206,
			resBody: str(content[150:]), resHeader: map[string]string{"Content-Range": "bytes 150-199/200"}},
		{name: "seek back to a chunk boundary", method: "GET", path: "/b/fs/movie.mp4", header: map[string]string{"Range": "bytes=64-", "If-Range": f.ETag}, code: 206,
			resBody: str(content[64:]), resHeader: map[string]string{"Content-Range": "bytes 64-199/200"}},
		{name: "file changed meanwhile", method: "GET", path: "/b/fs/movie.mp4", header: map[string]string{"Range": "bytes=150-", "If-Range": `"old"`}, code: 200,
			resBody: str(content)},
	})
}

// TestRangeReadCost checks the store-independent cost of reads: a small
// range costs the chunks that hold it, a full read the file's length.
// With the chunk cache off: each request's cost is its own.
func TestRangeReadCost(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.db.SetChunkCache(0)
	content := pattern(400)
	e.put("/b/fs/cost?chunkSize=16", content, map[string]string{"Content-Type": "application/octet-stream"})
	long := pattern(2000)
	e.put("/b/fs/sniffed?chunkSize=512", long, nil)
	wide := pattern(64 << 10)
	e.put("/b/fs/wide?chunkSize=4096", wide, map[string]string{"Content-Type": "application/octet-stream"})
	cases := []struct {
		path string
		rng  string
		body string
		max  float64
	}{
		{"/b/fs/cost", "bytes=200-202", content[200:203], 16},
		{"/b/fs/cost", "bytes=207-208", content[207:209], 32}, // across the boundary at 208
		{"/b/fs/cost", "bytes=390-", content[390:], 16},
		{"/b/fs/cost", "", content, 400},
		{"/b/fs/cost", "bytes=0-1,300-301", "", 32},
		// Sniffing reads the first 512 bytes, here chunk 0, which a
		// download from the start then reuses.
		{"/b/fs/sniffed", "", long, 2000},
		{"/b/fs/sniffed", "bytes=1500-1502", long[1500:1503], 1024},
		// A range longer than one read of ServeContent's (32 KiB), over
		// chunks 0 to 9: exactly those, in one query, not a read-ahead
		// past its end.
		{"/b/fs/wide", "bytes=1000-40000", wide[1000:40001], 10 * 4096},
	}
	for _, c := range cases {
		before := e.metric("gridfsd_store_read_bytes_total")
		h := map[string]string{}
		if c.rng != "" {
			h["Range"] = c.rng
		}
		_, body := e.do("GET", c.path, h, "")
		if c.body != "" && string(body) != c.body {
			t.Errorf("%s: body %q", c.rng, body)
		}
		if got := e.metric("gridfsd_store_read_bytes_total") - before; got == 0 || got > c.max {
			t.Errorf("%s %q: %v bytes from the store, want 1 to %v", c.path, c.rng, got, c.max)
		}
	}
}

// TestChunkCacheServesRepeatedReads: a range read again, by this client
// or another, comes from the chunk cache, and the cache's metrics say so.
func TestChunkCacheServesRepeatedReads(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(5000)
	e.put("/b/fs/popular?chunkSize=1024", content, map[string]string{"Content-Type": "application/octet-stream"})
	get := func() float64 {
		t.Helper()
		before := e.metric("gridfsd_store_read_bytes_total")
		_, body := e.do("GET", "/b/fs/popular", map[string]string{"Range": "bytes=1000-3999"}, "")
		if string(body) != content[1000:4000] {
			t.Fatalf("body %q", body)
		}
		return e.metric("gridfsd_store_read_bytes_total") - before
	}
	if got := get(); got != 4*1024 {
		t.Errorf("first read: %v bytes from the store, want its 4 chunks", got)
	}
	hits := e.metric("gridfsd_chunk_cache_hits_total")
	if got := get(); got != 0 {
		t.Errorf("second read: %v bytes from the store, want none", got)
	}
	if got := e.metric("gridfsd_chunk_cache_hits_total") - hits; got != 4 {
		t.Errorf("second read: %v cache hits, want 4", got)
	}
	if got := e.metric("gridfsd_chunk_cache_bytes"); got != 4*1024 {
		t.Errorf("gridfsd_chunk_cache_bytes %v, want 4096", got)
	}
	if e.metric("gridfsd_chunk_cache_misses_total") != 4 || e.metric("gridfsd_chunk_cache_evictions_total") != 0 {
		t.Error("misses or evictions wrong")
	}
}

// TestHeadAndNotModifiedReadNoChunks: the headers of HEAD and of a 304 come
// from the files document alone, even for a file whose type only sniffing
// could tell.
func TestHeadAndNotModifiedReadNoChunks(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	f := e.put("/b/fs/untyped", pattern(3000), nil)
	for _, c := range []struct {
		method string
		header map[string]string
		code   int
	}{
		{"HEAD", nil, 200},
		{"HEAD", map[string]string{"Range": "bytes=2000-2001"}, 206},
		{"GET", map[string]string{"If-None-Match": f.ETag}, 304},
		{"GET", map[string]string{"If-None-Match": f.ETag, "Range": "bytes=2000-2001"}, 304},
		{"HEAD", map[string]string{"If-None-Match": f.ETag}, 304},
	} {
		before := e.metric("gridfsd_store_read_bytes_total")
		res, _ := e.do(c.method, "/b/fs/untyped", c.header, "")
		if res.StatusCode != c.code {
			t.Errorf("%s %v: status %d, want %d", c.method, c.header, res.StatusCode, c.code)
		}
		if got := e.metric("gridfsd_store_read_bytes_total") - before; got != 0 {
			t.Errorf("%s %v: %v bytes read from the store, want none", c.method, c.header, got)
		}
	}
}

var metricLine = regexp.MustCompile(`(?m)^(\S+) (\S+)$`)

// metric is the value of an unlabelled metric in /metrics.
func (e *env) metric(name string) float64 {
	e.t.Helper()
	_, body := e.do("GET", "/metrics", nil, "")
	for _, m := range metricLine.FindAllStringSubmatch(string(body), -1) {
		if m[1] == name {
			v, _ := strconv.ParseFloat(m[2], 64)
			return v
		}
	}
	e.t.Fatalf("no metric %s in %.2000s", name, body)
	return 0
}

// A client that goes away mid-download (a player seeking elsewhere) is not
// an error for the operator.
func TestClientGoneIsNotLoggedAsError(t *testing.T) {
	var logs proctest.Log
	e := newEnv(t, gateway.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.put("/b/fs/big?chunkSize=1024", strings.Repeat("0123456789abcdef", 64<<10), nil)

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", e.url+"/b/fs/big", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()

	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "route=/b/:bucket/*") || !strings.Contains(logs.String(), "method=GET") {
		if time.Now().After(deadline) {
			t.Fatalf("the GET was never logged:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a client that went away was logged as an error:\n%s", logs.String())
	}
}

// TestActiveContent: only types that cannot run script are served inline;
// the rest is sandboxed and an attachment, whatever the client asks.
func TestActiveContent(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	files := map[string]string{
		"page.html": "text/html",
		"style.xsl": "text/xsl",
		"feed.atom": "application/atom+xml",
		"data.xml":  "application/xml",
		"pic.svg":   "image/svg+xml",
		"app.js":    "text/javascript",
		"thing.zz":  "application/x-unknown",
		"doc.pdf":   "application/pdf",
		"photo.png": "image/png",
		"clip.mp4":  "video/mp4",
		"song.ogg":  "audio/ogg",
		"notes.txt": "text/plain; charset=utf-8",
		"data.json": "application/json",
	}
	for name, ct := range files {
		e.put("/b/fs/"+name, "<html><script>alert(1)</script></html>", map[string]string{"Content-Type": ct})
	}
	var tests []httpTest
	for name, ct := range files {
		attachment := `attachment; filename="` + name + `"; filename*=UTF-8''` + name
		inline := `inline; filename="` + name + `"; filename*=UTF-8''` + name
		switch ct {
		case "application/pdf", "image/png", "video/mp4", "audio/ogg", "text/plain; charset=utf-8", "application/json":
			tests = append(tests,
				httpTest{name: name, method: "GET", path: "/b/fs/" + name, code: 200,
					resHeader: map[string]string{"Content-Security-Policy": "", "Content-Disposition": inline}},
				httpTest{name: name + " download", method: "GET", path: "/b/fs/" + name + "?download=1", code: 200,
					resHeader: map[string]string{"Content-Security-Policy": "", "Content-Disposition": attachment}},
				httpTest{name: name + " multiple ranges", method: "GET", path: "/b/fs/" + name, header: map[string]string{"Range": "bytes=0-1,5-6"}, code: 206,
					resHeader: map[string]string{"Content-Security-Policy": "", "Content-Disposition": inline}})
		default:
			tests = append(tests,
				httpTest{name: name, method: "GET", path: "/b/fs/" + name, code: 200,
					resHeader: map[string]string{"Content-Security-Policy": "sandbox", "Content-Disposition": attachment}},
				httpTest{name: name + " HEAD", method: "HEAD", path: "/b/fs/" + name, code: 200,
					resHeader: map[string]string{"Content-Security-Policy": "sandbox", "Content-Disposition": attachment}},
				httpTest{name: name + " multiple ranges", method: "GET", path: "/b/fs/" + name, header: map[string]string{"Range": "bytes=0-1,5-6"}, code: 206,
					resHeader: map[string]string{"Content-Security-Policy": "sandbox", "Content-Disposition": attachment}})
		}
	}
	// Types found by sniffing follow the same rule.
	e.put("/b/fs/sniffed-page", "<!DOCTYPE html><script>alert(1)</script>", nil)
	e.put("/b/fs/sniffed-png", "\x89PNG\r\n\x1a\n0000", nil)
	tests = append(tests,
		httpTest{name: "sniffed HTML", method: "GET", path: "/b/fs/sniffed-page", code: 200, resHeader: map[string]string{
			"Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": "sandbox",
			"Content-Disposition": `attachment; filename="sniffed-page"; filename*=UTF-8''sniffed-page`}},
		httpTest{name: "sniffed PNG", method: "GET", path: "/b/fs/sniffed-png", code: 200, resHeader: map[string]string{
			"Content-Type": "image/png", "Content-Security-Policy": "",
			"Content-Disposition": `inline; filename="sniffed-png"; filename*=UTF-8''sniffed-png`}},
		httpTest{name: "sniffed HTML, multiple ranges", method: "GET", path: "/b/fs/sniffed-page", header: map[string]string{"Range": "bytes=0-1,5-6"}, code: 206,
			resHeader: map[string]string{"Content-Security-Policy": "sandbox"}},
	)
	e.run(tests)
}

// TestStoredHeaderValuesCarryNoControlBytes: what another tool stored is
// served in header values a client accepts.
func TestStoredHeaderValuesCarryNoControlBytes(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	files := e.db.Database().Collection("fs.files")
	ctx := context.Background()
	docs := []any{
		bson.M{"_id": "nul", "length": int64(0), "chunkSize": int32(255), "uploadDate": time.Now(),
			"filename": "nul.txt", "metadata": bson.M{"contentType": "text/plain\x00\r\nX-Evil: 1"}},
		bson.M{"_id": "legacy", "length": int64(0), "chunkSize": int32(255), "uploadDate": time.Now(),
			"filename": "legacy\x01\x7f.txt", "contentType": "text/html\x7f", "metadata": bson.M{"note": "a\x7fb\x00c"}},
	}
	if _, err := files.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	e.run([]httpTest{
		{name: "NUL in contentType", method: "GET", path: "/id/fs/nul", code: 200, resHeader: map[string]string{
			"Content-Type": "application/octet-stream", "Content-Security-Policy": "sandbox", "X-Evil": "",
		}},
		{name: "DEL everywhere", method: "GET", path: "/id/fs/legacy", code: 200, resHeader: map[string]string{
			"Content-Type":        "application/octet-stream",
			"X-Gridfs-Metadata":   `{"note":"a\u007fb\u0000c"}`,
			"Content-Disposition": `attachment; filename="legacy__.txt"; filename*=UTF-8''legacy%01%7F.txt`,
		}},
	})
}

// TestClientGoneBeforeTheStoreAnswered: a request whose client went away
// while the store worked on it (the benchmark's readers at the end of their
// time) fails with the store's "context canceled"; that is not the store
// being unavailable, and an operator must not be told so.
func TestClientGoneBeforeTheStoreAnswered(t *testing.T) {
	var logs proctest.Log
	e := newEnv(t, gateway.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.put("/b/fs/f", "data", nil)
	for _, path := range []string{"/b/fs/f", "/b/fs/missing", "/b/fs/?limit=5", "/buckets"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		e.srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	if strings.Contains(logs.String(), "store unavailable") || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("requests whose client went away were logged as the store's failure:\n%s", logs.String())
	}
}
