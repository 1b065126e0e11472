package gateway_test

import (
	"bufio"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
)

func TestUploadStoresBodyHeadersAndMetadata(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	content := pattern(50)
	sum := sha256.Sum256([]byte(content))
	f := e.put("/b/fs/dir/a%20b%C3%A9.txt?chunkSize=16", content, map[string]string{
		"Content-Type":      "text/plain; charset=utf-8",
		"X-Gridfs-Metadata": `{"n": {"$numberInt": "5"}, "tags": ["x", "y"], "when": {"$date": "2024-01-02T03:04:05Z"}}`,
		"X-Meta-Author":     "Ann",
	})
	if f.Filename != "dir/a bé.txt" || f.Length != 50 || f.ChunkSize != 16 || f.ContentType != "text/plain; charset=utf-8" {
		t.Errorf("file %+v", f)
	}
	if f.SHA256 != hex.EncodeToString(sum[:]) || len(f.ETag) != 34 || f.ETag[0] != '"' {
		t.Errorf("sha256 %q, ETag %q, want %x", f.SHA256, f.ETag, sum)
	}
	if f.Location != "/id/fs/"+f.oid(t) {
		t.Errorf("Location %q", f.Location)
	}
	if f.Metadata["author"] != "Ann" || f.Metadata["n"] != float64(5) || f.Metadata["contentType"] != "text/plain; charset=utf-8" {
		t.Errorf("metadata %v", f.Metadata)
	}
	if _, ok := f.Metadata["when"].(map[string]any)["$date"]; !ok {
		t.Errorf("metadata.when %v is not a date", f.Metadata["when"])
	}
	if files, chunks := e.counts("fs"); files != 1 || chunks != 4 {
		t.Errorf("%d files, %d chunks; want 1 and 4", files, chunks)
	}
	e.run([]httpTest{
		{name: "by name", method: "GET", path: "/b/fs/dir/a%20b%C3%A9.txt", code: 200, resBody: str(content),
			resHeader: map[string]string{"ETag": f.ETag, "Content-Type": "text/plain; charset=utf-8", "X-Meta-Author": ""}},
		{name: "by Location", method: "GET", path: f.Location, code: 200, resBody: str(content)},
	})
}

func TestUploadChunkedBody(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /b/fs/chunked?chunkSize=4 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("status %d", res.StatusCode)
	}
	e.run([]httpTest{{name: "read back", method: "GET", path: "/b/fs/chunked", code: 200, resBody: str("hello, world")}})
	if _, chunks := e.counts("fs"); chunks != 3 {
		t.Errorf("%d chunks, want 3", chunks)
	}
}

func TestUploadConditions(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	v1 := e.put("/b/fs/doc", "version 1", nil)
	e.run([]httpTest{
		{name: "create-only on an existing name", method: "PUT", path: "/b/fs/doc", body: "x",
			header: map[string]string{"If-None-Match": "*"}, code: 412, errCode: "precondition_failed"},
		{name: "create-only on a new name", method: "PUT", path: "/b/fs/new", body: "new",
			header: map[string]string{"If-None-Match": "*"}, code: 201},
		{name: "If-Match of another ETag", method: "PUT", path: "/b/fs/doc", body: "x",
			header: map[string]string{"If-Match": `"0000"`}, code: 412, errCode: "precondition_failed"},
		{name: "If-Match weak tag never matches", method: "PUT", path: "/b/fs/doc", body: "x",
			header: map[string]string{"If-Match": "W/" + v1.ETag}, code: 412, errCode: "precondition_failed"},
		{name: "If-Match on a missing name", method: "PUT", path: "/b/fs/missing", body: "x",
			header: map[string]string{"If-Match": "*"}, code: 412, errCode: "precondition_failed"},
		{name: "If-Match of the current ETag replaces", method: "PUT", path: "/b/fs/doc", body: "version 2",
			header: map[string]string{"If-Match": `"1111", ` + v1.ETag}, code: 201},
		{name: "the old revision is gone", method: "GET", path: "/b/fs/doc?revision=0", code: 200, resBody: str("version 2")},
		{name: "only one revision", method: "GET", path: "/b/fs/doc?revision=1", code: 404, errCode: "revision_not_found"},
		{name: "If-Match on the replaced ETag fails", method: "PUT", path: "/b/fs/doc", body: "version 3",
			header: map[string]string{"If-Match": v1.ETag}, code: 412},
		{name: "a plain PUT adds a revision", method: "PUT", path: "/b/fs/doc", body: "version 3", code: 201},
		{name: "newest", method: "GET", path: "/b/fs/doc", code: 200, resBody: str("version 3")},
		{name: "previous", method: "GET", path: "/b/fs/doc?revision=-2", code: 200, resBody: str("version 2")},
	})
	if files, _ := e.counts("fs"); files != 3 {
		t.Errorf("%d files, want 3 (new, doc twice)", files)
	}
}

