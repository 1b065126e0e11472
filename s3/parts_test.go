package s3_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// A multipart object serves its parts by partNumber and lists them in
// GetObjectAttributes; UploadPartCopy makes parts of (ranges of) other
// objects.
func TestPartsAndAttributes(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/parts", "")
	src := strings.Repeat("0123456789", 600000) // 6 MB
	e.must(200, "PUT", "/parts/src", src)
	id := between(e.must(200, "POST", "/parts/obj?uploads", "").body, "<UploadId>", "</UploadId>")
	var done strings.Builder
	// Part 1: bytes 0..5 MiB-1 of src, copied; part 2: a range of src; part 3 uploaded.
	for i, rng := range []string{"bytes=0-5242879", "bytes=10-5242889", ""} {
		path := fmt.Sprintf("/parts/obj?partNumber=%d&uploadId=%s", i+1, id)
		var r reply
		if rng == "" {
			r = e.must(200, "PUT", path, "last")
			fmt.Fprintf(&done, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, r.header.Get("ETag"))
			continue
		}
		r = e.must(200, "PUT", path, "", "x-amz-copy-source", "/parts/src", "x-amz-copy-source-range", rng)
		fmt.Fprintf(&done, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, between(r.body, "<ETag>", "</ETag>"))
	}
	e.must(400, "PUT", fmt.Sprintf("/parts/obj?partNumber=9&uploadId=%s", id), "", "x-amz-copy-source", "/parts/src", "x-amz-copy-source-range", "bytes=5-")
	e.must(200, "POST", "/parts/obj?uploadId="+id, "<CompleteMultipartUpload>"+done.String()+"</CompleteMultipartUpload>")
	whole := src[:5242880] + src[10:5242890] + "last"
	if got := e.must(200, "GET", "/parts/obj", "").body; got != whole {
		t.Fatalf("object of copied parts: %d bytes, want %d", len(got), len(whole))
	}
	for n, want := range map[int]string{1: src[:5242880], 2: src[10:5242890], 3: "last"} {
		r := e.must(206, "GET", fmt.Sprintf("/parts/obj?partNumber=%d", n), "")
		if r.body != want || r.header.Get("x-amz-mp-parts-count") != "3" {
			t.Errorf("part %d: %d bytes, parts count %q", n, len(r.body), r.header.Get("x-amz-mp-parts-count"))
		}
	}
	if h := e.must(206, "HEAD", "/parts/obj?partNumber=2", "").header; h.Get("Content-Length") != "5242880" || h.Get("x-amz-mp-parts-count") != "3" {
		t.Errorf("HEAD part 2: %v", h)
	}
	e.must(400, "GET", "/parts/obj?partNumber=4", "")
	e.must(206, "GET", "/parts/src?partNumber=1", "")
	e.must(400, "GET", "/parts/src?partNumber=2", "")
	attrs := e.must(200, "GET", "/parts/obj?attributes", "", "x-amz-object-attributes", "ETag,ObjectParts,ObjectSize,StorageClass").body
	for _, want := range []string{"<TotalPartsCount>3</TotalPartsCount>", "<PartNumber>2</PartNumber><Size>5242880</Size>",
		fmt.Sprintf("<ObjectSize>%d</ObjectSize>", len(whole)), "<StorageClass>STANDARD</StorageClass>", "-3</ETag>"} {
		if !strings.Contains(attrs, want) {
			t.Errorf("GetObjectAttributes lacks %s:\n%s", want, attrs)
		}
	}
}
