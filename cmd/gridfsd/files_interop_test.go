package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// The official driver's GridFS and gridfsd read each other's files.

func TestDriverFilesWorkWithTheCommands(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	gfs := e.db.GridFSBucket()
	content := strings.Repeat("written by the driver ", 50)
	id, err := gfs.UploadFromStream(ctx, "driver.txt", strings.NewReader(content),
		options.GridFSUpload().SetChunkSizeBytes(64).SetMetadata(bson.D{{Key: "contentType", Value: "text/plain"}}))
	if err != nil {
		t.Fatal(err)
	}
	// A second revision and a non-ObjectID id.
	if _, err := gfs.UploadFromStream(ctx, "driver.txt", strings.NewReader("v2")); err != nil {
		t.Fatal(err)
	}
	if err := gfs.UploadFromStreamWithID(ctx, "by-string-id", "driver.bin", strings.NewReader("bin")); err != nil {
		t.Fatal(err)
	}

	if out, want := e.ok("list"), "driver.bin\t3\ndriver.txt\t"+strconv.Itoa(len(content))+"\ndriver.txt\t2\n"; out != want {
		t.Errorf("list: %q, want %q", out, want)
	}
	if out := e.ok("get", "driver.txt", "-l", "-", "--quiet"); out != "v2" {
		t.Errorf("get of the driver's newest revision: %q", out)
	}
	if out := e.ok("get_id", `{"$oid":"`+id.Hex()+`"}`, "-l", "-", "--quiet"); out != content {
		t.Errorf("get_id of the driver's file: %d bytes", len(out))
	}
	if out := e.ok("get_id", "by-string-id", "-l", "-", "--quiet"); out != "bin" {
		t.Errorf("get_id by-string-id: %q", out)
	}
	if out := e.ok("cat", "driver.txt", "--revision", "0", "--range", "64-85"); out != content[64:86] {
		t.Errorf("cat --range across the driver's chunks: %q", out)
	}
	if out := e.ok("meta", "driver.txt", "--revision", "0"); out != `{"contentType":"text/plain"}`+"\n" {
		t.Errorf("meta of the driver's file: %q", out)
	}
	// Files the driver wrote have no sha256: verify checks their structure.
	e.ok("verify")
	e.ok("fsck")
	e.ok("delete", "driver.txt")
	if out := e.ok("list"); out != "driver.bin\t3\n" {
		t.Errorf("list after delete: %q", out)
	}
}

func TestCommandFilesWorkWithTheDriver(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	content := strings.Repeat("written by gridfsd ", 20000) // several default chunks
	e.writeLocal("ours.txt", content)
	e.ok("put", "ours.txt", "-t", "text/plain")
	e.writeLocal("small", "by id")
	e.ok("put_id", "small", "42")

	gfs := e.db.GridFSBucket()
	var buf bytes.Buffer
	if _, err := gfs.DownloadToStreamByName(ctx, "ours.txt", &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != content {
		t.Fatalf("driver read %d bytes, want %d", buf.Len(), len(content))
	}
	buf.Reset()
	if _, err := gfs.DownloadToStream(ctx, int32(42), &buf); err != nil || buf.String() != "by id" {
		t.Fatalf("driver read id 42: %q, %v", buf.String(), err)
	}
	cur, err := gfs.Find(ctx, bson.D{{Key: "filename", Value: "ours.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil || len(docs) != 1 {
		t.Fatalf("driver found %d files, %v", len(docs), err)
	}
	if ct := docs[0].Lookup("metadata", "contentType").StringValue(); ct != "text/plain" {
		t.Errorf("metadata.contentType %q", ct)
	}
	if _, err := docs[0].LookupErr("md5"); err == nil {
		t.Error("files document has the deprecated md5")
	}
	// The driver deletes what gridfsd wrote, chunks included.
	if err := gfs.Delete(ctx, docs[0].Lookup("_id").ObjectID()); err != nil {
		t.Fatal(err)
	}
	if out := e.ok("list"); out != "small\t5\n" {
		t.Errorf("list after the driver's delete: %q", out)
	}
}
