package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// Metrics of the gateway's chunk cache (absent from a gridfsd without one,
// which the "before" figures are measured with: they read as 0 there).
const (
	cacheHitsMetric      = "gridfsd_chunk_cache_hits_total"
	cacheMissesMetric    = "gridfsd_chunk_cache_misses_total"
	cacheBytesMetric     = "gridfsd_chunk_cache_bytes"
	cacheEvictionsMetric = "gridfsd_chunk_cache_evictions_total"
)

// viewers is a popular file: many clients stream one file at a fixed rate,
// each from an offset of its own, as an audience watching a video does.
// Every byte is checked; the figures are whether each client got its full
// rate, what the gateway read from the store for all of them, and its
// memory beyond the chunk cache.
func (b *bench) viewers(ctx context.Context, data *pattern, _ *gateway) error {
	size := b.s.viewersFile
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	if _, err := bk.Upload(ctx, "popular", data.reader(size), buckets.UploadOptions{ContentType: "video/webm"}); err != nil {
		return err
	}
	each := int64(b.s.viewersRate) * int64(b.s.viewersDuration/time.Second)
	if err := b.audience(ctx, data, "popular", size, b.s.viewers, b.s.viewersRate, b.s.viewersDuration, each, false); err != nil {
		return err
	}

	// The table: 5 MB each at 1 MB/s from a 20 MB file, all to finish within 60 s.
	small := b.s.viewersSmallFile
	if b.s.viewersSmall == 0 {
		_, err = b.fresh(ctx)
		return err
	}
	if _, err := bk.Upload(ctx, "clip", data.reader(small), buckets.UploadOptions{ContentType: "video/webm"}); err != nil {
		return err
	}
	if err := b.audience(ctx, data, "clip", small, b.s.viewersSmall, 1_000_000, 60*time.Second, b.s.viewersSmallEach, true); err != nil {
		return err
	}
	_, err = b.fresh(ctx)
	return err
}

// audience runs clients readers of name (size bytes) at rate bytes/s
// each, every one from a random offset of its own, reading want bytes or
// for limit at most (finish: the row counts who read all of want within
// limit; otherwise each reads for limit and the row counts who kept the
// rate). It runs on a fresh gateway with the configured chunk cache.
func (b *bench) audience(ctx context.Context, data *pattern, name string, size int64, clients, rate int, limit time.Duration, want int64, finish bool) error {
	group := fmt.Sprintf("viewers %d x %s/s of %s", clients, decimal(int64(rate)), decimal(size))
	gw, err := b.startServeEnv([]string{fmt.Sprintf("GRIDFSD_CHUNK_CACHE_SIZE=%d", b.s.viewersCache)}, "--uri", b.s.uri, "--db", b.s.db)
	if err != nil {
		return err
	}
	defer gw.stop()
	idle, _, err := gw.memory()
	if err != nil {
		return err
	}
	before := map[string]float64{}
	for _, m := range []string{storeReadMetric, cacheHitsMetric, cacheMissesMetric, cacheEvictionsMetric} {
		before[m], _ = gw.metric(m)
	}
	// One connection per client, small buffers, as a browser's: the
	// benchmark's own memory is not what is measured, but it shares the
	// machine.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	defer client.CloseIdleConnections()
	peak := gw.samplePeakRSS(200 * time.Millisecond)
	// The Go heap and goroutine stacks at their peaks, to tell what the
	// memory beyond the cache is.
	var heapPeak, stackPeak float64
	sampled, stopSampling := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h, err := gw.metric("go_memstats_heap_inuse_bytes"); err == nil {
				heapPeak = max(heapPeak, h)
			}
			if s, err := gw.metric("go_memstats_stack_inuse_bytes"); err == nil {
				stackPeak = max(stackPeak, s)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(time.Second):
			}
		}
	}()

	var (
		mu       sync.Mutex
		got      []int64   // bytes each client read in time
		rates    []float64 // each client's bytes a second from its first byte
		ttfb     []time.Duration
		errs     int
		firstErr error
	)
	r := rand.New(rand.NewPCG(uint64(clients), uint64(size)))
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		off := r.Int64N(max(size-want, 1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := view(ctx, client, gw.base+"/b/"+bucketName+"/"+name, data, off, min(want, size-off), rate, limit)
			mu.Lock()
			defer mu.Unlock()
			got = append(got, v.n)
			if v.streamed > 0 {
				rates = append(rates, float64(v.n)/v.streamed.Seconds())
				ttfb = append(ttfb, v.ttfb)
			} else {
				rates = append(rates, 0)
			}
			if err != nil {
				errs++
				if firstErr == nil {
					firstErr = err
				}
			}
		}()
		// Arrivals spread over a second, not one burst.
		time.Sleep(time.Second / time.Duration(clients))
	}
	wg.Wait()
	elapsed := time.Since(start)
	peakRSS := peak()
	close(stopSampling)
	<-sampled
	after := map[string]float64{}
	after[storeReadMetric], _ = gw.metricAbove(storeReadMetric, before[storeReadMetric])
	for _, m := range []string{cacheHitsMetric, cacheMissesMetric, cacheEvictionsMetric, cacheBytesMetric} {
		after[m], _ = gw.metric(m)
	}

	var total int64
	full := 0
	for i, n := range got {
		total += n
		// The full rate: all of want in time (finish), or 95% of the
		// rate from the client's first byte to its end.
		if (finish && n >= want) || (!finish && rates[i] >= 0.95*float64(rate)) {
			full++
		}
	}
	sort.Float64s(rates)
	sort.Slice(ttfb, func(i, j int) bool { return ttfb[i] < ttfb[j] })
	what := "kept the full rate"
	if finish {
		what = fmt.Sprintf("finished %s within %s", decimal(want), limit)
	}
	note := fmt.Sprintf("from random offsets, every byte verified; chunk cache %s", human(b.s.viewersCache))
	b.add(group, "clients that "+what, "count", []float64{float64(full)}, note)
	b.add(group, "slowest client", "MB/s", []float64{rates[0] / 1e6}, "its bytes / the time from its first byte to its end")
	if len(ttfb) > 0 {
		b.add(group, "time to first byte p50 / p99", "ms", []float64{ms(ttfb[len(ttfb)/2])}, fmt.Sprintf("p99 %.0f ms", ms(ttfb[(len(ttfb)-1)*99/100])))
	}
	b.add(group, "aggregate", "MB/s", []float64{mbps(total, elapsed)}, "")
	b.add(group, "errors", "count", []float64{float64(errs)}, "every byte verified")
	b.add(group, "bytes read from the store", "x file", []float64{(after[storeReadMetric] - before[storeReadMetric]) / float64(size)}, storeReadMetric)
	rise := float64(peakRSS - idle)
	cached := after[cacheBytesMetric]
	b.add(group, "gateway RSS rise", "MiB", []float64{rise / (1 << 20)}, fmt.Sprintf("peak sampled every 200 ms; idle %.1f MiB", float64(idle)/(1<<20)))
	b.add(group, "gateway RSS rise beyond the cache, per client", "KiB", []float64{max(rise-cached, 0) / 1024 / float64(clients)}, fmt.Sprintf("the cache held %.1f MiB at the end", cached/(1<<20)))
	b.add(group, "peak Go heap / goroutine stacks", "MiB", []float64{heapPeak / (1 << 20)}, fmt.Sprintf("stacks %.1f MiB; sampled every second; the cache's chunks are outside the heap", stackPeak/(1<<20)))
	b.add(group, "chunk cache hits / misses", "count", []float64{after[cacheHitsMetric] - before[cacheHitsMetric]}, fmt.Sprintf("misses %.0f", after[cacheMissesMetric]-before[cacheMissesMetric]))
	b.add(group, "chunk cache evictions", "count", []float64{after[cacheEvictionsMetric] - before[cacheEvictionsMetric]}, "")
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "first viewer error:", firstErr)
	}
	return nil
}

