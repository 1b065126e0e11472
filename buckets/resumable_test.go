package buckets_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

const testChunk = 1000

func resumableBucket(t *testing.T) *buckets.Bucket {
	t.Helper()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(context.Background(), "tus")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// appendTo appends under the upload's lock, as the tus door does.
func appendTo(ctx context.Context, b *buckets.Bucket, id string, off int64, r io.Reader, opts buckets.AppendOptions) (*buckets.Resumable, error) {
	l, _, err := b.LockResumable(ctx, id, 10*time.Second, nil)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	rec, err := b.Resumable(ctx, id)
	if err != nil {
		return nil, err
	}
	return b.AppendResumable(ctx, rec, off, r, opts)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// readBack reads the committed file with _id id and checks its sha256.
func readBack(t *testing.T, b *buckets.Bucket, id any) []byte {
	t.Helper()
	d, err := b.OpenID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	if sum := fmt.Sprintf("%x", sha256.Sum256(got)); d.File.SHA256 != sum {
		t.Fatalf("stored sha256 %s, content's %s", d.File.SHA256, sum)
	}
	return got
}

// TestResumableAppends sends files in appends of every awkward size (inside
// a chunk, ending on and one past a boundary, empty) and reads each back.
func TestResumableAppends(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	for _, pieces := range [][]int{
		{0},
		{1},
		{testChunk - 1},
		{testChunk + 1},
		{testChunk, testChunk},
		{10, 0, 990, 1, 999, 2500, 3},
		{7, 7, 7, 7, testChunk*3 + 5},
	} {
		total := 0
		for _, n := range pieces {
			total += n
		}
		data := randomBytes(total)
		name := fmt.Sprintf("f%v", pieces)
		r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: name, Length: int64(total), ChunkSize: testChunk, Expiry: time.Hour, ContentType: "text/plain"})
		if err != nil {
			t.Fatal(err)
		}
		if total == 0 {
			if r, err = b.FinishResumable(ctx, r.ID); err != nil || !r.Finished {
				t.Fatalf("finish empty: %v %+v", err, r)
			}
		}
		off := 0
		for i, n := range pieces {
			if total == 0 {
				break
			}
			// Every other append announces its length (and may record
			// progress), as tus clients do.
			expect := int64(-1)
			if i%2 == 1 {
				expect = int64(n)
			}
			rec, err := appendTo(ctx, b, r.ID, int64(off), bytes.NewReader(data[off:off+n]), buckets.AppendOptions{Expect: expect})
			if err != nil {
				t.Fatalf("%s: append %d at %d: %v", name, n, off, err)
			}
			off += n
			if rec.Offset != int64(off) || rec.Finished != (off == total) {
				t.Fatalf("%s: record %+v after %d bytes", name, rec, off)
			}
		}
		f, err := b.FindByName(ctx, name, -1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.ID != r.FileID || f.ChunkSize != testChunk {
			t.Fatalf("%s: file %+v", name, f)
		}
		if got := readBack(t, b, f.ID); !bytes.Equal(got, data) {
			t.Fatalf("%s: content differs", name)
		}
		// The record answers until it expires.
		rec, err := b.Resumable(ctx, r.ID)
		if err != nil || rec.Offset != int64(total) || !rec.Finished {
			t.Fatalf("%s: record after finish: %+v %v", name, rec, err)
		}
	}
}

// TestResumableRefusals: a wrong offset, a checksum mismatch, a body past
// the length leave the upload as it was; a cut append keeps what arrived.
func TestResumableRefusals(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(5000)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "refuse", Length: 5000, ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appendTo(ctx, b, r.ID, 0, bytes.NewReader(data[:1500]), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := appendTo(ctx, b, r.ID, 1000, bytes.NewReader(data[1000:2000]), buckets.AppendOptions{Expect: -1}); !errors.Is(err, buckets.ErrOffsetMismatch) {
		t.Fatalf("wrong offset: %v", err)
	}
	// A checksum of other bytes: nothing appended, though the bytes were
	// written into the chunks before the sum was known.
	wrong := sha1.Sum([]byte("other"))
	_, err = appendTo(ctx, b, r.ID, 1500, bytes.NewReader(bytes.Repeat([]byte("x"), 1700)), buckets.AppendOptions{Checksum: sha1.New(), Want: wrong[:], Expect: 1700})
	if !errors.Is(err, buckets.ErrChecksumMismatch) {
		t.Fatalf("checksum: %v", err)
	}
	if rec, _ := b.Resumable(ctx, r.ID); rec.Offset != 1500 {
		t.Fatalf("offset after a mismatch: %d", rec.Offset)
	}
	// Past the length.
	if _, err := appendTo(ctx, b, r.ID, 1500, bytes.NewReader(randomBytes(3501)), buckets.AppendOptions{Expect: -1}); !errors.Is(err, buckets.ErrTooLarge) {
		t.Fatalf("too long: %v", err)
	}
	// A right checksum.
	right := sha1.Sum(data[1500:2600])
	if _, err := appendTo(ctx, b, r.ID, 1500, bytes.NewReader(data[1500:2600]), buckets.AppendOptions{Checksum: sha1.New(), Want: right[:], Expect: 1100}); err != nil {
		t.Fatal(err)
	}
	// A client gone mid-body: what arrived stays.
	cut := io.MultiReader(bytes.NewReader(data[2600:3333]), errReader{})
	rec, err := appendTo(ctx, b, r.ID, 2600, eofOnError{cut}, buckets.AppendOptions{Expect: 2400})
	if err != nil || rec.Offset != 3333 {
		t.Fatalf("cut: %v %+v", err, rec)
	}
	if _, err := appendTo(ctx, b, r.ID, 3333, bytes.NewReader(data[3333:]), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	f, err := b.FindByName(ctx, "refuse", -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, b, f.ID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	n, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: f.ID}})
	if n != 5 {
		t.Fatalf("%d chunks", n)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// eofOnError reads as tusd's body reader does: a failed body ends.
type eofOnError struct{ r io.Reader }

func (e eofOnError) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		return n, io.EOF
	}
	return n, nil
}

// TestResumableConditions: If-None-Match: * is checked again at the
// commit, atomically; the losing upload is gone with its chunks.
func TestResumableConditions(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	cond := buckets.Conditions{IfNoneMatch: "*"}
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "once", Length: 10, ChunkSize: testChunk, Expiry: time.Hour, Conditions: cond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "once", bytes.NewReader([]byte("first")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "once", Length: 10, Expiry: time.Hour, Conditions: cond}); !errors.Is(err, buckets.ErrPreconditionFailed) {
		t.Fatalf("create: %v", err)
	}
	_, err = appendTo(ctx, b, r.ID, 0, bytes.NewReader(randomBytes(10)), buckets.AppendOptions{Expect: -1})
	if !errors.Is(err, buckets.ErrPreconditionFailed) {
		t.Fatalf("commit: %v", err)
	}
	if _, err := b.Resumable(ctx, r.ID); !errors.Is(err, buckets.ErrResumableNotFound) {
		t.Fatalf("upload after a failed commit: %v", err)
	}
	if n, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: r.FileID}}); n != 0 {
		t.Fatalf("%d chunks left", n)
	}
}

