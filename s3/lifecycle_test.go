package s3_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/s3"
)

// TestLifecycleRoundTrip: rules set through the HTTP API (or the
// command line) are shown by GetBucketLifecycleConfiguration, and what it
// shows must be a configuration PutBucketLifecycleConfiguration takes
// back unchanged (aws s3api get-bucket-lifecycle-configuration, edit,
// put: every tool that adds a rule does that). A keepRevisions rule
// without expireOldRevisionsAfter is shown with
// <NoncurrentDays>0</NoncurrentDays>, which AWS refuses (NoncurrentDays
// must be at least 1) and gridfsd takes: else the bucket's lifecycle could
// no longer be edited through S3.
func TestLifecycleRoundTrip(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(http.StatusOK, "PUT", "/lcb", "")
	for _, rules := range [][]buckets.Rule{
		{{ID: "keep3", KeepRevisions: 3}},
		{{ID: "keep1", Prefix: "logs/", KeepRevisions: 1}},
		{{ID: "both", KeepRevisions: 2, ExpireOldRevisionsAfter: buckets.Age(48 * time.Hour)}},
	} {
		if _, err := e.db.SetLifecycle(context.Background(), "lcb", rules); err != nil {
			t.Fatal(err)
		}
		got := e.must(http.StatusOK, "GET", "/lcb?lifecycle", "")
		r := e.do("PUT", "/lcb?lifecycle", got.body)
		if r.status != http.StatusOK {
			t.Errorf("rule %q: the configuration GetBucketLifecycleConfiguration shows is refused by PutBucketLifecycleConfiguration: %d %s\nshown: %s",
				rules[0].ID, r.status, r.body, got.body)
			continue
		}
		b, err := e.db.Bucket(context.Background(), "lcb")
		if err != nil {
			t.Fatal(err)
		}
		if back := b.Settings().Lifecycle; !reflect.DeepEqual(back, rules) {
			t.Errorf("rules %+v come back from Get and Put as %+v", rules, back)
		}
	}
}

// TestLifecycleBodyMustBeTheSignedOne: PutBucketLifecycleConfiguration
// read its body without checking it against the x-amz-content-sha256 (or
// the Content-MD5) that the request signed, unlike every other XML body
// (readSmallBody). Whoever held a signed request (a replay within the
// 15 minutes of clock skew, a proxy) swapped the body: a rule that expires
// tmp/ after 30 days became one that expires every file after a day.
func TestLifecycleBodyMustBeTheSignedOne(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/lcb", nil)
	signedBody := []byte(`<LifecycleConfiguration><Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`)
	sentBody := []byte(`<LifecycleConfiguration><Rule><ID>all</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`)

	r := e.request("PUT", "/lcb?lifecycle", sentBody)
	newSigner(adminKey, adminSecret).signAll(r, signedBody) // x-amz-content-sha256 of signedBody
	code, _, body := e.send(r)
	if code != http.StatusBadRequest || xmlValue(body, "Code") != "XAmzContentSHA256Mismatch" {
		t.Errorf("lifecycle body other than the signed one: %d %s, want 400 XAmzContentSHA256Mismatch", code, body)
	}
	// Content-MD5, signed too, is not checked either.
	r = e.request("PUT", "/lcb?lifecycle", sentBody, "Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==") // MD5 of ""
	newSigner(adminKey, adminSecret).signAll(r, sentBody)
	if code, _, body := e.send(r); code != http.StatusBadRequest {
		t.Errorf("lifecycle body with a wrong Content-MD5: %d %s, want 400 BadDigest", code, body)
	}
	b, err := e.db.Bucket(context.Background(), "lcb")
	if err != nil {
		t.Fatal(err)
	}
	if rules := b.Settings().Lifecycle; len(rules) > 0 {
		t.Errorf("rules stored from an unsigned body: %+v", rules)
	}
}