func TestUploadDigests(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	body := "integrity matters"
	sha := sha256.Sum256([]byte(body))
	md := md5.Sum([]byte(body))
	shaB64 := base64.StdEncoding.EncodeToString(sha[:])
	mdB64 := base64.StdEncoding.EncodeToString(md[:])
	wrongSHA := sha256.Sum256([]byte("other"))
	wrongMD := md5.Sum([]byte("other"))
	e.run([]httpTest{
		{name: "Content-MD5 right", method: "PUT", path: "/b/fs/md5", body: body,
			header: map[string]string{"Content-MD5": mdB64}, code: 201},
		{name: "Repr-Digest right, with another algorithm", method: "PUT", path: "/b/fs/sha", body: body,
			header: map[string]string{"Repr-Digest": "sha-512=:AAAA:, sha-256=:" + shaB64 + ":"}, code: 201},
		{name: "Content-Digest right", method: "PUT", path: "/b/fs/cd", body: body,
			header: map[string]string{"Content-Digest": "sha-256=:" + shaB64 + ":"}, code: 201},
	})
	before, beforeChunks := e.counts("fs")
	e.run([]httpTest{
		{name: "Content-MD5 wrong", method: "PUT", path: "/b/fs/bad", body: body,
			header: map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(wrongMD[:])}, code: 400, errCode: "digest_mismatch"},
		{name: "Repr-Digest wrong", method: "PUT", path: "/b/fs/bad", body: body,
			header: map[string]string{"Repr-Digest": "sha-256=:" + base64.StdEncoding.EncodeToString(wrongSHA[:]) + ":"}, code: 400, errCode: "digest_mismatch"},
		{name: "right sha-256, wrong MD5", method: "PUT", path: "/b/fs/bad", body: body,
			header: map[string]string{"Repr-Digest": "sha-256=:" + shaB64 + ":", "Content-MD5": base64.StdEncoding.EncodeToString(wrongMD[:])}, code: 400, errCode: "digest_mismatch"},
		{name: "Content-MD5 malformed", method: "PUT", path: "/b/fs/bad", body: body,
			header: map[string]string{"Content-MD5": "not base64!"}, code: 400, errCode: "bad_request"},
		{name: "Repr-Digest malformed", method: "PUT", path: "/b/fs/bad", body: body,
			header: map[string]string{"Repr-Digest": "sha-256=" + shaB64}, code: 400, errCode: "bad_request"},
		{name: "nothing named bad", method: "GET", path: "/b/fs/bad", code: 404, errCode: "file_not_found"},
	})
	if files, chunks := e.counts("fs"); files != before || chunks != beforeChunks {
		t.Errorf("failed uploads left %d files, %d chunks (was %d, %d)", files, chunks, before, beforeChunks)
	}
}

