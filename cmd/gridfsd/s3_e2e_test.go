package main

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

const (
	s3Key    = "s3user"
	s3Secret = "s3user-secret-0123456789"
)

// s3Env is the environment of an S3 client run by a test: its own HOME
// and credentials, and none of the machine's AWS settings.
func s3Env(t *testing.T, secret string) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "AWS_ACCESS_KEY_ID="+s3Key, "AWS_SECRET_ACCESS_KEY="+secret,
		"AWS_DEFAULT_REGION=us-east-1", "AWS_CONFIG_FILE="+filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(home, "none"))
}

func run(t *testing.T, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// serveS3 starts gridfsd serve on a fresh test database, its S3 API on,
// with access control: one admin token whose name and secret are the S3
// key pair s3Key / s3Secret (its configuration file goes in dir). It
// returns the database and the HTTP and S3 addresses.
func serveS3(t *testing.T, dir string) (db *mongo.Database, httpAddr, s3Addr string) {
	t.Helper()
	db = storetest.MustOpenDB(t)
	httpAddr, s3Addr = freeAddr(t), freeAddr(t)
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	cfg := fmt.Sprintf("auth:\n  tokens:\n    - name: %s\n      secret: %q\n      buckets: [\"*\"]\n      access: admin\n", s3Key, s3Secret)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, http.DefaultClient, "http://"+httpAddr, "serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(),
		"--listen", httpAddr, "--s3-listen", s3Addr)
	return db, httpAddr, s3Addr
}

