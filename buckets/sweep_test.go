package buckets_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// chunksOf counts the chunks stored under files_id id.
func chunksOf(t *testing.T, b *buckets.Bucket, id any) int64 {
	t.Helper()
	n, err := b.ChunksCollection().CountDocuments(context.Background(), bson.D{{Key: "files_id", Value: id}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSweepRemovesExpiredFilesAndChunks(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "tmp/", ExpireAfter: buckets.Age(time.Hour)}, {KeepRevisions: 1, Prefix: "rev"}})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 100)
	past := time.Now().Add(-time.Minute)
	var expired []any
	for i := range 7 {
		f, err := b.Upload(ctx, "gone", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16, ExpireAt: past.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		expired = append(expired, f.ID)
	}
	keep, err := b.Upload(ctx, "keep", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16, ExpireAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	young, err := b.Upload(ctx, "tmp/young", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	old1, err := b.Upload(ctx, "rev", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	rev2, err := b.Upload(ctx, "rev", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	expired = append(expired, old1.ID)
	if n, err := b.ExpiredPresent(ctx); err != nil || n != 7 {
		t.Fatalf("ExpiredPresent %d, %v; want 7", n, err)
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 8 || res.Bytes != 800 || res.Busy || res.Lag < 50*time.Second {
		t.Fatalf("sweep %+v; want 8 files of 800 bytes, lag over 50s", res)
	}
	for _, id := range expired {
		if n := chunksOf(t, b, id); n != 0 {
			t.Errorf("%v: %d chunks left", id, n)
		}
		if n, _ := b.FilesCollection().CountDocuments(ctx, bson.D{{Key: "_id", Value: id}}); n != 0 {
			t.Errorf("%v: files document left", id)
		}
	}
	for _, id := range []any{keep.ID, young.ID, rev2.ID} {
		if _, err := b.Stat(ctx, id); err != nil || chunksOf(t, b, id) != 7 {
			t.Errorf("%v: a live file was touched: %v", id, err)
		}
	}
	if res, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil || res.Files != 0 {
		t.Errorf("second sweep %+v, %v", res, err)
	}
	// By the rule's age, with a clock an hour ahead.
	res, err = b.SweepExpired(ctx, buckets.SweepOptions{Now: func() time.Time { return time.Now().Add(61 * time.Minute) }})
	if err != nil || res.Files != 2 { // tmp/young, and keep whose expireAt passed
		t.Errorf("sweep an hour later %+v, %v", res, err)
	}
}

func TestTwoSweepersShareABucket(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(mdb).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for range n {
		if _, err := b.Upload(ctx, "f", bytes.NewReader([]byte("data")), buckets.UploadOptions{ExpireAt: time.Now().Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	// Two gateways: two DBs on one database, sweeping in rounds until
	// nothing is left.
	var total, busy int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gb, err := buckets.NewDB(mdb).Bucket(ctx, "fs")
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				res, err := gb.SweepExpired(ctx, buckets.SweepOptions{Batch: 4})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total += res.Files
				if res.Busy {
					busy++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if total != n {
		t.Errorf("the sweepers removed %d files together, want %d (no double work)", total, n)
	}
	if left, _ := b.FilesCollection().CountDocuments(ctx, bson.D{}); left != 0 {
		t.Errorf("%d files left", left)
	}
	t.Logf("busy answers: %d", busy)
}

func TestSweepFinishesAKilledSweepersBatch(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(mdb).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	f, err := b.Upload(ctx, "f", bytes.NewReader(bytes.Repeat([]byte("y"), 64)), buckets.UploadOptions{ChunkSize: 16, ExpireAt: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := b.Upload(ctx, "g", bytes.NewReader(bytes.Repeat([]byte("y"), 64)), buckets.UploadOptions{ChunkSize: 16, ExpireAt: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	// What a sweeper killed between a files document and its chunks
	// leaves: f's files document gone, its chunks there, its lease
	// expired with the batch pending.
	if _, err := b.FilesCollection().DeleteOne(ctx, bson.D{{Key: "_id", Value: f.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := mdb.Collection(buckets.LeasesCollection).InsertOne(ctx, bson.D{
		{Key: "_id", Value: buckets.SweepLeaseID("fs")}, {Key: "holder", Value: bson.NewObjectID()},
		{Key: "expires", Value: time.Now().Add(-time.Second)}, {Key: "pending", Value: bson.A{f.ID, g.ID}},
	}); err != nil {
		t.Fatal(err)
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{})
	if err != nil || res.Files != 1 {
		t.Fatalf("sweep %+v, %v", res, err)
	}
	if chunksOf(t, b, f.ID) != 0 || chunksOf(t, b, g.ID) != 0 {
		t.Errorf("chunks left: %d of f, %d of g", chunksOf(t, b, f.ID), chunksOf(t, b, g.ID))
	}
	// A live lease keeps others out.
	if _, err := mdb.Collection(buckets.LeasesCollection).InsertOne(ctx, bson.D{
		{Key: "_id", Value: buckets.SweepLeaseID("fs")}, {Key: "holder", Value: bson.NewObjectID()},
		{Key: "expires", Value: time.Now().Add(time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil || !res.Busy {
		t.Errorf("sweep under another's lease: %+v, %v", res, err)
	}
}

func TestSweepAbortsUnfinishedUploads(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "tmp/", AbortUnfinishedAfter: buckets.Age(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "tmp/r", Length: 100, ChunkSize: 16, Expiry: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appendTo(ctx, b, r.ID, 0, bytes.NewReader(make([]byte, 40)), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	other, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "keep/r", Length: 100, ChunkSize: 16, Expiry: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	mu, err := b.CreateMultipart(ctx, "tmp/m", buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil || res.Uploads != 0 {
		t.Fatalf("sweep now: %+v, %v", res, err)
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
	if err != nil || res.Uploads != 2 {
		t.Fatalf("sweep two hours later: %+v, %v; want 2 uploads aborted", res, err)
	}
	if _, err := b.Resumable(ctx, r.ID); err == nil {
		t.Error("the resumable upload under tmp/ is still there")
	}
	if n := chunksOf(t, b, r.FileID); n != 0 {
		t.Errorf("%d chunks of the aborted resumable upload left", n)
	}
	if _, err := b.Multipart(ctx, mu.ID); err == nil {
		t.Error("the multipart upload under tmp/ is still there")
	}
	if _, err := b.Resumable(ctx, other.ID); err != nil {
		t.Errorf("an upload no rule covers was aborted: %v", err)
	}
}

// TestSweepLeavesOtherBucketsAlone: a bucket that never had an expiry gets
// no index and no lease from the sweeper, even without a files collection.
func TestSweepLeavesOtherBucketsAlone(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(mdb).Bucket(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil || res.Files != 0 {
		t.Fatalf("sweep of a bucket without collections: %+v, %v", res, err)
	}
	if _, err := b.Upload(ctx, "f", bytes.NewReader([]byte("x")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := b.FilesCollection().Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if _, err := s.Lookup("key").Document().LookupErr("expireAt"); err == nil {
			t.Errorf("the sweeper built an expireAt index on a bucket without expiry: %v", s)
		}
	}
	if n, _ := mdb.Collection(buckets.LeasesCollection).CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("%d leases left", n)
	}
}