// viewed is what one viewer got.
type viewed struct {
	n        int64         // bytes read in time
	ttfb     time.Duration // from the request to its first byte
	streamed time.Duration // from the first byte to the last read
}

// view reads want bytes of url from off at rate bytes/s, for limit at
// most, checking every byte. A client cut off by the limit is not an
// error.
func view(ctx context.Context, client *http.Client, url string, data *pattern, off, want int64, rate int, limit time.Duration) (v viewed, err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return v, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	asked := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return v, nil
		}
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return v, fmt.Errorf("GET %s at %d: %s", url, off, resp.Status)
	}
	start := time.Now()
	v.ttfb = start.Sub(asked)
	defer func() { v.streamed = time.Since(start) }()
	buf := make([]byte, 16<<10)
	scratch := make([]byte, len(buf))
	for v.n < want {
		// Stay on schedule: a client reads rate bytes a second, as a
		// player does, and its socket buffers the rest.
		if ahead := time.Duration(float64(v.n)/float64(rate)*float64(time.Second)) - time.Since(start); ahead > 0 {
			select {
			case <-time.After(ahead):
			case <-ctx.Done():
				return v, nil
			}
		}
		m, err := resp.Body.Read(buf[:min(int64(len(buf)), want-v.n)])
		if m > 0 {
			if bad := data.verifyFast(buf[:m], scratch, off+v.n); bad >= 0 {
				return v, fmt.Errorf("GET %s: wrong byte at %d", url, bad)
			}
			v.n += int64(m)
		}
		if err == io.EOF && v.n < want {
			return v, fmt.Errorf("GET %s at %d: %d bytes, want %d", url, off, v.n, want)
		}
		if err != nil && err != io.EOF {
			if ctx.Err() != nil {
				return v, nil
			}
			return v, err
		}
	}
	return v, nil
}

// runs of one byte value, for verifyFast.
var constRuns = func() (r [256][]byte) {
	for i := range r {
		r[i] = bytes.Repeat([]byte{byte(i)}, 16<<10)
	}
	return r
}()

// verifyFast is verify for buffers of up to 16 KiB, vectorised: a thousand
// clients check 200 MB/s on the cores the gateway needs.
func (p *pattern) verifyFast(got, scratch []byte, off int64) int64 {
	for done := 0; done < len(got); {
		o := off + int64(done)
		start := int(o % blockSize)
		n := min(len(got)-done, blockSize-start)
		subtle.XORBytes(scratch[:n], got[done:done+n], p.block[start:start+n])
		if !bytes.Equal(scratch[:n], constRuns[byte(o/blockSize)][:n]) {
			return p.verify(got[done:done+n], o)
		}
		done += n
	}
	return -1
}

// decimal writes n in MB or KB when it is a round number of them (rates,
// the file sizes), else as human does.
func decimal(n int64) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%d MB", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%d KB", n/1e3)
	}
	return human(n)
}
