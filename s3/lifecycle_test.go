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
