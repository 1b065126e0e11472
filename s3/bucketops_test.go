package s3_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/s3"
)

// S3's bucket name rules apply to new buckets; CreationDate is when the
// bucket was made; ListBuckets pages with max-buckets.
func TestBucketNamesDatesAndPages(t *testing.T) {
	e := newEnv(t, s3.Config{})
	for _, tc := range []struct {
		name string
		want int
	}{
		{"ab", 400}, {strings.Repeat("a", 64), 400}, {"Upper", 400}, {"a_b", 400}, {"-ab", 400}, {"ab-", 400},
		{"a..b", 400}, {"192.168.1.1", 400}, {"abc", 200}, {strings.Repeat("b", 63), 200}, {"a.b-c", 200},
	} {
		if r := e.do("PUT", "/"+tc.name, ""); r.status != tc.want {
			t.Errorf("CreateBucket %q: %d, want %d\n%s", tc.name, r.status, tc.want, r.body)
		}
	}
	before := time.Now().Add(-2 * time.Second)
	e.must(200, "PUT", "/zzz-newest", "")
	list := e.must(200, "GET", "/", "")
	created := between(between(list.body, "<Name>zzz-newest</Name>", "</Bucket>"), "<CreationDate>", "</CreationDate>")
	if at, err := time.Parse(time.RFC3339, created); err != nil || at.Before(before) || at.After(time.Now().Add(2*time.Second)) {
		t.Errorf("CreationDate of a bucket made now: %q (%v)", created, err)
	}

	var names []string
	token := ""
	for range 10 {
		r := e.must(200, "GET", "/?max-buckets=2&continuation-token="+token, "")
		for _, part := range strings.Split(r.body, "<Name>")[1:] {
			names = append(names, part[:strings.Index(part, "<")])
		}
		token = between(r.body, "<ContinuationToken>", "</ContinuationToken>")
		if token == "" {
			break
		}
	}
	if got := strings.Join(names, " "); got != "a.b-c abc "+strings.Repeat("b", 63)+" zzz-newest" {
		t.Errorf("ListBuckets in pages of 2: %s", got)
	}
	e.must(400, "GET", "/?max-buckets=0", "")
}

// encoding-type=url encodes a space as %20, never +; ListMultipartUploads
// echoes its delimiter and encoding and rolls keys up into prefixes.
func TestListingEncodingAndMultipartEcho(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/enc", "")
	e.must(200, "PUT", "/enc/a%20b+c", "x")
	r := e.must(200, "GET", "/enc?list-type=2&encoding-type=url", "")
	if !strings.Contains(r.body, "<Key>a%20b%2Bc</Key>") {
		t.Errorf("ListObjectsV2 encoding-type=url:\n%s", r.body)
	}
	// ListObjects (v1) echoes its prefix unencoded: botocore does not
	// decode it there (v2 it does).
	if r := e.must(200, "GET", "/enc?prefix=a%0A%20&encoding-type=url", ""); !strings.Contains(r.body, "<Prefix>a&#xA; </Prefix>") {
		t.Errorf("ListObjects v1 encoding-type=url prefix:\n%s", r.body)
	}
	if r := e.must(200, "GET", "/enc?list-type=2&prefix=a%0A%20&encoding-type=url", ""); !strings.Contains(r.body, "<Prefix>a%0A%20</Prefix>") {
		t.Errorf("ListObjectsV2 encoding-type=url prefix:\n%s", r.body)
	}
	for _, key := range []string{"dir/one", "dir/two", "top"} {
		e.must(200, "POST", "/enc/"+key+"?uploads", "")
	}
	r = e.must(200, "GET", "/enc?uploads&delimiter=/&encoding-type=url", "")
	for _, want := range []string{"<Delimiter>/</Delimiter>", "<EncodingType>url</EncodingType>", "<CommonPrefixes><Prefix>dir/</Prefix></CommonPrefixes>",
		"<Key>top</Key>", "<IsTruncated>false</IsTruncated>"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("ListMultipartUploads lacks %s:\n%s", want, r.body)
		}
	}
	if strings.Contains(r.body, "<Key>dir/") {
		t.Errorf("ListMultipartUploads lists keys under a common prefix:\n%s", r.body)
	}
	// Truncated listings of versions give a version marker to pass back.
	e.must(200, "PUT", "/enc/v1", "x")
	e.must(200, "PUT", "/enc/v2", "x")
	r = e.must(200, "GET", "/enc?versions&max-keys=1", "")
	if between(r.body, "<NextVersionIdMarker>", "</NextVersionIdMarker>") == "" || between(r.body, "<NextKeyMarker>", "</NextKeyMarker>") == "" {
		t.Errorf("truncated ListObjectVersions without its markers:\n%s", r.body)
	}
}

