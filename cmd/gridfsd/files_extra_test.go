package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestRename(t *testing.T) {
	e := newEnv(t)
	old := e.upload("fs", "old", "1", buckets.UploadOptions{})
	e.upload("fs", "old", "22", buckets.UploadOptions{})
	e.ok("rename", "old", "new")
	if out := e.ok("list"); out != "new\t1\nnew\t2\n" {
		t.Errorf("list after rename of every revision: %q", out)
	}
	e.ok("rename", "--id", buckets.FormatID(old.ID), "first")
	if out := e.ok("list"); out != "first\t1\nnew\t2\n" {
		t.Errorf("list after rename --id: %q", out)
	}
	e.ok("rename", "new", "--revision", "-1", "latest")
	if out := e.ok("list"); out != "first\t1\nlatest\t2\n" {
		t.Errorf("list after rename --revision: %q", out)
	}
	if msg := e.fails("rename", "missing", "x"); !strings.Contains(msg, "file not found") {
		t.Errorf("rename missing: %s", msg)
	}
	if msg := e.fails("rename", "first", "a/../b"); !strings.Contains(msg, "invalid filename") {
		t.Errorf("rename to a bad name: %s", msg)
	}
	if msg := e.fails("rename", "first"); !strings.HasPrefix(msg, "'rename' argument missing") {
		t.Errorf("rename without a new name: %s", msg)
	}
	if msg := e.fails("rename", "--id", "x", "a", "b"); !strings.Contains(msg, "too many") {
		t.Errorf("rename --id with a name too: %s", msg)
	}
}

func TestMeta(t *testing.T) {
	e := newEnv(t)
	f := e.upload("fs", "m", "x", buckets.UploadOptions{ContentType: "text/plain"})
	if out := e.ok("meta", "m"); out != `{"contentType":"text/plain"}`+"\n" {
		t.Errorf("meta: %q", out)
	}
	out := e.ok("meta", "m", "--set", `{"owner":"ann","n":{"$numberLong":"3"}}`)
	if out != `{"owner":"ann","n":3}`+"\n" {
		t.Errorf("meta --set: %q", out)
	}
	got, err := e.bucket("fs").Stat(context.Background(), f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata.Lookup("owner").StringValue() != "ann" || got.Metadata.Lookup("n").Int64() != 3 {
		t.Errorf("stored metadata %v", got.Metadata)
	}
	if out := e.ok("meta", "--id", buckets.FormatID(f.ID), "--set", "{}"); out != "{}\n" {
		t.Errorf("meta --set {}: %q", out)
	}
	if got, _ := e.bucket("fs").Stat(context.Background(), f.ID); got.Metadata != nil {
		t.Errorf("metadata after --set {}: %v", got.Metadata)
	}
	if msg := e.fails("meta", "m", "--set", "[1]"); !strings.Contains(msg, "invalid metadata") {
		t.Errorf("meta --set [1]: %s", msg)
	}
	if msg := e.fails("meta", "missing"); !strings.Contains(msg, "file not found") {
		t.Errorf("meta missing: %s", msg)
	}
}

func TestStat(t *testing.T) {
	e := newEnv(t)
	f := e.upload("fs", "s", "stat me", buckets.UploadOptions{ID: int32(9), ContentType: "text/x-stat", ChunkSize: 3})
	var doc struct {
		ID          int64  `json:"id"`
		Filename    string `json:"filename"`
		Length      int64  `json:"length"`
		ChunkSize   int    `json:"chunkSize"`
		UploadDate  string `json:"uploadDate"`
		ContentType string `json:"contentType"`
		SHA256      string `json:"sha256"`
	}
	for _, args := range [][]string{{"stat", "s"}, {"stat", "--id", "9"}} {
		out := e.ok(args...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %q: %v", args, out, err)
		}
		if doc.ID != 9 || doc.Filename != "s" || doc.Length != 7 || doc.ChunkSize != 3 ||
			doc.ContentType != "text/x-stat" || doc.SHA256 != f.SHA256 || doc.UploadDate == "" {
			t.Errorf("%s: %+v", args, doc)
		}
	}
	out := e.ok("stat", "s", "--raw")
	var raw bson.D
	if err := bson.UnmarshalExtJSON([]byte(out), false, &raw); err != nil {
		t.Fatalf("stat --raw: %q: %v", out, err)
	}
	if !bytes.Contains([]byte(out), []byte(`"metadata":{"contentType":"text/x-stat"}`)) {
		t.Errorf("stat --raw: %s", out)
	}
	if msg := e.fails("stat", "--id", "10"); !strings.Contains(msg, "file not found") {
		t.Errorf("stat of a missing id: %s", msg)
	}
}

func TestCat(t *testing.T) {
	e := newEnv(t)
	const content = "0123456789abcdefghij"
	e.upload("fs", "c", content, buckets.UploadOptions{ChunkSize: 4})
	e.upload("fs", "empty", "", buckets.UploadOptions{})
	for spec, want := range map[string]string{
		"":      content,
		"0-0":   "0",
		"5-9":   "56789",
		"3-":    content[3:],
		"-4":    "ghij",
		"-100":  content,
		"18-99": "ij",
	} {
		args := []string{"cat", "c"}
		if spec != "" {
			args = append(args, "--range", spec)
		}
		if out := e.ok(args...); out != want {
			t.Errorf("cat --range %q: %q, want %q", spec, out, want)
		}
	}
	if out := e.ok("cat", "empty"); out != "" {
		t.Errorf("cat empty: %q", out)
	}
	for _, spec := range []string{"20-", "5-3", "x", "-0", "a-b", "-"} {
		msg := e.fails("cat", "c", "--range", spec)
		if !strings.Contains(msg, "range") {
			t.Errorf("cat --range %q: %s", spec, msg)
		}
	}
	if msg := e.fails("cat", "empty", "--range", "-1"); !strings.Contains(msg, "not satisfiable") {
		t.Errorf("cat --range -1 of an empty file: %s", msg)
	}
}

func TestParseRangeReadsOnlyTheRange(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	f := e.upload("fs", "big", strings.Repeat("x", 40*4096), buckets.UploadOptions{ChunkSize: 4096})
	off, n, err := parseRange("81930-81939", f.Length)
	if err != nil || off != 81930 || n != 10 {
		t.Fatalf("parseRange: %d %d %v", off, n, err)
	}
	// What cat does: seek, then read n bytes. A 10-byte range inside one
	// chunk must cost that chunk and little more, not the file.
	d, err := e.bucket("fs").Open(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Seek(off, 0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, n)
	if _, err := d.Read(buf); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if d.Fetched() > 2*4096 {
		t.Errorf("a 10-byte range fetched %d bytes", d.Fetched())
	}
}

func TestBucketsCommand(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "a", "12345", buckets.UploadOptions{})
	e.ok("buckets", "create", "photos", "--chunk-size", "1KiB", "--max-file-size", "10")
	if out, want := e.ok("buckets"), "fs\t1\t5\t261120\nphotos\t0\t0\t1024\n"; out != want {
		t.Errorf("buckets: %q, want %q", out, want)
	}
	e.writeLocal("p", "photo")
	e.ok("put", "p", "--prefix", "photos")
	f, err := e.bucket("photos").FindByName(context.Background(), "p", -1)
	if err != nil || f.ChunkSize != 1024 {
		t.Errorf("upload into photos: %+v, %v", f, err)
	}
	e.writeLocal("big", "more than ten bytes")
	if msg := e.fails("put", "big", "--prefix", "photos"); !strings.Contains(msg, "larger than the bucket allows") {
		t.Errorf("put past --max-file-size: %s", msg)
	}
	var info struct {
		Name     string `json:"name"`
		Files    int64  `json:"files"`
		Bytes    int64  `json:"bytes"`
		Settings struct {
			ChunkSize int `json:"chunkSize"`
		} `json:"settings"`
	}
	lines := strings.Split(strings.TrimSpace(e.ok("buckets", "--json")), "\n")
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &info) != nil || info.Name != "photos" || info.Files != 1 || info.Settings.ChunkSize != 1024 {
		t.Errorf("buckets --json: %q", lines)
	}
	if msg := e.fails("buckets", "drop", "photos"); !strings.Contains(msg, "not empty") {
		t.Errorf("drop of a bucket with files: %s", msg)
	}
	e.ok("buckets", "drop", "photos", "--force")
	if out := e.ok("buckets"); out != "fs\t1\t5\t261120\n" {
		t.Errorf("buckets after drop: %q", out)
	}
	if msg := e.fails("buckets", "drop", "photos"); !strings.Contains(msg, "bucket not found") {
		t.Errorf("drop of a missing bucket: %s", msg)
	}
	if msg := e.fails("buckets", "create", "bad$name"); !strings.Contains(msg, "invalid bucket name") {
		t.Errorf("create bad$name: %s", msg)
	}
	if msg := e.fails("buckets", "create", "x", "--chunk-size", "0"); !strings.Contains(msg, "invalid chunk size") {
		t.Errorf("create --chunk-size 0: %s", msg)
	}
	if msg := e.fails("buckets", "create", "x", "--chunk-size", "lots"); !strings.Contains(msg, "--chunk-size") {
		t.Errorf("create --chunk-size lots: %s", msg)
	}
}

