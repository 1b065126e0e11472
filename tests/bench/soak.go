package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// soak runs --soak-clients clients of mixed traffic for --soak-duration
// against one gateway: uploads through the HTTP API, S3 and tus, whole and
// ranged downloads, listings and deletes, every byte read back compared
// with what was written. It records the errors, the operations, and the
// gateway's resident set, goroutines and open files at a sixth of the run
// (the 5-minute mark of 30 minutes) and at its end, then runs fsck.
func (b *bench) soak(ctx context.Context, data *pattern, gw *gateway) error {
	if _, err := b.fresh(ctx); err != nil {
		return err
	}
	dur, clients := b.s.soakDuration, b.s.soakClients
	deadline := time.Now().Add(dur)
	var ops, errs atomic.Int64
	var firstErr atomic.Value
	fail := func(err error) {
		if errs.Add(1) == 1 {
			firstErr.Store(err)
			fmt.Fprintf(os.Stderr, "  soak: first error: %v\n", err)
		}
	}
	type sample struct{ rss, goroutines, fds float64 }
	take := func() sample {
		rss, _, _ := gw.memory()
		g, _ := gw.metric("go_goroutines")
		f, _ := gw.metric("process_open_fds")
		return sample{float64(rss), g, f}
	}
	// Both samples while the clients run: the mark at a sixth, the end a
	// moment before they stop.
	var mark, end sample
	markDone := make(chan struct{})
	go func() {
		time.Sleep(dur / 6)
		mark = take()
		time.Sleep(time.Until(deadline.Add(-min(dur/20, 10*time.Second))))
		end = take()
		close(markDone)
	}()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 77))
			type file struct{ off, size int64 }
			mine := map[string]file{}
			names := []string{}
			for i := 0; time.Now().Before(deadline); i++ {
				size := int64(1<<10 + rng.IntN(2<<20))
				off := rng.Int64N(64 << 20)
				name := fmt.Sprintf("soak/c%02d/%d", c, i)
				var err error
				switch k := rng.IntN(12); {
				case k < 3 || len(names) == 0:
					err = gw.put(ctx, "/b/"+bucketName+"/"+name, data.readerAt(off, size), size)
				case k == 3:
					err = gw.send(ctx, "PUT", strings.TrimSuffix(gw.s3base, "/")+"/"+bucketName+"/"+name, data.readerAt(off, size), size, nil)
				case k == 4:
					off = 0 // tus uploads send the pattern from its start
					err = gw.tusUpload(ctx, data, name, size, 1<<20)
				case k < 8: // a whole download
					n := names[rng.IntN(len(names))]
					var got bytes.Buffer
					if _, err = gw.get(ctx, "/b/"+bucketName+"/"+n, "", &got); err == nil {
						err = same(got.Bytes(), data, mine[n].off, mine[n].size, n)
					}
					name = ""
				case k < 10: // a range
					n := names[rng.IntN(len(names))]
					f := mine[n]
					lo := rng.Int64N(f.size)
					hi := lo + rng.Int64N(min(f.size-lo, 256<<10))
					var got bytes.Buffer
					if _, err = gw.get(ctx, "/b/"+bucketName+"/"+n, fmt.Sprintf("bytes=%d-%d", lo, hi), &got); err == nil {
						err = same(got.Bytes(), data, f.off+lo, hi-lo+1, n)
					}
					name = ""
				case k == 10:
					err = gw.send(ctx, "GET", gw.base+"/b/"+bucketName+"?prefix=soak/&limit=50", nil, 0, nil)
					name = ""
				default:
					j := rng.IntN(len(names))
					n := names[j]
					err = gw.send(ctx, "DELETE", gw.base+"/b/"+bucketName+"/"+n, nil, 0, nil)
					delete(mine, n)
					names = append(names[:j], names[j+1:]...)
					name = ""
				}
				ops.Add(1)
				if err != nil {
					fail(err)
					continue
				}
				if name != "" {
					mine[name] = file{off, size}
					names = append(names, name)
				}
			}
		}()
	}
	wg.Wait()
	<-markDone
	d := buckets.NewDB(b.db)
	bk, err := d.Bucket(ctx, bucketName)
	if err != nil {
		return err
	}
	rep, err := bk.Fsck(ctx, time.Nanosecond)
	if err != nil {
		return err
	}
	var orphans int64
	for _, o := range append(rep.Old, rep.Pending...) {
		orphans += o.Chunks
	}
	note := fmt.Sprintf("%s at %d clients", dur, clients)
	if e, ok := firstErr.Load().(error); ok {
		note += "; first error: " + strings.ReplaceAll(e.Error(), "\n", " ")
	}
	b.add("soak", "operations", "ops/s", []float64{float64(ops.Load()) / dur.Seconds()}, note)
	b.add("soak", "errors", "count", []float64{float64(errs.Load())}, "")
	b.add("soak", "RSS at 1/6 of the run", "MiB", []float64{mark.rss / (1 << 20)}, "")
	b.add("soak", "RSS at the end", "MiB", []float64{end.rss / (1 << 20)}, fmt.Sprintf("%.2fx the mark", end.rss/mark.rss))
	b.add("soak", "goroutines at 1/6 of the run", "count", []float64{mark.goroutines}, "")
	b.add("soak", "goroutines at the end", "count", []float64{end.goroutines}, "")
	b.add("soak", "open files at 1/6 of the run", "count", []float64{mark.fds}, "")
	b.add("soak", "open files at the end", "count", []float64{end.fds}, "")
	b.add("soak", "fsck: damaged files", "count", []float64{float64(len(rep.Damaged))}, fmt.Sprintf("of %d files", rep.Files))
	b.add("soak", "fsck: orphaned chunks", "count", []float64{float64(orphans)}, "")
	return nil
}

// same compares got with n bytes of the pattern from off.
func same(got []byte, data *pattern, off, n int64, name string) error {
	want, _ := io.ReadAll(data.readerAt(off, n))
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: %d bytes read differ from the %d written", name, len(got), len(want))
	}
	return nil
}
