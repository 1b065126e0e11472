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

// completePartial makes a complete partial upload holding data.
func completePartial(t *testing.T, b *buckets.Bucket, data []byte) *buckets.Resumable {
	t.Helper()
	ctx := context.Background()
	p, err := b.CreateResumable(ctx, buckets.ResumableOptions{Partial: true, Length: int64(len(data)), ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appendTo(ctx, b, p.ID, 0, bytes.NewReader(data), buckets.AppendOptions{Expect: -1}); err != nil {
		t.Fatal(err)
	}
	return p
}

// partialIntact checks that the partial upload p still holds data:
// its record says complete and its chunks read back as data, so that a
// client can join it again.
func partialIntact(t *testing.T, b *buckets.Bucket, p *buckets.Resumable, data []byte) {
	t.Helper()
	ctx := context.Background()
	rec, err := b.Resumable(ctx, p.ID)
	if err != nil {
		t.Fatalf("partial %s after the failed concatenation: %v", p.ID, err)
	}
	if !rec.Complete() {
		t.Fatalf("partial %s after the failed concatenation: offset %d of %d", p.ID, rec.Offset, rec.Length)
	}
	n, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: p.FileID}})
	want := (int64(len(data)) + testChunk - 1) / testChunk
	if n != want {
		t.Fatalf("partial %s says it is complete, but %d of its %d chunks are left: its bytes are lost", p.ID, n, want)
	}
}

// TestConcatNamingAPartTwice: tus lets a final upload name the same
// partial upload twice (tusd's handler and its file store join it twice).
// The aligned (zero-copy) join relabelled the partial's chunks for its
// first mention, found none left for its second, failed its commit (chunks
// lost), and that failure removed the final upload's chunks: the
// partial's own, under a record that still said it was complete. A part
// named twice is now copied.
func TestConcatNamingAPartTwice(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	data := randomBytes(2 * testChunk)
	p := completePartial(t, b, data)
	final, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "twice", Length: int64(2 * len(data)), Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.ConcatResumable(ctx, final.ID, []string{p.ID, p.ID})
	if err == nil {
		f, ferr := b.FindByName(ctx, "twice", -1)
		if ferr != nil {
			t.Fatal(ferr)
		}
		if got := readBack(t, b, f.ID); !bytes.Equal(got, append(append([]byte{}, data...), data...)) {
			t.Fatalf("the joined file holds %d bytes, not the partial twice", len(got))
		}
		_ = rec
		return
	}
	t.Logf("concatenation: %v", err)
	// Refusing is fine; losing the partial's bytes is not.
	partialIntact(t, b, p, data)
}

// TestConcatFailedCommitKeepsParts: a final upload created with
// If-None-Match: * whose name is taken between its creation and its
// commit fails with ErrPreconditionFailed; the partial uploads stay (the
// client may join them again, under another name). The aligned join moved
// their chunks under the final upload's id before the commit, and the
// failed commit removed them with the final upload; now it gives them
// back first.
func TestConcatFailedCommitKeepsParts(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	d0, d1 := randomBytes(testChunk), randomBytes(700)
	p0, p1 := completePartial(t, b, d0), completePartial(t, b, d1)
	final, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "joined", Length: int64(len(d0) + len(d1)), Expiry: time.Hour,
		Conditions: buckets.Conditions{IfNoneMatch: "*"}})
	if err != nil {
		t.Fatal(err)
	}
	// Another writer takes the name while the final upload is joined.
	if _, err := b.Upload(ctx, "joined", bytes.NewReader([]byte("first")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ConcatResumable(ctx, final.ID, []string{p0.ID, p1.ID}); !errors.Is(err, buckets.ErrPreconditionFailed) {
		t.Fatalf("concatenation: %v, want ErrPreconditionFailed", err)
	}
	partialIntact(t, b, p0, d0)
	partialIntact(t, b, p1, d1)
}

// slowReader gives n bytes of data every step, as a slow client's
// body does.
type slowReader struct {
	data []byte
	n    int
	step time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.step)
	k := min(len(p), s.n, len(s.data))
	copy(p, s.data[:k])
	s.data = s.data[k:]
	return k, nil
}