// Promises gridfsd would not keep are refused, and nothing is written.
func TestUnsupportedPromisesRefused(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/prom", "")
	for _, tc := range []struct {
		method, path string
		header       []string
		want         int
	}{
		{"PUT", "/locked", []string{"x-amz-bucket-object-lock-enabled", "true"}, 501},
		{"PUT", "/prom/k", []string{"x-amz-storage-class", "NOT_A_CLASS"}, 400},
		{"PUT", "/prom/k", []string{"x-amz-storage-class", "GLACIER"}, 501},
		{"POST", "/prom/k?uploads", []string{"x-amz-storage-class", "DEEP_ARCHIVE"}, 501},
		{"PUT", "/prom/k", []string{"x-amz-server-side-encryption", "AES256"}, 501},
		{"PUT", "/prom/k", []string{"x-amz-object-lock-mode", "GOVERNANCE"}, 501},
		{"PUT", "/prom/k", []string{"x-amz-grant-read", "id=someone"}, 501},
		{"PUT", "/prom/k", []string{"x-amz-acl", "not-canned"}, 400},
		{"PUT", "/prom/k", []string{"x-amz-storage-class", "STANDARD", "x-amz-acl", "public-read"}, 200},
		{"PUT", "/prom/rr", []string{"x-amz-storage-class", "REDUCED_REDUNDANCY"}, 200},
	} {
		if r := e.do(tc.method, tc.path, "x", tc.header...); r.status != tc.want {
			t.Errorf("%s %s %v: %d, want %d\n%s", tc.method, tc.path, tc.header, r.status, tc.want, r.body)
		}
	}
	if r := e.do("HEAD", "/locked", ""); r.status != 404 {
		t.Errorf("a refused object-lock bucket exists: HEAD %d", r.status)
	}
}

