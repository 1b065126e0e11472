package buckets_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// cacheChunk is small so that a file spans many chunks and rounds are fast.
const cacheChunk = 512

// content is round's content: every round the same length, so that a
// stale chunk cannot give itself away by its size.
func content(round int) []byte {
	r := rand.New(rand.NewPCG(uint64(round), 99))
	b := make([]byte, 6*cacheChunk+100)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestCacheNeverServesDeletedChunks: a download that opened a file before
// it was deleted or replaced, and reads on after the delete or replace has
// been answered, gets no chunk of it from the cache (where every chunk is,
// read by an earlier download): it fails as it would without a cache. On
// every path that deletes chunks.
func TestCacheNeverServesDeletedChunks(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	old := content(1)
	for _, c := range []struct {
		name string
		gone func(f *buckets.File) error
	}{
		{"Delete", func(f *buckets.File) error { return b.Delete(ctx, f.ID) }},
		{"DeleteName", func(f *buckets.File) error { _, err := b.DeleteName(ctx, f.Filename); return err }},
		{"DeleteIf", func(f *buckets.File) error {
			return b.DeleteIf(ctx, f.ID, buckets.Conditions{IfMatch: f.ETag()})
		}},
		{"DeleteNameIf", func(f *buckets.File) error {
			_, err := b.DeleteNameIf(ctx, f.Filename, buckets.Conditions{IfMatch: f.ETag()})
			return err
		}},
		{"replace", func(f *buckets.File) error {
			_, err := b.Upload(ctx, f.Filename, bytes.NewReader(content(2)), buckets.UploadOptions{
				ChunkSize: cacheChunk, Conditions: buckets.Conditions{IfMatch: f.ETag()}, Replace: true})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := b.Upload(ctx, "f-"+c.name, bytes.NewReader(old), buckets.UploadOptions{ChunkSize: cacheChunk})
			if err != nil {
				t.Fatal(err)
			}
			warm, err := b.Open(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(warm); err != nil || !bytes.Equal(got, old) {
				t.Fatalf("first read: %v", err)
			}
			warm.Close()

			d, err := b.Open(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			head := make([]byte, 10)
			if _, err := io.ReadFull(d, head); err != nil {
				t.Fatal(err)
			}
			if d.Fetched() != 0 {
				t.Fatalf("the second download fetched %d bytes: the cache is off", d.Fetched())
			}
			if err := c.gone(f); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(d)
			if !errors.Is(err, buckets.ErrChunkMissing) {
				t.Errorf("reading on after %s: %d more bytes, error %v; want ErrChunkMissing, no chunk from the cache", c.name, len(rest), err)
			}
		})
	}
}

// TestCacheRacingDeleteReplaceAndReusedID: downloads race deletes,
// replacements and an _id deleted and written again (put_id) with the
// cache on, for many rounds. A download opened after a change was answered
// gets exactly the new content; a download racing it gets its own
// revision's bytes or an error, never another revision's bytes while its
// own is current.
func TestCacheRacingDeleteReplaceAndReusedID(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	const reusedID = "reused"
	put := func(name string, id any, round int) *buckets.File {
		t.Helper()
		f, err := b.Upload(ctx, name, bytes.NewReader(content(round)), buckets.UploadOptions{ID: id, ChunkSize: cacheChunk})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	put("v", nil, 0)
	put("r", reusedID, 0)

	// Readers that keep the cache full of whatever revision is current.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var wrong atomic.Int64
	var failure sync.Once
	var first string
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				var d *buckets.Download
				var err error
				if i%2 == 0 {
					d, err = b.OpenName(ctx, "v", -1)
				} else {
					d, err = b.OpenID(ctx, reusedID)
				}
				if err != nil {
					continue // between a delete and the next upload
				}
				got, err := io.ReadAll(d)
				d.Close()
				if err != nil {
					continue // deleted under it: it fails, as without a cache
				}
				if sum := sha256.Sum256(got); hex.EncodeToString(sum[:]) == d.File.SHA256 {
					continue
				}
				// Other bytes than its revision's: wrong unless that
				// revision was deleted meanwhile (a reader straddling a
				// delete and a put_id of the same _id reads the new
				// chunks, cache or not).
				if cur, err := b.Stat(ctx, d.File.ID); err == nil && cur.SHA256 == d.File.SHA256 && cur.UploadDate.Equal(d.File.UploadDate) {
					wrong.Add(1)
					failure.Do(func() { first = fmt.Sprintf("%v read other bytes than its current revision", d.File.ID) })
				}
			}
		}()
	}
	check := func(round int, what string, open func() (*buckets.Download, error)) {
		t.Helper()
		d, err := open()
		if err != nil {
			t.Fatalf("round %d, after %s: %v", round, what, err)
		}
		defer d.Close()
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, content(round)) {
			t.Fatalf("round %d, after %s: %v; the bytes are not the new content's", round, what, err)
		}
	}
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	for round := 1; round <= rounds; round++ {
		// Replace the newest revision of "v" in place (If-Match, Replace).
		cur, err := b.FindByName(ctx, "v", -1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Upload(ctx, "v", bytes.NewReader(content(round)), buckets.UploadOptions{
			ChunkSize: cacheChunk, Conditions: buckets.Conditions{IfMatch: cur.ETag()}, Replace: true}); err != nil {
			t.Fatal(err)
		}
		check(round, "replace", func() (*buckets.Download, error) { return b.OpenName(ctx, "v", -1) })
		// Delete it by name and write it again.
		if _, err := b.DeleteName(ctx, "v"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.OpenName(ctx, "v", -1); !errors.Is(err, buckets.ErrFileNotFound) {
			t.Fatalf("round %d: after the delete: %v", round, err)
		}
		put("v", nil, round)
		check(round, "delete and upload", func() (*buckets.Download, error) { return b.OpenName(ctx, "v", -1) })
		// The same _id deleted and written again with other content (put_id).
		if err := b.Delete(ctx, reusedID); err != nil {
			t.Fatal(err)
		}
		put("r", reusedID, round)
		check(round, "delete and put_id", func() (*buckets.Download, error) { return b.OpenID(ctx, reusedID) })
	}
	stop.Store(true)
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d downloads read other bytes than their current revision's; first: %s", n, first)
	}
	if s := db.ChunkCacheStats(); s.Hits == 0 {
		t.Errorf("cache stats %+v: no hit, the test did not exercise the cache", s)
	}
}
