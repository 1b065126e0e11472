package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/minio/sha256-simd"
)

// The targets of issue 11, printed beside the figures.
const (
	storeGroup        = "embedded store at scale"
	targetSeek        = "target ≤ 100 ms (goal ≤ 20), flat from 100 MiB to 2 GiB in the bucket"
	targetOpenRange   = "target ≤ 200 ms"
	targetDownload    = "target ≥ 50 MB/s (goal 100)"
	targetDelete      = "target ≤ 5 s"
	targetUpload      = "target ≥ 25 MB/s (goal 50)"
	targetSeekRSSRise = "target ≤ 64 MiB"
)

// storeAtScale measures what a user of the default setup meets once the
// bucket holds real media: gridfsd serve on its embedded store (or on --uri)
// with --store-size in one bucket, in files of --store-file. At every level
// of --store-scales and at --store-size it times a 1 KiB range at 99% of a
// file; at --store-size also the first 64 KiB of an open range at 50%, an
// upload, a full download and a delete of a --store-file file, and the
// process's RSS rise while it serves seeks. Every byte is verified: uploads
// by the SHA-256 the gateway stored, reads against the pattern.
func (b *bench) storeAtScale(ctx context.Context, data *pattern, _ *gateway) error {
	var storeArgs []string
	if b.s.embedded {
		dir, err := os.MkdirTemp("", "gridfsd-bench-store-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		listen, err := freeAddr()
		if err != nil {
			return err
		}
		storeArgs = []string{"--data-dir", dir, "--embedded-listen", listen}
	} else {
		storeArgs = []string{"--uri", b.s.uri, "--db", b.s.db + "_scale"}
	}
	gw, err := b.startServe(storeArgs...)
	if err != nil {
		return err
	}
	defer gw.stop()
	if !b.s.embedded {
		gw.do(ctx, http.MethodDelete, "/buckets/scale?force=true") // left by a run that was cut short
		defer gw.do(ctx, http.MethodDelete, "/buckets/scale?force=true")
	}

	sums := map[int64]string{}
	sum := func(size int64) string {
		if s, ok := sums[size]; ok {
			return s
		}
		h := sha256.New()
		io.Copy(h, data.reader(size))
		sums[size] = hex.EncodeToString(h.Sum(nil))
		return sums[size]
	}

	levels := slices.Sorted(slices.Values(append([]int64{b.s.storeSize}, b.s.storeScales...)))
	levels = slices.Compact(levels)
	type file struct {
		path string
		size int64
	}
	var files []file
	var held int64
	for _, level := range levels {
		fmt.Fprintf(os.Stderr, "  filling the bucket to %s...\n", human(level))
		for held < level {
			f := file{path: fmt.Sprintf("/b/scale/media-%03d.webm", len(files)), size: min(b.s.storeFile, level-held)}
			if err := gw.putChecked(ctx, f.path, data.reader(f.size), f.size, sum(f.size)); err != nil {
				return err
			}
			files = append(files, f)
			held += f.size
		}
		// the first file of --store-file, else the largest
		target := files[0]
		for _, f := range files {
			if f.size == b.s.storeFile {
				target = f
				break
			}
			if f.size > target.size {
				target = f
			}
		}
		off := target.size / 100 * 99
		runs, err := b.repeat(func(int) (float64, error) {
			return gw.rangeFirstByte(ctx, data, target.path, off, 1024)
		})
		if err != nil {
			return err
		}
		b.add(storeGroup, fmt.Sprintf("1 KiB range at 99%% of %s, %s in bucket", human(target.size), human(held)), "ms TTFB", runs, targetSeek)

		if level != b.s.storeSize {
			continue
		}
		runs, err = b.repeat(func(int) (float64, error) {
			return gw.openRange(ctx, data, target.path, target.size/2, 64<<10)
		})
		if err != nil {
			return err
		}
		b.add(storeGroup, fmt.Sprintf("first 64 KiB of an open range at 50%% of %s", human(target.size)), "ms", runs, targetOpenRange)

		if err := b.storeUploadDownloadDelete(ctx, data, gw, sum(b.s.storeFile), held); err != nil {
			return err
		}
		if err := b.storeSeekRSS(ctx, data, gw, target.path, target.size); err != nil {
			return err
		}
	}
	return nil
}

// storeUploadDownloadDelete uploads a file of --store-file into the full
// bucket, downloads it whole (verifying every byte) and deletes it, runs
// times: the bucket holds the same before every run.
func (b *bench) storeUploadDownloadDelete(ctx context.Context, data *pattern, gw *gateway, sum string, held int64) error {
	size := b.s.storeFile
	var ups, downs, dels []float64
	for i := range b.s.runs {
		path := fmt.Sprintf("/b/scale/extra-%d.webm", i)
		start := time.Now()
		if err := gw.putChecked(ctx, path, data.reader(size), size, sum); err != nil {
			return err
		}
		ups = append(ups, mbps(size, time.Since(start)))

		start = time.Now()
		v := newVerifier(data)
		n, err := gw.get(ctx, path, "", v)
		if err != nil || n != size || v.bad >= 0 {
			return fmt.Errorf("download %s: %d bytes of %d, first wrong byte at %d, %v", path, n, size, v.bad, err)
		}
		downs = append(downs, mbps(size, time.Since(start)))

		start = time.Now()
		if err := gw.do(ctx, http.MethodDelete, path); err != nil {
			return err
		}
		dels = append(dels, time.Since(start).Seconds())
	}
	in := fmt.Sprintf("%s file, %s already in bucket; ", human(size), human(held))
	b.add(storeGroup, "upload (HTTP PUT)", "MB/s", ups, in+targetUpload)
	b.add(storeGroup, "full download (HTTP GET)", "MB/s", downs, in+targetDownload)
	b.add(storeGroup, "delete (HTTP DELETE)", "s", dels, in+targetDelete)
	return nil
}

// storeSeekRSS has 4 clients seek into the file as video players do (an
// open range at a random offset, 256 KiB read, the rest abandoned) and
// reports how far the gateway's RSS rose above where it stood before, runs
// times.
func (b *bench) storeSeekRSS(ctx context.Context, data *pattern, gw *gateway, path string, size int64) error {
	seeks := 200
	if b.s.smoke {
		seeks = 20
	}
	r := rand.New(rand.NewPCG(3, 4))
	rises, err := b.repeat(func(int) (float64, error) {
		before, _, err := gw.memory()
		if err != nil {
			return 0, err
		}
		offsets := make([]int64, seeks)
		for i := range offsets {
			offsets[i] = r.Int64N(size - 256<<10)
		}
		_, errs, _, peak := b.atLevel(gw, 4, seeks, func(i int) (int64, error) {
			_, err := gw.openRange(ctx, data, path, offsets[i], 256<<10)
			return 256 << 10, err
		})
		if errs > 0 {
			return 0, fmt.Errorf("seeks into %s: %d errors", path, errs)
		}
		return max(0, float64(peak-before)) / (1 << 20), nil
	})
	if err != nil {
		return err
	}
	b.add(storeGroup, fmt.Sprintf("RSS rise serving %d seeks into %s", seeks, human(size)), "MiB", rises,
		fmt.Sprintf("gridfsd serve with its store, 4 clients, 256 KiB each, sampled every 50 ms; %s", targetSeekRSSRise))
	return nil
}

// rangeFirstByte reads length bytes at off, checks them, and returns the
// time to the first byte in milliseconds.
func (g *gateway) rangeFirstByte(ctx context.Context, data *pattern, path string, off, length int64) (float64, error) {
	start := time.Now()
	var first time.Duration
	buf := &firstByteWriter{start: start, first: &first}
	n, err := g.get(ctx, path, fmt.Sprintf("bytes=%d-%d", off, off+length-1), buf)
	if err != nil || n != length {
		return 0, fmt.Errorf("range of %s at %d: %d bytes, %v", path, off, n, err)
	}
	if bad := data.verify(buf.Bytes(), off); bad >= 0 {
		return 0, fmt.Errorf("range of %s: wrong byte at %d", path, bad)
	}
	return ms(first), nil
}

// openRange asks for everything from off, as a video player after a seek,
// reads the first length bytes, checks them and hangs up; it returns the
// time they took in milliseconds.
func (g *gateway) openRange(ctx context.Context, data *pattern, path string, off, length int64) (float64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	start := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return 0, fmt.Errorf("GET %s from %d: %s", path, off, resp.Status)
	}
	buf := make([]byte, length)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		return 0, fmt.Errorf("GET %s from %d: %w", path, off, err)
	}
	took := time.Since(start)
	if bad := data.verify(buf, off); bad >= 0 {
		return 0, fmt.Errorf("GET %s from %d: wrong byte at %d", path, off, bad)
	}
	return ms(took), nil
}

// do sends a body-less request to path and wants a 2xx answer.
func (g *gateway) do(ctx context.Context, method, path string) error {
	return g.send(ctx, method, g.base+path, nil, 0, nil)
}
