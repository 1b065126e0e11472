package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// The targets of issue 25, printed beside the figures.
const (
	expiryGroup       = "expiry sweep"
	targetSweepRate   = "target ≥ 500 files/s"
	targetSweepP99    = "target ≤ 2x the idle p99"
	targetSweepOrphan = "target 0"
)

// expirySweep measures the expiry sweeper: --expiry-files expired files of
// 1 KiB to 1 MiB (sizes spread evenly on a log scale) in one bucket beside
// 32 live files of 256 KiB, swept by one buckets.SweepExpired (the same
// code the gateways run) while a reader fetches the live files through the
// gateway one after another. It reports the files swept per second, what
// is left behind (files documents, chunks of no file), and the readers' p99
// before and during the sweep.
func (b *bench) expirySweep(ctx context.Context, data *pattern, _ *gateway) error {
	// A gateway of its own whose sweeper is off: the sweep measured is
	// the one this group runs.
	gw, err := b.startServe("--uri", b.s.uri, "--db", b.s.db, "--expiry-sweep-interval", "0s")
	if err != nil {
		return err
	}
	defer gw.stop()
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	n := b.s.expiryFiles
	minSize, maxSize := int64(1<<10), int64(1<<20)
	if b.s.smoke {
		maxSize = 64 << 10
	}
	rng := rand.New(rand.NewPCG(25, 25))
	sizes := make([]int64, n)
	var total int64
	for i := range sizes {
		sizes[i] = int64(math.Exp(math.Log(float64(minSize)) + rng.Float64()*(math.Log(float64(maxSize))-math.Log(float64(minSize)))))
		total += sizes[i]
	}
	past := time.Now().Add(-time.Minute)
	fmt.Fprintf(os.Stderr, "  storing %d files to expire (%.0f MiB)...\n", n, float64(total)/(1<<20))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if _, err := bk.Upload(ctx, fmt.Sprintf("old/%05d", i), data.reader(sizes[i]), buckets.UploadOptions{ExpireAt: past}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	const live, liveSize = 32, 256 << 10
	for i := range live {
		if _, err := bk.Upload(ctx, fmt.Sprintf("live/%02d", i), data.reader(liveSize), buckets.UploadOptions{}); err != nil {
			return err
		}
	}
	read := func(i int) (time.Duration, error) {
		start := time.Now()
		got, err := gw.get(ctx, fmt.Sprintf("/b/%s/live/%02d", bucketName, i%live), "", io.Discard)
		if err == nil && got != liveSize {
			err = fmt.Errorf("read %d bytes of %d", got, liveSize)
		}
		return time.Since(start), err
	}
	pct := func(lat []time.Duration, q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		return ms(lat[int(q*float64(len(lat)-1))])
	}
	p99 := func(lat []time.Duration) float64 { return pct(lat, 0.99) }
	spread := func(lat []time.Duration) string {
		return fmt.Sprintf("p50 %.1f, p90 %.1f, max %.1f ms", pct(lat, 0.5), pct(lat, 0.9), pct(lat, 1))
	}
	// As many reads idle as a sweep's readers make (about 2,000 in 5 s):
	// the p99 of 300 was the fourth slowest, and moved the ratio by half.
	var idle []time.Duration
	for i := range 2000 {
		d, err := read(i)
		if err != nil {
			return err
		}
		idle = append(idle, d)
	}

	var during []time.Duration
	var readErrs int
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			d, err := read(i)
			if err != nil {
				readErrs++
				continue
			}
			during = append(during, d)
		}
	}()
	start := time.Now()
	res, err := bk.SweepExpired(ctx, buckets.SweepOptions{Batch: b.s.expiryBatch, BatchBytes: b.s.expiryBatchBytes, Rest: b.s.expiryRest})
	elapsed := time.Since(start)
	close(stop)
	<-readerDone
	if err != nil {
		return err
	}

	left, err := bk.FilesCollection().CountDocuments(ctx, bson.D{{Key: "filename", Value: bson.D{{Key: "$regex", Value: "^old/"}}}})
	if err != nil {
		return err
	}
	orphans, err := bk.FindOrphans(ctx, 0)
	if err != nil {
		return err
	}
	var orphanChunks int64
	for _, o := range append(orphans.Old, orphans.Pending...) {
		orphanChunks += o.Chunks
	}
	note := fmt.Sprintf("%d of %d files, %.0f MiB, in %.1f s", res.Files, n, float64(res.Bytes)/(1<<20), elapsed.Seconds())
	if res.Files != int64(n) || left != 0 {
		note = fmt.Sprintf("FAILED: swept %d of %d, %d files documents left", res.Files, n, left)
	}
	b.add(expiryGroup, "files swept per second", "files/s", []float64{float64(res.Files) / elapsed.Seconds()}, targetSweepRate+"; "+note)
	b.add(expiryGroup, "bytes swept per second", "MB/s", []float64{mbps(res.Bytes, elapsed)}, "")
	b.add(expiryGroup, "orphaned chunks left", "count", []float64{float64(orphanChunks)}, targetSweepOrphan)
	idleP99, duringP99 := p99(idle), p99(during)
	b.add(expiryGroup, "reads of live files, idle: p99", "ms", []float64{idleP99}, fmt.Sprintf("%d GETs of 256 KiB; %s", len(idle), spread(idle)))
	ratio := 0.0
	if idleP99 > 0 {
		ratio = duringP99 / idleP99
	}
	b.add(expiryGroup, "reads of live files, during the sweep: p99", "ms", []float64{duringP99}, fmt.Sprintf("%d GETs, %.2fx idle (%s), %d errors; %s", len(during), ratio, targetSweepP99, readErrs, spread(during)))
	return b.revisionStats(ctx, gw, bk, n)
}

