package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func mustBucket(t *testing.T, name string) *buckets.Bucket {
	t.Helper()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUploadDownloadRoundTrip(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	const cs = 16
	for _, size := range []int{0, 1, cs - 1, cs, cs + 1, 5*cs + 3} {
		data := bytes.Repeat([]byte{byte(size)}, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		f, err := b.Upload(ctx, "f", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: cs})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if f.Length != int64(size) || f.ChunkSize != cs {
			t.Fatalf("size %d: files document %+v", size, f)
		}
		d, err := b.OpenID(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		d.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: read %d bytes, err %v", size, len(got), err)
		}
	}
}

func TestRevisions(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	for _, s := range []string{"a", "b", "c"} {
		if _, err := b.Upload(ctx, "r", bytes.NewReader([]byte(s)), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for rev, want := range map[int]string{0: "a", 1: "b", 2: "c", -1: "c", -2: "b", -3: "a"} {
		d, err := b.OpenName(ctx, "r", rev)
		if err != nil {
			t.Fatalf("revision %d: %v", rev, err)
		}
		got, _ := io.ReadAll(d)
		if string(got) != want {
			t.Errorf("revision %d = %q, want %q", rev, got, want)
		}
	}
	if _, err := b.FindByName(ctx, "r", 3); !errors.Is(err, buckets.ErrRevisionNotFound) {
		t.Errorf("revision 3: %v", err)
	}
	if _, err := b.FindByName(ctx, "nope", 0); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("missing name: %v", err)
	}
	n, err := b.DeleteName(ctx, "r")
	if err != nil || n != 3 {
		t.Fatalf("DeleteName = %d, %v", n, err)
	}
	if c, _ := b.ChunksCollection().CountDocuments(ctx, bson.D{}); c != 0 {
		t.Errorf("%d chunks left after delete", c)
	}
}

func TestFindPages(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "pages")
	names := []string{"a/1", "a/2", "a/3", "b/1", "a/4"}
	for i, n := range names {
		md := bson.D{{Key: "even", Value: i%2 == 0}}
		if _, err := b.Upload(ctx, n, bytes.NewReader([]byte(n)), buckets.UploadOptions{Metadata: md}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := buckets.Query{Prefix: "a/", Limit: 3}
	for {
		p, err := b.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.Files {
			got = append(got, f.Filename)
		}
		if p.Next == "" {
			break
		}
		q.After = p.Next
	}
	if want := "a/1 a/2 a/3 a/4"; joined(got) != want {
		t.Errorf("prefix listing = %q, want %q", joined(got), want)
	}
	p, err := b.Find(ctx, buckets.Query{Metadata: bson.D{{Key: "even", Value: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 3 {
		t.Errorf("metadata filter found %d files, want 3", len(p.Files))
	}
	if _, err := b.Find(ctx, buckets.Query{Regex: "("}); !errors.Is(err, buckets.ErrInvalidQuery) {
		t.Errorf("bad regex: %v", err)
	}
	st, err := b.Stats(ctx)
	if err != nil || st.Files != 5 || st.Bytes != 15 {
		t.Errorf("Stats = %+v, %v", st, err)
	}
}

func joined(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestAbortAfterCommitKeepsTheFile(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	up, err := b.OpenUpload(ctx, "kept", buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	f, err := up.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Abort(); err != nil { // a deferred Abort on a path that committed
		t.Fatal(err)
	}
	d, err := b.OpenID(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, err := io.ReadAll(d); err != nil || string(got) != "0123456789" {
		t.Fatalf("after Abort: %q, %v", got, err)
	}
}

// TestLosingCommitKeepsTheWinnersChunks: two uploads chose the same _id and
// both passed OpenUpload's check; the one that commits second fails with
// ErrFileExists and must not take the first file's chunks with it.
func TestLosingCommitKeepsTheWinnersChunks(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	first, err := b.OpenUpload(ctx, "a", buckets.UploadOptions{ID: "same", ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.OpenUpload(ctx, "b", buckets.UploadOptions{ID: "same", ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Commit(); !errors.Is(err, buckets.ErrFileExists) { // empty: no chunk collides
		t.Fatalf("second Commit: %v, want ErrFileExists", err)
	}
	d, err := b.OpenID(ctx, "same")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, err := io.ReadAll(d); err != nil || string(got) != "0123456789" {
		t.Fatalf("the first file after the second failed: %q, %v", got, err)
	}
}

// TestPatchIsOneUpdate: a rename with bad metadata writes neither.
func TestPatchIsOneUpdate(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "old", bytes.NewReader([]byte("x")), buckets.UploadOptions{Metadata: bson.D{{Key: "k", Value: "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	name := "new"
	huge := bson.D{{Key: "k", Value: string(make([]byte, buckets.MaxMetadataBytes))}}
	if err := b.Patch(ctx, f.ID, &name, &huge); !errors.Is(err, buckets.ErrInvalidMetadata) {
		t.Fatalf("Patch with oversized metadata: %v, want ErrInvalidMetadata", err)
	}
	if got, err := b.Stat(ctx, f.ID); err != nil || got.Filename != "old" {
		t.Fatalf("after a refused Patch: %+v, %v; want the old name", got, err)
	}
	none := bson.D{}
	if err := b.Patch(ctx, f.ID, &name, &none); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Stat(ctx, f.ID); err != nil || got.Filename != "new" || got.Metadata != nil {
		t.Fatalf("after Patch: %+v, %v; want renamed without metadata", got, err)
	}
	if err := b.Patch(ctx, "nope", &name, nil); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("Patch of a missing id: %v", err)
	}
}

// TestNewestOfANameBeingCreated: while a name's first revision commits, the
// newest (and the oldest) revision of it is either that file or "no such
// file", never "no such revision": an S3 If-None-Match: * PutObject that lost
// a race answered NoSuchVersion.
func TestNewestOfANameBeingCreated(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	for round := range 200 {
		name := fmt.Sprintf("f-%d", round)
		done := make(chan error, 1)
		go func() {
			_, err := b.Upload(ctx, name, strings.NewReader("x"), buckets.UploadOptions{})
			done <- err
		}()
		for i := 0; ; i++ {
			_, err := b.FindByName(ctx, name, []int{-1, 0}[i%2])
			if err == nil {
				break
			}
			if !errors.Is(err, buckets.ErrFileNotFound) {
				t.Fatalf("round %d: FindByName of a name being created: %v, want the file or ErrFileNotFound", round, err)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestDropWaitsForACommitInFlight: a commit counts its chunks, then writes
// its files document. A drop of the bucket through another gateway between
// the two removed the chunks, and the files document made the bucket again
// around a file with none: acknowledged, and unreadable. The drop now waits
// for the commit's lease, and then, without force, finds the bucket not
// empty; a forced drop after it removes the whole file.
func TestDropWaitsForACommitInFlight(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			ctx := context.Background()
			var armed, fired atomic.Bool
			dropped := make(chan error, 1)
			var dropper *buckets.DB
			plain, watched := watchedGateways(t, func(e *event.CommandStartedEvent) {
				if !armed.Load() || e.CommandName != "insert" {
					return
				}
				if coll, _ := e.Command.Lookup("insert").StringValueOK(); coll != "fs.files" || !fired.CompareAndSwap(false, true) {
					return
				}
				// The commit counted its chunks: a drop now, and time for
				// it to run to its end unless it waits for the commit.
				go func() { dropped <- dropper.Drop(context.Background(), "fs", force) }()
				select {
				case <-dropped:
					dropped <- nil // it ran: the check below finds the file broken
				case <-time.After(500 * time.Millisecond):
				}
			})
			dropper = buckets.NewDB(plain)
			writer, err := buckets.NewDB(watched).Bucket(ctx, "fs")
			if err != nil {
				t.Fatal(err)
			}
			data := []byte("acknowledged before the drop")
			armed.Store(true)
			_, uerr := writer.Upload(ctx, "f", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: 8})
			if !fired.Load() {
				t.Fatalf("the commit wrote no files document (%v): the test did not step in", uerr)
			}
			derr := <-dropped
			if uerr != nil {
				t.Fatalf("upload: %v", uerr)
			}
			b, err := dropper.Bucket(ctx, "fs")
			if err != nil {
				t.Fatal(err)
			}
			got, rerr := readWhole(ctx, b, "f")
			switch {
			case force && (derr != nil || !errors.Is(rerr, buckets.ErrFileNotFound)):
				t.Fatalf("a forced drop after the commit: %v; then the file reads %q, %v, want it gone", derr, got, rerr)
			case !force && (!errors.Is(derr, buckets.ErrBucketNotEmpty) || rerr != nil || !bytes.Equal(got, data)):
				t.Fatalf("a drop without force beside the commit: %v; the acknowledged file reads %q, %v", derr, got, rerr)
			}
		})
	}
}

// readWhole reads the newest revision of name whole.
func readWhole(ctx context.Context, b *buckets.Bucket, name string) ([]byte, error) {
	d, err := b.OpenName(ctx, name, -1)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return io.ReadAll(d)
}
