package tus

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
)

const chunk = 261120 // the default chunk size

// TestRealClients uploads files of the awkward sizes with tus-js-client and
// tuspy (which sends a sha1 Upload-Checksum with every PATCH), in one
// request, in 5 MiB PATCHes and in odd-sized ones; every byte and the
// stored SHA-256 are compared through GET /b/... and PyMongo.
func TestRealClients(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name())
	endpoint := s.url("/uploads/fs/")
	want := map[string][]byte{}
	type run struct {
		size      int
		chunkSize int // 0: one PATCH
	}
	runs := []run{{0, 0}, {1, 0}, {chunk - 1, 0}, {chunk + 1, 0}, {chunk + 1, 1000}, {20 << 20, 5 << 20}, {20 << 20, 1234567}}
	for i, r := range runs {
		data := content(r.size, byte(i))
		file := writeTemp(t, data)
		for _, client := range []string{"js", "py"} {
			if client == "py" && r.size == 0 {
				// tuspy 1.0.0 creates no upload for an empty file: its
				// loop runs while the offset is below the size.
				continue
			}
			name := fmt.Sprintf("%s/%d-%d", client, r.size, r.chunkSize)
			opts := map[string]any{"filename": name}
			var out map[string]any
			var err error
			if client == "js" {
				if r.chunkSize > 0 {
					opts["chunkSize"] = r.chunkSize
				}
				out, err = node(t, endpoint, file, opts)
			} else {
				if r.chunkSize > 0 {
					opts["chunk_size"] = r.chunkSize
				}
				out, err = tuspy(t, endpoint, file, opts)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if client == "js" && out["gridfsLocation"] == nil {
				t.Fatalf("%s: the last reply has no X-Gridfs-Location: %v", name, out)
			}
			checkFile(t, s, name, data)
			want[name] = data
		}
	}
	sums := pymongoSums(t, db.Name())
	for name, data := range want {
		if sums[name] != fmt.Sprintf("%x", sha256.Sum256(data)) {
			t.Errorf("PyMongo reads %s with sha256 %s", name, sums[name])
		}
	}
}