// TestSweepSparesAnAppendInProgress: an upload lives Expiry after its last
// PATCH; one PATCH still receiving bytes (one PATCH for the whole file is
// what tus-js-client and Uppy send by default) past that time holds the
// upload's lock, and the sweeper removed the upload, chunks and all, in
// its middle. The sweeper now passes over an upload whose lock is held.
func TestSweepSparesAnAppendInProgress(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	t.Cleanup(buckets.SetResumableProgress(2 * testChunk))
	size := 20 * testChunk
	data := randomBytes(size)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "slow", Length: int64(size), ChunkSize: testChunk, Expiry: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := b.LockResumable(ctx, r.ID, 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	rec, err := l.Resumable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		// 20 chunks, one every 150 ms: 3 s, twice the expiry.
		_, err := b.AppendResumable(ctx, rec, 0, &slowReader{data: data, n: testChunk, step: 150 * time.Millisecond},
			buckets.AppendOptions{Expect: int64(size), Lock: l})
		ended <- err
	}()
	// The sweeper runs while the PATCH is receiving bytes, after the
	// expiry counted from the record's creation.
	time.Sleep(2 * time.Second)
	if cur, err := b.Resumable(ctx, r.ID); err == nil {
		t.Logf("before the sweep: offset %d, expires in %s", cur.Offset, time.Until(cur.Expires).Round(time.Millisecond))
	} else {
		t.Logf("before the sweep: %v", err)
	}
	n, err := b.SweepResumable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the sweep removed %d unfinished uploads", n)
	if err := <-ended; err != nil {
		t.Fatalf("the PATCH in progress failed: %v", err)
	}
	if got := readBack(t, b, r.FileID); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
}

// TestSweepRereadsWhatItListed: the sweeper lists the expired uploads,
// then removes them one by one. An upload whose PATCH began before it
// expired and ended after the listing had its expiry moved forward by that
// PATCH (whose reply told the client the new offset), yet the sweeper
// removed it, with its chunks, from its list. It now reads each record
// again under the upload's lock.
func TestSweepRereadsWhatItListed(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	// Expired uploads listed before it, so that the sweep takes a while.
	for i := 0; i < 400; i++ {
		if _, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "filler", Length: 10, ChunkSize: testChunk, Expiry: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	// The upload expires soon, and a PATCH renews it for long: however
	// slow the sweep of the others, it finds the upload renewed.
	size := 5 * testChunk
	data := randomBytes(size)
	r, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "renewed", Length: int64(size), ChunkSize: testChunk, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r.Expires = time.Now().Add(1500 * time.Millisecond)
	records := b.FilesCollection().Database().Collection(b.Name() + buckets.ResumableSuffix)
	if _, err := records.UpdateOne(ctx, bson.D{{Key: "_id", Value: r.ID}}, bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: r.Expires}}}}); err != nil {
		t.Fatal(err)
	}
	rec, err := b.Resumable(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A PATCH that begins now and ends after the upload would have expired.
	body := &stallingReader{r: bytes.NewReader(data[:2500]), stalled: make(chan struct{}), release: make(chan struct{})}
	var out *buckets.Resumable
	ended := stall(t, body, func() error {
		var err error
		out, err = appendTo(ctx, b, r.ID, 0, body, buckets.AppendOptions{Expect: -1})
		return err
	})
	_ = rec
	time.Sleep(time.Until(r.Expires) + 100*time.Millisecond)
	swept := make(chan error, 1)
	go func() {
		_, err := b.SweepResumable(ctx)
		swept <- err
	}()
	// Once the sweep is removing what it listed, the PATCH ends.
	waitFor(t, "the sweep to start removing", 30*time.Second, func() bool {
		n, _ := records.CountDocuments(ctx, bson.D{})
		return n < 400
	})
	close(body.release)
	if err := <-ended; err != nil {
		t.Fatalf("the PATCH: %v", err)
	}
	t.Logf("the PATCH ended at offset %d; the upload expires in %s", out.Offset, time.Until(out.Expires).Round(time.Millisecond))
	if err := <-swept; err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resumable(ctx, r.ID); err != nil {
		t.Fatalf("after a PATCH that renewed it, the upload is %v", err)
	}
}

// TestConcurrentJoinsOfOneUpload: a client that tries its final upload
// again while the first try runs joins the same partial uploads twice at
// once. Without the parts' locks both moved their chunks, and the joins'
// failures removed them; now one join commits the parts' bytes and the
// other finds the parts gone.
func TestConcurrentJoinsOfOneUpload(t *testing.T) {
	ctx := context.Background()
	b := resumableBucket(t)
	for round := range 5 {
		d0, d1 := randomBytes(2*testChunk), randomBytes(900)
		p0, p1 := completePartial(t, b, d0), completePartial(t, b, d1)
		name := fmt.Sprintf("joined-%d", round)
		errs := make(chan error, 2)
		for range 2 {
			final, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: name, Length: int64(len(d0) + len(d1)), Expiry: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				_, err := b.ConcatResumable(ctx, final.ID, []string{p0.ID, p1.ID})
				errs <- err
			}()
		}
		var failed []error
		for range 2 {
			if err := <-errs; err != nil {
				failed = append(failed, err)
			}
		}
		if len(failed) != 1 || !errors.Is(failed[0], buckets.ErrInvalidPart) {
			t.Fatalf("round %d: two joins of the same parts: %v, want one to fail with ErrInvalidPart", round, failed)
		}
		f, err := b.FindByName(ctx, name, -1)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := readBack(t, b, f.ID); !bytes.Equal(got, append(append([]byte{}, d0...), d1...)) {
			t.Fatalf("round %d: the joined file holds %d bytes that are not the parts'", round, len(got))
		}
	}
}