// TestS3RealClients drives Debian's awscli and boto3 against a real
// gridfsd serve with access control on: uploads of awkward sizes (single
// part and multipart) read back byte for byte, metadata round trips,
// presigned URLs through curl, refused bad signatures, listing pages over
// 1,000 keys, and the HTTP API serving what S3 wrote.
func TestS3RealClients(t *testing.T) {
	for _, bin := range []string{"/usr/bin/aws", "/usr/bin/python3", "curl"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is needed (see the README's test command): %v", bin, err)
		}
	}
	dir := t.TempDir()
	db, httpAddr, s3Addr := serveS3(t, dir)
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

	must(aws("s3", "mb", "s3://media"))
	sizes := []int{0, 1, 261119, 261120, 261121, 5<<20 + 3, 20 << 20}
	for _, n := range sizes {
		data := make([]byte, n)
		rand.Read(data)
		src := filepath.Join(dir, fmt.Sprintf("in-%d", n))
		os.WriteFile(src, data, 0o600)
		key := fmt.Sprintf("s3://media/sizes/f-%d", n)
		must(aws("s3", "cp", "--only-show-errors", src, key))
		dst := filepath.Join(dir, fmt.Sprintf("out-%d", n))
		must(aws("s3", "cp", "--only-show-errors", key, dst))
		got, _ := os.ReadFile(dst)
		if !bytes.Equal(got, data) {
			t.Fatalf("size %d: awscli read back %d bytes that differ", n, len(got))
		}
		// The HTTP API serves what S3 wrote.
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/b/media/sizes/f-%d", httpAddr, n), nil)
		req.Header.Set("Authorization", "Bearer "+s3Secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Equal(body, data) {
			t.Fatalf("size %d: GET /b/media/... = %d with %d bytes", n, res.StatusCode, len(body))
		}
	}

	// Metadata and Content-Type round trip.
	src := filepath.Join(dir, "in-1")
	must(aws("s3api", "put-object", "--bucket", "media", "--key", "meta.txt", "--body", src, "--content-type", "text/x-test", "--metadata", "colour=blue,owner=ana"))
	head := must(aws("s3api", "head-object", "--bucket", "media", "--key", "meta.txt"))
	for _, want := range []string{`"ContentType": "text/x-test"`, `"colour": "blue"`, `"owner": "ana"`} {
		if !strings.Contains(head, want) {
			t.Errorf("head-object lacks %s:\n%s", want, head)
		}
	}

	// Presigned GET with curl; a tampered one is refused.
	url := strings.TrimSpace(must(aws("s3", "presign", "s3://media/sizes/f-261121", "--expires-in", "300")))
	out, err := run(t, env, "curl", "-sf", "-o", filepath.Join(dir, "presigned"), url)
	if err != nil {
		t.Fatalf("presigned GET: %v %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "presigned"))
	want, _ := os.ReadFile(filepath.Join(dir, "in-261121"))
	if !bytes.Equal(got, want) {
		t.Fatal("presigned GET returned other bytes")
	}
	tampered := strings.Replace(url, "f-261121", "f-261120", 1)
	if out, _ := run(t, env, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", tampered); out != "403" {
		t.Fatalf("tampered presigned URL: status %s, want 403", out)
	}

	// A wrong secret is refused.
	bad := s3Env(t, "wrong-secret-0123456789")
	if out, err := run(t, bad, "/usr/bin/aws", "--endpoint-url", endpoint, "s3", "ls", "s3://media"); err == nil || !strings.Contains(out, "SignatureDoesNotMatch") {
		t.Fatalf("wrong secret: err %v, output %s", err, out)
	}
	// Unsigned requests are refused too.
	if out, _ := run(t, env, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", endpoint+"/media/meta.txt"); out != "403" {
		t.Fatalf("unsigned GET: status %s, want 403", out)
	}

	// boto3: listing pages over 1,000 keys with prefix and delimiter,
	// ranges, multipart with 5 and 8 MiB parts, abort.
	script := `
import boto3, botocore, sys, os, hashlib
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], region_name="us-east-1")
for i in range(1005):
    s3.put_object(Bucket="media", Key="many/k%04d" % i, Body=b"x")
for d in ("a", "b"):
    s3.put_object(Bucket="media", Key="many/sub%s/inner" % d, Body=b"y")
keys = []
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="media", Prefix="many/", Delimiter="/"):
    keys += [o["Key"] for o in page.get("Contents", [])]
    keys += [p["Prefix"] for p in page.get("CommonPrefixes", [])]
assert len(keys) == 1007, len(keys)
assert keys.count("many/suba/") == 1 and keys.count("many/subb/") == 1, keys[-3:]
assert len(set(keys)) == len(keys)
v1 = []
for page in s3.get_paginator("list_objects").paginate(Bucket="media", Prefix="many/k"):
    v1 += [o["Key"] for o in page.get("Contents", [])]
assert v1 == ["many/k%04d" % i for i in range(1005)], len(v1)
body = s3.get_object(Bucket="media", Key="sizes/f-261121", Range="bytes=261118-")["Body"].read()
full = open(sys.argv[4] + "/in-261121", "rb").read()
assert body == full[261118:], len(body)
try:
    s3.get_object(Bucket="media", Key="sizes/f-1", Range="bytes=5-9")
    raise SystemExit("range past the end accepted")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "InvalidRange", e.response
for size in (5 << 20, 8 << 20):
    parts = [os.urandom(size), os.urandom(size), os.urandom(1234)]
    up = s3.create_multipart_upload(Bucket="media", Key="mp/%d" % size, ContentType="application/x-mp")
    done = []
    for i, p in enumerate(parts, 1):
        r = s3.upload_part(Bucket="media", Key="mp/%d" % size, UploadId=up["UploadId"], PartNumber=i, Body=p)
        done.append({"PartNumber": i, "ETag": r["ETag"]})
    assert len(s3.list_parts(Bucket="media", Key="mp/%d" % size, UploadId=up["UploadId"])["Parts"]) == 3
    r = s3.complete_multipart_upload(Bucket="media", Key="mp/%d" % size, UploadId=up["UploadId"], MultipartUpload={"Parts": done})
    md5s = b"".join(hashlib.md5(p).digest() for p in parts)
    assert r["ETag"] == '"%s-3"' % hashlib.md5(md5s).hexdigest(), r["ETag"]
    got = s3.get_object(Bucket="media", Key="mp/%d" % size)
    assert got["Body"].read() == b"".join(parts)
    assert got["ContentType"] == "application/x-mp"
up = s3.create_multipart_upload(Bucket="media", Key="mp/aborted")
s3.upload_part(Bucket="media", Key="mp/aborted", UploadId=up["UploadId"], PartNumber=1, Body=os.urandom(1 << 20))
assert len(s3.list_multipart_uploads(Bucket="media").get("Uploads", [])) == 1
s3.abort_multipart_upload(Bucket="media", Key="mp/aborted", UploadId=up["UploadId"])
assert len(s3.list_multipart_uploads(Bucket="media").get("Uploads", [])) == 0
try:
    s3.head_object(Bucket="media", Key="mp/aborted")
    raise SystemExit("aborted upload is visible")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "404", e.response
r = s3.delete_objects(Bucket="media", Delete={"Objects": [{"Key": "many/k%04d" % i} for i in range(10)]})
assert len(r["Deleted"]) == 10
print("ok")
`
	out, err = run(t, env, "/usr/bin/python3", "-c", script, endpoint, s3Key, s3Secret, dir)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("boto3: %v\n%s", err, out)
	}

	// Aborted and completed uploads leave no chunks without a files
	// document behind.
	files, err := db.Collection("media.files").CountDocuments(t.Context(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	if err := db.Collection("media.chunks").Distinct(t.Context(), "files_id", bson.D{}).Decode(&ids); err != nil {
		t.Fatal(err)
	}
	if n := len(ids); int64(n) > files {
		t.Fatalf("%d distinct files_ids in chunks, %d files: a multipart upload left chunks behind", n, files)
	}
}

// TestS3BotoTLS runs boto3 over HTTPS (a certificate made by the test),
// where SDKs stream uploads as aws-chunked with a trailing checksum
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER); the content must arrive intact and
// a wrong checksum must be refused.
func TestS3BotoTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := testCert(t, dir)
	db := storetest.MustOpenDB(t)
	httpAddr, s3Addr := freeAddr(t), freeAddr(t)
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	os.WriteFile(cfgFile, []byte(fmt.Sprintf(`
tls:
  cert: %s
  key: %s
auth:
  tokens:
    - name: %s
      secret: "%s"
      buckets: ["*"]
      access: admin
`, certFile, keyFile, s3Key, s3Secret)), 0o600)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	startServe(t, client, "https://"+httpAddr, "serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(),
		"--listen", httpAddr, "--s3-listen", s3Addr)
	script := `
import boto3, botocore, sys, os
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], region_name="us-east-1", verify=sys.argv[4])
s3.create_bucket(Bucket="tls")
for algo in ("CRC32", "CRC32C", "SHA1", "SHA256"):
    for size in (0, 1, 261121, (5 << 20) + 3):
        data = os.urandom(size)
        key = "%s/%d" % (algo, size)
        s3.put_object(Bucket="tls", Key=key, Body=data, ChecksumAlgorithm=algo)
        assert s3.get_object(Bucket="tls", Key=key)["Body"].read() == data, key
try:
    s3.put_object(Bucket="tls", Key="bad", Body=b"hello", ChecksumCRC32="AAAAAA==")
    raise SystemExit("wrong checksum accepted")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "BadDigest", e.response
print("ok")
`
	out, err := run(t, s3Env(t, s3Secret), "/usr/bin/python3", "-c", script, "https://"+s3Addr, s3Key, s3Secret, certFile)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("boto3 over TLS: %v\n%s", err, out)
	}
	if n, _ := db.Collection("tls.files").CountDocuments(t.Context(), bson.D{{Key: "filename", Value: "bad"}}); n != 0 {
		t.Fatal("an upload with a wrong checksum was stored")
	}
}

// TestS3RcloneS3cmd copies a tree with rclone and checks it with rclone
// check (which compares MD5s with the ETags), and round-trips a file with
// s3cmd, which verifies the MD5 of what it downloads.
func TestS3RcloneS3cmd(t *testing.T) {
	for _, bin := range []string{"rclone", "s3cmd"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is needed (see the README's test command): %v", bin, err)
		}
	}
	dir := t.TempDir()
	_, _, s3Addr := serveS3(t, dir)
	src := filepath.Join(dir, "src")
	for name, n := range map[string]int{"a.bin": 3 << 20, "b.txt": 3, "d/c.bin": 261121, "d/e/empty": 0} {
		data := make([]byte, n)
		rand.Read(data)
		os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o700)
		os.WriteFile(filepath.Join(src, name), data, 0o600)
	}
	env := s3Env(t, s3Secret)
	rcloneConf := filepath.Join(dir, "rclone.conf")
	os.WriteFile(rcloneConf, []byte(fmt.Sprintf("[g]\ntype = s3\nprovider = Other\naccess_key_id = %s\nsecret_access_key = %s\nendpoint = http://%s\nforce_path_style = true\nregion = us-east-1\n", s3Key, s3Secret, s3Addr)), 0o600)
	if out, err := run(t, env, "rclone", "--config", rcloneConf, "copy", src, "g:tree"); err != nil {
		t.Fatalf("rclone copy: %v %s", err, out)
	}
	out, err := run(t, env, "rclone", "--config", rcloneConf, "check", src, "g:tree")
	if err != nil {
		t.Fatalf("rclone check: %v %s", err, out)
	}
	s3cfg := filepath.Join(dir, "s3cfg")
	os.WriteFile(s3cfg, []byte(fmt.Sprintf("[default]\naccess_key = %s\nsecret_key = %s\nhost_base = %s\nhost_bucket = %s\nuse_https = False\nsignature_v2 = False\n", s3Key, s3Secret, s3Addr, s3Addr)), 0o600)
	if out, err := run(t, env, "s3cmd", "-c", s3cfg, "put", filepath.Join(src, "a.bin"), "s3://tree/s3cmd/a.bin"); err != nil {
		t.Fatalf("s3cmd put: %v %s", err, out)
	}
	dst := filepath.Join(dir, "a.out")
	if out, err := run(t, env, "s3cmd", "-c", s3cfg, "get", "s3://tree/s3cmd/a.bin", dst); err != nil {
		t.Fatalf("s3cmd get: %v %s", err, out)
	}
	a, _ := os.ReadFile(filepath.Join(src, "a.bin"))
	b, _ := os.ReadFile(dst)
	if !bytes.Equal(a, b) {
		t.Fatal("s3cmd read back other bytes")
	}
	out, err = run(t, env, "s3cmd", "-c", s3cfg, "ls", "-r", "s3://tree")
	if err != nil || strings.Count(out, "s3://tree/") != 5 {
		t.Fatalf("s3cmd ls: %v\n%s", err, out)
	}
}
