package buckets_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// appendLocked appends as the tus door does: under the lock, with the
// record read through it, and the lock left lingering for linger.
func appendLocked(ctx context.Context, b *buckets.Bucket, id string, off int64, data []byte, linger time.Duration, opts buckets.AppendOptions) (*buckets.UploadLock, *buckets.Resumable, error) {
	l, _, err := b.LockResumable(ctx, id, 10*time.Second, nil)
	if err != nil {
		return nil, nil, err
	}
	defer l.Linger(linger)
	rec, err := l.Resumable(ctx)
	if err != nil {
		return l, nil, err
	}
	opts.Lock = l
	if opts.Expect == 0 {
		opts.Expect = int64(len(data))
	}
	rec, err = b.AppendResumable(ctx, rec, off, bytes.NewReader(data), opts)
	return l, rec, err
}

// otherGateway is bucket "tus" through a DB of its own on the same store,
// as another gateway sees it.
func otherGateway(t *testing.T, b *buckets.Bucket) (*buckets.DB, *buckets.Bucket) {
	t.Helper()
	db := buckets.NewDB(b.FilesCollection().Database())
	o, err := db.Bucket(context.Background(), b.Name())
	if err != nil {
		t.Fatal(err)
	}
	return db, o
}

func lockDoc(t *testing.T, b *buckets.Bucket, id string) (holder bson.ObjectID, ok bool) {
	t.Helper()
	var doc struct {
		Holder bson.ObjectID `bson:"holder"`
	}
	err := b.FilesCollection().Database().Collection(buckets.UploadLocksCollection).FindOne(context.Background(), bson.D{{Key: "_id", Value: b.Name() + "/" + id}}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return holder, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return doc.Holder, true
}

// TestResumableLockLingers: a lock left lingering is taken over by the
// next request of the same process as it is (same holder in the store);
// it goes at once when another gateway asks for it, however long it was
// to linger; ReleaseUploadLocks gives back what lingers, and from then on
// nothing lingers.
func TestResumableLockLingers(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(3*testChunk + 10)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "linger", Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	l1, _, err := appendLocked(ctx, b, r.ID, 0, data[:1500], time.Hour, buckets.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h1, ok := lockDoc(t, b, r.ID)
	if !ok {
		t.Fatal("no lock document while the lock lingers")
	}
	l2, rec, err := appendLocked(ctx, b, r.ID, 1500, data[1500:2500], time.Hour, buckets.AppendOptions{})
	if err != nil || rec.Offset != 2500 {
		t.Fatalf("second append: %v", err)
	}
	if h2, _ := lockDoc(t, b, r.ID); l2 != l1 || h2 != h1 {
		t.Fatal("the next request of the same process took the lock anew")
	}
	// Another gateway asks: the lingering lock goes within a renewal.
	odb, o := otherGateway(t, b)
	start := time.Now()
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	l3, contended, err := o.LockResumable(short, r.ID, 10*time.Second, nil)
	if err != nil || !contended {
		t.Fatalf("the other gateway's lock: %v, contended %v", err, contended)
	}
	t.Logf("the other gateway waited %s", time.Since(start).Round(time.Millisecond))
	got, err := l3.Resumable(ctx)
	if err != nil || got.Offset != 2500 {
		t.Fatalf("the other gateway reads %v, %v", got, err)
	}
	if _, err := o.AppendResumable(ctx, got, 2500, bytes.NewReader(data[2500:]), buckets.AppendOptions{Expect: int64(len(data) - 2500), Lock: l3}); err != nil {
		t.Fatal(err)
	}
	l3.Linger(time.Hour)
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	// The other gateway stops: what lingers is given back.
	odb.ReleaseUploadLocks()
	if _, ok := lockDoc(t, b, r.ID); ok {
		t.Fatal("ReleaseUploadLocks left the lock document")
	}
	l4, _, err := o.LockResumable(ctx, r.ID, 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	l4.Linger(time.Hour)
	if _, ok := lockDoc(t, b, r.ID); ok {
		t.Fatal("a lock lingered after ReleaseUploadLocks")
	}
}

// TestResumableTakeoverCleansUp: a gateway that died in the middle of an
// append left chunks past the record's offset, which does not say so (an
// append under a lock writes no mark); the next holder takes the expired
// lock over and removes them before it appends.
func TestResumableTakeoverCleansUp(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(5*testChunk + 10)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "takeover", Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := appendLocked(ctx, b, r.ID, 0, data[:2500], 0, buckets.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	// The dead gateway's lock and the chunks it stored past the offset.
	locks := b.FilesCollection().Database().Collection(buckets.UploadLocksCollection)
	if _, err := locks.InsertOne(ctx, bson.D{{Key: "_id", Value: "tus/" + r.ID}, {Key: "holder", Value: bson.NewObjectID()},
		{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(300 * time.Millisecond))}}); err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 3; n++ {
		if _, err := b.ChunksCollection().InsertOne(ctx, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "files_id", Value: r.FileID},
			{Key: "n", Value: int32(n)}, {Key: "data", Value: bson.Binary{Data: bytes.Repeat([]byte{'x'}, testChunk)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if rec, _ := b.Resumable(ctx, r.ID); rec.Writing {
		t.Fatal("the record says writing: this test needs one that does not")
	}
	_, o := otherGateway(t, b)
	if _, _, err := appendLocked(ctx, o, r.ID, 2500, data[2500:], 0, buckets.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
}

// TestResumableFailedAppendUnderLock: an append under a lock that stored
// chunks and then failed (its checksum did not match) says so in the
// record, so that the next append, through the same lingering lock,
// removes them first.
func TestResumableFailedAppendUnderLock(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(4*testChunk + 10)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "failed", Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := appendLocked(ctx, b, r.ID, 0, data[:500], time.Hour, buckets.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	wrong := sha256.Sum256([]byte("not the body"))
	_, _, err = appendLocked(ctx, b, r.ID, 500, data[500:], time.Hour, buckets.AppendOptions{Checksum: sha256.New(), Want: wrong[:]})
	if !errors.Is(err, buckets.ErrChecksumMismatch) {
		t.Fatalf("append with a wrong checksum: %v", err)
	}
	if n, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: r.FileID}}); n == 0 {
		t.Fatal("the refused append stored no chunk: this test needs one that did")
	}
	if rec, _ := b.Resumable(ctx, r.ID); !rec.Writing || rec.Offset != 500 {
		t.Fatalf("the record after the refused append: offset %d, writing %v", rec.Offset, rec.Writing)
	}
	if _, _, err := appendLocked(ctx, b, r.ID, 500, data[500:], time.Hour, buckets.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
}

// TestResumableLingerSeesChanges: the record a lingering lock kept is
// read again after any other change of this process to the upload (a
// length declared, a termination).
func TestResumableLingerSeesChanges(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "changes", Length: -1, ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := appendLocked(ctx, b, r.ID, 0, randomBytes(700), time.Hour, buckets.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if err := b.DeclareResumableLength(ctx, r.ID, 2000); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.LockResumable(ctx, r.ID, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := l.Resumable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Length != 2000 || rec.Offset != 700 {
		t.Fatalf("after the declaration: length %d, offset %d", rec.Length, rec.Offset)
	}
	l.Linger(time.Hour)
	if err := b.TerminateResumable(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.LockResumable(ctx, r.ID, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Resumable(ctx); !errors.Is(err, buckets.ErrResumableNotFound) {
		t.Fatalf("after the termination: %v", err)
	}
}

// unorderedBucket is resumableBucket on a DB that writes as on MongoDB,
// whose durability is not ordered: an append's record update goes to the
// store while its last chunks are inserted (Pending).
func unorderedBucket(t *testing.T) *buckets.Bucket {
	t.Helper()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	db.AssumeUnorderedDurability(context.Background())
	b, err := db.Bucket(context.Background(), "tus")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResumablePendingChunksChecked: on a store whose durability is not
// ordered, an append records its offset while its last chunks are still
// being inserted, naming them in the record. A record whose named chunks
// are not all stored (the gateway died first) is read at the offset
// before them, marked as being written, and the upload goes on from there
// into a file with the right bytes and SHA-256. On the embedded store the
// record follows the last chunks and names none.
func TestResumablePendingChunksChecked(t *testing.T) {
	ctx := context.Background()
	data := randomBytes(10*testChunk + 10)
	end := int64(6*testChunk + 300)
	// appended creates an upload of data in b and appends its first end
	// bytes; it returns the record after that append.
	appended := func(t *testing.T, b *buckets.Bucket) *buckets.Resumable {
		t.Helper()
		r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "pending", Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := appendLocked(ctx, b, r.ID, 0, data[:end], 0, buckets.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		rec, err := b.Resumable(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	t.Run("ordered", func(t *testing.T) {
		b := resumableBucket(t)
		rec := appended(t, b)
		n, err := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: rec.FileID}})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Offset != end || rec.Pending != nil || n != 6 {
			t.Fatalf("record after the append: offset %d, pending %+v, %d chunks", rec.Offset, rec.Pending, n)
		}
	})
	b := unorderedBucket(t)
	r := appended(t, b)
	// The first batch is one chunk (chunker.WriterOptions.FirstBatchBytes),
	// the last one the other five.
	if r.Offset != end || r.Pending == nil || r.Pending.From != 1 || r.Pending.Last != 5 || r.Pending.Offset != testChunk {
		t.Fatalf("record after the append: offset %d, pending %+v", r.Offset, r.Pending)
	}
	// The last insert's chunk 5 never landed.
	if _, err := b.ChunksCollection().DeleteOne(ctx, bson.D{{Key: "files_id", Value: r.FileID}, {Key: "n", Value: int32(5)}}); err != nil {
		t.Fatal(err)
	}
	_, o := otherGateway(t, b)
	rec, err := o.Resumable(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Offset != testChunk || !rec.Writing || rec.Pending != nil || rec.Tail != nil {
		t.Fatalf("record with a pending chunk missing: offset %d, writing %v, pending %+v", rec.Offset, rec.Writing, rec.Pending)
	}
	if _, _, err := appendLocked(ctx, o, r.ID, testChunk, data[testChunk:], 0, buckets.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
}

// TestResumableLastInsertFails: when the last insert of an append fails,
// the append fails and the record, marked as being written, is at the
// offset before that insert (on a store whose durability is not ordered,
// the record update landed and went back; on the embedded store it was
// never sent, so the record is where the append began); the next append
// removes what is left past it and completes the file.
func TestResumableLastInsertFails(t *testing.T) {
	for _, tc := range []struct {
		name      string
		unordered bool
		back      int64 // where the record is after the failure
	}{
		{"ordered", false, 0},
		{"unordered", true, testChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := resumableBucket(t)
			if tc.unordered {
				b = unorderedBucket(t)
			}
			data := randomBytes(10*testChunk + 10)
			r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "lastfails", Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			// A chunk 5 already there (another writer's, or a dead append's that
			// the record does not know of) makes the last insert fail.
			if _, err := b.ChunksCollection().InsertOne(ctx, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "files_id", Value: r.FileID},
				{Key: "n", Value: int32(5)}, {Key: "data", Value: bson.Binary{Data: bytes.Repeat([]byte{'x'}, testChunk)}}}); err != nil {
				t.Fatal(err)
			}
			_, _, err = appendLocked(ctx, b, r.ID, 0, data[:6*testChunk+300], time.Hour, buckets.AppendOptions{})
			if err == nil {
				t.Fatal("the append whose last insert failed succeeded")
			}
			_, o := otherGateway(t, b)
			rec, err := o.Resumable(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Offset != tc.back || !rec.Writing {
				t.Fatalf("record after the last insert failed: offset %d, writing %v", rec.Offset, rec.Writing)
			}
			if _, _, err := appendLocked(ctx, b, r.ID, tc.back, data[tc.back:], 0, buckets.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
				t.Fatal("content differs")
			}
		})
	}
}
