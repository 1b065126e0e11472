// Package load runs many concurrent uploads, ranged downloads and deletes
// through a real gateway over loopback for a bounded time, verifying every
// byte, and checks that the store holds exactly what was committed and no
// orphaned chunks afterwards. It asserts correctness under concurrency,
// never speed: the figures it logs are for reading.
//
// GRIDFSD_LOAD_DURATION (a Go duration, default 3s) and
// GRIDFSD_LOAD_WORKERS (default 8) make a longer or wider run.
package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q is not a positive number", name, v)
		}
		return n
	}
	return def
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("%s=%q is not a positive duration", name, v)
		}
		return d
	}
	return def
}

// stored is a file a worker committed and has not deleted.
type stored struct {
	name string
	data []byte
}

type counters struct {
	uploads, downloads, ranges, multi, deletes, bytesUp, bytesDown atomic.Int64
}

func TestLoad(t *testing.T) {
	duration := envDuration(t, "GRIDFSD_LOAD_DURATION", 3*time.Second)
	workers := envInt(t, "GRIDFSD_LOAD_WORKERS", 8)

	db := buckets.NewDB(storetest.MustOpenDB(t))
	srv, err := gateway.New(gateway.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}

	var c counters
	var mu sync.Mutex
	var errs []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, fmt.Sprintf(format, args...))
	}
	kept := make([][]stored, workers)
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var mine []stored
			for i := 0; time.Now().Before(deadline); i++ {
				switch op := rng.IntN(10); {
				case op < 4 || len(mine) == 0:
					f, err := upload(client, base, rng, fmt.Sprintf("w%d/f%d", w, i))
					if err != nil {
						fail("upload: %v", err)
						continue
					}
					mine = append(mine, f)
					c.uploads.Add(1)
					c.bytesUp.Add(int64(len(f.data)))
				case op < 9:
					f := mine[rng.IntN(len(mine))]
					n, kind, err := rangedDownload(client, base, rng, f)
					if err != nil {
						fail("download %s: %v", f.name, err)
						continue
					}
					c.downloads.Add(1)
					c.bytesDown.Add(n)
					switch kind {
					case "single":
						c.ranges.Add(1)
					case "multi":
						c.multi.Add(1)
					}
				default:
					k := rng.IntN(len(mine))
					if err := remove(client, base, mine[k]); err != nil {
						fail("delete %s: %v", mine[k].name, err)
						continue
					}
					mine = append(mine[:k], mine[k+1:]...)
					c.deletes.Add(1)
				}
			}
			kept[w] = mine
		}()
	}
	wg.Wait()
	t.Logf("%d workers for %s: %d uploads (%d bytes), %d downloads (%d bytes; %d single-range, %d multi-range), %d deletes",
		workers, duration, c.uploads.Load(), c.bytesUp.Load(), c.downloads.Load(), c.bytesDown.Load(), c.ranges.Load(), c.multi.Load(), c.deletes.Load())
	if len(errs) > 0 {
		t.Fatalf("%d errors under load; first: %s", len(errs), errs[0])
	}
	if c.uploads.Load() == 0 || c.downloads.Load() == 0 {
		t.Fatal("the load did nothing")
	}

	// Afterwards: exactly the files kept, each intact, and nothing else.
	b, err := db.Bucket(context.Background(), "fs")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, mine := range kept {
		for _, f := range mine {
			want++
			d, err := b.OpenName(context.Background(), f.name, -1)
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			got, err := io.ReadAll(d)
			d.Close()
			if err != nil || !bytes.Equal(got, f.data) {
				t.Fatalf("%s: content differs after the load (%v)", f.name, err)
			}
		}
	}
	rep, err := b.Fsck(context.Background(), time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != int64(want) || len(rep.Damaged) != 0 || len(rep.Old)+len(rep.Pending) != 0 {
		t.Fatalf("after the load: %d files (want %d), %d damaged, %d orphaned files_ids",
			rep.Files, want, len(rep.Damaged), len(rep.Old)+len(rep.Pending))
	}
}

