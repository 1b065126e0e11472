package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// davRows puts the WebDAV door beside the HTTP API on one gateway and one
// store, run for run: PUT and GET throughput (target: WebDAV at least
// 0.95× of HTTP), a PROPFIND of depth 1 of a folder of 10,000 files
// (target: at most 1 s on the embedded store), and the RSS rise of a fresh
// gateway over one large WebDAV upload (target: at most 32 MiB for 1 GiB).
// The gateway runs without access control.
func (b *bench) davRows(ctx context.Context, data *pattern, gw *gateway) error {
	size := b.s.size
	note := human(size) + ", same gateway and store as the HTTP row, run for run"
	var httpPut, davPut, httpGet, davGet []float64
	for run := 0; run < b.s.runs; run++ {
		for _, door := range []struct {
			path     string
			put, get *[]float64
		}{
			{"/b/" + bucketName + "/f", &httpPut, &httpGet},
			{"/dav/" + bucketName + "/f", &davPut, &davGet},
		} {
			if _, err := b.fresh(ctx); err != nil {
				return err
			}
			start := time.Now()
			if err := gw.send(ctx, http.MethodPut, gw.base+door.path, data.reader(size), size, nil); err != nil {
				return err
			}
			*door.put = append(*door.put, mbps(size, time.Since(start)))
			start = time.Now()
			v := newVerifier(data)
			if err := gw.send(ctx, http.MethodGet, gw.base+door.path, nil, 0, v); err != nil {
				return err
			}
			if v.off != size || v.bad >= 0 {
				return fmt.Errorf("GET %s: %d bytes, first wrong byte at %d", door.path, v.off, v.bad)
			}
			*door.get = append(*door.get, mbps(size, time.Since(start)))
		}
	}
	b.add("dav", "HTTP PUT", "MB/s", httpPut, note)
	b.add("dav", "WebDAV PUT", "MB/s", davPut, note)
	b.add("dav", "WebDAV PUT / HTTP PUT", "×", ratios(davPut, httpPut), "target ≥ 0.95")
	b.add("dav", "HTTP GET", "MB/s", httpGet, note)
	b.add("dav", "WebDAV GET", "MB/s", davGet, note)
	b.add("dav", "WebDAV GET / HTTP GET", "×", ratios(davGet, httpGet), "target ≥ 0.95")
	if err := b.davPropfind(ctx, gw); err != nil {
		return err
	}
	return b.davUploadMemory(ctx, data)
}

// davPropfind times PROPFIND depth 1 of a folder of 10,000 files (100
// when smoking), zero-length files written straight into the files
// collection as any GridFS tool could.
func (b *bench) davPropfind(ctx context.Context, gw *gateway) error {
	n := 10000
	if b.s.smoke {
		n = 100
	}
	if _, err := b.fresh(ctx); err != nil {
		return err
	}
	files := b.db.Collection(bucketName + ".files")
	now := bson.NewDateTimeFromTime(time.Now())
	for i := 0; i < n; i += 1000 {
		var docs []any
		for j := i; j < min(i+1000, n); j++ {
			docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "length", Value: int64(0)},
				{Key: "chunkSize", Value: int32(261120)}, {Key: "uploadDate", Value: now}, {Key: "filename", Value: fmt.Sprintf("many/file-%05d.txt", j)}})
		}
		if _, err := files.InsertMany(ctx, docs); err != nil {
			return err
		}
	}
	var runs []float64
	for run := 0; run < b.s.runs; run++ {
		req, err := http.NewRequestWithContext(ctx, "PROPFIND", gw.base+"/dav/"+bucketName+"/many/", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Depth", "1")
		start := time.Now()
		var buf bytes.Buffer
		resp, err := gw.client.Do(req)
		if err != nil {
			return err
		}
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		elapsed := time.Since(start)
		if err != nil || resp.StatusCode != 207 {
			return fmt.Errorf("PROPFIND: %s %v", resp.Status, err)
		}
		if got := strings.Count(buf.String(), "<D:response>"); got != n+1 {
			return fmt.Errorf("PROPFIND listed %d entries, want %d", got, n+1)
		}
		runs = append(runs, ms(elapsed))
	}
	b.add("dav", fmt.Sprintf("PROPFIND depth 1, %d files", n), "ms", runs, "the whole multistatus reply read; target ≤ 1000 ms for 10,000 on the embedded store")
	return nil
}

// davUploadMemory uploads one large file through WebDAV to a fresh
// gateway and records its resident set above where it started.
func (b *bench) davUploadMemory(ctx context.Context, data *pattern) error {
	size := b.s.memSize
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
	stopSampling := gw.samplePeakRSS(20 * time.Millisecond)
	start := time.Now()
	err = gw.send(ctx, http.MethodPut, gw.base+"/dav/"+bucketName+"/big", data.reader(size), size, nil)
	elapsed := time.Since(start)
	peak := stopSampling()
	if err != nil {
		return err
	}
	note := fmt.Sprintf("%s, a fresh gateway's VmRSS sampled every 20 ms, idle %.1f MiB", human(size), float64(before)/(1<<20))
	b.add("dav", "WebDAV upload", "MB/s", []float64{mbps(size, elapsed)}, note)
	b.add("dav", "WebDAV upload: gateway RSS rise", "MiB", []float64{float64(max(peak-before, 0)) / (1 << 20)}, "target ≤ 32 MiB for 1 GiB")
	return nil
}