// revisionStats times GET /buckets (every bucket's file count and bytes)
// through gw when bk holds n more files documents, names of one to three
// revisions, without lifecycle rules and then with a rule keeping one
// revision of each name, which the statistics must apply name by name.
// The documents are written directly (length 0, so no chunks): the
// statistics read files documents only.
func (b *bench) revisionStats(ctx context.Context, gw *gateway, bk *buckets.Bucket, n int) error {
	rng := rand.New(rand.NewPCG(26, 26))
	base := time.Now().Add(-time.Hour)
	var docs []any
	names := 0
	for i := 0; i < n; names++ {
		for r := 0; r < 1+rng.IntN(3) && i < n; r++ {
			docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "filename", Value: fmt.Sprintf("rev/%05d", names)},
				{Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(255 << 10)}, {Key: "uploadDate", Value: base.Add(time.Duration(i) * time.Millisecond)}})
			i++
		}
	}
	for len(docs) > 0 {
		part := docs[:min(1000, len(docs))]
		docs = docs[len(part):]
		if _, err := bk.FilesCollection().InsertMany(ctx, part); err != nil {
			return err
		}
	}
	timeStats := func() ([]float64, error) {
		return b.repeat(func(int) (float64, error) {
			start := time.Now()
			err := gw.send(ctx, http.MethodGet, gw.base+"/buckets", nil, 0, nil)
			return ms(time.Since(start)), err
		})
	}
	plain, err := timeStats()
	if err != nil {
		return err
	}
	rule := `{"lifecycle": [{"keepRevisions": 1}]}`
	if err := gw.send(ctx, http.MethodPut, gw.base+"/buckets/"+bucketName, strings.NewReader(rule), int64(len(rule)), nil); err != nil {
		return err
	}
	kept, err := timeStats()
	if err != nil {
		return err
	}
	note := fmt.Sprintf("GET /buckets, %d files documents of %d names", n+32, names+32)
	b.add(expiryGroup, "bucket statistics, no rule", "ms", plain, note)
	b.add(expiryGroup, "bucket statistics, keepRevisions 1", "ms", kept, note)
	return nil
}
