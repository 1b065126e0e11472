package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
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

// watchedGateways returns the test database twice: plain, through the
// shared client, and watched, through a client of its own whose every
// command's start calls hook (one gateway's view, whose store traffic
// the test steps into).
func watchedGateways(t *testing.T, hook func(e *event.CommandStartedEvent)) (plain, watched *mongo.Database) {
	t.Helper()
	plain = storetest.MustOpenDB(t)
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) { hook(e) }}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	return plain, client.Database(plain.Name())
}

// TestSweepSparesRevisionThatBecameCurrent: a revision rule
// (keepRevisions 1) hides the older revision A of a name behind B. The
// sweeper lists A as hidden; before it removes A, a client deletes B by
// id, which makes A the name's current revision again (every read serves
// it). The sweeper must decide again, under the name's lease, and leave
// A: the name's only, visible revision.
func TestSweepSparesRevisionThatBecameCurrent(t *testing.T) {
	ctx := context.Background()
	var armed atomic.Bool
	var fired atomic.Bool
	var interfere func()
	plain, watched := watchedGateways(t, func(e *event.CommandStartedEvent) {
		// The sweeper's first lease renewal: it records the batch it
		// listed as pending, just before removing it.
		if !armed.Load() || e.CommandName != "update" {
			return
		}
		if coll, _ := e.Command.Lookup("update").StringValueOK(); coll != buckets.LeasesCollection {
			return
		}
		if fired.CompareAndSwap(false, true) {
			interfere()
		}
	})
	client, err := buckets.NewDB(plain).SetLifecycle(ctx, "fs", []buckets.Rule{{KeepRevisions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := client.Upload(ctx, "doc", bytes.NewReader([]byte("older")), buckets.UploadOptions{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	bRev, err := client.Upload(ctx, "doc", bytes.NewReader([]byte("newer")), buckets.UploadOptions{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Stat(ctx, a.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("the older revision is not hidden: %v", err)
	}
	var cur *buckets.File
	interfere = func() {
		if err := client.Delete(ctx, bRev.ID); err != nil {
			t.Errorf("delete the newest revision by id: %v", err)
			return
		}
		// A is the current revision again, as every door reads it.
		cur, err = client.FindByName(ctx, "doc", -1)
		if err != nil {
			t.Errorf("after deleting the newest revision, the name is not found: %v", err)
		}
	}
	sweeper, err := buckets.NewDB(watched).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	res, err := sweeper.SweepExpired(ctx, buckets.SweepOptions{Rest: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("the sweeper renewed no lease: the test did not step in")
	}
	if cur == nil || cur.ID != a.ID {
		t.Fatalf("after deleting B, the current revision was %v, want A %v", cur, a.ID)
	}
	f, err := client.FindByName(ctx, "doc", -1)
	if err != nil {
		t.Fatalf("the sweep (%+v) removed revision A, which had become the name's current revision: %v", res, err)
	}
	if f.ID != a.ID || chunksOf(t, client, a.ID) != 1 {
		t.Errorf("current revision %v with %d chunks, want A %v with 1", f.ID, chunksOf(t, client, a.ID), a.ID)
	}
}

// TestSweepCountsRevisionOfOverlappingRulesOnce: two revision rules cover
// one name (one for every name, one for logs/). hiddenRevisionBatch walks
// the names of each rule in turn, so it finds the one hidden revision
// twice; the sweep must remove and report it once, one file and its
// bytes (the gateway adds them to gridfsd_expired_files_total and
// gridfsd_expired_bytes_total).
func TestSweepCountsRevisionOfOverlappingRulesOnce(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).SetLifecycle(ctx, "fs", []buckets.Rule{{KeepRevisions: 2}, {Prefix: "logs/", KeepRevisions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"older", "newer"} {
		if _, err := b.Upload(ctx, "logs/a", bytes.NewReader([]byte(s)), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{Rest: -1})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := b.FilesCollection().CountDocuments(ctx, bson.D{})
	if n != 1 || res.Files != 1 || res.Bytes != 5 {
		t.Errorf("sweep %+v left %d files documents; want 1 file of 5 bytes removed, 1 left", res, n)
	}
}

// TestSweepAfterDropOnAnotherGateway: gateway 1 wrote a file with
// an expiry to bucket fs, which created the expireAt index and made
// gateway 1 remember it did. Gateway 2 drops fs (DELETE
// /buckets/fs?force=true), indexes and all. A new file with an expiry
// written through gateway 1 gets no expireAt index (gateway 1 still
// believes it made one), and SweepExpired of a bucket without rules and
// without that index would return at once, and the expired file and its
// chunks would never be removed, by any gateway. Gateway 1's sweep finds
// the index it made gone, and makes the bucket's indexes again, the
// unique {files_id, n} of the chunks included.
func TestSweepAfterDropOnAnotherGateway(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	g1, err := buckets.NewDB(mdb).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Second)
	if _, err := g1.Upload(ctx, "a", bytes.NewReader([]byte("one")), buckets.UploadOptions{ExpireAt: past}); err != nil {
		t.Fatal(err)
	}
	g2, err := buckets.NewDB(mdb).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if err := g2.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := g1.Upload(ctx, "b", bytes.NewReader([]byte("two")), buckets.UploadOptions{ExpireAt: past})
	if err != nil {
		t.Fatal(err)
	}
	swept := false
	for i, g := range []*buckets.Bucket{g1, g2} {
		res, err := g.SweepExpired(ctx, buckets.SweepOptions{Rest: -1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Files > 0 {
			swept = true
			break
		}
		t.Logf("sweep by gateway %d: %+v", i+1, res)
	}
	if !swept {
		n, _ := g1.FilesCollection().CountDocuments(ctx, bson.D{{Key: "_id", Value: f.ID}})
		t.Errorf("neither gateway's sweep removes the expired file %v (files documents left: %d, chunks: %d)", f.ID, n, chunksOf(t, g1, f.ID))
	}
	cur, err := g1.ChunksCollection().Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		key, _ := s.Lookup("key").DocumentOK()
		keys, _ := key.Elements()
		unique, _ := s.Lookup("unique").BooleanOK()
		if len(keys) == 2 && keys[0].Key() == "files_id" && keys[1].Key() == "n" && unique {
			return
		}
	}
	t.Errorf("the chunks of the bucket written again after its drop have no unique {files_id, n} index: %v", specs)
}

// TestAbortUnfinishedSparesACommittingUpload: a rule's abortUnfinishedAfter
// ran while a resumable upload's last append committed on another gateway.
// The sweeper removed the record, found no files document yet and removed
// the chunks; the commit, which had counted them, then wrote the files
// document: a file every door listed and served whose chunks were gone.
// The sweeper now passes over an upload whose lock a request holds.
func TestAbortUnfinishedSparesACommittingUpload(t *testing.T) {
	ctx := context.Background()
	var armed, fired atomic.Bool
	var interfere func()
	plain, watched := watchedGateways(t, func(e *event.CommandStartedEvent) {
		// The commit's insert of the files document: its chunks were
		// counted a moment ago.
		if !armed.Load() || e.CommandName != "insert" {
			return
		}
		if coll, _ := e.Command.Lookup("insert").StringValueOK(); coll != "fs.files" {
			return
		}
		if fired.CompareAndSwap(false, true) {
			interfere()
		}
	})
	sweeper, err := buckets.NewDB(plain).SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "tmp/", AbortUnfinishedAfter: buckets.Age(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	uploader, err := buckets.NewDB(watched).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("z"), 100)
	r, err := uploader.CreateResumable(ctx, buckets.ResumableOptions{Filename: "tmp/r", Length: int64(len(data)), ChunkSize: 16, Expiry: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appendTo(ctx, uploader, r.ID, 0, bytes.NewReader(data[:40]), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	var swept buckets.SweepResult
	interfere = func() {
		// The upload started over an hour ago (the sweeper's clock says).
		var err error
		swept, err = sweeper.SweepExpired(ctx, buckets.SweepOptions{Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
		if err != nil {
			t.Errorf("sweep: %v", err)
		}
	}
	armed.Store(true)
	_, appendErr := appendTo(ctx, uploader, r.ID, 40, bytes.NewReader(data[40:]), buckets.AppendOptions{Expect: -1})
	if !fired.Load() {
		t.Fatalf("the commit wrote no files document (append: %v): the test did not step in", appendErr)
	}
	f, err := sweeper.FindByName(ctx, "tmp/r", -1)
	if errors.Is(err, buckets.ErrFileNotFound) {
		return // aborted for good: nothing published
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := sweeper.Open(ctx, f)
	var got []byte
	if err == nil {
		got, err = io.ReadAll(d)
		d.Close()
	}
	if err != nil || !bytes.Equal(got, data) {
		n, _ := sweeper.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: f.ID}})
		t.Errorf("the sweep (%+v) aborted the upload while it committed (append: %v): file %v is published with %d of 7 chunks; reading it: %d bytes, %v",
			swept, appendErr, f.ID, n, len(got), err)
	}
}