// upload PUTs random content of up to 48 KiB with a small random chunk
// size and checks the reply's length and SHA-256.
func upload(client *http.Client, base string, rng *rand.Rand, name string) (stored, error) {
	data := make([]byte, rng.IntN(48<<10))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	chunkSize := 256 << rng.IntN(6) // 256 B to 8 KiB
	req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/b/fs/%s?chunkSize=%d", base, name, chunkSize), bytes.NewReader(data))
	res, err := client.Do(req)
	if err != nil {
		return stored{}, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		return stored{}, fmt.Errorf("status %d: %s", res.StatusCode, body)
	}
	var f struct {
		Length int64
		SHA256 string
	}
	if err := json.Unmarshal(body, &f); err != nil {
		return stored{}, err
	}
	sum := sha256.Sum256(data)
	if f.Length != int64(len(data)) || f.SHA256 != hex.EncodeToString(sum[:]) {
		return stored{}, fmt.Errorf("stored %d bytes with sha256 %s, sent %d", f.Length, f.SHA256, len(data))
	}
	return stored{name: name, data: data}, nil
}

// rangedDownload GETs f whole, one range or several, and verifies every
// byte against what was uploaded.
func rangedDownload(client *http.Client, base string, rng *rand.Rand, f stored) (n int64, kind string, err error) {
	req, _ := http.NewRequest("GET", base+"/b/fs/"+f.name, nil)
	size := len(f.data)
	var spans []span
	switch {
	case size == 0 || rng.IntN(4) == 0:
		kind = "whole"
	case rng.IntN(3) == 0:
		kind = "multi"
		for range 2 + rng.IntN(3) {
			s := rng.IntN(size)
			spans = append(spans, span{s, s + rng.IntN(min(size-s, 4096))})
		}
	default:
		kind = "single"
		s := rng.IntN(size)
		spans = append(spans, span{s, s + rng.IntN(size-s)})
	}
	if len(spans) > 0 {
		h := "bytes="
		for i, s := range spans {
			if i > 0 {
				h += ","
			}
			h += fmt.Sprintf("%d-%d", s.start, s.end)
		}
		req.Header.Set("Range", h)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, kind, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, kind, err
	}
	check := func(contentRange string, part []byte) error {
		var s, e, total int
		if _, err := fmt.Sscanf(contentRange, "bytes %d-%d/%d", &s, &e, &total); err != nil {
			return fmt.Errorf("Content-Range %q: %v", contentRange, err)
		}
		if total != size || e >= size || !bytes.Equal(part, f.data[s:e+1]) {
			return fmt.Errorf("bytes %d-%d/%d differ from the upload", s, e, total)
		}
		return nil
	}
	switch res.StatusCode {
	case http.StatusOK:
		if !bytes.Equal(body, f.data) {
			return 0, kind, fmt.Errorf("200 with %d bytes that differ from the %d uploaded", len(body), size)
		}
		if kind == "multi" {
			kind = "whole" // ServeContent sends the whole file when ranges overlap past its size
		}
	case http.StatusPartialContent:
		mt, params, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		if mt != "multipart/byteranges" {
			if err := check(res.Header.Get("Content-Range"), body); err != nil {
				return 0, kind, err
			}
			break
		}
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		parts := 0
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, kind, err
			}
			part, _ := io.ReadAll(p)
			if err := check(p.Header.Get("Content-Range"), part); err != nil {
				return 0, kind, err
			}
			parts++
		}
		// The gateway merges overlapping and adjacent ranges.
		if want := len(merged(spans)); parts != want {
			return 0, kind, fmt.Errorf("%d parts for %d ranges (%d once merged)", parts, len(spans), want)
		}
	default:
		return 0, kind, fmt.Errorf("status %d: %s", res.StatusCode, body)
	}
	return int64(len(body)), kind, nil
}

// span is a byte range of a file, both ends included.
type span struct{ start, end int }

// merged is spans sorted, with overlapping and adjacent ones joined.
func merged(spans []span) []span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b span) int { return a.start - b.start })
	out := s[:1]
	for _, sp := range s[1:] {
		if last := &out[len(out)-1]; sp.start <= last.end+1 {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

func remove(client *http.Client, base string, f stored) error {
	req, _ := http.NewRequest("DELETE", base+"/b/fs/"+f.name, nil)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	res, err = client.Get(base + "/b/fs/" + f.name)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		return fmt.Errorf("after delete: status %d", res.StatusCode)
	}
	return nil
}
