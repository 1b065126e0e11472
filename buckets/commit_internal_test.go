package buckets

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// TestInsertFileReadsBack: an insert that fails although its document
// landed (a retried insert, a lost acknowledgement) is a success and keeps
// the chunks; one whose _id another file holds aborts without touching
// that file; only a document that is certainly absent aborts.
func TestInsertFileReadsBack(t *testing.T) {
	ctx := context.Background()
	b, err := NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id any, name string) bson.Raw {
		raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)},
			{Key: "uploadDate", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "filename", Value: name}})
		return raw
	}
	aborted := 0
	abort := func(err error) error { aborted++; return err }

	landed := doc("landed", "a")
	if _, err := b.files.InsertOne(ctx, landed); err != nil {
		t.Fatal(err)
	}
	f, err := b.insertFile(ctx, landed, abort)
	if err != nil || f.Filename != "a" || aborted != 0 {
		t.Fatalf("an insert that landed: %v, %v, aborted %d", f, err, aborted)
	}

	f, err = b.insertFile(ctx, doc("landed", "b"), abort)
	if !errors.Is(err, ErrFileExists) || f != nil || aborted != 1 {
		t.Fatalf("an _id another file holds: %v, %v, aborted %d", f, err, aborted)
	}
	if got, _ := b.Stat(ctx, "landed"); got == nil || got.Filename != "a" {
		t.Fatalf("the other file changed: %v", got)
	}

	// A document the store refuses is certainly absent: abort.
	bad, _ := bson.Marshal(bson.D{{Key: "_id", Value: "bad"}, {Key: "$bad", Value: 1}})
	if _, err := b.insertFile(ctx, bad, abort); err == nil || aborted != 2 {
		t.Fatalf("a refused insert: %v, aborted %d", err, aborted)
	}
}

// TestCommitTimeout: a conditional commit that cannot get its name's lease
// (a holder that stopped answering, a stuck store) gives up after
// CommitTimeout with nothing stored, so no request and no shutdown waits
// on it for ever; the upload's chunks are removed.
func TestCommitTimeout(t *testing.T) {
	ctx := context.Background()
	b, err := NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { CommitTimeout = d }(CommitTimeout)
	CommitTimeout = 300 * time.Millisecond
	// A lease another gateway holds and keeps alive.
	if _, err := b.leaseColl().InsertOne(ctx, bson.D{{Key: "_id", Value: leaseID("fs", "x")}, {Key: "holder", Value: bson.NewObjectID()},
		{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(time.Hour))}}); err != nil {
		t.Fatal(err)
	}
	u, err := b.OpenUpload(ctx, "x", UploadOptions{ChunkSize: 4, Conditions: Conditions{IfNoneMatch: "*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write([]byte("some bytes")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { _, err := u.Commit(); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("commit waiting for a held lease: %v, want context.DeadlineExceeded", err)
		}
		if took := time.Since(start); took > 20*CommitTimeout {
			t.Errorf("commit gave up after %v, CommitTimeout is %v", took, CommitTimeout)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("commit waiting for a held lease did not give up")
	}
	for _, c := range []*mongo.Collection{b.files, b.chunks} {
		if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
			t.Errorf("%s holds %d documents (%v) after a commit that timed out", c.Name(), n, err)
		}
	}
}
