package s3_test

import (
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// A bucket's public access block is kept and answered; BlockPublicAcls
// refuses public canned ACLs, RestrictPublicBuckets withdraws the
// anonymous reads anonymous_read grants; deleted, it is gone.
func TestPublicAccessBlock(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/public", nil)
	e.mustSigned(200, "PUT", "/public/k", []byte("x"))
	if b := e.mustSigned(404, "GET", "/public?publicAccessBlock", nil); xmlValue(b, "Code") != "NoSuchPublicAccessBlockConfiguration" {
		t.Errorf("no block yet: %s", b)
	}
	if code, _, _ := e.send(e.request("GET", "/public/k", nil)); code != 200 {
		t.Fatalf("anonymous read of an anonymous_read bucket: %d", code)
	}
	e.mustSigned(200, "PUT", "/public/k", []byte("x"), "x-amz-acl", "public-read")
	conf := `<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls><IgnorePublicAcls>true</IgnorePublicAcls>` +
		`<BlockPublicPolicy>false</BlockPublicPolicy><RestrictPublicBuckets>true</RestrictPublicBuckets></PublicAccessBlockConfiguration>`
	e.mustSigned(200, "PUT", "/public?publicAccessBlock", []byte(conf))
	got := e.mustSigned(200, "GET", "/public?publicAccessBlock", nil)
	for _, want := range []string{"<BlockPublicAcls>true</BlockPublicAcls>", "<IgnorePublicAcls>true</IgnorePublicAcls>",
		"<BlockPublicPolicy>false</BlockPublicPolicy>", "<RestrictPublicBuckets>true</RestrictPublicBuckets>"} {
		if !strings.Contains(got, want) {
			t.Errorf("GetPublicAccessBlock lacks %s:\n%s", want, got)
		}
	}
	if code, _, _ := e.send(e.request("GET", "/public/k", nil)); code != 403 {
		t.Errorf("anonymous read under RestrictPublicBuckets: %d, want 403", code)
	}
	for _, path := range []string{"/public/k", "/public/k?acl", "/public?acl"} {
		if code, _, b := e.signed("PUT", path, nil, "x-amz-acl", "public-read"); code != 403 {
			t.Errorf("PUT %s with a public ACL under BlockPublicAcls: %d %s", path, code, b)
		}
	}
	e.mustSigned(200, "PUT", "/public/k", []byte("x"), "x-amz-acl", "private")
	e.mustSigned(204, "DELETE", "/public?publicAccessBlock", nil)
	e.mustSigned(404, "GET", "/public?publicAccessBlock", nil)
	if code, _, _ := e.send(e.request("GET", "/public/k", nil)); code != 200 {
		t.Errorf("anonymous read once the block is gone: %d", code)
	}
	e.mustSigned(200, "PUT", "/public/k", []byte("x"), "x-amz-acl", "public-read")
	if code, _, _ := e.send(e.request("PUT", "/public?publicAccessBlock", []byte(conf))); code != 403 {
		t.Errorf("anonymous PutPublicAccessBlock: %d", code)
	}
}
