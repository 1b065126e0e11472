package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestS3Lifecycle drives awscli and boto3 against gridfsd serve with a
// lifecycle day of six seconds (lifecycle-debug-day) and a sweeper every
// 300 ms: rules set, read back and removed, x-amz-expiration on replies,
// objects gone at once when their rule expires them and their chunks gone
// after the sweep, unfinished multipart uploads aborted, bad rules 400
// with nothing changed.
func TestS3Lifecycle(t *testing.T) {
	for _, bin := range []string{"/usr/bin/aws", "/usr/bin/python3"} {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("%s is needed (see the README's test command): %v", bin, err)
		}
	}
	dir := t.TempDir()
	db := storetest.MustOpenDB(t)
	httpAddr, s3Addr := freeAddr(t), freeAddr(t)
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	cfg := fmt.Sprintf("auth:\n  tokens:\n    - name: %s\n      secret: %q\n      buckets: [\"*\"]\n      access: admin\n", s3Key, s3Secret)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, http.DefaultClient, "http://"+httpAddr, "serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(),
		"--listen", httpAddr, "--s3-listen", s3Addr, "--lifecycle-debug-day", "6s", "--expiry-sweep-interval", "300ms")
	endpoint := "http://" + s3Addr
	env := s3Env(t, s3Secret)
	aws := func(args ...string) (string, error) {
		return run(t, env, "/usr/bin/aws", append([]string{"--endpoint-url", endpoint}, args...)...)
	}
	must := func(out string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	must(aws("s3api", "create-bucket", "--bucket", "lcb"))
	for _, k := range []string{"tmp/a", "tmp/b", "keep/c"} {
		must(aws("s3api", "put-object", "--bucket", "lcb", "--key", k, "--body", cfgFile))
	}
	rules := `{"Rules": [{"ID": "tmp", "Filter": {"Prefix": "tmp/"}, "Status": "Enabled", "Expiration": {"Days": 1}},
		{"ID": "mpu", "Prefix": "", "Status": "Enabled", "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]}`
	must(aws("s3api", "put-bucket-lifecycle-configuration", "--bucket", "lcb", "--lifecycle-configuration", rules))
	got := must(aws("s3api", "get-bucket-lifecycle-configuration", "--bucket", "lcb"))
	for _, want := range []string{`"ID": "tmp"`, `"Days": 1`, `"Prefix": "tmp/"`, `"DaysAfterInitiation": 1`} {
		if !strings.Contains(got, want) {
			t.Errorf("get-bucket-lifecycle-configuration lacks %s:\n%s", want, got)
		}
	}
	// Bad rules: 400, and the rules stay.
	for _, bad := range []string{
		`{"Rules": [{"ID": "zero", "Prefix": "x/", "Status": "Enabled", "Expiration": {"Days": 0}}]}`,
		`{"Rules": [{"ID": "a", "Prefix": "x/", "Status": "Enabled", "Expiration": {"Days": 1}}, {"ID": "a", "Prefix": "y/", "Status": "Enabled", "Expiration": {"Days": 2}}]}`,
		`{"Rules": [{"ID": "date", "Prefix": "x/", "Status": "Enabled", "Expiration": {"Date": "2030-01-01T12:00:00Z"}}]}`,
	} {
		out, err := aws("s3api", "put-bucket-lifecycle-configuration", "--bucket", "lcb", "--lifecycle-configuration", bad)
		if err == nil || !strings.Contains(out, "InvalidArgument") {
			t.Errorf("bad rules %s: %v %s", bad, err, out)
		}
	}
	if got2 := must(aws("s3api", "get-bucket-lifecycle-configuration", "--bucket", "lcb")); got2 != got {
		t.Errorf("rules changed by refused updates:\n%s", got2)
	}
	// x-amz-expiration: a real day after the upload, rounded up to
	// midnight, whatever the debug day.
	putD := time.Now()
	put := must(aws("s3api", "put-object", "--bucket", "lcb", "--key", "tmp/d", "--body", cfgFile))
	if !strings.Contains(put, `"Expiration": "expiry-date=`) || !strings.Contains(put, `rule-id=\"tmp\"`) {
		t.Errorf("put-object reply has no expiration: %s", put)
	}
	head := must(aws("s3api", "head-object", "--bucket", "lcb", "--key", "tmp/d"))
	if !strings.Contains(head, "expiry-date=") {
		t.Errorf("head-object reply has no expiration: %s", head)
	}
	if head := must(aws("s3api", "head-object", "--bucket", "lcb", "--key", "keep/c")); strings.Contains(head, "Expiration") {
		t.Errorf("an object no rule expires has an expiration: %s", head)
	}
	up := must(aws("s3api", "create-multipart-upload", "--bucket", "lcb", "--key", "big"))
	if !strings.Contains(up, "UploadId") {
		t.Fatalf("create-multipart-upload: %s", up)
	}
	time.Sleep(time.Until(putD.Add(6500 * time.Millisecond))) // a "day" has passed
	if out, err := aws("s3api", "head-object", "--bucket", "lcb", "--key", "tmp/d"); err == nil || !strings.Contains(out, "404") {
		t.Errorf("an expired object: %v %s", err, out)
	}
	if out, err := aws("s3api", "head-object", "--bucket", "lcb", "--key", "tmp/a"); err == nil || !strings.Contains(out, "404") {
		t.Errorf("an expired object: %v %s", err, out)
	}
	ls := must(aws("s3api", "list-objects-v2", "--bucket", "lcb"))
	if strings.Contains(ls, "tmp/") || !strings.Contains(ls, "keep/c") {
		t.Errorf("listing after a day: %s", ls)
	}
	// The sweeper removes them, chunks included, and aborts the upload.
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := db.Collection("lcb.files").CountDocuments(context.Background(), bson.D{})
		chunks, _ := db.Collection("lcb.chunks").CountDocuments(context.Background(), bson.D{})
		uploads := must(aws("s3api", "list-multipart-uploads", "--bucket", "lcb"))
		if files == 1 && chunks == 1 && !strings.Contains(uploads, "UploadId") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the sweeps: %d files, %d chunks, uploads %s", files, chunks, uploads)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// boto3: NoncurrentVersionExpiration and Date rules round trip;
	// delete removes the configuration.
	script := `
import boto3, botocore, sys, datetime
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], region_name="us-east-1")
rules = [{"ID": "old", "Filter": {"Prefix": "docs/"}, "Status": "Enabled", "NoncurrentVersionExpiration": {"NoncurrentDays": 3, "NewerNoncurrentVersions": 2}},
         {"ID": "past", "Prefix": "past/", "Status": "Enabled", "Expiration": {"Date": datetime.datetime(2015, 1, 1)}},
         {"ID": "mp", "Prefix": "mp/", "Status": "Enabled", "Expiration": {"Days": 30}}]
s3.put_object(Bucket="lcb", Key="past/x", Body=b"x")
s3.put_bucket_lifecycle_configuration(Bucket="lcb", LifecycleConfiguration={"Rules": rules})
got = s3.get_bucket_lifecycle_configuration(Bucket="lcb")["Rules"]
assert got[0]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 3, "NewerNoncurrentVersions": 2}, got
assert got[1]["Expiration"]["Date"].year == 2015, got
up = s3.create_multipart_upload(Bucket="lcb", Key="mp/x")
etag = s3.upload_part(Bucket="lcb", Key="mp/x", UploadId=up["UploadId"], PartNumber=1, Body=b"y" * 10)["ETag"]
done = s3.complete_multipart_upload(Bucket="lcb", Key="mp/x", UploadId=up["UploadId"], MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
assert 'rule-id="mp"' in done.get("Expiration", ""), done
try:
    s3.head_object(Bucket="lcb", Key="past/x")
    raise SystemExit("an object past its rule's date is served")
except botocore.exceptions.ClientError as e:
    assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 404, e.response
try:
    s3.put_bucket_lifecycle_configuration(Bucket="lcb", LifecycleConfiguration={"Rules": [{"ID": "x", "Prefix": "", "Status": "enabled", "Expiration": {"Days": 1}}]})
    raise SystemExit("a bad Status was taken")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "MalformedXML", e.response
assert len(s3.get_bucket_lifecycle_configuration(Bucket="lcb")["Rules"]) == 3
assert s3.delete_bucket_lifecycle(Bucket="lcb")["ResponseMetadata"]["HTTPStatusCode"] == 204
try:
    s3.get_bucket_lifecycle_configuration(Bucket="lcb")
    raise SystemExit("rules left after delete")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "NoSuchLifecycleConfiguration", e.response
print("ok")
`
	out, err := run(t, env, "/usr/bin/python3", "-c", script, endpoint, s3Key, s3Secret)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("boto3: %v\n%s", err, out)
	}
}
