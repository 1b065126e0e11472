package s3_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/s3"
)

// signV2 signs as Version 2 clients do (botocore's HmacV1Auth, minio-go's
// SignV2): method, Content-MD5, Content-Type, Date, x-amz-* headers and the
// resource with its sub-resources.
func signV2(secret, method, resource, date string, header http.Header) string {
	var amz []string
	for k := range header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-amz-") {
			amz = append(amz, lk+":"+header.Get(k)+"\n")
		}
	}
	sortStrings(amz)
	sts := method + "\n" + header.Get("Content-MD5") + "\n" + header.Get("Content-Type") + "\n" + date + "\n" + strings.Join(amz, "") + resource
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(sts))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Version 2 signatures, in the header and in the query, are checked like
// Version 4 ones: the right secret passes, any change fails.
func TestSignatureV2(t *testing.T) {
	e := newSignedEnv(t, s3.Config{})
	date := time.Now().UTC().Format(http.TimeFormat)
	h := http.Header{}
	auth := func(secret, method, resource string) string {
		return "AWS " + testKey + ":" + signV2(secret, method, resource, date, h)
	}
	e.must(200, "PUT", "/v2bucket", "", "Date", date, "Authorization", auth(testSecret, "PUT", "/v2bucket"))
	// botocore's HmacV1Auth signs a bucket's resource as "/<bucket>/" while
	// its URL is "/<bucket>" (s3-tests' V2 CORS tests were 403 before).
	e.must(200, "PUT", "/v2bucket2", "", "Date", date, "Authorization", auth(testSecret, "PUT", "/v2bucket2/"))
	e.must(403, "PUT", "/v2bucket3", "", "Date", date, "Authorization", auth(testSecret, "PUT", "/v2bucket3/x"))
	h = http.Header{"X-Amz-Meta-Colour": {"blue"}, "Content-Type": {"text/plain"}}
	put := []string{"Date", date, "Content-Type", "text/plain", "X-Amz-Meta-Colour", "blue", "Authorization", auth(testSecret, "PUT", "/v2bucket/a%20key")}
	e.must(200, "PUT", "/v2bucket/a%20key", "hello", put...)
	for _, tc := range []struct {
		name   string
		header []string
		want   int
	}{
		{"wrong secret", []string{"Authorization", auth("not-the-secret-at-all", "PUT", "/v2bucket/a%20key")}, 403},
		{"header changed", []string{"X-Amz-Meta-Colour", "red"}, 403},
		{"old date", []string{"Date", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}, 403},
		{"unknown key", []string{"Authorization", "AWS nobody:" + signV2(testSecret, "PUT", "/v2bucket/a%20key", date, h)}, 403},
		{"malformed", []string{"Authorization", "AWS " + testKey}, 400},
	} {
		hdr := append(append([]string{}, put...), tc.header...)
		if r := e.do("PUT", "/v2bucket/a%20key", "evil", hdr...); r.status != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, r.status, tc.want, r.body)
		}
	}
	// A sub-resource is part of what is signed.
	h = http.Header{}
	e.must(200, "GET", "/v2bucket?uploads", "", "Date", date, "Authorization", auth(testSecret, "GET", "/v2bucket?uploads"))
	// Query form (presigned URL).
	exp := fmt.Sprint(time.Now().Add(time.Minute).Unix())
	sig := signV2(testSecret, "GET", "/v2bucket/a%20key", exp, http.Header{})
	q := "?AWSAccessKeyId=" + testKey + "&Expires=" + exp + "&Signature=" + url.QueryEscape(sig)
	if r := e.must(200, "GET", "/v2bucket/a%20key"+q, ""); r.body != "hello" {
		t.Errorf("presigned V2 GET: %q", r.body)
	}
	old := fmt.Sprint(time.Now().Add(-time.Minute).Unix())
	sig = signV2(testSecret, "GET", "/v2bucket/a%20key", old, http.Header{})
	e.must(403, "GET", "/v2bucket/a%20key?AWSAccessKeyId="+testKey+"&Expires="+old+"&Signature="+url.QueryEscape(sig), "")
	e.must(403, "GET", "/v2bucket/other?AWSAccessKeyId="+testKey+"&Expires="+exp+"&Signature="+url.QueryEscape(sig), "")
	// A link that expires the second it is made (botocore's ExpiresIn=0)
	// never works.
	now := fmt.Sprint(time.Now().Unix())
	sig = signV2(testSecret, "GET", "/v2bucket/a%20key", now, http.Header{})
	e.must(403, "GET", "/v2bucket/a%20key?AWSAccessKeyId="+testKey+"&Expires="+now+"&Signature="+url.QueryEscape(sig), "")
}

