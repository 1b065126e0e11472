package s3_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// TestHostileActiveContent: the S3 port serves stored HTML, SVG and other
// types that could run script as the HTTP API does, by buckets' one rule
// (sandboxed, an attachment), and anonymous readers may not choose the
// reply's headers (before, an anonymous response-content-type=text/html
// turned a public text file into a page in the gateway's origin).
func TestHostileActiveContent(t *testing.T) {
	e := hostileFixture(t)
	for key, ct := range map[string]string{"page.html": "text/html", "pic.svg": "image/svg+xml", "a.txt": "text/plain", "photo.png": "image/png"} {
		e.mustSigned(200, "PUT", "/public/"+key, []byte("<html><script>alert(1)</script></html>"), "Content-Type", ct)
	}
	for _, tc := range []struct {
		name, path string
		signed     bool
		code       int
		sandboxed  bool
	}{
		{"stored HTML", "/public/page.html", false, 200, true},
		{"stored SVG", "/public/pic.svg", false, 200, true},
		{"text", "/public/a.txt", false, 200, false},
		{"image", "/public/photo.png", false, 200, false},
		{"anonymous response-content-type", "/public/a.txt?response-content-type=text%2Fhtml", false, 400, false},
		{"anonymous response-content-disposition", "/public/page.html?response-content-disposition=inline", false, 400, false},
		{"signed override to HTML", "/public/a.txt?response-content-type=text%2Fhtml", true, 200, true},
		{"signed override to inline", "/public/page.html?response-content-disposition=inline%3B%20filename%3Dp.html", true, 200, true},
		{"signed override to a safe type", "/public/page.html?response-content-type=text%2Fplain", true, 200, false},
	} {
		r := e.request("GET", tc.path, nil)
		if tc.signed {
			newSigner(adminKey, adminSecret).signAll(r, nil)
		}
		code, h, body := e.send(r)
		if code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.code)
			continue
		}
		if code == 400 && xmlValue(body, "Code") != "InvalidRequest" {
			t.Errorf("%s: %s, want InvalidRequest", tc.name, body)
		}
		if code != 200 {
			continue
		}
		csp, cd := h.Get("Content-Security-Policy"), h.Get("Content-Disposition")
		if tc.sandboxed && (csp != "sandbox" || !strings.HasPrefix(cd, "attachment")) {
			t.Errorf("%s: served with Content-Security-Policy %q, Content-Disposition %q; want sandbox, attachment", tc.name, csp, cd)
		}
		if !tc.sandboxed && csp != "" {
			t.Errorf("%s: a safe type sandboxed (%q)", tc.name, csp)
		}
	}
}

// TestHostileSmallDefects: issue 23 item 7.
func TestHostileSmallDefects(t *testing.T) {
	e := hostileFixture(t)
	e.mustSigned(200, "PUT", "/public/five", []byte("12345"))
	id := xmlValue(e.mustSigned(200, "POST", "/public/mp?uploads", nil), "UploadId")

	// Several checksums, or one gridfsd does not know: InvalidRequest
	// (before, a random one was checked and an unknown one ignored).
	for name, header := range map[string][]string{
		"two checksums":    {"X-Amz-Checksum-Crc32", "AAAAAA==", "X-Amz-Checksum-Sha256", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		"unknown checksum": {"X-Amz-Checksum-Foo", "XUFAKrxLKna5cZ2REBfFkg=="},
	} {
		code, _, body := e.signed("PUT", "/public/sum", []byte("hello"), header...)
		if code != 400 || xmlValue(body, "Code") != "InvalidRequest" {
			t.Errorf("%s: %d %s, want 400 InvalidRequest", name, code, body)
		}
	}
	if _, found := e.object("public", "sum"); found {
		t.Error("an upload with bad checksum headers was stored")
	}

	// max-keys=0: an empty page, not truncated.
	body := e.mustSigned(200, "GET", "/public?list-type=2&max-keys=0", nil)
	if xmlValue(body, "IsTruncated") != "false" || xmlValue(body, "KeyCount") != "0" {
		t.Errorf("max-keys=0: %s", body)
	}

	// A 416 says the object's length.
	code, h, body := e.signed("GET", "/public/five", nil, "Range", "bytes=10-")
	if code != 416 || h.Get("Content-Range") != "bytes */5" {
		t.Errorf("range past the end: %d, Content-Range %q, %s", code, h.Get("Content-Range"), body)
	}

	// Anonymous readers of a public bucket do not see uploads in progress.
	for _, path := range []string{"/public?uploads", "/public/mp?uploadId=" + id} {
		code, _, body := e.send(e.request("GET", path, nil))
		if code != 403 || strings.Contains(body, id) {
			t.Errorf("anonymous GET %s: %d %s", path, code, body)
		}
	}
	if body := e.mustSigned(200, "GET", "/public?uploads", nil); !strings.Contains(body, id) {
		t.Errorf("the admin does not see the upload: %s", body)
	}

	// A signed aws-chunked body that ends without its final zero-size
	// chunk is the client's error.
	r := e.request("PUT", "/public/cut", []byte("5;chunk-signature=00\r\nhello\r\n"))
	r.Header.Set("X-Amz-Decoded-Content-Length", "5")
	r.Header.Set("Content-Encoding", "aws-chunked")
	s := newSigner(adminKey, adminSecret)
	s.omitPayloadValue = true
	r.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	s.signAllAs(r, "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	code, _, body = e.send(r)
	if code != 400 {
		t.Errorf("aws-chunked body without its final chunk: %d %s, want 400", code, body)
	}
	if _, found := e.object("public", "cut"); found {
		t.Error("a truncated aws-chunked body was stored")
	}
}

// TestHostileOversizedBodies: what a client controls is bounded: an XML
// body, a trailer, a part list.
func TestHostileOversizedBodies(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{RequestTimeout: 5 * time.Second})
	e.mustSigned(200, "PUT", "/bkt", nil)
	big := []byte("<Delete>" + strings.Repeat("<Object><Key>k</Key></Object>", 100000) + "</Delete>")
	if code, _, body := e.signed("POST", "/bkt?delete", big); code != 400 {
		t.Errorf("3 MiB of DeleteObjects XML: %d %s", code, body)
	}
	id := xmlValue(e.mustSigned(200, "POST", "/bkt/k?uploads", nil), "UploadId")
	parts := []byte("<CompleteMultipartUpload>" + strings.Repeat("<Part><PartNumber>1</PartNumber><ETag>x</ETag></Part>", 10001) + "</CompleteMultipartUpload>")
	if code, _, body := e.signed("POST", "/bkt/k?uploadId="+id, parts); code != 400 {
		t.Errorf("10001 parts: %d %s", code, body)
	}
	// 1 MiB of trailer after 5 bytes of data.
	trailer := strings.Repeat("x-amz-meta-pad:"+strings.Repeat("p", 1000)+"\r\n", 1000)
	r := e.request("PUT", "/bkt/t", []byte("5\r\nhello\r\n0\r\n"+trailer+"\r\n"))
	r.Header.Set("X-Amz-Decoded-Content-Length", "5")
	s := newSigner(adminKey, adminSecret)
	s.omitPayloadValue = true
	r.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	s.signAllAs(r, "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	if code, _, body := e.send(r); code != 400 {
		t.Errorf("1 MiB of trailer: %d %s", code, body)
	}
	if _, found := e.object("bkt", "t"); found {
		t.Error("an upload with an oversized trailer was stored")
	}
	_ = http.StatusOK
}
