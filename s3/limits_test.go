package s3_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/s3"
)

// TestS3UploadLimits: the gateway's max-upload-size and a bucket's
// maxFileSize hold on the S3 port for PutObject, each part and the
// multipart upload as a whole (before, multipart ignored both); nothing
// over a limit is stored.
func TestS3UploadLimits(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 11 << 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Create(context.Background(), "small", buckets.Settings{MaxFileSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	e.mustSigned(200, "PUT", "/big", nil)

	// PutObject over the bucket's limit, refused by its Content-Length.
	code, _, body := e.signed("PUT", "/small/put", make([]byte, 1<<20+1))
	if code != 400 || xmlValue(body, "Code") != "EntityTooLarge" {
		t.Errorf("PutObject 1 MiB + 1 into a 1 MiB bucket: %d %s", code, body)
	}

	// A one-part 2 MiB multipart upload into the 1 MiB bucket.
	id := xmlValue(e.mustSigned(200, "POST", "/small/mp?uploads", nil), "UploadId")
	code, h, body := e.signed("PUT", "/small/mp?partNumber=1&uploadId="+id, make([]byte, 2<<20))
	if code != 400 || xmlValue(body, "Code") != "EntityTooLarge" {
		t.Errorf("a 2 MiB part into a 1 MiB bucket: %d %s", code, body)
	}
	done := fmt.Sprintf(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>`, h.Get("ETag"))
	if code, _, body := e.signed("POST", "/small/mp?uploadId="+id, []byte(done)); code == 200 {
		t.Errorf("completed the 2 MiB upload in a 1 MiB bucket: %s", body)
	}

	// Three parts of 5 MiB past the gateway's 11 MiB.
	id = xmlValue(e.mustSigned(200, "POST", "/big/mp?uploads", nil), "UploadId")
	var list strings.Builder
	list.WriteString("<CompleteMultipartUpload>")
	for n := 1; n <= 3; n++ {
		code, h, body := e.signed("PUT", fmt.Sprintf("/big/mp?partNumber=%d&uploadId=%s", n, id), bytes.Repeat([]byte{byte(n)}, 5<<20))
		if code != 200 {
			t.Fatalf("part %d: %d %s", n, code, body)
		}
		fmt.Fprintf(&list, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", n, h.Get("ETag"))
	}
	list.WriteString("</CompleteMultipartUpload>")
	code, _, body = e.signed("POST", "/big/mp?uploadId="+id, []byte(list.String()))
	if code != 400 || xmlValue(body, "Code") != "EntityTooLarge" {
		t.Errorf("15 MiB past an 11 MiB limit: %d %s", code, body)
	}
	for _, o := range []string{"small/put", "small/mp", "big/mp"} {
		b, k, _ := strings.Cut(o, "/")
		if _, found := e.object(b, k); found {
			t.Errorf("%s was stored", o)
		}
	}
}

// TestS3MaxConcurrentUploads: the S3 port takes the same upload slots as
// every door (before, it ignored max-concurrent-uploads): past them a
// write is 503 SlowDown with Retry-After; reads go on.
func TestS3MaxConcurrentUploads(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	if err := e.db.SetLimits(buckets.Limits{MaxConcurrentUploads: 1}); err != nil {
		t.Fatal(err)
	}
	e.mustSigned(200, "PUT", "/bkt", nil)
	// Another door's upload holds the one slot.
	release, err := e.db.AcquireUpload()
	if err != nil {
		t.Fatal(err)
	}
	code, h, body := e.signed("PUT", "/bkt/k", []byte("x"))
	if code != 503 || xmlValue(body, "Code") != "SlowDown" || h.Get("Retry-After") == "" {
		t.Errorf("PutObject with every slot taken: %d %s (Retry-After %q)", code, body, h.Get("Retry-After"))
	}
	id := xmlValue(e.mustSigned(200, "POST", "/bkt/mp?uploads", nil), "UploadId")
	if code, _, body := e.signed("PUT", "/bkt/mp?partNumber=1&uploadId="+id, []byte("x")); code != 503 {
		t.Errorf("UploadPart with every slot taken: %d %s", code, body)
	}
	e.mustSigned(200, "GET", "/bkt?list-type=2", nil)
	release()
	e.mustSigned(200, "PUT", "/bkt/k", []byte("x"))
}

// TestS3MaxHeaderBytes: the S3 port honours max-header-bytes (before, it
// took net/http's 1 MiB).
func TestS3MaxHeaderBytes(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{MaxHeaderBytes: 4096})
	// net/http allows 4 KiB of slack above MaxHeaderBytes.
	code, _, _ := e.send(e.request("GET", "/", nil, "X-Big", strings.Repeat("a", 16<<10)))
	if code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers: %d, want 431", code)
	}
	e.mustSigned(200, "GET", "/", nil)
}

// TestS3RequestTimeout: request-timeout bounds the S3 port's requests
// that do not stream an object, and a client that trickles an XML body.
func TestS3RequestTimeout(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{RequestTimeout: 300 * time.Millisecond})
	e.mustSigned(200, "PUT", "/bkt", nil)
	e.mustSigned(200, "PUT", "/bkt/k", []byte("x"))

	// A DeleteObjects whose body never ends.
	conn, err := net.Dial("tcp", e.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := e.request("POST", "/bkt?delete", nil)
	r.ContentLength = 1 << 20
	r.Header.Set("Content-Length", "1048576")
	s := newSigner(adminKey, adminSecret)
	s.unsignedPayload = true
	s.signAll(r, nil)
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\n", r.URL.RequestURI(), r.URL.Host)
	r.Header.Write(&head)
	head.WriteString("\r\n<Delete>")
	conn.Write(head.Bytes())
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no reply to a trickled body within 10 s: %v", err)
	}
	res.Body.Close()
	if res.StatusCode < 400 {
		t.Errorf("trickled DeleteObjects: %d", res.StatusCode)
	}
	if _, found := e.object("bkt", "k"); !found {
		t.Error("the object went")
	}
}

// TestS3UploadPartCopyTakesUploadSlot: max-concurrent-uploads holds for
// every S3 write that streams content into a file or a part, as it does
// for PutObject, UploadPart and CopyObject (and WebDAV's COPY): an
// UploadPartCopy writes up to 5 GiB of chunks too, so with every slot
// taken it is 503 SlowDown and stores nothing.
func TestS3UploadPartCopyTakesUploadSlot(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/bkt", nil)
	e.mustSigned(200, "PUT", "/bkt/src", bytes.Repeat([]byte("s"), 1<<20))
	id := xmlValue(e.mustSigned(200, "POST", "/bkt/mp?uploads", nil), "UploadId")
	if err := e.db.SetLimits(buckets.Limits{MaxConcurrentUploads: 1}); err != nil {
		t.Fatal(err)
	}
	release, err := e.db.AcquireUpload() // another door's upload holds the one slot
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	// CopyObject is refused (the contrast) ...
	if code, _, body := e.signed("PUT", "/bkt/copy", nil, "x-amz-copy-source", "/bkt/src"); code != 503 || xmlValue(body, "Code") != "SlowDown" {
		t.Errorf("CopyObject with every slot taken: %d %s", code, body)
	}
	// ... UploadPartCopy, streamed (not chunk-aligned) or chunk by chunk, must be too.
	for n, rng := range map[int]string{1: "bytes=1-1000", 2: ""} {
		hdr := []string{"x-amz-copy-source", "/bkt/src"}
		if rng != "" {
			hdr = append(hdr, "x-amz-copy-source-range", rng)
		}
		code, _, body := e.signed("PUT", fmt.Sprintf("/bkt/mp?partNumber=%d&uploadId=%s", n, id), nil, hdr...)
		if code != 503 || xmlValue(body, "Code") != "SlowDown" {
			t.Errorf("UploadPartCopy (range %q) with every slot taken: %d, want 503 SlowDown", rng, code)
		}
	}
	parts := e.mustSigned(200, "GET", "/bkt/mp?uploadId="+id, nil)
	if strings.Contains(parts, "<Part>") {
		t.Errorf("parts stored while every upload slot was taken:\n%s", parts)
	}
}