// A client that hangs up in the middle of a part is its own doing: no 500
// in the metrics, no error in the log.
func TestClientHangUpMidPart(t *testing.T) {
	var logs bytes.Buffer
	e := newEnv(t, s3.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.must(200, "PUT", "/hang", "")
	id := between(e.must(200, "POST", "/hang/k?uploads", "").body, "<UploadId>", "</UploadId>")
	for _, path := range []string{"/hang/k?partNumber=1&uploadId=" + id, "/hang/whole"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n", path)
		conn.Write(bytes.Repeat([]byte("x"), 300000))
		conn.(*net.TCPConn).CloseWrite()
		bufio.NewReader(conn).ReadString('\n')
		conn.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && strings.Count(logs.String(), "s3 request ") < 4 {
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Contains(logs.String(), "level=ERROR") || strings.Contains(logs.String(), "status=500") {
		t.Errorf("a client's hang-up logged as the server's failure:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "status=400") {
		t.Errorf("no IncompleteBody answer logged:\n%s", logs.String())
	}
	if r := e.do("GET", "/hang/whole", ""); r.status != http.StatusNotFound {
		t.Errorf("a hung-up PutObject left an object: %d", r.status)
	}
}

// MinIO's listing extension: ?metadata=true lists each object's user
// metadata and type (minio-go's ListObjects WithMetadata).
func TestListWithMetadata(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/lmeta", "")
	e.must(200, "PUT", "/lmeta/k", "x", "x-amz-meta-Marker", "unsorted", "Content-Type", "text/plain")
	r := e.must(200, "GET", "/lmeta?list-type=2&metadata=true", "")
	if !strings.Contains(r.body, "<UserMetadata><content-type>text/plain</content-type><x-amz-meta-marker>unsorted</x-amz-meta-marker></UserMetadata>") {
		t.Errorf("listing with metadata:\n%s", r.body)
	}
	if r := e.must(200, "GET", "/lmeta?list-type=2", ""); strings.Contains(r.body, "UserMetadata") {
		t.Errorf("plain listing has metadata:\n%s", r.body)
	}
}

// Found by s3-tests: max-keys=0 lists nothing and is not truncated; a
// copy-source range past the source's end is InvalidRange; aws-chunked
// is the upload's transfer coding, not the object's Content-Encoding.
func TestS3TestsEdges(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/edges", "")
	e.must(200, "PUT", "/edges/a", "12345")
	for _, q := range []string{"?max-keys=0", "?list-type=2&max-keys=0"} {
		if r := e.must(200, "GET", "/edges"+q, ""); !strings.Contains(r.body, "<IsTruncated>false</IsTruncated>") || strings.Contains(r.body, "<Key>") {
			t.Errorf("%s:\n%s", q, r.body)
		}
	}
	id := between(e.must(200, "POST", "/edges/dst?uploads", "").body, "<UploadId>", "</UploadId>")
	r := e.do("PUT", "/edges/dst?partNumber=1&uploadId="+id, "", "x-amz-copy-source", "/edges/a", "x-amz-copy-source-range", "bytes=0-21")
	if r.status != 416 || !strings.Contains(r.body, "<Code>InvalidRange</Code>") {
		t.Errorf("copy range past the end: %d\n%s", r.status, r.body)
	}
	e.must(200, "PUT", "/edges/gz", "x", "Content-Encoding", "gzip, aws-chunked")
	if got := e.must(200, "HEAD", "/edges/gz", "").header.Get("Content-Encoding"); got != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip", got)
	}
}

// CreateBucket of an existing bucket answers as S3 does: another token
// is told BucketAlreadyExists; its owner gets 200 in the default region
// (us-east-1's answer, nothing changed) and BucketAlreadyOwnedByYou when it
// names another. GetBucketLocation answers the region CreateBucket named.
func TestCreateBucketOwnerAndLocation(t *testing.T) {
	ac := auth.Config{Tokens: []auth.Token{
		{Name: adminKey, Secret: adminSecret, Buckets: []string{"*"}, Access: auth.Admin},
		{Name: "other", Secret: "other-secret-0123456789", Buckets: []string{"*"}, Access: auth.Admin},
	}}
	e := newS3Env(t, ac, s3.Config{})
	other := func(method, path string, body string) (int, string) {
		r := e.request(method, path, []byte(body))
		newSigner("other", "other-secret-0123456789").signAll(r, []byte(body))
		code, _, b := e.send(r)
		return code, b
	}
	eu := `<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`
	e.mustSigned(200, "PUT", "/owned", nil)
	e.mustSigned(200, "PUT", "/owned/keep", []byte("kept"))
	e.mustSigned(200, "PUT", "/owned", nil)
	if b := e.mustSigned(409, "PUT", "/owned", []byte(eu)); xmlValue(b, "Code") != "BucketAlreadyOwnedByYou" {
		t.Errorf("owner re-creating in another region: %s", b)
	}
	if code, b := other("PUT", "/owned", ""); code != 409 || xmlValue(b, "Code") != "BucketAlreadyExists" {
		t.Errorf("another token creating an existing bucket: %d %s", code, b)
	}
	if data, found := e.object("owned", "keep"); !found || string(data) != "kept" {
		t.Errorf("a repeated CreateBucket changed the bucket: %q %v", data, found)
	}
	if b := e.mustSigned(200, "GET", "/owned?location", nil); !strings.Contains(b, `"></LocationConstraint>`) {
		t.Errorf("location of a bucket made in the default region: %s", b)
	}
	e.mustSigned(200, "PUT", "/euro", []byte(eu))
	if b := e.mustSigned(200, "GET", "/euro?location", nil); !strings.Contains(b, `">eu-west-1</LocationConstraint>`) {
		t.Errorf("location of a bucket made in eu-west-1: %s", b)
	}
	// A multipart upload's Initiator and Owner are the token that started it.
	e.mustSigned(200, "POST", "/owned/a?uploads", nil)
	if code, b := other("POST", "/owned/b?uploads", ""); code != 200 {
		t.Fatalf("CreateMultipartUpload: %d %s", code, b)
	}
	list := e.mustSigned(200, "GET", "/owned?uploads", nil)
	for _, want := range []string{"<Key>a</Key>", "<Initiator><ID>" + adminKey + "</ID><DisplayName>" + adminKey + "</DisplayName></Initiator><Owner><ID>" + adminKey + "</ID>",
		"<Key>b</Key>", "<Initiator><ID>other</ID><DisplayName>other</DisplayName></Initiator><Owner><ID>other</ID>"} {
		if !strings.Contains(list, want) {
			t.Errorf("ListMultipartUploads lacks %s:\n%s", want, list)
		}
	}
	bad := `<CreateBucketConfiguration><LocationConstraint>no such/place</LocationConstraint></CreateBucketConfiguration>`
	if b := e.mustSigned(400, "PUT", "/nowhere", []byte(bad)); xmlValue(b, "Code") != "InvalidLocationConstraint" {
		t.Errorf("CreateBucket in a malformed region: %s", b)
	}
}

// A bucket that does not exist is NoSuchBucket whoever asks, as on AWS;
// one that exists but may not be read is AccessDenied.
func TestMissingBucketIs404ForAll(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/secret", nil)
	e.mustSigned(200, "PUT", "/secret/k", []byte("x"))
	for _, tc := range []struct {
		method, path string
		want         int
		code         string
	}{
		{"GET", "/gone/k", 404, "NoSuchBucket"},
		{"DELETE", "/gone/k", 404, "NoSuchBucket"},
		{"GET", "/gone", 404, "NoSuchBucket"},
		{"GET", "/secret/k", 403, "AccessDenied"},
		{"DELETE", "/secret/k", 403, "AccessDenied"},
	} {
		code, _, body := e.send(e.request(tc.method, tc.path, nil))
		if code != tc.want || xmlValue(body, "Code") != tc.code {
			t.Errorf("anonymous %s %s: %d %s, want %d %s", tc.method, tc.path, code, xmlValue(body, "Code"), tc.want, tc.code)
		}
		r := e.request(tc.method, tc.path, nil)
		newSigner(writerKey, writerSecret).signAll(r, nil)
		code, _, body = e.send(r)
		if code != tc.want || xmlValue(body, "Code") != tc.code {
			t.Errorf("writer of another bucket %s %s: %d %s, want %d %s", tc.method, tc.path, code, xmlValue(body, "Code"), tc.want, tc.code)
		}
	}
	// Creating a bucket one may not create stays AccessDenied.
	r := e.request("PUT", "/newone", nil)
	newSigner(writerKey, writerSecret).signAll(r, nil)
	if code, _, body := e.send(r); code != 403 {
		t.Errorf("CreateBucket by a writer: %d %s", code, body)
	}
}

// TestCopyUnknownDirectiveRefused: S3 refuses a CopyObject whose
// x-amz-metadata-directive (or x-amz-tagging-directive) is neither COPY
// nor REPLACE (400 InvalidArgument, "Unknown metadata directive."), and
// writes nothing: a client that misspelt REPLACE ("REPLACED") would
// otherwise get a 200 and an object with the source's metadata, not the
// one it sent. The directives' case does not matter, as on AWS.
func TestCopyUnknownDirectiveRefused(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/dirx", "")
	e.must(200, "PUT", "/dirx/src", "data", "x-amz-meta-color", "red")
	for _, h := range []string{"x-amz-metadata-directive", "x-amz-tagging-directive"} {
		key := "/dirx/dst-" + h
		r := e.do("PUT", key, "", "x-amz-copy-source", "/dirx/src", h, "REPLACED", "x-amz-meta-color", "blue", "x-amz-tagging", "a=b")
		if r.status != 400 || between(r.body, "<Code>", "</Code>") != "InvalidArgument" {
			t.Errorf("CopyObject with %s: REPLACED: %d %s, want 400 InvalidArgument", h, r.status, between(r.body, "<Code>", "</Code>"))
		}
		if e.do("HEAD", key, "").status != 404 {
			t.Errorf("CopyObject with %s: REPLACED stored a copy", h)
		}
	}
	e.must(200, "PUT", "/dirx/lower", "", "x-amz-copy-source", "/dirx/src", "x-amz-metadata-directive", "replace", "x-amz-meta-color", "blue")
	if got := e.must(200, "HEAD", "/dirx/lower", "").header.Get("x-amz-meta-color"); got != "blue" {
		t.Errorf("CopyObject with x-amz-metadata-directive: replace: color %q, want blue", got)
	}
}

// TestPutWithContentRangeRefused: RFC 9110 §14.5 (and the contract, for
// the HTTP API's PUT): an origin server MUST answer 400 to a PUT carrying
// Content-Range, which asks for a partial update. Stored, the fragment
// would be the whole object (or part): a client resuming an upload of
// bytes 5-9 would replace the object with those five bytes.
func TestPutWithContentRangeRefused(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/crng", "")
	e.must(200, "PUT", "/crng/k", "0123456789")
	r := e.do("PUT", "/crng/k", "56789", "Content-Range", "bytes 5-9/10")
	if r.status != 400 || !strings.Contains(r.body, "<Error>") {
		t.Errorf("PUT with Content-Range: %d %q, want a 400 XML error", r.status, r.body)
	}
	if got := e.must(200, "GET", "/crng/k", "").body; got != "0123456789" {
		t.Errorf("after a PUT with Content-Range the object is %q", got)
	}
	id := between(e.must(200, "POST", "/crng/mp?uploads", "").body, "<UploadId>", "</UploadId>")
	r = e.do("PUT", "/crng/mp?partNumber=1&uploadId="+id, "56789", "Content-Range", "bytes 5-9/10")
	if r.status != 400 || !strings.Contains(r.body, "<Error>") {
		t.Errorf("UploadPart with Content-Range: %d %q, want a 400 XML error", r.status, r.body)
	}
	if parts := e.must(200, "GET", "/crng/mp?uploadId="+id, "").body; strings.Contains(parts, "<Part>") {
		t.Errorf("UploadPart with Content-Range stored a part:\n%s", parts)
	}
}

// TestCreateBucketBodyMustBeTheSignedOne: CreateBucket read its body
// (the location constraint, kept for GetBucketLocation) without checking
// it against the x-amz-content-sha256 the request signed.
func TestCreateBucketBodyMustBeTheSignedOne(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	signedBody := []byte(`<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`)
	sentBody := []byte(`<CreateBucketConfiguration><LocationConstraint>us-west-2</LocationConstraint></CreateBucketConfiguration>`)
	r := e.request("PUT", "/located", sentBody)
	newSigner(adminKey, adminSecret).signAll(r, signedBody)
	code, _, body := e.send(r)
	if code != http.StatusBadRequest || xmlValue(body, "Code") != "XAmzContentSHA256Mismatch" {
		t.Errorf("CreateBucket body other than the signed one: %d %s, want 400 XAmzContentSHA256Mismatch", code, body)
	}
	if found, err := e.db.Exists(context.Background(), "located"); err != nil || found {
		t.Errorf("bucket created from an unsigned body: %v %v", found, err)
	}
}