// TestJSExtensions: defer-length (a stream of unknown size), concatenation
// of 3 parallel partial uploads, termination, and a creation that carries
// If-None-Match: * for a name that exists.
func TestJSExtensions(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name())
	endpoint := s.url("/uploads/fs/")

	data := content(3*chunk+77, 1)
	file := writeTemp(t, data)
	if _, err := node(t, endpoint, file, map[string]any{"filename": "deferred", "deferLength": true, "chunkSize": 300000}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, s, "deferred", data)

	big := content(7<<20+5, 2)
	bigFile := writeTemp(t, big)
	if _, err := node(t, endpoint, bigFile, map[string]any{"filename": "joined", "parallelUploads": 3}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, s, "joined", big)

	before := chunksOf(t, db)
	out, err := node(t, endpoint, bigFile, map[string]any{"filename": "terminated", "terminate": 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	url := out["url"].(string)
	if res := tusReq(t, http.MethodHead, url, nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("HEAD after termination: %d", res.StatusCode)
	}
	if n := chunksOf(t, db); n != before {
		t.Fatalf("termination left chunks: %d, before %d", n, before)
	}

	_, err = node(t, endpoint, file, map[string]any{"filename": "deferred", "headers": map[string]string{"If-None-Match": "*"}})
	if err == nil {
		t.Fatal("If-None-Match: * for an existing name succeeded")
	}
}

// TestProtocol checks the protocol's refusals and headers with raw
// requests: OPTIONS, 412 with Tus-Version, a missing filename, 409, 460
// (nothing appended), 413, the reply to the last PATCH, HEAD after the end,
// creation-with-upload, and a creation's If-None-Match checked again at the
// commit.
func TestProtocol(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name(), "--max-upload-size", "1MiB", "--max-concurrent-uploads", "1")

	res := tusReq(t, http.MethodOptions, s.url("/uploads/fs/"), nil)
	for h, v := range map[string]string{
		"Tus-Version": "1.0.0", "Tus-Max-Size": strconv.Itoa(1 << 20),
		"Tus-Extension":          "creation,creation-with-upload,termination,concatenation,creation-defer-length,checksum,expiration",
		"Tus-Checksum-Algorithm": "sha1,md5,sha256,sha512",
	} {
		if res.Header.Get(h) != v {
			t.Errorf("OPTIONS %s: %q, want %q", h, res.Header.Get(h), v)
		}
	}
	res = tusReq(t, http.MethodPost, s.url("/uploads/fs/"), nil, "Tus-Resumable", "0.2.2", "Upload-Length", "1", "Upload-Metadata", meta("filename", "x"))
	if res.StatusCode != http.StatusPreconditionFailed || res.Header.Get("Tus-Version") != "1.0.0" {
		t.Errorf("old Tus-Resumable: %d, Tus-Version %q", res.StatusCode, res.Header.Get("Tus-Version"))
	}
	if res := tusReq(t, http.MethodPost, s.url("/uploads/fs/"), nil, "Upload-Length", "1"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("no filename: %d", res.StatusCode)
	}
	if res := tusReq(t, http.MethodPost, s.url("/uploads/fs/"), nil, "Upload-Length", strconv.Itoa(1<<20+1), "Upload-Metadata", meta("filename", "big")); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d", res.StatusCode)
	}

	data := content(chunk+10, 3)
	loc := create(t, s, "proto", len(data), "If-None-Match", "*")
	res = patch(t, s, loc, 0, data[:100])
	if res.Header.Get("Upload-Expires") == "" {
		t.Error("PATCH reply has no Upload-Expires")
	}
	if res := tusReq(t, http.MethodPatch, s.url(loc), data[50:60], "Upload-Offset", "50"); res.StatusCode != http.StatusConflict {
		t.Errorf("offset mismatch: %d", res.StatusCode)
	}
	bad := sha1.Sum([]byte("not this"))
	res = tusReq(t, http.MethodPatch, s.url(loc), data[100:5000], "Upload-Offset", "100", "Upload-Checksum", "sha1 "+base64.StdEncoding.EncodeToString(bad[:]))
	if res.StatusCode != 460 {
		t.Errorf("checksum mismatch: %d", res.StatusCode)
	}
	if n := offset(t, s, loc); n != 100 {
		t.Fatalf("offset after a checksum mismatch: %d", n)
	}
	if res := tusReq(t, http.MethodPatch, s.url(loc), data[100:200], "Upload-Offset", "100", "Upload-Checksum", "crc32 AAAA"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown checksum algorithm: %d", res.StatusCode)
	}
	good := sha256.Sum256(data[100:])
	res = tusReq(t, http.MethodPatch, s.url(loc), data[100:], "Upload-Offset", "100", "Upload-Checksum", "sha256 "+base64.StdEncoding.EncodeToString(good[:]))
	if res.StatusCode != http.StatusNoContent || res.Header.Get("X-Gridfs-Id") == "" || res.Header.Get("X-Gridfs-Location") == "" {
		t.Fatalf("last PATCH: %d %v", res.StatusCode, res.Header)
	}
	checkFile(t, s, "proto", data)
	if got, err := http.Get(s.url(res.Header.Get("X-Gridfs-Location"))); err != nil || got.StatusCode != 200 {
		t.Fatalf("X-Gridfs-Location: %v %v", got, err)
	}
	if n := offset(t, s, loc); n != len(data) {
		t.Fatalf("HEAD after the end: %d", n)
	}

	// creation-with-upload: the whole file in the POST.
	small := content(1000, 4)
	res = tusReq(t, http.MethodPost, s.url("/uploads/fs/"), small, "Upload-Length", "1000", "Upload-Metadata", meta("filename", "inpost", "filetype", "text/plain", "color", "red"),
		"Content-Type", "application/offset+octet-stream")
	if res.StatusCode != http.StatusCreated || res.Header.Get("Upload-Offset") != "1000" || res.Header.Get("X-Gridfs-Id") == "" {
		t.Fatalf("creation-with-upload: %d %v", res.StatusCode, res.Header)
	}
	checkFile(t, s, "inpost", small)

	// The expires key of the metadata is the file's expiry; a bad one is 400.
	res = tusReq(t, http.MethodPost, s.url("/uploads/fs/"), small, "Upload-Length", "1000", "Upload-Metadata", meta("filename", "expiring", "expires", "1h"),
		"Content-Type", "application/offset+octet-stream")
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("creation with expires: %d", res.StatusCode)
	}
	got, err := http.Get(s.url("/b/fs/expiring"))
	if err != nil || got.Header.Get("X-Gridfs-Expires") == "" {
		t.Fatalf("the file has no expiry: %v %v", err, got.Header)
	}
	got.Body.Close()
	if res := tusReq(t, http.MethodPost, s.url("/uploads/fs/"), nil, "Upload-Length", "1", "Upload-Metadata", meta("filename", "x", "expires", "soon")); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad expires: %d", res.StatusCode)
	}

	// A bucket's maxFileSize holds for a declared length, and for a
	// deferred one as the bytes arrive (413, nothing appended).
	req, _ := http.NewRequest(http.MethodPut, s.url("/buckets/small"), strings.NewReader(`{"maxFileSize": 100}`))
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode >= 300 {
		t.Fatalf("create bucket: %v %v", res, err)
	}
	if res := tusReq(t, http.MethodPost, s.url("/uploads/small/"), nil, "Upload-Length", "101", "Upload-Metadata", meta("filename", "x")); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("over maxFileSize: %d", res.StatusCode)
	}
	res = tusReq(t, http.MethodPost, s.url("/uploads/small/"), nil, "Upload-Defer-Length", "1", "Upload-Metadata", meta("filename", "x"))
	deferred := res.Header.Get("Location")
	if res := tusReq(t, http.MethodPatch, s.url(deferred), content(101, 1), "Upload-Offset", "0"); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("deferred past maxFileSize: %d", res.StatusCode)
	}
	if n := offset(t, s, deferred); n != 0 {
		t.Errorf("offset after a refused PATCH: %d", n)
	}

	// max-concurrent-uploads counts PATCHes with every other upload.
	held := create(t, s, "held", 1000)
	conn := rawPatch(t, s, held, 0, 1000, content(10, 1))
	time.Sleep(300 * time.Millisecond)
	other := create(t, s, "other", 10)
	if res := tusReq(t, http.MethodPatch, s.url(other), content(10, 2), "Upload-Offset", "0"); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("a PATCH past max-concurrent-uploads: %d", res.StatusCode)
	}
	conn.Close()
	waitFor(t, "the held PATCH to end", 20*time.Second, func() bool { return offset(t, s, held) == 10 })
	patch(t, s, other, 0, content(10, 2))

	// If-None-Match: * holds at the creation, fails at the commit.
	loc = create(t, s, "raced", 10, "If-None-Match", "*")
	req, _ = http.NewRequest(http.MethodPut, s.url("/b/fs/raced"), nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 201 {
		t.Fatalf("PUT: %v %v", res, err)
	}
	if res := tusReq(t, http.MethodPatch, s.url(loc), content(10, 5), "Upload-Offset", "0"); res.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("commit against If-None-Match: %d", res.StatusCode)
	}
	if res := tusReq(t, http.MethodHead, s.url(loc), nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("HEAD after a failed commit: %d", res.StatusCode)
	}

	// The door's metrics are the gateway's.
	res2, err := http.Get(s.url("/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res2.Body)
	res2.Body.Close()
	for _, m := range []string{"gridfsd_tus_uploads_created_total", "gridfsd_tus_uploads_finished_total 4", "gridfsd_tus_bytes_received_total", `route="/uploads/*"`} {
		if !strings.Contains(string(body), m) {
			t.Errorf("/metrics has no %s", m)
		}
	}
}

// TestExpiration: an upload idle past --upload-expiry answers 410 or 404
// and the sweeper removes its chunks; another one's stay.
func TestExpiration(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name(), "--upload-expiry", "3s")
	loc := create(t, s, "expiring", 3*chunk)
	res := patch(t, s, loc, 0, content(2*chunk+5, 6))
	exp, err := http.ParseTime(res.Header.Get("Upload-Expires"))
	if err != nil || exp.Before(time.Now()) || exp.After(time.Now().Add(5*time.Second)) {
		t.Fatalf("Upload-Expires %q", res.Header.Get("Upload-Expires"))
	}
	// Two whole chunks; the last 5 bytes wait in the upload's record.
	if n := chunksOf(t, db); n != 2 {
		t.Fatalf("%d chunks before the expiry", n)
	}
	waitFor(t, "the expired upload's chunks to go", 30*time.Second, func() bool { return chunksOf(t, db) == 0 })
	if res := tusReq(t, http.MethodHead, s.url(loc), nil); res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusGone {
		t.Fatalf("HEAD of an expired upload: %d", res.StatusCode)
	}
}

