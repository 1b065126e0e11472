package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// tusRows measures the resumable uploads (tus, /uploads/) beside one PUT of
// the same file on the same gateway and store, run for run (target: tus in
// 8 MiB PATCHes at least 0.9× of PUT), the RSS rise of a fresh gateway over
// one tus upload of --tus-size (target: at most 32 MiB for 1 GiB), and
// --tus-uploads concurrent uploads of --tus-each (target: no error, every
// byte read back right).
func (b *bench) tusRows(ctx context.Context, data *pattern, gw *gateway) error {
	size, patch := b.s.tusSize, b.s.tusPatch
	note := fmt.Sprintf("%s, same gateway and store, run for run", human(size))
	var puts, tuses []float64
	putCPU, tusCPU := b.meter(gw.cmd.Process.Pid), b.meter(gw.cmd.Process.Pid)
	for run := 0; run < b.s.runs; run++ {
		if _, err := b.fresh(ctx); err != nil {
			return err
		}
		start := time.Now()
		putCPU.begin()
		if err := gw.send(ctx, http.MethodPut, gw.base+"/b/"+bucketName+"/put", data.reader(size), size, nil); err != nil {
			return err
		}
		puts = append(puts, mbps(size, time.Since(start)))
		putCPU.end(size)
		if _, err := b.fresh(ctx); err != nil {
			return err
		}
		start = time.Now()
		tusCPU.begin()
		if err := gw.tusUpload(ctx, data, "tus", size, patch); err != nil {
			return err
		}
		tuses = append(tuses, mbps(size, time.Since(start)))
		tusCPU.end(size)
	}
	b.add("tus", "PUT", "MB/s", puts, note)
	b.addCPU("tus", "PUT", putCPU, cpuNoteGateway)
	b.add("tus", fmt.Sprintf("tus, %s PATCHes", human(patch)), "MB/s", tuses, note)
	b.addCPU("tus", fmt.Sprintf("tus, %s PATCHes", human(patch)), tusCPU, cpuNoteGateway)
	b.add("tus", "tus / PUT", "×", ratios(tuses, puts), "target ≥ 0.9")
	if err := b.tusMemory(ctx, data, patch); err != nil {
		return err
	}
	return b.tusConcurrent(ctx, data, gw)
}

// tusUpload creates a tus upload of size bytes of data named name and
// sends it in PATCHes of patch bytes.
func (g *gateway) tusUpload(ctx context.Context, data *pattern, name string, size, patch int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.base+"/uploads/"+bucketName+"/", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Upload-Length", strconv.FormatInt(size, 10))
	req.Header.Set("Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte(name)))
	resp, err := g.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusCreated || loc == "" {
		return fmt.Errorf("tus POST: %s", resp.Status)
	}
	for off := int64(0); off < size; off += patch {
		n := min(patch, size-off)
		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, g.base+loc, data.readerAt(off, n))
		if err != nil {
			return err
		}
		req.ContentLength = n
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.Header.Set("Upload-Offset", strconv.FormatInt(off, 10))
		resp, err := g.client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Upload-Offset") != strconv.FormatInt(off+n, 10) {
			return fmt.Errorf("tus PATCH at %d: %s, offset %s", off, resp.Status, resp.Header.Get("Upload-Offset"))
		}
		if off+n == size && resp.Header.Get("X-Gridfs-Id") == "" {
			return fmt.Errorf("tus: the last PATCH has no X-Gridfs-Id")
		}
	}
	return nil
}

// tusMemory sends one tus upload of --tus-size to a fresh gateway and
// records its resident set above where it started.
func (b *bench) tusMemory(ctx context.Context, data *pattern, patch int64) error {
	size := b.s.tusSize
	if _, err := b.fresh(ctx); err != nil {
		return err
	}
	gw, err := b.startGateway()
	if err != nil {
		return err
	}
	defer gw.stop()
	before, _, err := gw.memory()
	if err != nil {
		return err
	}
	stop := gw.samplePeakRSS(20 * time.Millisecond)
	err = gw.tusUpload(ctx, data, "big", size, patch)
	peak := stop()
	if err != nil {
		return err
	}
	b.add("tus", "tus upload: gateway RSS rise", "MiB", []float64{float64(max(peak-before, 0)) / (1 << 20)},
		fmt.Sprintf("%s in %s PATCHes, a fresh gateway's VmRSS sampled every 20 ms, idle %.1f MiB; target ≤ 32 MiB for 1 GiB", human(size), human(patch), float64(before)/(1<<20)))
	return nil
}

// tusConcurrent runs --tus-uploads uploads of --tus-each at once, in two
// PATCHes each (the first ends inside a chunk), and reads every one back.
func (b *bench) tusConcurrent(ctx context.Context, data *pattern, gw *gateway) error {
	n, each := b.s.tusUploads, b.s.tusEach
	var runs, failures []float64
	for run := 0; run < b.s.runs; run++ {
		if _, err := b.fresh(ctx); err != nil {
			return err
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		start := time.Now()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- gw.tusUpload(ctx, data, fmt.Sprintf("c/%03d", i), each, each/2+12345)
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		bad := 0
		var first error
		for err := range errs {
			if err != nil {
				bad++
				first = cmp(first, err)
			}
		}
		for i := range n {
			v := newVerifier(data)
			err := gw.send(ctx, http.MethodGet, gw.base+fmt.Sprintf("/b/%s/c/%03d", bucketName, i), nil, 0, v)
			if err == nil && (v.off != each || v.bad >= 0) {
				err = fmt.Errorf("c/%03d: %d bytes read back, first wrong byte at %d", i, v.off, v.bad)
			}
			if err != nil {
				bad++
				first = cmp(first, err)
			}
		}
		if first != nil {
			fmt.Printf("tus concurrent: %d failures, the first: %v\n", bad, first)
		}
		runs = append(runs, mbps(int64(n)*each, elapsed))
		failures = append(failures, float64(bad))
	}
	note := fmt.Sprintf("%d uploads of %s at once, 2 PATCHes each", n, human(each))
	b.add("tus", "concurrent uploads", "MB/s", runs, note)
	b.add("tus", "concurrent uploads: failures", "count", failures, "uploads or read-backs that failed or differ; target 0")
	return nil
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
