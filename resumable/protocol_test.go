package resumable_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/resumable"
)

// rawRequest sends a request as given: body may be a reader of unknown
// length (length -1: chunked), no header is added, and a "Host" pair sets
// the request's Host.
func rawRequest(t *testing.T, method, url string, body io.Reader, length int64, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// chunked hides a body's length from net/http: it goes chunked.
func chunked(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) }

const offsetStream = "application/offset+octet-stream"

// noFile fails the test if the bucket fs holds a file named name.
func noFile(t *testing.T, db *buckets.DB, name, why string) {
	t.Helper()
	ctx := context.Background()
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.OpenName(ctx, name, -1); err == nil {
		got, _ := io.ReadAll(d)
		d.Close()
		t.Errorf("%s committed the file %q (the first bytes of its body)", why, got)
	}
}

// A body without Content-Length (chunked) that runs past the room the
// upload has left is answered 413 and appends nothing, as one with
// Content-Length: tusd's handler caps it and ends it as if it ended there,
// which made the append keep, and commit, its first bytes.
func TestChunkedBodyPastTheRoomLeftAppendsNothing(t *testing.T) {
	t.Run("PATCH past Upload-Length", func(t *testing.T) {
		srv, db := testDoor(t)
		res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", "10", "Upload-Metadata", tusMetadata("filename", "over"))
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("create: %d", res.StatusCode)
		}
		loc := res.Header.Get("Location")
		res = rawRequest(t, http.MethodPatch, srv.URL+loc, chunked("0123456789ABCDEF"), -1,
			"Tus-Resumable", "1.0.0", "Upload-Offset", "0", "Content-Type", offsetStream)
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked PATCH of 16 bytes into 10: %d, want 413", res.StatusCode)
		}
		head := rawRequest(t, http.MethodHead, srv.URL+loc, nil, 0, "Tus-Resumable", "1.0.0")
		if got := head.Header.Get("Upload-Offset"); got != "0" {
			t.Errorf("after a 413 PATCH the upload is at offset %s, want 0 (nothing appended)", got)
		}
		noFile(t, db, "over", "a PATCH answered 413")
		// One byte too many is told from a full body too.
		res = rawRequest(t, http.MethodPatch, srv.URL+loc, chunked("0123456789A"), -1,
			"Tus-Resumable", "1.0.0", "Upload-Offset", "0", "Content-Type", offsetStream)
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked PATCH of 11 bytes into 10: %d, want 413", res.StatusCode)
		}
		noFile(t, db, "over", "a PATCH of one byte too many answered 413")
		res = rawRequest(t, http.MethodPatch, srv.URL+loc, chunked("0123456789"), -1,
			"Tus-Resumable", "1.0.0", "Upload-Offset", "0", "Content-Type", offsetStream)
		if res.StatusCode != http.StatusNoContent || res.Header.Get("X-Gridfs-Id") == "" {
			t.Errorf("chunked PATCH of the 10 bytes left: %d, X-Gridfs-Id %q; want 204 and the file", res.StatusCode, res.Header.Get("X-Gridfs-Id"))
		}
	})
	t.Run("creation with upload past Upload-Length", func(t *testing.T) {
		srv, db := testDoor(t)
		res := rawRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", chunked("0123456789"), -1,
			"Tus-Resumable", "1.0.0", "Upload-Length", "4", "Content-Type", offsetStream,
			"Upload-Metadata", tusMetadata("filename", "cwu"))
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked creation of 10 bytes with Upload-Length 4: %d, want 413", res.StatusCode)
		}
		noFile(t, db, "cwu", "a creation answered 413")
	})
	t.Run("deferred length past Tus-Max-Size", func(t *testing.T) {
		db := buckets.NewDB(storetest.MustOpenDB(t))
		srv := serveDoor(t, resumable.Config{DB: db, MaxSize: 10})
		res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Defer-Length", "1", "Upload-Metadata", tusMetadata("filename", "d"))
		loc := res.Header.Get("Location")
		res = rawRequest(t, http.MethodPatch, srv.URL+loc, chunked("0123456789ABCDEF"), -1,
			"Tus-Resumable", "1.0.0", "Upload-Offset", "0", "Content-Type", offsetStream)
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked PATCH of 16 bytes past Tus-Max-Size 10: %d, want 413", res.StatusCode)
		}
		head := rawRequest(t, http.MethodHead, srv.URL+loc, nil, 0, "Tus-Resumable", "1.0.0")
		if got := head.Header.Get("Upload-Offset"); got != "0" {
			t.Errorf("after a 413 PATCH the upload is at offset %s, want 0 (nothing appended)", got)
		}
	})
}

