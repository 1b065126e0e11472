package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// concurrentReaders runs many clients issuing random range reads of the
// seek file for a fixed time; every byte is checked.
func (b *bench) concurrentReaders(ctx context.Context, data *pattern, gw *gateway) error {
	size := b.s.readSize
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	if _, err := bk.Upload(ctx, "read", data.reader(size), buckets.UploadOptions{ContentType: "video/webm"}); err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		bytesRead int64
		errs      int
		firstErr  error
	)
	ctx, cancel := context.WithTimeout(ctx, b.s.readDuration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < b.s.readers; i++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			var buf bytes.Buffer
			for ctx.Err() == nil {
				n := 1024 + r.Int64N(256<<10)
				off := r.Int64N(size - n)
				buf.Reset()
				t := time.Now()
				got, err := gw.get(ctx, "/b/"+bucketName+"/read", fmt.Sprintf("bytes=%d-%d", off, off+n-1), &buf)
				if ctx.Err() != nil {
					return // the time is up; a request cut short is not an error
				}
				if err == nil && got != n {
					err = fmt.Errorf("range %d+%d: %d bytes", off, n, got)
				}
				if err == nil {
					if bad := data.verify(buf.Bytes(), off); bad >= 0 {
						err = fmt.Errorf("range %d+%d: wrong byte at %d", off, n, bad)
					}
				}
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
				} else {
					latencies = append(latencies, time.Since(t))
					bytesRead += got
				}
				mu.Unlock()
			}
		}(uint64(i))
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return ms(latencies[int(p*float64(len(latencies)-1))])
	}
	note := fmt.Sprintf("%d readers, %s, ranges 1-257 KiB of %s", b.s.readers, b.s.readDuration, human(size))
	b.add("concurrent readers", "throughput", "MB/s", []float64{mbps(bytesRead, elapsed)}, note)
	b.add("concurrent readers", "requests", "count", []float64{float64(len(latencies))}, "")
	b.add("concurrent readers", "p50 latency", "ms", []float64{pct(0.50)}, "")
	b.add("concurrent readers", "p99 latency", "ms", []float64{pct(0.99)}, "")
	b.add("concurrent readers", "errors", "count", []float64{float64(errs)}, "every byte verified")
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "first reader error:", firstErr)
	}
	return nil
}

// memory measures a fresh gateway process during one large streaming upload
// and during many concurrent uploads: RSS above its idle level, and the
// peak Go heap in use.
func (b *bench) memory(ctx context.Context, data *pattern) error {
	one := func(name string, uploads int, each int64) error {
		if _, err := b.fresh(ctx); err != nil {
			return err
		}
		gw, err := b.startGateway()
		if err != nil {
			return err
		}
		defer gw.stop()
		idle, _, err := gw.memory()
		if err != nil {
			return err
		}
		var peakHeap int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if h, err := gw.heap(); err == nil && h > peakHeap {
					peakHeap = h
				}
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
		var wg sync.WaitGroup
		errc := make(chan error, uploads)
		for i := 0; i < uploads; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errc <- gw.put(ctx, fmt.Sprintf("/b/%s/mem-%d", bucketName, i), data.reader(each), each)
			}(i)
		}
		wg.Wait()
		close(stop)
		<-sampled
		close(errc)
		for err := range errc {
			if err != nil {
				return err
			}
		}
		_, peak, err := gw.memory()
		if err != nil {
			return err
		}
		note := fmt.Sprintf("%d x %s; idle RSS %.1f MiB", uploads, human(each), float64(idle)/(1<<20))
		b.add("memory", name+": RSS rise", "MiB", []float64{float64(peak-idle) / (1 << 20)}, note)
		b.add("memory", name+": peak Go heap", "MiB", []float64{float64(peakHeap) / (1 << 20)}, "sampled every 100 ms")
		return nil
	}
	if err := one("one upload", 1, b.s.memSize); err != nil {
		return err
	}
	if err := one("concurrent uploads", b.s.memUploads, b.s.memEach); err != nil {
		return err
	}
	_, err := b.fresh(ctx)
	return err
}
