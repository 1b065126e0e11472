// Command bench measures gridfsd side by side with the official driver's
// GridFS code and with the store's own ceiling, on one store, in one run.
//
//	go run ./tests/bench                 # embedded store, default sizes
//	go run ./tests/bench --uri mongodb://host/  # a real MongoDB
//	go run ./tests/bench --smoke         # seconds-long, for CI
//
// It prints a table and writes JSON (--json). Each throughput and latency
// figure is the median of --runs runs, with min and max.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	officialmongo "go.mongodb.org/mongo-driver/v2/mongo"
	officialoptions "go.mongodb.org/mongo-driver/v2/mongo/options"
)

type settings struct {
	uri     string
	db      string
	gridfsd string
	runs    int
	size    int64 // the cli, s3 and dav groups' file
	// throughputSize is the upload and download groups' file: large
	// enough that one run takes about a second
	throughputSize int64
	seekSizes      []int64
	readSize       int64
	readers        int
	readDuration   time.Duration
	memSize        int64
	memUploads     int
	memEach        int64
	storeSize      int64   // bucket size of the "embedded store at scale" group
	storeFile      int64   // its file size
	storeScales    []int64 // further bucket sizes for its seek row
	// the viewers group: a popular file
	viewers          int
	viewersFile      int64
	viewersRate      int
	viewersDuration  time.Duration
	viewersCache     int64
	viewersSmall     int
	viewersSmallFile int64
	viewersSmallEach int64
	// the embedded footprint group
	footprintLarge int64
	footprintSmall int
	only           map[string]bool
	jsonPath       string
	smoke          bool
	embedded       bool // the embedded store, in a process of its own
	storePID       int  // that process, for its CPU rows
	expiryFiles    int  // expired files of the expiry group
	// the expiry group's sweep options (zero: the sweeper's defaults)
	expiryBatch      int
	expiryBatchBytes int64
	expiryRest       float64
	// the tus group
	tusSize    int64
	tusPatch   int64
	tusUploads int
	tusEach    int64
	// the soak group (only with --only soak)
	soakDuration time.Duration
	soakClients  int
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run parses args and runs the benchmark, printing the table to out.
func run(args []string, out io.Writer) error {
	var s settings
	flag := flag.NewFlagSet("bench", flag.ContinueOnError)
	var size, throughputSize, seekSize, readSize, memSize, memEach, storeSize, storeFile, storeScales, viewersFile, viewersCache, footprintLarge, tusSize, tusPatch, tusEach, expiryBatchBytes string
	flag.StringVar(&s.uri, "uri", "", "MongoDB to measure; empty starts the embedded store in a gridfsd serve process of its own, in a temporary directory")
	flag.StringVar(&s.db, "db", "gridfsd_bench", "database to use (dropped before and after)")
	flag.StringVar(&s.gridfsd, "gridfsd", "", "gridfsd binary for the gateway rows; empty builds ./cmd/gridfsd")
	flag.IntVar(&s.runs, "runs", 3, "runs per figure")
	flag.StringVar(&size, "size", "64MiB", "file size of the cli, s3 and dav groups")
	flag.StringVar(&throughputSize, "throughput-size", "256MiB", "file size of the upload and download groups (their rows interleaved, --runs rounds)")
	flag.StringVar(&seekSize, "seek-sizes", "100MiB,40MiB", "file sizes for the seek rows, comma-separated")
	flag.StringVar(&readSize, "read-size", "4MiB", "file size for the concurrent readers")
	flag.IntVar(&s.readers, "readers", 64, "concurrent range readers")
	flag.DurationVar(&s.readDuration, "read-duration", 30*time.Second, "how long the concurrent readers run")
	flag.StringVar(&memSize, "mem-size", "1GiB", "file size for the single-upload memory row")
	flag.IntVar(&s.memUploads, "mem-uploads", 32, "concurrent uploads for the memory row")
	flag.StringVar(&memEach, "mem-each", "8MiB", "size of each concurrent upload")
	flag.StringVar(&storeSize, "store-size", "1GiB", "bytes in the bucket of the store group (embedded store at scale)")
	flag.StringVar(&storeFile, "store-file", "256MiB", "size of each file of the store group")
	flag.StringVar(&storeScales, "store-scales", "100MiB,2GiB", "further bucket sizes at which the store group times a seek, comma-separated")
	flag.IntVar(&s.viewers, "viewers", 1000, "clients of the viewers group, each streaming one file from an offset of its own")
	flag.StringVar(&viewersFile, "viewers-file", "256MiB", "the file the viewers stream")
	flag.IntVar(&s.viewersRate, "viewers-rate", 200_000, "bytes a second each viewer reads")
	flag.DurationVar(&s.viewersDuration, "viewers-duration", 60*time.Second, "how long each viewer reads")
	flag.StringVar(&viewersCache, "viewers-cache", "320MiB", "chunk cache of the viewers' gateway (GRIDFSD_CHUNK_CACHE_SIZE)")
	flag.StringVar(&footprintLarge, "footprint-large", "1GiB", "bytes stored in files of --store-file by the embedded footprint group")
	flag.IntVar(&s.footprintSmall, "footprint-small", 10_000, "files of 4-64 KiB stored by the embedded footprint group")
	flag.IntVar(&s.expiryFiles, "expiry-files", 10000, "expired files (1 KiB to 1 MiB) the expiry group sweeps")
	flag.IntVar(&s.expiryBatch, "expiry-batch", 0, "files per batch of the expiry group's sweep (0: the sweeper's default)")
	flag.Float64Var(&s.expiryRest, "expiry-rest", 0, "the expiry group's sweeper pause after each batch, as a fraction of the batch's time (0: the sweeper's default, negative: none)")
	flag.StringVar(&expiryBatchBytes, "expiry-batch-bytes", "0", "bytes per batch of the expiry group's sweep (0: the sweeper's default)")
	flag.IntVar(&s.viewersSmall, "viewers-small", 200, "clients of the viewers group's second step, 5 MB each of a 20 MB file at 1 MB/s (0: skip it)")
	flag.StringVar(&tusSize, "tus-size", "1GiB", "file size of the tus group's throughput and memory rows")
	flag.StringVar(&tusPatch, "tus-patch", "8MiB", "PATCH size of the tus group's throughput and memory rows")
	flag.IntVar(&s.tusUploads, "tus-uploads", 64, "concurrent tus uploads of the tus group")
	flag.StringVar(&tusEach, "tus-each", "4MiB", "size of each concurrent tus upload")
	flag.DurationVar(&s.soakDuration, "soak-duration", 30*time.Minute, "how long the soak group runs (--only soak)")
	flag.IntVar(&s.soakClients, "soak-clients", 32, "clients of the soak group")
	var only string
	flag.StringVar(&only, "only", "", "run only these steps, comma-separated: ceiling, upload, download, cli, seek, readers, concurrency, s3, dav, tus, store, footprint, viewers, expiry, memory; soak runs only when named")
	flag.StringVar(&s.jsonPath, "json", "bench-results.json", "write results here as JSON; empty: do not")
	flag.BoolVar(&s.smoke, "smoke", false, "tiny sizes and one run: checks that everything works, measures nothing")
	if err := flag.Parse(args); err != nil {
		return err
	}
	for _, p := range []struct {
		dst *int64
		src string
	}{{&s.size, size}, {&s.throughputSize, throughputSize}, {&s.readSize, readSize}, {&s.memSize, memSize}, {&s.memEach, memEach}, {&s.storeSize, storeSize}, {&s.storeFile, storeFile}, {&s.viewersFile, viewersFile}, {&s.viewersCache, viewersCache}, {&s.footprintLarge, footprintLarge}, {&s.tusSize, tusSize}, {&s.tusPatch, tusPatch}, {&s.tusEach, tusEach}, {&s.expiryBatchBytes, expiryBatchBytes}} {
		n, err := config.ParseSize(p.src)
		if err != nil {
			return err
		}
		*p.dst = n
	}
	if only != "" {
		s.only = map[string]bool{}
		for _, step := range strings.Split(only, ",") {
			s.only[strings.TrimSpace(step)] = true
		}
	}
	for _, part := range strings.Split(seekSize, ",") {
		n, err := config.ParseSize(part)
		if err != nil {
			return fmt.Errorf("--seek-sizes: %w", err)
		}
		s.seekSizes = append(s.seekSizes, n)
	}
	for _, part := range strings.Split(storeScales, ",") {
		n, err := config.ParseSize(part)
		if err != nil {
			return fmt.Errorf("--store-scales: %w", err)
		}
		s.storeScales = append(s.storeScales, n)
	}
	if s.smoke {
		s.storeSize, s.storeFile, s.storeScales = 6<<20, 2<<20, []int64{3 << 20, 8 << 20}
		s.seekSizes = []int64{4 << 20}
		s.runs, s.size, s.readSize, s.memSize, s.memEach = 1, 2<<20, 2<<20, 4<<20, 256<<10
		s.throughputSize = 2 << 20
		s.readers, s.readDuration, s.memUploads = 8, 2*time.Second, 4
		s.expiryFiles = 200
		s.viewers, s.viewersFile, s.viewersDuration, s.viewersCache = 20, 4<<20, 2*time.Second, 8<<20
		s.footprintLarge, s.footprintSmall = 4<<20, 20
		s.tusSize, s.tusPatch, s.tusUploads, s.tusEach = 6<<20, 1<<20, 8, 1<<20
		s.soakDuration, s.soakClients = 3*time.Second, 4
	}
	// The table: 200 clients reading 5 MB each of a 20 MB file at 1 MB/s.
	s.viewersSmallFile, s.viewersSmallEach = 20_000_000, 5_000_000
	if s.smoke {
		s.viewersSmall, s.viewersSmallFile, s.viewersSmallEach = 10, 4_000_000, 1_000_000
	}

	ctx := context.Background()
	work, err := os.MkdirTemp("", "gridfsd-bench-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if _, err := s.binary(ctx, work); err != nil {
		return err
	}
	if s.uri == "" {
		store, uri, err := startStore(s.gridfsd, filepath.Join(work, "store"))
		if err != nil {
			return err
		}
		defer store.stop()
		s.uri, s.embedded, s.storePID = uri, true, store.cmd.Process.Pid
		fmt.Fprintf(os.Stderr, "embedded store (FerretDB on SQLite) at %s, in gridfsd serve process %d\n", s.uri, s.storePID)
	}
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri))
	if err != nil {
		return err
	}
	defer client.Disconnect(ctx)
	db := client.Database(s.db)
	// The driver's rows measure the official driver, as its users have
	// it; gridfsd's packages use its fork (third_party/mongo-driver).
	official, err := officialmongo.Connect(officialoptions.Client().ApplyURI(s.uri))
	if err != nil {
		return err
	}
	defer official.Disconnect(ctx)
	if err := db.Drop(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", s.db, err)
	}
	defer db.Drop(ctx)

	b := &bench{s: s, db: db, official: official.Database(s.db)}
	if err := b.all(ctx); err != nil {
		return err
	}
	b.print(out)
	if s.jsonPath != "" {
		js, _ := json.MarshalIndent(b.results, "", "  ")
		if err := os.WriteFile(s.jsonPath, js, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// wants reports whether step is to run.
func (s settings) wants(step string) bool { return s.only == nil || s.only[step] }

// result is one row of the table.
type result struct {
	Group  string    `json:"group"`
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Runs   []float64 `json:"runs"`
	Note   string    `json:"note,omitempty"`
}

type bench struct {
	s  settings
	db *mongo.Database
	// official is db through the official driver, for the driver's rows.
	official *officialmongo.Database
	results  []result
}

func (b *bench) add(group, name, unit string, runs []float64, note string) result {
	sorted := append([]float64(nil), runs...)
	sort.Float64s(sorted)
	r := result{Group: group, Name: name, Unit: unit, Runs: runs, Note: note}
	if len(sorted) > 0 {
		r.Min, r.Max, r.Median = sorted[0], sorted[len(sorted)-1], sorted[len(sorted)/2]
	}
	b.results = append(b.results, r)
	fmt.Fprintf(os.Stderr, "  %-48s %10.2f %s\n", group+": "+name, r.Median, unit)
	return r
}

// repeat runs fn runs times and collects its figures.
func (b *bench) repeat(fn func(run int) (float64, error)) ([]float64, error) {
	var out []float64
	for i := 0; i < b.s.runs; i++ {
		v, err := fn(i)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (b *bench) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\tmeasure\tmedian\tmin\tmax\tunit\t")
	group := ""
	for _, r := range b.results {
		g := r.Group
		if g == group {
			g = ""
		}
		group = r.Group
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%s\t  %s\n", g, r.Name, r.Median, r.Min, r.Max, r.Unit, r.Note)
	}
	tw.Flush()
}

func mbps(n int64, d time.Duration) float64 { return float64(n) / 1e6 / d.Seconds() }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