// A PATCH on a deferred-length upload that declares Upload-Length and
// fails (here 460: "nothing was appended") declares nothing: HEAD still
// answers Upload-Defer-Length, and the client's identical retry, with the
// same Upload-Length and a right checksum, succeeds (it was refused 400,
// the length declared by the failed PATCH).
func TestFailedPatchDeclaresNoLength(t *testing.T) {
	srv, _ := testDoor(t)
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Defer-Length", "1", "Upload-Metadata", tusMetadata("filename", "dl"))
	loc := res.Header.Get("Location")
	bad, good := sha1.Sum([]byte("nope")), sha1.Sum([]byte("abcdef"))
	res = tusRequest(t, http.MethodPatch, srv.URL+loc, []byte("abcdef"), "Upload-Offset", "0", "Upload-Length", "6",
		"Upload-Checksum", "sha1 "+base64.StdEncoding.EncodeToString(bad[:]))
	if res.StatusCode != 460 {
		t.Fatalf("PATCH with a wrong checksum: %d, want 460", res.StatusCode)
	}
	head := rawRequest(t, http.MethodHead, srv.URL+loc, nil, 0, "Tus-Resumable", "1.0.0")
	if head.Header.Get("Upload-Defer-Length") != "1" {
		t.Errorf("after a 460 PATCH: Upload-Defer-Length %q, Upload-Length %q; want the length still deferred",
			head.Header.Get("Upload-Defer-Length"), head.Header.Get("Upload-Length"))
	}
	res = tusRequest(t, http.MethodPatch, srv.URL+loc, []byte("abcdef"), "Upload-Offset", "0", "Upload-Length", "6",
		"Upload-Checksum", "sha1 "+base64.StdEncoding.EncodeToString(good[:]))
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("the same PATCH again with the right checksum: %d, want 204", res.StatusCode)
	}
}

// tus-js-client with uploadLengthDeferred sends Upload-Length on every
// PATCH of the last chunk, retries included. When that PATCH is cut, the
// door keeps what arrived (as UPLOADS.md says) and the declared length
// with it, and the retry, at the new offset with the same Upload-Length,
// finishes the upload: tusd's handler refuses any Upload-Length once one
// is set, even the same one, which left the upload unfinishable.
func TestCutLastPatchRetriedWithTheSameLength(t *testing.T) {
	srv, _ := testDoor(t)
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Defer-Length", "1", "Upload-Metadata", tusMetadata("filename", "cut"))
	loc := res.Header.Get("Location")
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PATCH %s HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\nContent-Type: %s\r\nUpload-Offset: 0\r\nUpload-Length: 6\r\nContent-Length: 6\r\n\r\nabc", loc, offsetStream)
	time.Sleep(200 * time.Millisecond)
	conn.Close()
	var head *http.Response
	for range 50 { // the cut PATCH ends and gives its lock back
		head = rawRequest(t, http.MethodHead, srv.URL+loc, nil, 0, "Tus-Resumable", "1.0.0")
		if head.StatusCode == http.StatusOK && head.Header.Get("Upload-Offset") == "3" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("after the cut PATCH: %d, Upload-Offset %q, Upload-Length %q, Upload-Defer-Length %q", head.StatusCode,
		head.Header.Get("Upload-Offset"), head.Header.Get("Upload-Length"), head.Header.Get("Upload-Defer-Length"))
	off := head.Header.Get("Upload-Offset")
	n, _ := strconv.Atoi(off)
	res = tusRequest(t, http.MethodPatch, srv.URL+loc, []byte("abcdef"[n:]), "Upload-Offset", off, "Upload-Length", "6")
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("the retried last PATCH (offset %s, the same Upload-Length 6): %d, want 204", off, res.StatusCode)
	}
}