// TestResumableConcat joins aligned parts by relabelling and others by
// copying; the parts are gone afterwards.
func TestResumableConcat(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	for _, sizes := range [][]int{{2000, 3000, 17}, {1999, 5, 1000}} {
		var ids []string
		var all []byte
		for _, n := range sizes {
			data := randomBytes(n)
			p, err := b.CreateResumable(ctx, buckets.ResumableOptions{Partial: true, Length: int64(n), ChunkSize: testChunk, Expiry: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := appendTo(ctx, b, p.ID, 0, bytes.NewReader(data), buckets.AppendOptions{Expect: -1}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
			all = append(all, data...)
		}
		name := fmt.Sprint(sizes)
		final, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: name, Length: int64(len(all)), Expiry: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := b.ConcatResumable(ctx, final.ID, ids)
		if err != nil || !rec.Finished {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := b.FindByName(ctx, name, -1)
		if err != nil {
			t.Fatal(err)
		}
		if got := readBack(t, b, f.ID); !bytes.Equal(got, all) {
			t.Fatalf("%s: content differs", name)
		}
		for _, id := range ids {
			if _, err := b.Resumable(ctx, id); !errors.Is(err, buckets.ErrResumableNotFound) {
				t.Fatalf("part %s: %v", id, err)
			}
		}
	}
}

// TestResumableSweep: the orphan scan never counts an unfinished upload's
// chunks, however old; an expired upload goes with its chunks; a finished
// one's record goes and its file stays.
func TestResumableSweep(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	live, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "live", Length: 5000, ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	short, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "short", Length: 5000, ChunkSize: testChunk, Expiry: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "done", Length: 3, ChunkSize: testChunk, Expiry: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*buckets.Resumable{live, short} {
		if _, err := appendTo(ctx, b, r.ID, 0, bytes.NewReader(randomBytes(2500)), buckets.AppendOptions{Expect: -1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := appendTo(ctx, b, done.ID, 0, bytes.NewReader([]byte("abc")), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	orphans, err := b.FindOrphans(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans.Old)+len(orphans.Pending) != 0 {
		t.Fatalf("orphans: %+v", orphans)
	}
	time.Sleep(1700 * time.Millisecond)
	if _, err := b.Resumable(ctx, short.ID); !errors.Is(err, buckets.ErrResumableExpired) {
		t.Fatalf("expired: %v", err)
	}
	n, err := b.SweepResumable(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d: %v", n, err)
	}
	if c, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: short.FileID}}); c != 0 {
		t.Fatalf("%d chunks of the expired upload left", c)
	}
	// Two whole chunks; the last 500 bytes wait in the record.
	if c, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: live.FileID}}); c != 2 {
		t.Fatalf("%d chunks of the live upload", c)
	}
	if got := readBack(t, b, done.FileID); string(got) != "abc" {
		t.Fatalf("finished file: %q", got)
	}
	if _, err := b.Resumable(ctx, done.ID); !errors.Is(err, buckets.ErrResumableNotFound) {
		t.Fatalf("finished record: %v", err)
	}
}

// TestResumableLock: one holder at a time; a waiter makes the holder let
// go; a holder that stops renewing loses the lock after its time to live.
func TestResumableLock(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	var asked atomic.Int32
	ttl := 600 * time.Millisecond
	l1, contended, err := b.LockResumable(ctx, "u1", ttl, func() { asked.Add(1) })
	if err != nil || contended {
		t.Fatal(err, contended)
	}
	short, cancel := context.WithTimeout(ctx, 2*ttl)
	_, contended, err = b.LockResumable(short, "u1", ttl, nil)
	cancel()
	if !errors.Is(err, buckets.ErrUploadLocked) || !contended {
		t.Fatalf("second lock: %v", err)
	}
	if asked.Load() != 1 {
		t.Fatalf("the holder was asked %d times", asked.Load())
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		l1.Unlock()
	}()
	l2, _, err := b.LockResumable(ctx, "u1", ttl, nil)
	if err != nil {
		t.Fatal(err)
	}
	l2.Unlock()
	// A dead holder: its document stays, unrenewed.
	locks := b.FilesCollection().Database().Collection(buckets.UploadLocksCollection)
	if _, err := locks.InsertOne(ctx, bson.D{{Key: "_id", Value: "tus/u2"}, {Key: "holder", Value: bson.NewObjectID()},
		{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(ttl))}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	l3, _, err := b.LockResumable(ctx, "u2", ttl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < ttl/2 {
		t.Fatalf("took a live-looking lock after %s", time.Since(start))
	}
	l3.Unlock()
}

// TestResumableProgress: a long append records its offset as whole chunks
// are stored, so that one cut by a crash (here: the body fails and the
// append is abandoned, its lock never given back) keeps what was
// recorded; the next holder removes the rest and continues from there.
// An append with a checksum records nothing before its end.
func TestResumableProgress(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	const step = 2 << 20
	t.Cleanup(buckets.SetResumableProgress(step))
	size := 4*step + 12345
	data := randomBytes(size)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "progress", Length: int64(size), Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// Start inside a chunk: the record's tail begins the append's first.
	if _, err := appendTo(ctx, b, r.ID, 0, bytes.NewReader(data[:777]), buckets.AppendOptions{Expect: 777}); err != nil {
		t.Fatal(err)
	}
	cur, err := b.Resumable(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The body stops after a little more than the progress step; the
	// append blocks there as if its gateway had been killed.
	cut := 777 + step + 2<<20
	body := &stallingReader{r: bytes.NewReader(data[777:cut]), stalled: make(chan struct{}), release: make(chan struct{})}
	actx, cancel := context.WithCancel(ctx)
	ended := stall(t, body, func() error {
		_, err := b.AppendResumable(actx, cur, 777, body, buckets.AppendOptions{Expect: int64(size - 777)})
		return err
	})
	waitFor(t, "the offset to move", 30*time.Second, func() bool {
		rec, err := b.Resumable(ctx, r.ID)
		return err == nil && rec.Offset > 777
	})
	// The append ends without recording its end (its inserts in flight
	// land first, as they would not after a kill: the next holder's
	// cleanup must not race them here).
	cancel()
	close(body.release)
	<-ended
	rec, err := b.Resumable(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Offset < step || rec.Offset > int64(cut) || rec.Offset%int64(rec.ChunkSize) != 0 {
		t.Fatalf("recorded offset %d, want a chunk boundary in [%d, %d]", rec.Offset, step, cut)
	}
	off := rec.Offset
	// With a checksum the offset stays until the end.
	sum := sha256.Sum256(data[off:])

	body = &stallingReader{r: bytes.NewReader(data[off : off+step+2<<20]), stalled: make(chan struct{}), release: make(chan struct{})}
	actx, cancel = context.WithCancel(ctx)
	ended = stall(t, body, func() error {
		_, err := b.AppendResumable(actx, rec, off, body, buckets.AppendOptions{Expect: int64(size) - off, Checksum: sha256.New(), Want: sum[:]})
		return err
	})
	time.Sleep(500 * time.Millisecond)
	cancel()
	close(body.release)
	<-ended
	if rec, _ := b.Resumable(ctx, r.ID); rec.Offset != off {
		t.Fatalf("an append with a checksum moved the offset to %d", rec.Offset)
	}
	if _, err := appendTo(ctx, b, r.ID, off, bytes.NewReader(data[off:]), buckets.AppendOptions{Expect: int64(size) - off}); err != nil {
		t.Fatal(err)
	}
	f, err := b.FindByName(ctx, "progress", -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, b, f.ID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
}

// stall runs append, which reads body, until body stalls, and returns
// what append returns once it ends; an append that ends first fails the
// test.
func stall(t *testing.T, body *stallingReader, append func() error) (ended chan error) {
	t.Helper()
	ended = make(chan error, 1)
	go func() { ended <- append() }()
	select {
	case <-body.stalled:
	case err := <-ended:
		t.Fatalf("the append ended before its body stalled: %v", err)
	}
	return ended
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stallingReader reads r, then blocks (closing stalled) until release,
// as the body of a request whose gateway died: the append hangs there.
type stallingReader struct {
	r                io.Reader
	stalled, release chan struct{}
}

func (s *stallingReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		close(s.stalled)
		<-s.release
	}
	return n, err
}

// TestResumableDeclaredAtOffset: an upload of deferred length whose last
// append ended inside a chunk, declared complete at its offset, stores the
// record's tail as its short last chunk when it finishes.
func TestResumableDeclaredAtOffset(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(2*testChunk + 500)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "deferred", Length: -1, ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := appendTo(ctx, b, r.ID, 0, bytes.NewReader(data), buckets.AppendOptions{Expect: int64(len(data))})
	if err != nil || rec.Finished || len(rec.Tail) != 500 {
		t.Fatalf("append: %v, tail of %d bytes", err, len(rec.Tail))
	}
	if err := b.DeclareResumableLength(ctx, r.ID, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if rec, err = b.FinishResumable(ctx, r.ID); err != nil || !rec.Finished {
		t.Fatalf("finish: %v", err)
	}
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	if n, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: r.FileID}}); n != 3 {
		t.Fatalf("%d chunks", n)
	}
}
