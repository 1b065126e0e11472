package buckets_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestMultipartCompleteRacesPart: a part re-uploaded while Complete runs
// on another gateway (another DB on the same store) never damages the
// object: Complete uses one consistent set of parts, and a file whose
// chunks are not all there is never published. Before, the re-upload's
// commit deleted the old part's chunks while Complete moved them, and
// Complete published a file with chunks missing (issue 23, item 3).
func TestMultipartCompleteRacesPart(t *testing.T) {
	ctx := context.Background()
	store := storetest.MustOpenDB(t)
	gw1, err := buckets.NewDB(store).Bucket(ctx, "race")
	if err != nil {
		t.Fatal(err)
	}
	gw2, err := buckets.NewDB(store).Bucket(ctx, "race")
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 32 << 10
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	damaged, completed := 0, 0
	for round := 0; round < rounds; round++ {
		mu, err := gw1.CreateMultipart(ctx, "obj", buckets.UploadOptions{ChunkSize: chunk})
		if err != nil {
			t.Fatal(err)
		}
		parts := [][]byte{make([]byte, buckets.MinPartSize), make([]byte, buckets.MinPartSize), make([]byte, 1<<20)}
		var list []buckets.CompletedPart
		for i, data := range parts {
			rand.Read(data)
			list = append(list, commitPart(t, gw1, mu.ID, i+1, bytes.NewReader(data)))
		}
		// The last part again, same content, its last byte held back.
		pr, pw := io.Pipe()
		again := make(chan error, 1)
		go func() {
			p, err := gw1.OpenPart(ctx, mu.ID, 3)
			if err == nil {
				_, err = p.ReadFrom(pr)
				if err == nil {
					_, err = p.Commit()
				} else {
					p.Abort()
				}
			}
			again <- err
		}()
		last := parts[2]
		pw.Write(last[:len(last)-1])
		var wg sync.WaitGroup
		var f *buckets.File
		var cerr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, cerr = gw2.CompleteMultipart(ctx, mu.ID, list)
		}()
		pw.Write(last[len(last)-1:])
		pw.Close()
		wg.Wait()
		perr := <-again
		if cerr != nil {
			// A Complete that refuses is fine; the part may then have
			// committed. Finish the upload for the next round.
			t.Logf("round %d: complete: %v (part: %v)", round, cerr, perr)
			gw1.AbortMultipart(ctx, mu.ID)
			continue
		}
		completed++
		want := append(append(append([]byte{}, parts[0]...), parts[1]...), parts[2]...)
		dl, err := gw1.Open(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, rerr := io.ReadAll(dl)
		dl.Close()
		n, _ := gw1.ChunksCollection().CountDocuments(ctx, bson.D{{Key: "files_id", Value: f.ID}})
		wantChunks := (int64(len(want)) + chunk - 1) / chunk
		if rerr != nil || !bytes.Equal(got, want) || n != wantChunks {
			damaged++
			t.Errorf("round %d: Complete published a damaged object: read %d of %d bytes (%v), %d of %d chunks; the part's commit: %v",
				round, len(got), len(want), rerr, n, wantChunks, perr)
		}
		if perr != nil && !errors.Is(perr, buckets.ErrUploadNotFound) && !errors.Is(perr, buckets.ErrUploadCompleting) {
			t.Errorf("round %d: the racing part failed with %v", round, perr)
		}
		if err := gw1.Delete(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
	}
	if completed == 0 {
		t.Errorf("no round completed: the race was never run through")
	}
	// Nothing is left behind: every part's chunks are used or removed
	// (the orphan sweeper takes a part that lost its race).
	if _, err := gw1.SweepMultipart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds, %d completed, %d damaged", rounds, completed, damaged)
}

func commitPart(t *testing.T, b *buckets.Bucket, upload string, n int, r io.Reader) buckets.CompletedPart {
	t.Helper()
	p, err := b.OpenPart(context.Background(), upload, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	part, err := p.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return buckets.CompletedPart{Number: n, MD5: part.MD5}
}