// tus 1.0.0 says Tus-Resumable MUST be in every response but OPTIONS's:
// the errors the door answers itself (an Upload-Checksum it refuses, no
// bucket, access refused, too many uploads) carry it too.
func TestDoorErrorsCarryTusResumable(t *testing.T) {
	srv, _ := testDoor(t)
	res := rawRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, 0,
		"Tus-Resumable", "1.0.0", "Upload-Length", "5", "Upload-Metadata", tusMetadata("filename", "x"),
		"Upload-Checksum", "crc32 AAAAAA==")
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown checksum algorithm: %d, want 400", res.StatusCode)
	}
	if got := res.Header.Get("Tus-Resumable"); got != "1.0.0" {
		t.Errorf("400 for an unsupported checksum algorithm: Tus-Resumable %q, want 1.0.0", got)
	}
	res = rawRequest(t, http.MethodPost, srv.URL+"/uploads/", nil, 0, "Tus-Resumable", "1.0.0", "Upload-Length", "5")
	if got := res.Header.Get("Tus-Resumable"); got != "1.0.0" {
		t.Errorf("%d for a creation without a bucket: Tus-Resumable %q, want 1.0.0", res.StatusCode, got)
	}
}

// tus 1.0.0: "All PATCH requests MUST use Content-Type:
// application/offset+octet-stream, otherwise the server SHOULD return a 415
// Unsupported Media Type status"; API.md promises status codes exactly as
// tus 1.0.0 says. tusd's handler answers 400 (ErrInvalidContentType).
func TestPatchWithAnotherContentTypeIs415(t *testing.T) {
	srv, _ := testDoor(t)
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", "5", "Upload-Metadata", tusMetadata("filename", "ct"))
	loc := res.Header.Get("Location")
	res = rawRequest(t, http.MethodPatch, srv.URL+loc, strings.NewReader("hello"), 5,
		"Tus-Resumable", "1.0.0", "Upload-Offset", "0", "Content-Type", "text/plain")
	if res.StatusCode != http.StatusUnsupportedMediaType || res.Header.Get("Tus-Resumable") != "1.0.0" {
		t.Errorf("PATCH with Content-Type text/plain: %d, Tus-Resumable %q; want 415, 1.0.0", res.StatusCode, res.Header.Get("Tus-Resumable"))
	}
	res = rawRequest(t, http.MethodPost, srv.URL+loc, strings.NewReader("hello"), 5,
		"Tus-Resumable", "1.0.0", "X-HTTP-Method-Override", "PATCH", "Upload-Offset", "0", "Content-Type", "text/plain")
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("POST with X-HTTP-Method-Override: PATCH and Content-Type text/plain: %d, want 415", res.StatusCode)
	}
	res = rawRequest(t, http.MethodHead, srv.URL+loc, nil, 0, "Tus-Resumable", "1.0.0")
	if got := res.Header.Get("Upload-Offset"); got != "0" {
		t.Errorf("after the refused PATCHes the upload is at offset %s, want 0", got)
	}
}

