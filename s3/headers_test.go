package s3_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// The content headers of a PutObject (and of a multipart upload) are
// stored and served back by GetObject, HeadObject and the HTTP API alike;
// a 304 keeps its ETag.
func TestContentHeadersOnEveryDoor(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/site", "")
	headers := []string{
		"Content-Type", "text/plain",
		"Content-Encoding", "gzip",
		"Cache-Control", "max-age=3600",
		"Content-Disposition", `inline; filename="app.js"`,
		"Content-Language", "de",
		"Expires", "Thu, 01 Dec 2033 16:00:00 GMT",
	}
	put := e.must(200, "PUT", "/site/app.js.gz", "\x1f\x8bnot really gzip", append(headers, "x-amz-meta-expires", "user-value")...)
	mp := e.must(200, "POST", "/site/big.js?uploads", "", headers...)
	id := between(mp.body, "<UploadId>", "</UploadId>")
	part := e.must(200, "PUT", "/site/big.js?partNumber=1&uploadId="+id, "part one")
	e.must(200, "POST", "/site/big.js?uploadId="+id, `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>`+
		part.header.Get("ETag")+`</ETag></Part></CompleteMultipartUpload>`)

	for _, key := range []string{"app.js.gz", "big.js"} {
		for _, r := range []reply{
			e.must(200, "GET", "/site/"+key, ""),
			e.must(200, "HEAD", "/site/"+key, ""),
			e.send(e.httpURL, "GET", "/b/site/"+key, ""),
		} {
			for i := 0; i < len(headers); i += 2 {
				if got := r.header.Get(headers[i]); got != headers[i+1] {
					t.Errorf("%s: %s = %q, want %q", key, headers[i], got, headers[i+1])
				}
			}
		}
	}
	get := e.must(200, "GET", "/site/app.js.gz", "")
	if got := get.header.Get("x-amz-meta-expires"); got != "user-value" {
		t.Errorf("x-amz-meta-expires = %q: user metadata must not meet the Expires header", got)
	}
	if get.body != "\x1f\x8bnot really gzip" {
		t.Errorf("body %q: the content must be served as stored", get.body)
	}
	// A 304 carries the ETag (RFC 9110 15.4.5) and none of the body's headers.
	nm := e.do("GET", "/site/app.js.gz", "", "If-None-Match", put.header.Get("ETag"))
	if nm.status != http.StatusNotModified || nm.header.Get("ETag") != put.header.Get("ETag") || nm.header.Get("Content-Encoding") != "" {
		t.Errorf("If-None-Match: %d ETag %q Content-Encoding %q", nm.status, nm.header.Get("ETag"), nm.header.Get("Content-Encoding"))
	}
}

func between(s, a, b string) string {
	_, s, _ = strings.Cut(s, a)
	s, _, _ = strings.Cut(s, b)
	return s
}