func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	if p := newProgress(&buf, false, "f", 10<<20); p != nil {
		t.Error("a progress bar on a buffer, which is not a terminal")
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	p := &progress{w: &buf, label: "big.iso", total: 8 << 20, start: start, now: func() time.Time { return now }}
	now = start.Add(2 * time.Second)
	p.add(2 << 20)
	if got, want := p.line(now), "big.iso  2.0 MiB / 8.0 MiB  [======>                 ]  25%  1.0 MiB/s  ETA 6s"; got != want {
		t.Errorf("line:\n%q\nwant\n%q", got, want)
	}
	if !strings.HasPrefix(buf.String(), "\rbig.iso  2.0 MiB") {
		t.Errorf("drawn %q", buf.String())
	}
	now = now.Add(time.Second)
	p.add(6 << 20)
	p.finish()
	if !strings.HasSuffix(buf.String(), "100%  2.7 MiB/s  ETA 0s\x1b[K\n") {
		t.Errorf("final line %q", buf.String())
	}
	unknown := &progress{w: &buf, label: "-", total: -1, start: start, now: func() time.Time { return start.Add(time.Second) }, done: 3 << 20}
	if got := unknown.line(start.Add(time.Second)); got != "-  3.0 MiB  3.0 MiB/s" {
		t.Errorf("line of unknown size: %q", got)
	}
	var nilBar *progress
	nilBar.add(1)
	nilBar.finish()
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLocalPathFor(t *testing.T) {
	for name, ok := range map[string]bool{"a": true, "dir/a": true, "a/../b": true, "../a": false, "/etc/passwd": false, "a/../../b": false, "": false, "..": false} {
		_, err := localPathFor(name)
		if (err == nil) != ok {
			t.Errorf("localPathFor(%q): %v", name, err)
		}
	}
	if _, err := parseID(`{"$oid":"x"}`); !errors.Is(err, buckets.ErrInvalidID) {
		t.Errorf("parseID: %v", err)
	}
}