// Under --s3-domain, <bucket>.<domain> addresses the bucket (signatures
// of both versions included); the domain itself stays path-style.
func TestVirtualHostedStyle(t *testing.T) {
	e := newSignedEnv(t, s3.Config{Domain: "s3.example.test"})
	date := time.Now().UTC().Format(http.TimeFormat)
	auth := func(method, resource string) string {
		return "AWS " + testKey + ":" + signV2(testSecret, method, resource, date, http.Header{})
	}
	e.must(200, "PUT", "/", "", "Host", "vhost.s3.example.test", "Date", date, "Authorization", auth("PUT", "/vhost/"))
	e.must(200, "PUT", "/dir/key", "by host", "Host", "vhost.s3.example.test:9000", "Date", date, "Authorization", auth("PUT", "/vhost/dir/key"))
	r := e.must(200, "GET", "/vhost/dir/key", "", "Host", "s3.example.test", "Date", date, "Authorization", auth("GET", "/vhost/dir/key"))
	if r.body != "by host" {
		t.Errorf("path-style GET of a virtual-hosted PUT: %q", r.body)
	}
	r = e.must(200, "GET", "/?list-type=2", "", "Host", "vhost.s3.example.test", "Date", date, "Authorization", auth("GET", "/vhost/"))
	if !strings.Contains(r.body, "<Key>dir/key</Key>") || !strings.Contains(r.body, "<Name>vhost</Name>") {
		t.Errorf("virtual-hosted ListObjectsV2:\n%s", r.body)
	}
}

// TestSigV2SignsTheSubResourceThatChoosesTheOperation: a Version 2
// signature covered only AWS's list of sub-resources; publicAccessBlock,
// ownershipControls, policyStatus and attributes, which select other
// operations, were not among them. A V2 presigned URL for DeleteBucket was
// then also a DeletePublicAccessBlock of that bucket (and a PUT for
// CreateBucket a PutPublicAccessBlock with a body of its holder's
// choosing): its holder lifted the bucket's public access block.
func TestSigV2SignsTheSubResourceThatChoosesTheOperation(t *testing.T) {
	e := newSignedEnv(t, s3.Config{})
	date := time.Now().UTC().Format(http.TimeFormat)
	h := http.Header{}
	e.must(200, "PUT", "/locked", "", "Date", date, "Authorization", "AWS "+testKey+":"+signV2(testSecret, "PUT", "/locked", date, h))
	ctx := context.Background()
	block := &buckets.PublicAccessBlock{BlockPublicACLs: true, IgnorePublicACLs: true, RestrictPublicBuckets: true}
	if _, err := e.db.SetPublicAccessBlock(ctx, "locked", block); err != nil {
		t.Fatal(err)
	}
	// The admin hands out a presigned DeleteBucket link (V2 query form).
	exp := fmt.Sprint(time.Now().Add(time.Hour).Unix())
	q := url.Values{"AWSAccessKeyId": {testKey}, "Expires": {exp}, "Signature": {signV2(testSecret, "DELETE", "/locked", exp, http.Header{})}}
	r := e.do("DELETE", "/locked?publicAccessBlock&"+q.Encode(), "")
	if r.status != http.StatusForbidden {
		t.Errorf("presigned V2 DeleteBucket used as DeletePublicAccessBlock: %d %s, want 403 SignatureDoesNotMatch", r.status, r.body)
	}
	b, err := e.db.Bucket(ctx, "locked")
	if err != nil {
		t.Fatal(err)
	}
	if b.Settings().PublicAccessBlock == nil {
		t.Errorf("the bucket's public access block was removed by a link signed for another operation")
	}
	// Signed with its sub-resource, the same operation is served.
	q = url.Values{"AWSAccessKeyId": {testKey}, "Expires": {exp}, "Signature": {signV2(testSecret, "DELETE", "/locked?publicAccessBlock", exp, http.Header{})}}
	if r := e.do("DELETE", "/locked?publicAccessBlock&"+q.Encode(), ""); r.status != http.StatusNoContent {
		t.Errorf("presigned V2 DeletePublicAccessBlock: %d %s, want 204", r.status, r.body)
	}
}
