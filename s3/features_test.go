package s3_test

import (
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// Bucket CORS rules are stored, read back, deleted, and enforced: a
// preflight is answered from them without a signature, other requests
// with an Origin get the headers of the rule that admits them.
func TestBucketCORS(t *testing.T) {
	e := newSignedEnv(t, s3.Config{})
	e.must(403, "PUT", "/corsb", "") // unsigned
	e = newEnv(t, s3.Config{})
	e.must(200, "PUT", "/corsb", "")
	e.must(404, "GET", "/corsb?cors", "")
	e.must(400, "OPTIONS", "/corsb/k", "", "Origin", "https://app.example")
	e.must(403, "OPTIONS", "/corsb/k", "", "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
	cfg := `<CORSConfiguration><CORSRule><AllowedOrigin>https://*.example</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>` +
		`<AllowedHeader>x-amz-*</AllowedHeader><AllowedHeader>content-type</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>` +
		`<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>HEAD</AllowedMethod></CORSRule></CORSConfiguration>`
	e.must(400, "PUT", "/corsb?cors", `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod></CORSRule></CORSConfiguration>`)
	e.must(200, "PUT", "/corsb?cors", cfg)
	got := e.must(200, "GET", "/corsb?cors", "").body
	for _, want := range []string{"<AllowedOrigin>https://*.example</AllowedOrigin>", "<AllowedMethod>PUT</AllowedMethod>", "<MaxAgeSeconds>600</MaxAgeSeconds>", "<ExposeHeader>ETag</ExposeHeader>"} {
		if !strings.Contains(got, want) {
			t.Errorf("GetBucketCors lacks %s:\n%s", want, got)
		}
	}
	for _, tc := range []struct {
		origin, method, headers string
		want                    int
		allow                   string
	}{
		{"https://app.example", "PUT", "X-Amz-Meta-A, Content-Type", 200, "https://app.example"},
		{"https://app.example", "DELETE", "", 403, ""},
		{"https://app.example", "GET", "authorization", 403, ""},
		{"https://app.other", "GET", "", 403, ""},
		{"https://anything", "HEAD", "", 200, "*"},
	} {
		hdr := []string{"Origin", tc.origin, "Access-Control-Request-Method", tc.method}
		if tc.headers != "" {
			hdr = append(hdr, "Access-Control-Request-Headers", tc.headers)
		}
		r := e.do("OPTIONS", "/corsb/some/key", "", hdr...)
		if r.status != tc.want || r.header.Get("Access-Control-Allow-Origin") != tc.allow {
			t.Errorf("preflight %s %s %q: %d allow-origin %q, want %d %q", tc.origin, tc.method, tc.headers, r.status,
				r.header.Get("Access-Control-Allow-Origin"), tc.want, tc.allow)
		}
		if tc.want == 200 && tc.allow != "*" && (r.header.Get("Access-Control-Max-Age") != "600" || r.header.Get("Access-Control-Allow-Methods") != "GET, PUT") {
			t.Errorf("preflight headers: %v", r.header)
		}
	}
	// An actual request: the headers, on success and on error alike.
	r := e.do("GET", "/corsb/missing", "", "Origin", "https://app.example")
	if r.status != 404 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" || r.header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("GET with Origin: %d %v", r.status, r.header)
	}
	if r := e.do("GET", "/corsb/missing", "", "Origin", "https://evil.test"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an origin no rule admits got %q", r.header.Get("Access-Control-Allow-Origin"))
	}
	e.must(204, "DELETE", "/corsb?cors", "")
	e.must(404, "GET", "/corsb?cors", "")
	e.must(403, "OPTIONS", "/corsb/k", "", "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
}

// Object tags live in the files document's top-level tags, never in
// metadata; x-amz-tagging on PutObject sets them, CopyObject copies them;
// bucket tags live in the settings.
func TestTagging(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/tags", "")
	e.must(200, "PUT", "/tags/k", "x", "x-amz-tagging", "colour=blue&size=a%20b", "x-amz-meta-m", "1")
	got := e.must(200, "GET", "/tags/k?tagging", "").body
	if !strings.Contains(got, "<Tag><Key>colour</Key><Value>blue</Value></Tag>") || !strings.Contains(got, "<Key>size</Key><Value>a b</Value>") {
		t.Errorf("GetObjectTagging:\n%s", got)
	}
	if h := e.must(200, "HEAD", "/tags/k", "").header; h.Get("x-amz-tagging-count") != "2" {
		t.Errorf("x-amz-tagging-count %q", h.Get("x-amz-tagging-count"))
	}
	raw := e.send(e.httpURL, "GET", "/b/tags/k", "")
	if md := raw.header.Get("X-Gridfs-Metadata"); strings.Contains(md, "colour") {
		t.Errorf("tags in metadata: %s", md)
	}
	e.must(200, "PUT", "/tags/k?tagging", `<Tagging><TagSet><Tag><Key>a.b</Key><Value>$x</Value></Tag></TagSet></Tagging>`)
	got = e.must(200, "GET", "/tags/k?tagging", "").body
	if !strings.Contains(got, "<Key>a.b</Key><Value>$x</Value>") || strings.Contains(got, "colour") {
		t.Errorf("PutObjectTagging replaced the set:\n%s", got)
	}
	e.must(200, "PUT", "/tags/copy", "", "x-amz-copy-source", "/tags/k")
	if got := e.must(200, "GET", "/tags/copy?tagging", "").body; !strings.Contains(got, "<Key>a.b</Key>") {
		t.Errorf("CopyObject did not copy the tags:\n%s", got)
	}
	var eleven strings.Builder
	for i := range 11 {
		eleven.WriteString("<Tag><Key>k" + string(rune('a'+i)) + "</Key><Value>v</Value></Tag>")
	}
	e.must(400, "PUT", "/tags/k?tagging", "<Tagging><TagSet>"+eleven.String()+"</TagSet></Tagging>")
	e.must(400, "PUT", "/tags/k?tagging", `<Tagging><TagSet><Tag><Key>`+strings.Repeat("k", 129)+`</Key><Value>v</Value></Tag></TagSet></Tagging>`)
	e.must(204, "DELETE", "/tags/k?tagging", "")
	if got := e.must(200, "GET", "/tags/k?tagging", "").body; strings.Contains(got, "<Tag>") {
		t.Errorf("tags after DeleteObjectTagging:\n%s", got)
	}
	e.must(404, "GET", "/tags?tagging", "")
	e.must(204, "PUT", "/tags?tagging", `<Tagging><TagSet><Tag><Key>team</Key><Value>ops</Value></Tag></TagSet></Tagging>`)
	if got := e.must(200, "GET", "/tags?tagging", "").body; !strings.Contains(got, "<Key>team</Key>") {
		t.Errorf("GetBucketTagging:\n%s", got)
	}
	e.must(204, "DELETE", "/tags?tagging", "")
	e.must(404, "GET", "/tags?tagging", "")

	// x-amz-tagging on CreateMultipartUpload tags the object Complete
	// makes; tag sets are answered sorted by key (s3-tests'
	// test_set_multipart_tagging, test_put_obj_with_tags).
	id := between(e.must(200, "POST", "/tags/mp?uploads", "", "x-amz-tagging", "z=1&a=2&m%20n=3").body, "<UploadId>", "</UploadId>")
	etag := e.must(200, "PUT", "/tags/mp?partNumber=1&uploadId="+id, "x").header.Get("ETag")
	e.must(200, "POST", "/tags/mp?uploadId="+id, "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"+etag+"</ETag></Part></CompleteMultipartUpload>")
	if got := e.must(200, "GET", "/tags/mp?tagging", "").body; !strings.Contains(got,
		"<Tag><Key>a</Key><Value>2</Value></Tag><Tag><Key>m n</Key><Value>3</Value></Tag><Tag><Key>z</Key><Value>1</Value></Tag>") {
		t.Errorf("tags of a multipart upload:\n%s", got)
	}
	e.must(400, "POST", "/tags/bad?uploads", "", "x-amz-tagging", "k=%zz")
}
