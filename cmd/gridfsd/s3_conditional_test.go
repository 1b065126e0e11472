package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestS3ConditionalWrites drives boto3 (its If-Match / If-None-Match
// headers added through botocore's event hooks, as Debian's boto3 predates
// the parameters) against gridfsd serve: S3's conditional writes go through
// buckets' commit protocol, so of 8 concurrent PutObject with
// If-None-Match: * exactly one succeeds, 20 rounds in a row; of 8 with one
// If-Match exactly one; CompleteMultipartUpload and DeleteObject honour the
// conditions too.
func TestS3ConditionalWrites(t *testing.T) {
	dir := t.TempDir()
	db, _, s3Addr := serveS3(t, dir)
	script := `
import boto3, botocore, sys, threading
from botocore.config import Config

def client(headers):
    c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],
                     region_name="us-east-1", config=Config(retries={"max_attempts": 1}))
    def add(request, **kw):
        for k, v in headers.items():
            request.headers[k] = v
    c.meta.events.register("before-sign.s3.*", add)
    return c

def code(f):
    try:
        f()
        return "ok"
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"]

def race(key, headers):
    results = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)
    def one(i):
        c = client(headers)
        barrier.wait()
        r = code(lambda: c.put_object(Bucket="cond", Key=key, Body=b"writer %d" % i))
        with lock:
            results.append(r)
    ts = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in ts: t.start()
    for t in ts: t.join()
    return sorted(results)

plain = client({})
plain.create_bucket(Bucket="cond")
for r in range(20):
    got = race("create-%d" % r, {"If-None-Match": "*"})
    assert got == ["PreconditionFailed"] * 7 + ["ok"], ("create", r, got)
for r in range(20):
    key = "replace-%d" % r
    etag = plain.put_object(Bucket="cond", Key=key, Body=b"base")["ETag"]
    got = race(key, {"If-Match": etag})
    assert got == ["PreconditionFailed"] * 7 + ["ok"], ("replace", r, got)

assert code(lambda: client({"If-Match": '"0"'}).put_object(Bucket="cond", Key="missing", Body=b"x")) == "NoSuchKey"
assert code(lambda: client({"If-Match": '"0"'}).delete_object(Bucket="cond", Key="create-0")) == "PreconditionFailed"
assert plain.get_object(Bucket="cond", Key="create-0")["Body"].read().startswith(b"writer ")

mu = plain.create_multipart_upload(Bucket="cond", Key="create-1")
part = plain.upload_part(Bucket="cond", Key="create-1", UploadId=mu["UploadId"], PartNumber=1, Body=b"multipart")
parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
guarded = client({"If-None-Match": "*"})
assert code(lambda: guarded.complete_multipart_upload(Bucket="cond", Key="create-1", UploadId=mu["UploadId"], MultipartUpload=parts)) == "PreconditionFailed"
plain.complete_multipart_upload(Bucket="cond", Key="create-1", UploadId=mu["UploadId"], MultipartUpload=parts)
assert plain.get_object(Bucket="cond", Key="create-1")["Body"].read() == b"multipart"
print("ok")
`
	out, err := run(t, s3Env(t, s3Secret), "/usr/bin/python3", "-c", script, "http://"+s3Addr, s3Key, s3Secret)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("boto3 conditional writes: %v\n%s", err, out)
	}
	for i := range 20 {
		name := fmt.Sprintf("create-%d", i)
		n, err := db.Collection("cond.files").CountDocuments(t.Context(), bson.D{{Key: "filename", Value: name}})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(1)
		if name == "create-1" {
			want = 2 // and the multipart upload's
		}
		if n != want {
			t.Errorf("%s: %d revisions, want %d", name, n, want)
		}
	}
}
