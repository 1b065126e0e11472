package main

import (
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestS3Interop: one GridFS, three doors. Files put through the HTTP API
// and the mongofiles-compatible put are listed and served by S3 (boto3);
// an object put through S3 is a spec-exact GridFS file that PyMongo's
// GridFSBucket reads byte for byte.
func TestS3Interop(t *testing.T) {
	e := newEnv(t)
	httpAddr, s3Addr := freeAddr(t), freeAddr(t)
	startServe(t, http.DefaultClient, "http://"+httpAddr, "serve", "--uri", e.uri, "--db", e.db.Name(),
		"--listen", httpAddr, "--s3-listen", s3Addr)

	viaHTTP := make([]byte, 300_000)
	rand.Read(viaHTTP)
	req, _ := http.NewRequest(http.MethodPut, "http://"+httpAddr+"/b/fs/doors/http.bin", bytes.NewReader(viaHTTP))
	req.Header.Set("Content-Type", "application/x-from-http")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("PUT through HTTP: %v %v", res, err)
	}
	res.Body.Close()
	viaCLI := make([]byte, 70_000)
	rand.Read(viaCLI)
	e.writeLocal("cli.bin", string(viaCLI))
	e.ok("put", "doors/cli.bin", "-l", "cli.bin", "--quiet")

	viaS3 := make([]byte, 600_001)
	rand.Read(viaS3)
	os.WriteFile(filepath.Join(e.dir, "s3.bin"), viaS3, 0o600)
	os.WriteFile(filepath.Join(e.dir, "http.bin"), viaHTTP, 0o600)

	script := `
import boto3, sys, hashlib, gridfs, pymongo
endpoint, uri, db, dir = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="any", aws_secret_access_key="any-secret-0123456789", region_name="us-east-1")
listed = {o["Key"]: o for o in s3.list_objects_v2(Bucket="fs", Prefix="doors/")["Contents"]}
assert sorted(listed) == ["doors/cli.bin", "doors/http.bin"], sorted(listed)
http_bytes = open(dir + "/http.bin", "rb").read()
got = s3.get_object(Bucket="fs", Key="doors/http.bin")
assert got["Body"].read() == http_bytes
assert got["ContentType"] == "application/x-from-http", got["ContentType"]
assert listed["doors/http.bin"]["Size"] == len(http_bytes)
cli_bytes = open(dir + "/cli.bin", "rb").read()
assert s3.get_object(Bucket="fs", Key="doors/cli.bin")["Body"].read() == cli_bytes
# An ETag that is not the MD5 of the content must not look like one.
etag = listed["doors/cli.bin"]["ETag"].strip('"')
assert etag != hashlib.md5(cli_bytes).hexdigest() and "-" in etag, etag

s3_bytes = open(dir + "/s3.bin", "rb").read()
s3.put_object(Bucket="fs", Key="doors/s3.bin", Body=s3_bytes, Metadata={"origin": "s3"})
database = pymongo.MongoClient(uri)[db]
bucket = gridfs.GridFSBucket(database)
out = bucket.open_download_stream_by_name("doors/s3.bin")
assert out.read() == s3_bytes
doc = database["fs.files"].find_one({"filename": "doors/s3.bin"})
assert doc["length"] == len(s3_bytes) and doc["chunkSize"] > 0, doc
assert doc["metadata"]["origin"] == "s3", doc
chunks = list(database["fs.chunks"].find({"files_id": doc["_id"]}).sort("n", 1))
n = -(-len(s3_bytes) // doc["chunkSize"])
assert [c["n"] for c in chunks] == list(range(n)), [c["n"] for c in chunks]
assert all(len(c["data"]) == doc["chunkSize"] for c in chunks[:-1])
assert b"".join(c["data"] for c in chunks) == s3_bytes
print("ok")
`
	out, err := run(t, s3Env(t, "any-secret-0123456789"), "/usr/bin/python3", "-c", script, "http://"+s3Addr, e.uri, e.db.Name(), e.dir)
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("boto3 and pymongo: %v\n%s", err, out)
	}
	// And the HTTP API serves what S3 wrote, with the MD5 ETag S3 gave it.
	res, err = http.Get("http://" + httpAddr + "/b/fs/doors/s3.bin")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(body.Bytes(), viaS3) {
		t.Fatalf("GET /b/fs/doors/s3.bin: %d, %d bytes", res.StatusCode, body.Len())
	}
	var stored struct {
		S3ETag string `bson:"s3ETag"`
	}
	if err := e.db.Collection("fs.files").FindOne(t.Context(), map[string]string{"filename": "doors/s3.bin"}).Decode(&stored); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x", md5.Sum(viaS3)); stored.S3ETag != want {
		t.Errorf("s3ETag = %q, want the MD5 %s", stored.S3ETag, want)
	}
}