// TestIETFDraft: the IETF's resumable uploads draft as tusd speaks it
// (interop version 6): a creation that sends the first part, HEAD, and a
// PATCH that completes the upload; the file is whole.
func TestIETFDraft(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name())
	draft := func(method, url string, body []byte, hdr ...string) *http.Response {
		t.Helper()
		res := tusReq(t, method, url, body, append([]string{"Tus-Resumable", "", "Upload-Draft-Interop-Version", "6"}, hdr...)...)
		return res
	}
	data := content(chunk+99, 13)
	res := draft(http.MethodPost, s.url("/uploads/fs/"), data[:1000], "Upload-Complete", "?0", "Content-Disposition", `attachment; filename="draft.bin"`)
	loc := res.Header.Get("Location")
	if res.StatusCode/100 != 2 || loc == "" || res.Header.Get("Upload-Offset") != "1000" {
		t.Fatalf("draft creation: %d %v", res.StatusCode, res.Header)
	}
	res = draft(http.MethodHead, s.url(loc), nil)
	if res.Header.Get("Upload-Offset") != "1000" || res.Header.Get("Upload-Complete") != "?0" {
		t.Fatalf("draft HEAD: %d %v", res.StatusCode, res.Header)
	}
	res = draft(http.MethodPatch, s.url(loc), data[1000:], "Upload-Offset", "1000", "Upload-Complete", "?1", "Content-Type", "application/partial-upload")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("X-Gridfs-Id") == "" {
		t.Fatalf("draft PATCH: %d %v", res.StatusCode, res.Header)
	}
	checkFile(t, s, "draft.bin", data)
}
