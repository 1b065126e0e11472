package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// damage plants the usual kinds of damage in bucket fs and returns the
// damaged files: one lost a chunk, one has a chunk of the wrong size, one
// has a chunk whose bytes changed.
func damage(t *testing.T, e *env) (missing, short, changed *buckets.File) {
	t.Helper()
	ctx := context.Background()
	chunks := e.bucket("fs").ChunksCollection()
	opts := buckets.UploadOptions{ChunkSize: 4}
	missing = e.upload("fs", "missing", "0123456789", opts)
	short = e.upload("fs", "short", "0123456789", opts)
	changed = e.upload("fs", "changed", "0123456789", opts)
	if _, err := chunks.DeleteOne(ctx, bson.D{{Key: "files_id", Value: missing.ID}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	set := func(id any, data string) {
		_, err := chunks.UpdateOne(ctx, bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: 1}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "data", Value: bson.Binary{Data: []byte(data)}}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	set(short.ID, "45")
	set(changed.ID, "4X67")
	return missing, short, changed
}

func TestVerifyCommand(t *testing.T) {
	e := newEnv(t)
	good := e.upload("fs", "good", "all is well", buckets.UploadOptions{ChunkSize: 4})
	r := e.run(nil, "verify")
	if r.e != nil || r.out != "" {
		t.Fatalf("verify of a sound bucket: %v, %q", r.e, r.out)
	}
	if msgs := logMessages(t, r.err); !regexp.MustCompile(`^verified 1 files \(11 B\) in [0-9.]+[mµn]?s, [0-9.]+ (B|KiB|MiB|GiB)/s: 0 damaged$`).MatchString(msgs[len(msgs)-1]) {
		t.Errorf("verify stderr %q", msgs)
	}
	missing, short, changed := damage(t, e)

	r = e.run(nil, "verify")
	if r.e == nil || oneLine(r.e) != "3 of 4 files are damaged" {
		t.Fatalf("verify of a damaged bucket: %v", r.e)
	}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	want := map[string]string{
		"missing": buckets.FormatID(missing.ID) + "\tchunk 1: chunk is missing",
		"short":   buckets.FormatID(short.ID) + "\tchunk 1 has 2 bytes, want 4: chunk has the wrong size",
		"changed": buckets.FormatID(changed.ID) + "\tsha256 is ",
	}
	if len(lines) != 3 {
		t.Fatalf("verify printed %q", r.out)
	}
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, "\t")
		if !strings.HasPrefix(rest, want[name]) {
			t.Errorf("verify line %q, want %s<TAB>%s...", l, name, want[name])
		}
	}
	// By name and by id.
	e.ok("verify", "good")
	e.ok("verify", "--id", buckets.FormatID(good.ID))
	if msg := e.fails("verify", "good", "short"); msg != "1 of 2 files are damaged" {
		t.Errorf("verify good short: %s", msg)
	}
	if msg := e.fails("verify", "nothing"); !strings.Contains(msg, "file not found") {
		t.Errorf("verify nothing: %s", msg)
	}
}

func TestFsckCommand(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.upload("fs", "good", "all is well", buckets.UploadOptions{ChunkSize: 4})
	if r := e.run(nil, "fsck"); r.e != nil || r.out != "" {
		t.Fatalf("fsck of a sound bucket: %v, %q", r.e, r.out)
	}

	// Orphans: an upload that died two hours ago, and one writing now.
	chunks := e.bucket("fs").ChunksCollection()
	dead := bson.NewObjectID()
	alive := bson.NewObjectID()
	old := time.Now().Add(-2 * time.Hour)
	for n, c := range []struct {
		filesID any
		at      time.Time
	}{{dead, old}, {dead, old.Add(time.Second)}, {alive, time.Now()}} {
		_, err := chunks.InsertOne(ctx, bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(c.at)},
			{Key: "files_id", Value: c.filesID}, {Key: "n", Value: int32(n % 2)}, {Key: "data", Value: bson.Binary{Data: []byte("lost")}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	r := e.run(nil, "fsck")
	if r.e == nil || !strings.Contains(r.e.Error(), "2 orphaned chunks of 1 files in bucket fs (fsck --repair removes them)") {
		t.Fatalf("fsck with orphans: %v", r.e)
	}
	wantLine := "orphan\t" + buckets.FormatID(dead) + "\t2 chunks\tnewest " + old.Add(time.Second).UTC().Format(time.RFC3339) + "\n"
	if r.out != wantLine {
		t.Errorf("fsck printed %q, want %q", r.out, wantLine)
	}
	if msgs := logMessages(t, r.err); !strings.Contains(msgs[len(msgs)-1], "1 files_ids with recent chunks left alone") {
		t.Errorf("fsck stderr %q", msgs)
	}
	// A grace of three hours leaves the dead upload alone too.
	if r := e.run(nil, "fsck", "--grace", "3h"); r.e != nil || r.out != "" {
		t.Errorf("fsck --grace 3h: %v %q", r.e, r.out)
	}
	if msg := e.fails("fsck", "--grace", "0s"); !strings.Contains(msg, "--grace") {
		t.Errorf("fsck --grace 0s: %s", msg)
	}

	r = e.run(nil, "fsck", "--repair")
	if r.e != nil || r.out != "removed\t"+buckets.FormatID(dead)+"\t2 chunks\n" {
		t.Fatalf("fsck --repair: %v, %q", r.e, r.out)
	}
	for id, want := range map[any]int64{dead: 0, alive: 1} {
		if n, _ := chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: id}}); n != want {
			t.Errorf("chunks of %v after repair: %d, want %d", id, n, want)
		}
	}
	if r := e.run(nil, "fsck"); r.e != nil || r.out != "" {
		t.Errorf("fsck after repair: %v %q", r.e, r.out)
	}

	// Damaged files: found, reported, and not something --repair touches.
	missing, short, _ := damage(t, e)
	r = e.run(nil, "fsck", "--repair")
	if r.e == nil || !strings.Contains(r.e.Error(), "2 damaged files in bucket fs") {
		t.Fatalf("fsck of damaged files: %v", r.e)
	}
	want := "damaged\tmissing\t" + buckets.FormatID(missing.ID) + "\t1 of 3 chunks: chunk is missing\n" +
		"damaged\tshort\t" + buckets.FormatID(short.ID) + "\tchunk 1 has 2 bytes, want 4: chunk has the wrong size\n"
	if r.out != want {
		t.Errorf("fsck printed\n%q\nwant\n%q", r.out, want)
	}
	if _, err := e.bucket("fs").Stat(ctx, missing.ID); err != nil {
		t.Errorf("fsck --repair touched a damaged file: %v", err)
	}
}