// HEAD of a final upload gives its parts in Upload-Concat as paths, as
// Location: UPLOADS.md says the gateway never builds a URL from a Host
// header a proxy may have rewritten, and tusd's handler makes them
// absolute URLs from it.
func TestFinalUploadConcatGivesPaths(t *testing.T) {
	srv, _ := testDoor(t)
	var parts []string
	for _, data := range []string{"aaa", "bbb"} {
		res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", "3", "Upload-Concat", "partial")
		loc := res.Header.Get("Location")
		if res = tusRequest(t, http.MethodPatch, srv.URL+loc, []byte(data), "Upload-Offset", "0"); res.StatusCode != http.StatusNoContent {
			t.Fatalf("patch a part: %d", res.StatusCode)
		}
		parts = append(parts, loc)
	}
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Concat", "final;"+strings.Join(parts, " "),
		"Upload-Metadata", tusMetadata("filename", "joined"))
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("final: %d", res.StatusCode)
	}
	final := res.Header.Get("Location")
	head := rawRequest(t, http.MethodHead, srv.URL+final, nil, 0, "Tus-Resumable", "1.0.0", "Host", "internal.invalid:8080")
	if head.StatusCode != http.StatusOK {
		t.Fatalf("HEAD final: %d", head.StatusCode)
	}
	want := "final;" + strings.Join(parts, " ")
	if got := head.Header.Get("Upload-Concat"); got != want {
		t.Errorf("HEAD of the final upload: Upload-Concat %q, want %q (paths, as Location)", got, want)
	}
}

// The door leaves Upload-Expires out of replies about a finished upload
// (it does not expire as an unfinished one): the 201 of a final upload and
// of an empty one, committed when they are answered, carried the
// Upload-Expires of the record's creation.
func TestCommittedCreationHasNoUploadExpires(t *testing.T) {
	srv, _ := testDoor(t)
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", "3", "Upload-Concat", "partial")
	part := res.Header.Get("Location")
	tusRequest(t, http.MethodPatch, srv.URL+part, []byte("abc"), "Upload-Offset", "0")
	res = tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Concat", "final;"+part,
		"Upload-Metadata", tusMetadata("filename", "fin"))
	if res.StatusCode != http.StatusCreated || res.Header.Get("X-Gridfs-Id") == "" {
		t.Fatalf("final: %d, X-Gridfs-Id %q", res.StatusCode, res.Header.Get("X-Gridfs-Id"))
	}
	if got := res.Header.Get("Upload-Expires"); got != "" {
		t.Errorf("201 of a committed final upload: Upload-Expires %q, want none (as HEAD of it and the last PATCH of any upload)", got)
	}
	// An empty upload is committed by its creation too.
	res = tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", "0", "Upload-Metadata", tusMetadata("filename", "empty"))
	if res.StatusCode != http.StatusCreated || res.Header.Get("X-Gridfs-Id") == "" {
		t.Fatalf("empty upload: %d, X-Gridfs-Id %q", res.StatusCode, res.Header.Get("X-Gridfs-Id"))
	}
	if got := res.Header.Get("Upload-Expires"); got != "" {
		t.Errorf("201 of a committed empty upload: Upload-Expires %q, want none", got)
	}
}

// The door answers a request without Tus-Resumable 1.0.0 with its own 412
// carrying Tus-Version, unless it is one of the IETF draft; tusd takes a
// request for a draft one only for the interop versions it knows, and
// answered one with any other Upload-Draft-Interop-Version with its own
// 412, which lacks the Tus-Version tus 1.0.0 requires.
func TestUnknownDraftVersionGets412WithTusVersion(t *testing.T) {
	srv, _ := testDoor(t)
	res := rawRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, 0,
		"Tus-Resumable", "0.2.2", "Upload-Draft-Interop-Version", "99", "Upload-Length", "5")
	if res.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("unsupported Tus-Resumable: %d, want 412", res.StatusCode)
	}
	if got := res.Header.Get("Tus-Version"); got == "" {
		t.Errorf("412 for Tus-Resumable 0.2.2 with an unknown Upload-Draft-Interop-Version: no Tus-Version")
	}
}
