package crash

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestKilledExpirySweep kills gridfsd serve with SIGKILL while its expiry
// sweeper removes 400 expired files of 10 chunks, several times, restarting it each
// time: in the end every expired file is gone with all its chunks, no
// orphaned chunk is left, and the live files read back whole.
func TestKilledExpirySweep(t *testing.T) {
	ctx := context.Background()
	bin := proctest.BuildGridfsd(t, "")
	mdb := storetest.MustOpenDB(t)
	st := state{b: mustBucket(t, mdb.Name())}
	const expired = 400
	// Ten chunks of 64 KiB each: a batch's chunks take a while to go, so a
	// kill can fall after its files documents are gone.
	body := content(640_000, 7)
	for i := range expired {
		if _, err := st.b.Upload(ctx, fmt.Sprintf("old/%04d", i), bytes.NewReader(body), buckets.UploadOptions{ChunkSize: chunkSize, ExpireAt: time.Now().Add(-time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	live := content(300_000, 8)
	for i := range 3 {
		if _, err := st.b.Upload(ctx, fmt.Sprintf("live/%d", i), bytes.NewReader(live), buckets.UploadOptions{ChunkSize: chunkSize}); err != nil {
			t.Fatal(err)
		}
	}
	files := func() int64 {
		n, err := st.b.FilesCollection().CountDocuments(ctx, bson.D{{Key: "filename", Value: bson.D{{Key: "$regex", Value: "^old/"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	windows := 0
	for round := range 4 {
		srv := startServe(t, bin, mdb.Name(), "--expiry-sweep-interval", "50ms")
		before := files()
		if before == 0 {
			break
		}
		// Kill once the sweeper is at work: some of this round's files gone.
		waitFor(t, "the sweeper to remove files", func() bool { return files() < before || files() == 0 })
		srv.kill(t)
		orphans := st.orphans(t, 0)
		if orphans > 0 {
			windows++ // killed between a batch's files documents and its chunks
		}
		t.Logf("round %d: killed with %d expired files left, %d orphaned chunks", round, files(), orphans)
		// The killed gateway's lease would keep the bucket for
		// DefaultSweepLeaseTTL; let it run out now instead of waiting.
		if _, err := mdb.Collection(buckets.LeasesCollection).UpdateMany(ctx, bson.D{{Key: "bucket", Value: "fs"}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: time.Now().Add(-time.Second)}}}}); err != nil {
			t.Fatal(err)
		}
	}
	srv := startServe(t, bin, mdb.Name(), "--expiry-sweep-interval", "50ms")
	waitFor(t, "every expired file to be swept", func() bool { return files() == 0 && st.orphans(t, 0) == 0 })
	srv.kill(t)
	for i := range 3 {
		st.mustRead(t, fmt.Sprintf("live/%d", i), live)
	}
	st.mustBeClean(t)
	if n := st.chunks(t); n != 3*5 {
		t.Errorf("%d chunks left, want the live files' 15", n)
	}
	t.Logf("%d of the kills fell between a batch's files documents and its chunks", windows)
}
