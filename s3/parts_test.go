package s3_test

import (
	"crypto/md5"
	"encoding/hex"
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
	ar := e.must(200, "GET", "/parts/obj?attributes", "", "x-amz-object-attributes", "ETag,ObjectParts,ObjectSize,StorageClass")
	attrs := ar.body
	if v := ar.header.Get("x-amz-version-id"); v != "" {
		t.Errorf("GetObjectAttributes without versionId answers version %q, as no unversioned bucket does", v)
	}
	for _, want := range []string{"<PartsCount>3</PartsCount>", "<PartNumber>2</PartNumber><Size>5242880</Size>",
		fmt.Sprintf("<ObjectSize>%d</ObjectSize>", len(whole)), "<StorageClass>STANDARD</StorageClass>", "-3</ETag>"} {
		if !strings.Contains(attrs, want) {
			t.Errorf("GetObjectAttributes lacks %s:\n%s", want, attrs)
		}
	}
}

// UploadPartCopy of chunk-aligned ranges of a multipart-made object (whose
// chunks are the uploads' 256 KiB) copies chunk documents
// (buckets.CopyPart, whose test proves no chunk reader ran): the parts'
// ETags are their content's MD5 and the object is right, as when
// streamed.
func TestUploadPartCopyAligned(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/aligned", "")
	part1 := strings.Repeat("abcdefghij", 524288) // 5 MiB
	id := between(e.must(200, "POST", "/aligned/src?uploads", "").body, "<UploadId>", "</UploadId>")
	t1 := e.must(200, "PUT", "/aligned/src?partNumber=1&uploadId="+id, part1).header.Get("ETag")
	t2 := e.must(200, "PUT", "/aligned/src?partNumber=2&uploadId="+id, "tail").header.Get("ETag")
	e.must(200, "POST", "/aligned/src?uploadId="+id, "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"+t1+
		"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>"+t2+"</ETag></Part></CompleteMultipartUpload>")
	src := part1 + "tail"

	id = between(e.must(200, "POST", "/aligned/dst?uploads", "").body, "<UploadId>", "</UploadId>")
	var done strings.Builder
	var want string
	for i, c := range []struct{ rng, content string }{
		{"bytes=0-5242879", src[:5242880]},
		{"", src},
		{"bytes=4980736-5242883", src[4980736:]}, // from chunk 19 to the end
	} {
		hdr := []string{"x-amz-copy-source", "/aligned/src"}
		if c.rng != "" {
			hdr = append(hdr, "x-amz-copy-source-range", c.rng)
		}
		r := e.must(200, "PUT", fmt.Sprintf("/aligned/dst?partNumber=%d&uploadId=%s", i+1, id), "", hdr...)
		etag := between(r.body, "<ETag>", "</ETag>")
		if sum := md5.Sum([]byte(c.content)); strings.Trim(strings.ReplaceAll(etag, "&#34;", `"`), `"`) != hex.EncodeToString(sum[:]) {
			t.Errorf("part %d: ETag %s, want the MD5 of its content", i+1, etag)
		}
		fmt.Fprintf(&done, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, etag)
		want += c.content
	}
	e.must(200, "POST", "/aligned/dst?uploadId="+id, "<CompleteMultipartUpload>"+done.String()+"</CompleteMultipartUpload>")
	if got := e.must(200, "GET", "/aligned/dst", "").body; got != want {
		t.Fatalf("object of aligned copied parts: %d bytes, want %d", len(got), len(want))
	}
	if got := e.must(200, "GET", "/aligned/src", "").body; got != src {
		t.Fatalf("the source after the copies: %d bytes, want %d", len(got), len(src))
	}
}
