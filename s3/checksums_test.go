package s3_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func crc32b64(s string) string {
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], crc32.ChecksumIEEE([]byte(s)))
	return b64(out[:])
}

// Checksums are checked, stored and returned: PutObject's reply, HEAD and
// GET with x-amz-checksum-mode: ENABLED, multipart uploads (COMPOSITE and
// FULL_OBJECT), copies; unknown checksum names are refused.
func TestChecksumsStoredAndReturned(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/sums", "")
	put := e.must(200, "PUT", "/sums/a", "hello", "x-amz-checksum-crc32", crc32b64("hello"))
	if put.header.Get("x-amz-checksum-crc32") != crc32b64("hello") {
		t.Errorf("PutObject reply lacks its checksum: %v", put.header)
	}
	for _, m := range []string{"HEAD", "GET"} {
		if r := e.must(200, m, "/sums/a", "", "x-amz-checksum-mode", "ENABLED"); r.header.Get("x-amz-checksum-crc32") != crc32b64("hello") || r.header.Get("x-amz-checksum-type") != "FULL_OBJECT" {
			t.Errorf("%s with checksum mode: %v", m, r.header)
		}
		if r := e.must(200, m, "/sums/a", ""); r.header.Get("x-amz-checksum-crc32") != "" {
			t.Errorf("%s without checksum mode returns the checksum", m)
		}
	}
	e.must(400, "PUT", "/sums/b", "hello", "x-amz-checksum-crc32", crc32b64("other"))
	e.must(400, "PUT", "/sums/b", "hello", "x-amz-checksum-md4", "AAAA")
	e.must(400, "PUT", "/sums/b", "hello", "x-amz-checksum-crc32", crc32b64("hello"), "x-amz-checksum-sha1", "AAAA")
	e.must(404, "HEAD", "/sums/b", "")
	// Named only: computed here.
	sha := sha256.Sum256([]byte("named"))
	if r := e.must(200, "PUT", "/sums/c", "named", "x-amz-sdk-checksum-algorithm", "SHA256"); r.header.Get("x-amz-checksum-sha256") != b64(sha[:]) {
		t.Errorf("computed SHA256: %v", r.header)
	}

	parts := []string{strings.Repeat("a", 5<<20), "tail"}
	for _, kind := range []string{"COMPOSITE", "FULL_OBJECT"} {
		key := "/sums/mp-" + kind
		id := between(e.must(200, "POST", key+"?uploads", "", "x-amz-checksum-algorithm", "CRC32", "x-amz-checksum-type", kind).body, "<UploadId>", "</UploadId>")
		var done strings.Builder
		var raws []byte
		for i, p := range parts {
			r := e.must(200, "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", key, i+1, id), p, "x-amz-checksum-crc32", crc32b64(p))
			fmt.Fprintf(&done, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, r.header.Get("ETag"))
			raw, _ := base64.StdEncoding.DecodeString(crc32b64(p))
			raws = append(raws, raw...)
		}
		want := crc32b64(strings.Join(parts, ""))
		if kind == "COMPOSITE" {
			var out [4]byte
			binary.BigEndian.PutUint32(out[:], crc32.ChecksumIEEE(raws))
			want = b64(out[:]) + "-2"
		}
		body := "<CompleteMultipartUpload>" + done.String() + "</CompleteMultipartUpload>"
		// A Complete's checksum header is the object's (minio-go sends it;
		// it was checked against the XML body): a wrong one is refused
		// and the upload stays, the right one completes.
		if r := e.must(400, "POST", key+"?uploadId="+id, body, "x-amz-checksum-crc32", crc32b64("not the object")); !strings.Contains(r.body, "BadDigest") {
			t.Errorf("%s: Complete with a wrong checksum:\n%s", kind, r.body)
		}
		e.must(400, "POST", key+"?uploadId="+id, body, "x-amz-checksum-sha256", b64(make([]byte, 32)))
		r := e.must(200, "POST", key+"?uploadId="+id, body, "x-amz-checksum-crc32", want)
		if !strings.Contains(r.body, "<ChecksumCRC32>"+want+"</ChecksumCRC32>") || !strings.Contains(r.body, "<ChecksumType>"+kind+"</ChecksumType>") {
			t.Errorf("%s: Complete answered\n%s\nwant checksum %s", kind, r.body, want)
		}
		if h := e.must(200, "HEAD", key, "", "x-amz-checksum-mode", "ENABLED").header; h.Get("x-amz-checksum-crc32") != want {
			t.Errorf("%s: HEAD checksum %q, want %q", kind, h.Get("x-amz-checksum-crc32"), want)
		}
		// A part read with checksum mode carries that part's checksum.
		for i, p := range parts {
			if h := e.must(206, "GET", fmt.Sprintf("%s?partNumber=%d", key, i+1), "", "x-amz-checksum-mode", "ENABLED").header; h.Get("x-amz-checksum-crc32") != crc32b64(p) {
				t.Errorf("%s: part %d's checksum %q, want %q", kind, i+1, h.Get("x-amz-checksum-crc32"), crc32b64(p))
			}
		}
		// Complete again (a retry): the same answer, not NoSuchUpload.
		if again := e.must(200, "POST", key+"?uploadId="+id, body); again.body != r.body {
			t.Errorf("%s: a repeated Complete answered\n%s\nnot\n%s", kind, again.body, r.body)
		}
	}
	// A copy gets the full-object checksum of the source's algorithm.
	e.must(200, "PUT", "/sums/copy", "", "x-amz-copy-source", "/sums/mp-COMPOSITE")
	if h := e.must(200, "HEAD", "/sums/copy", "", "x-amz-checksum-mode", "ENABLED").header; h.Get("x-amz-checksum-crc32") != crc32b64(strings.Join(parts, "")) {
		t.Errorf("copy's checksum %q", h.Get("x-amz-checksum-crc32"))
	}
	// A copy of an object without a checksum, naming none, gets a
	// CRC64NVME, as S3 gives every copy (minio-go testCopyObjectWithChecksums).
	e.must(200, "PUT", "/sums/plain", "no checksum here")
	e.must(200, "PUT", "/sums/plain-copy", "", "x-amz-copy-source", "/sums/plain")
	var nvme [8]byte
	binary.BigEndian.PutUint64(nvme[:], crc64.Checksum([]byte("no checksum here"), crc64.MakeTable(0x9a6c9329ac4bc9b5)))
	if h := e.must(200, "HEAD", "/sums/plain-copy", "", "x-amz-checksum-mode", "ENABLED").header; h.Get("x-amz-checksum-crc64nvme") != b64(nvme[:]) || h.Get("x-amz-checksum-type") != "FULL_OBJECT" {
		t.Errorf("copy of an object without a checksum: %q %q, want CRC64NVME %q", h.Get("x-amz-checksum-crc64nvme"), h.Get("x-amz-checksum-type"), b64(nvme[:]))
	}
	e.must(404, "POST", "/sums/never?uploadId=0123456789abcdef", "<CompleteMultipartUpload></CompleteMultipartUpload>")
}
