package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// gateway is a gridfsd serve process of its own, so that its memory and
// CPU are measured apart from the store's and the benchmark's. The
// embedded store, without --uri, runs in one too.
type gateway struct {
	cmd    *exec.Cmd
	base   string
	s3base string // the S3 front door of the same process
	client *http.Client
}

// binary returns the gridfsd binary to run: --gridfsd, or one built from
// ./cmd/gridfsd into dir.
func (s *settings) binary(ctx context.Context, dir string) (string, error) {
	if s.gridfsd != "" {
		return s.gridfsd, nil
	}
	bin := filepath.Join(dir, "gridfsd")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/gridfsd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build gridfsd (run from the repository root or pass --gridfsd): %w", err)
	}
	s.gridfsd = bin
	return bin, nil
}

// startGateway runs gridfsd serve on the store being measured.
func (b *bench) startGateway() (*gateway, error) {
	// No expiry sweeps behind the groups' backs (the expiry group runs
	// its own).
	return b.startServe("--uri", b.s.uri, "--db", b.s.db, "--expiry-sweep-interval", "0s")
}

// startServe runs gridfsd serve, its S3 API on, on the store storeArgs
// name (--uri ..., or --data-dir and --embedded-listen of its own).
func (b *bench) startServe(storeArgs ...string) (*gateway, error) {
	return b.startServeEnv(nil, storeArgs...)
}

// startServeEnv is startServe with env added to the process's environment:
// settings through GRIDFSD_* variables, which an older gridfsd (measured
// for a "before" figure) ignores where it would refuse an unknown flag.
//
// Every gateway runs with its chunk cache off unless env turns it on (the
// viewers group does): the other groups measure the path to the store, and
// would measure memory instead once their file had been read.
func (b *bench) startServeEnv(env []string, storeArgs ...string) (*gateway, error) {
	env = append([]string{"GRIDFSD_CHUNK_CACHE_SIZE=0"}, env...) // the last of a key wins
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s3addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--listen", addr, "--s3-listen", s3addr, "--log-level", "warn"}, storeArgs...)
	return serveEnv(b.s.gridfsd, env, addr, "http://"+s3addr, args...)
}

// startStore runs the embedded store in a gridfsd serve process of its own
// (its gateway idle, its S3 API off), so that the store's CPU and memory
// are counted neither in the benchmark's process, where the driver and
// chunker rows run, nor in the measured gateway. It returns the process
// and the store's MongoDB URI.
func startStore(bin, dataDir string) (*gateway, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	storeAddr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	g, err := serve(bin, addr, "", "serve", "--data-dir", dataDir, "--embedded-listen", storeAddr,
		"--listen", addr, "--s3-listen=", "--log-level", "warn", "--expiry-sweep-interval", "0s")
	if err != nil {
		return nil, "", err
	}
	return g, "mongodb://" + storeAddr + "/", nil
}

// serve starts bin with args and waits until its gateway on addr is ready.
func serve(bin, addr, s3base string, args ...string) (*gateway, error) {
	return serveEnv(bin, nil, addr, s3base, args...)
}

func serveEnv(bin string, env []string, addr, s3base string, args ...string) (*gateway, error) {
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gridfsd serve: %w", err)
	}
	gw := &gateway{
		cmd:    cmd,
		base:   "http://" + addr,
		s3base: s3base,
		client: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: 256,
			DisableCompression:  true,
			// Large socket writes and reads, as curl makes: the default
			// 4 KiB would cost the client a system call per 4 KiB, on the
			// cores the store needs.
			WriteBufferSize: 256 << 10,
			ReadBufferSize:  256 << 10,
		}},
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := gw.client.Get(gw.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return gw, nil
			}
		}
		if time.Now().After(deadline) {
			gw.stop()
			return nil, fmt.Errorf("gridfsd serve not ready on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (g *gateway) stop() {
	if g.cmd.Process != nil && g.cmd.ProcessState == nil {
		g.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { g.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			g.cmd.Process.Kill()
			<-done
		}
	}
}

func (g *gateway) put(ctx context.Context, path string, body io.Reader, size int64) error {
	return g.send(ctx, http.MethodPut, g.base+path, body, size, nil)
}

// get copies the body of GET path (with Range rng when set) to w.
func (g *gateway) get(ctx context.Context, path, rng string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+path, nil)
	if err != nil {
		return 0, err
	}
	want := http.StatusOK
	if rng != "" {
		req.Header.Set("Range", rng)
		want = http.StatusPartialContent
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return 0, fmt.Errorf("GET %s (%s): %s", path, rng, resp.Status)
	}
	return io.Copy(w, resp.Body)
}

// samplePeakRSS samples the process's resident set every period until the
// function it returns is called, which returns the highest one seen.
func (g *gateway) samplePeakRSS(period time.Duration) (stop func() int64) {
	var peak int64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if rss, _, err := g.memory(); err == nil && rss > peak {
				peak = rss
			}
			select {
			case <-done:
				return
			case <-time.After(period):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-sampled
		return peak
	}
}

// memory reads the resident set of the process: now and its peak.
func (g *gateway) memory() (rss, peak int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", g.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc status")
	}
	return rss, peak, nil
}

// storeReadMetric counts the chunk bytes the gateway received from the store.
const storeReadMetric = "gridfsd_store_read_bytes_total"

// metric scrapes one unlabelled metric from the gateway.
func (g *gateway) metric(name string) (float64, error) {
	resp, err := g.client.Get(g.base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /metrics", name)
}

// metricAbove waits briefly for a counter to pass before: the gateway
// counts a download's store bytes when the handler returns, which may be
// just after the client has read the last byte.
func (g *gateway) metricAbove(name string, before float64) (float64, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		v, err := g.metric(name)
		if err != nil || v > before || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// heap scrapes the gateway's Go heap in use from its Prometheus metrics.
func (g *gateway) heap() (int64, error) {
	v, err := g.metric("go_memstats_heap_inuse_bytes")
	return int64(v), err
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
