package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmoke runs the whole benchmark with tiny sizes, so that it keeps
// building and working; its figures mean nothing and are not checked.
// What is checked: every row is there, and the concurrent readers, who
// verify every byte, saw no error.
func TestSmoke(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root) // the benchmark builds ./cmd/gridfsd
	js := filepath.Join(t.TempDir(), "results.json")
	var out bytes.Buffer
	if err := run([]string{"--smoke", "--json", js}, &out); err != nil {
		t.Fatalf("bench --smoke: %v\n%s", err, out.String())
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var results []result
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatal(err)
	}
	seen := map[string]result{}
	for _, r := range results {
		seen[r.Group+"/"+r.Name] = r
	}
	for _, want := range []string{
		"store ceiling/raw InsertMany", "store ceiling/raw find", "store ceiling/raw find: CPU", "store ceiling/raw find: store CPU",
		"download/gateway HTTP GET: store CPU", "download/driver DownloadToStream: store CPU",
		"upload/chunker.Writer (direct)", "upload/driver UploadFromStream", "upload/gateway HTTP PUT",
		"download/driver DownloadToStream", "download/gateway HTTP GET",
		"upload/gridfsd put", "upload/gridfsd put: CPU", "download/gridfsd get", "download/gridfsd get: CPU", "download/gridfsd verify", "download/gridfsd verify: CPU",
		"upload/gateway HTTP PUT: CPU", "download/gateway HTTP GET: CPU", "upload/SHA-256 of the bytes (sha256-simd): CPU",
		"seek 4MiB/gateway GET Range at 0%", "seek 4MiB/gateway GET Range at 99%", "seek 4MiB/driver Skip+Read at 99%",
		"concurrent readers/errors", "memory/one upload: RSS rise", "memory/concurrent uploads: RSS rise",
		"embedded store at scale/1 KiB range at 99% of 2MiB, 6MiB in bucket",
		"embedded store at scale/1 KiB range at 99% of 2MiB, 8MiB in bucket",
		"embedded store at scale/first 64 KiB of an open range at 50% of 2MiB",
		"embedded store at scale/upload (HTTP PUT)", "embedded store at scale/full download (HTTP GET)",
		"embedded store at scale/delete (HTTP DELETE)", "embedded store at scale/RSS rise serving 20 seeks into 2MiB",
		"embedded footprint/4MiB in 2MiB files: bytes on disk / bytes stored",
		"embedded footprint/4MiB in 2MiB files: after deleting half, on disk / what remains",
		"embedded footprint/20 files of 4-64 KiB: bytes on disk / bytes stored",
		"embedded footprint/20 files of 4-64 KiB: after deleting half, on disk / what remains",
		"expiry sweep/files swept per second", "expiry sweep/orphaned chunks left", "expiry sweep/reads of live files, during the sweep: p99",
	} {
		r, ok := seen[want]
		if !ok {
			t.Errorf("no row %q", want)
			continue
		}
		if strings.HasPrefix(r.Note, "FAILED") {
			t.Errorf("row %q failed: %s", want, r.Note)
		}
	}
	// The CPU rows of a smoke run may be 0 (the clock ticks are 10 ms);
	// the gateway's RSS never is, so it shows the sampling reached it.
	if r := seen["concurrency 4/uploads: gateway RSS"]; r.Median <= 0 {
		t.Errorf("concurrency 4: gateway RSS %v MiB, want a positive figure", r.Median)
	}
	for _, name := range []string{"concurrency 4/uploads: errors", "concurrency 4/range readers: errors"} {
		if r, ok := seen[name]; !ok || r.Median != 0 {
			t.Errorf("row %q: %v (present: %v), want 0 errors", name, r.Median, ok)
		}
	}
	if r := seen["expiry sweep/orphaned chunks left"]; r.Median != 0 {
		t.Errorf("the expiry sweep left %v orphaned chunks", r.Median)
	}
	// The viewers group: every byte verified, none wrong or missing.
	for _, group := range []string{"viewers 20 x 200 KB/s of 4MiB", "viewers 10 x 1 MB/s of 4 MB"} {
		for _, name := range []string{"bytes read from the store", "gateway RSS rise beyond the cache, per client", "chunk cache hits / misses"} {
			if _, ok := seen[group+"/"+name]; !ok {
				t.Errorf("no row %q", group+"/"+name)
			}
		}
		if r, ok := seen[group+"/errors"]; !ok || r.Median != 0 {
			t.Errorf("%s: %v errors (row present: %v), want 0", group, r.Median, ok)
		}
	}
	if r := seen["concurrent readers/errors"]; r.Median != 0 {
		t.Errorf("concurrent readers saw %v errors", r.Median)
	}
	if r := seen["concurrent readers/requests"]; r.Median == 0 {
		t.Error("concurrent readers completed no request")
	}
}
