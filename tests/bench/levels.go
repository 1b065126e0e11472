package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/minio/sha256-simd"
)

// concurrency runs uploads and range readers at several levels of
// concurrency: throughput, p50 and p99 latency, errors and the gateway's
// peak RSS at each, every byte verified (an upload by the SHA-256 the
// gateway reports, a range against the pattern).
func (b *bench) concurrency(ctx context.Context, data *pattern, gw *gateway) error {
	levels, each, perLevel := []int{1, 4, 16, 64}, int64(1<<20), 64
	if b.s.smoke {
		levels, each, perLevel = []int{1, 4}, 64<<10, 8
	}
	want := sha256.New()
	io.Copy(want, data.reader(each))
	wantSum := hex.EncodeToString(want.Sum(nil))
	for _, n := range levels {
		if _, err := b.fresh(ctx); err != nil {
			return err
		}
		group := fmt.Sprintf("concurrency %d", n)
		// perLevel uploads in all, n at a time, so every level moves the
		// same bytes and has enough samples for a p99.
		lat, errs, elapsed, rss := b.atLevel(gw, n, perLevel, func(i int) (int64, error) {
			return each, gw.putChecked(ctx, fmt.Sprintf("/b/%s/c-%d", bucketName, i), data.reader(each), each, wantSum)
		})
		b.addLevel(group, "uploads", lat, errs, elapsed, rss, int64(len(lat))*each,
			fmt.Sprintf("%d uploads of %s, %d at a time, SHA-256 checked", perLevel, human(each), n))
	}
	if err := b.smallUploads(ctx, data, gw); err != nil {
		return err
	}
	size := b.s.readSize
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	if _, err := bk.Upload(ctx, "read", data.reader(size), buckets.UploadOptions{ContentType: "video/webm"}); err != nil {
		return err
	}
	for _, n := range levels {
		group := fmt.Sprintf("concurrency %d", n)
		var bytesRead sync.Map
		lat, errs, elapsed, rss := b.atLevel(gw, n, 4*perLevel, func(i int) (int64, error) {
			r := rand.New(rand.NewPCG(uint64(i), uint64(n)))
			ln := 1024 + r.Int64N(256<<10)
			off := r.Int64N(size - ln)
			var buf bytes.Buffer
			got, err := gw.get(ctx, "/b/"+bucketName+"/read", fmt.Sprintf("bytes=%d-%d", off, off+ln-1), &buf)
			if err == nil && got != ln {
				err = fmt.Errorf("range %d+%d: %d bytes", off, ln, got)
			}
			if err == nil {
				if bad := data.verify(buf.Bytes(), off); bad >= 0 {
					err = fmt.Errorf("range %d+%d: wrong byte at %d", off, ln, bad)
				}
			}
			bytesRead.Store(i, got)
			return got, err
		})
		var total int64
		bytesRead.Range(func(_, v any) bool { total += v.(int64); return true })
		b.addLevel(group, "range readers", lat, errs, elapsed, rss, total,
			fmt.Sprintf("%d ranges of 1-257 KiB of %s, %d at a time, every byte checked", 4*perLevel, human(size), n))
	}
	return nil
}

// atLevel runs total calls of fn, n at a time, and samples the gateway's RSS
// meanwhile. It returns the latencies of the calls that succeeded.
func (b *bench) atLevel(gw *gateway, n, total int, fn func(i int) (int64, error)) (lat []time.Duration, errs int, elapsed time.Duration, peakRSS int64) {
	var mu sync.Mutex
	stopSampling := gw.samplePeakRSS(50 * time.Millisecond)
	work := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				t := time.Now()
				_, err := fn(i)
				mu.Lock()
				if err != nil {
					errs++
					if errs == 1 {
						fmt.Println("  first error:", err)
					}
				} else {
					lat = append(lat, time.Since(t))
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < total; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed = time.Since(start)
	return lat, errs, elapsed, stopSampling()
}

func (b *bench) addLevel(group, what string, lat []time.Duration, errs int, elapsed time.Duration, rss, moved int64, note string) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return ms(lat[int(p*float64(len(lat)-1))])
	}
	b.add(group, what+": throughput", "MB/s", []float64{mbps(moved, elapsed)}, note)
	b.add(group, what+": p50 latency", "ms", []float64{pct(0.50)}, "")
	b.add(group, what+": p99 latency", "ms", []float64{pct(0.99)}, "")
	b.add(group, what+": errors", "count", []float64{float64(errs)}, "")
	b.add(group, what+": gateway RSS", "MiB", []float64{float64(rss) / (1 << 20)}, "peak, sampled every 50 ms")
}

// smallUploads measures what a request costs beyond its bytes: many small
// files, 16 at a time, each commit taking its name's lease (see
// buckets/commit.go) as every upload's does.
func (b *bench) smallUploads(ctx context.Context, data *pattern, gw *gateway) error {
	files, each, at := 1000, int64(16<<10), 16
	if b.s.smoke {
		files = 48
	}
	want := sha256.New()
	io.Copy(want, data.reader(each))
	wantSum := hex.EncodeToString(want.Sum(nil))
	if _, err := b.fresh(ctx); err != nil {
		return err
	}
	lat, errs, elapsed, rss := b.atLevel(gw, at, files, func(i int) (int64, error) {
		return each, gw.putChecked(ctx, fmt.Sprintf("/b/%s/small-%d", bucketName, i), data.reader(each), each, wantSum)
	})
	group := "small uploads"
	b.add(group, "files per second", "files/s", []float64{float64(len(lat)) / elapsed.Seconds()},
		fmt.Sprintf("%d PUTs of %s, %d at a time, SHA-256 checked", files, human(each), at))
	b.addLevel(group, "uploads", lat, errs, elapsed, rss, int64(len(lat))*each, "")
	return nil
}

// putChecked uploads body and checks the SHA-256 the gateway stored.
func (g *gateway) putChecked(ctx context.Context, path string, body io.Reader, size int64, wantSum string) error {
	var reply bytes.Buffer
	if err := g.send(ctx, http.MethodPut, g.base+path, body, size, &reply); err != nil {
		return err
	}
	var doc struct {
		SHA256 string `json:"sha256"`
		Length int64  `json:"length"`
	}
	if err := json.Unmarshal(reply.Bytes(), &doc); err != nil {
		return fmt.Errorf("PUT %s: reply: %w", path, err)
	}
	if doc.SHA256 != wantSum || doc.Length != size {
		return fmt.Errorf("PUT %s: stored %d bytes with sha256 %s, want %d and %s", path, doc.Length, doc.SHA256, size, wantSum)
	}
	return nil
}