func TestUploadBadInputWritesNothing(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.run([]httpTest{
		{name: "bucket name with $", method: "PUT", path: "/b/a$b/x", body: "x", code: 400, errCode: "invalid_bucket_name"},
		{name: "bucket name system.", method: "PUT", path: "/b/system.x/x", body: "x", code: 400, errCode: "invalid_bucket_name"},
		{name: "empty name", method: "PUT", path: "/b/fs/", body: "x", code: 400, errCode: "invalid_filename"},
		{name: "dot-dot segment", method: "PUT", path: "/b/fs/a/../b", body: "x", code: 400, errCode: "invalid_filename"},
		{name: "control character", method: "PUT", path: "/b/fs/a%01b", body: "x", code: 400, errCode: "invalid_filename"},
		{name: "metadata not JSON", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"X-Gridfs-Metadata": "{nope"}, code: 400, errCode: "invalid_metadata"},
		{name: "metadata not an object", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"X-Gridfs-Metadata": "[1,2]"}, code: 400, errCode: "invalid_metadata"},
		{name: "metadata with a $ field", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"X-Gridfs-Metadata": `{"a": {"$where": "1"}}`}, code: 400, errCode: "invalid_metadata"},
		{name: "X-Meta key with a dot", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"X-Meta-A.b": "1"}, code: 400, errCode: "invalid_metadata"},
		{name: "chunkSize not a number", method: "PUT", path: "/b/fs/x?chunkSize=abc", body: "x", code: 400, errCode: "invalid_chunk_size"},
		{name: "chunkSize zero", method: "PUT", path: "/b/fs/x?chunkSize=0", body: "x", code: 400, errCode: "invalid_chunk_size"},
		{name: "chunkSize negative", method: "PUT", path: "/b/fs/x?chunkSize=-5", body: "x", code: 400, errCode: "invalid_chunk_size"},
		{name: "chunkSize too large", method: "PUT", path: "/b/fs/x?chunkSize=999999999", body: "x", code: 400, errCode: "invalid_chunk_size"},
		{name: "bad Content-Type", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"Content-Type": "text/"}, code: 400, errCode: "bad_request"},
		{name: "Content-Range (RFC 9110 14.5)", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"Content-Range": "bytes 0-0/10"}, code: 400, errCode: "bad_request"},
		{name: "Content-Range of the whole", method: "PUT", path: "/b/fs/x", body: "x",
			header: map[string]string{"Content-Range": "bytes 0-0/1"}, code: 400, errCode: "bad_request"},
	})
	names, err := e.db.Database().ListCollectionNames(t.Context(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 0 {
		t.Errorf("bad requests created collections %v", names)
	}
}

func TestUploadMaxSize(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 40}); err != nil {
		t.Fatal(err)
	}
	e.run([]httpTest{
		{name: "at the limit", method: "PUT", path: "/b/fs/ok?chunkSize=16", body: pattern(40), code: 201},
		{name: "over the limit by Content-Length", method: "PUT", path: "/b/fs/big?chunkSize=16", body: pattern(41), code: 413, errCode: "too_large"},
		{name: "bucket limit", method: "PUT", path: "/buckets/small", body: `{"maxFileSize": 10}`, code: 200},
		{name: "over the bucket's limit", method: "PUT", path: "/b/small/big", body: pattern(11), code: 413, errCode: "too_large"},
		{name: "within the bucket's limit", method: "PUT", path: "/b/small/ok", body: pattern(10), code: 201},
	})
	// Without Content-Length the limit is found while streaming.
	req, _ := http.NewRequest(http.MethodPut, e.url+"/b/fs/chunked?chunkSize=16", io.MultiReader(strings.NewReader(pattern(100))))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked oversized upload: %d", res.StatusCode)
	}
	if files, chunks := e.counts("fs"); files != 1 || chunks != 3 {
		t.Errorf("%d files and %d chunks, want only the 40-byte file's 1 and 3", files, chunks)
	}
}

// TestUploadDisconnect cuts a client mid-body, after the gateway has written
// chunks, and waits for them to disappear.
func TestUploadDisconnect(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	const chunkSize = 256 << 10
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /b/fs/cut?chunkSize=%d HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", chunkSize, 4<<20)
	// More than one insert batch (1 MiB), so that chunks reach the store.
	part := []byte(pattern(chunkSize))
	for range 6 {
		if _, err := conn.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "chunks written", func() bool { _, c := e.counts("fs"); return c > 0 })
	conn.Close()
	waitFor(t, "chunks removed", func() bool { f, c := e.counts("fs"); return f == 0 && c == 0 })
	e.run([]httpTest{{name: "not visible", method: "GET", path: "/b/fs/cut", code: 404}})
}

// TestUploadIncompleteBody sends less than Content-Length and half-closes:
// the gateway answers 400 and stores nothing.
func TestUploadIncompleteBody(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /b/fs/short HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly this")
	conn.(*net.TCPConn).CloseWrite()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", res.StatusCode)
	}
	e.mustBeEmpty("fs")
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
