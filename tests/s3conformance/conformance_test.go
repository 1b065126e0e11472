// Package s3conformance runs the suites the S3 world judges servers by
// against a real `gridfsd serve` (path-style, access control on, two
// admin tokens): ceph's s3-tests (the copy in ../shared/conformance, adapted
// from outside by testdata/gridfsd_s3tests.py and a generated
// configuration) and minio-go's functional suite (the program MinIO's mint
// runs, built from the Go module cache).
//
// Both are ratchets. s3-tests runs the tests listed in
// testdata/s3tests-pass.txt, and each of them must pass; minio-go's suite
// runs whole, and every test function must pass, be one that answers
// NotImplemented for a feature listed in testdata/miniogo-unsupported.txt,
// or be a known failure of testdata/miniogo-known-failures.txt (a list that
// only shrinks: the log names those that no longer fail).
// docs/S3.md says how to run every test of both and refresh the lists.
package s3conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// user is a token of the server under test: an S3 key pair.
type user struct{ name, secret string }

var (
	mainUser   = user{"s3main", "s3main-secret-0123456789"}
	altUser    = user{"s3alt", "s3alt-secret-0123456789"}
	tenantUser = user{"s3tenant", "s3tenant-secret-0123456789"}
)

// server is a running `gridfsd serve`.
type server struct {
	s3Addr, httpAddr string
	log              *proctest.Log
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServe builds gridfsd and serves a fresh database of the test store
// with access control on: three admin tokens (s3-tests' main, alt and
// tenant users), the alt user's limited to the buckets it creates. extra
// are more flags.
func startServe(t *testing.T, extra ...string) *server {
	t.Helper()
	dir := t.TempDir()
	bin := proctest.BuildGridfsd(t, dir)
	db := storetest.MustOpenDB(t)
	var cfg strings.Builder
	cfg.WriteString("auth:\n  tokens:\n")
	for _, u := range []user{mainUser, altUser, tenantUser} {
		// The alt user is another S3 account, as on RGW: it owns the
		// buckets it creates and no other (the tests of access between
		// accounts, copies from another's bucket above all, need that).
		scope := `"*"`
		if u == altUser {
			scope = `"` + auth.OwnedBuckets + `"`
		}
		fmt.Fprintf(&cfg, "    - name: %s\n      secret: %q\n      buckets: [%s]\n      access: admin\n", u.name, u.secret, scope)
	}
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &server{s3Addr: freeAddr(t), httpAddr: freeAddr(t), log: &proctest.Log{}}
	args := append([]string{"serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(),
		"--listen", s.httpAddr, "--s3-listen", s.s3Addr}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-served
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get("http://" + s.httpAddr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-served:
			t.Fatalf("gridfsd serve stopped: %v\n%s", err, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("gridfsd serve not ready: %v\n%s", err, s.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readList reads a list file of testdata: one name a line, the rest of a
// line after '#' a comment.
func readList(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// s3testsDir finds ceph's s3-tests: $GRIDFSD_S3TESTS_DIR, else
// shared/conformance/s3-tests beside the repository (where CI has it) or
// beside the directory holding it (a worktree).
func s3testsDir(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("GRIDFSD_S3TESTS_DIR")}
	root, _ := filepath.Abs("../..")
	for dir := root; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		candidates = append(candidates, filepath.Join(filepath.Dir(dir), "shared", "conformance", "s3-tests"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "s3tests", "functional", "test_s3.py")); err == nil {
			return c
		}
	}
	t.Fatalf("ceph s3-tests not found: set GRIDFSD_S3TESTS_DIR or put shared/conformance/s3-tests beside the repository (looked in %s)",
		strings.Join(candidates[1:], ", "))
	return ""
}

// python returns Debian's python3, with the modules s3-tests needs
// (./test.sh installs them).
func python(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import pytest, xdist, pytest_timeout, boto3, munch, isodate, lxml, gevent, httplib2, dateutil").CombinedOutput()
	if err != nil {
		t.Fatalf("%s cannot run s3-tests (./test.sh installs python3-pytest, python3-pytest-xdist, python3-boto3, ...): %v\n%s", py, err, out)
	}
	return py
}

// lcDebugInterval is the suite's lifecycle day in seconds (RGW's
// rgw_lc_debug_interval), and the server's.
const lcDebugInterval = 2

// s3testsConf is the suite's configuration for the server at addr.
func s3testsConf(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	section := func(name string, u user, extra string) string {
		return fmt.Sprintf("[%s]\ndisplay_name = %s\nuser_id = %s\nemail = %s@example.com\naccess_key = %s\nsecret_key = %s\n%s\n",
			name, u.name, u.name, u.name, u.name, u.secret, extra)
	}
	return fmt.Sprintf("[DEFAULT]\nhost = %s\nport = %s\nis_secure = False\nssl_verify = False\n\n", host, port) +
		"[fixtures]\nbucket prefix = gridfsd-{random}-\n\n" +
		section("s3 main", mainUser, fmt.Sprintf("api_name = default\nlc_debug_interval = %d", lcDebugInterval)) +
		section("s3 alt", altUser, "") +
		section("s3 tenant", tenantUser, "tenant = testx") +
		section("iam", mainUser, "") +
		section("iam root", mainUser, "") +
		section("iam alt root", altUser, "")
}

// s3testResult is one test's line in the plugin's results file.
type s3testResult struct{ outcome, area, name string }

// TestS3Tests runs ceph's s3-tests: the tests of testdata/s3tests-pass.txt
// (the ratchet), each of which must pass; GRIDFSD_S3TESTS=all runs every
// test outside fails_on_aws instead and reports, without failing, which
// pass (GRIDFSD_S3TESTS_OUT names a file for the results).
func TestS3Tests(t *testing.T) {
	if testing.Short() {
		t.Skip("s3-tests take minutes; -short leaves them out")
	}
	t.Parallel()
	suite, py := s3testsDir(t), python(t)
	all := os.Getenv("GRIDFSD_S3TESTS") == "all"
	// The lifecycle tests wait lc_debug_interval seconds per lifecycle
	// day (s3testsConf); gridfsd's day is as long (lifecycle-debug-day).
	srv := startServe(t, "--lifecycle-debug-day", fmt.Sprintf("%ds", lcDebugInterval), "--expiry-sweep-interval", "1s")
	dir := t.TempDir()
	conf := filepath.Join(dir, "s3tests.conf")
	if err := os.WriteFile(conf, []byte(s3testsConf(srv.s3Addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results.txt")
	if out := os.Getenv("GRIDFSD_S3TESTS_OUT"); out != "" {
		results, _ = filepath.Abs(out)
	}
	plugin, _ := filepath.Abs("testdata")
	selected, _ := filepath.Abs("testdata/s3tests-pass.txt")
	must := readList(t, "s3tests-pass.txt")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// Four workers: the tests mostly wait on round trips, not on the CPU.
	args := []string{"-m", "pytest", "-p", "gridfsd_s3tests", "-p", "no:cacheprovider", "-q", "-rN",
		"-n", "4", "--timeout", "120", "s3tests/functional/test_s3.py"}
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Dir = suite
	cmd.Env = append(cleanEnv(), "S3TEST_CONF="+conf, "PYTHONPATH="+plugin, "GRIDFSD_S3TESTS_RESULTS="+results,
		"PYTHONDONTWRITEBYTECODE=1", "HOME="+dir)
	if !all {
		cmd.Env = append(cmd.Env, "GRIDFSD_S3TESTS_SELECT="+selected)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	got := readResults(t, results)
	if len(got) == 0 {
		t.Fatalf("pytest reported no test: %v\n%s", runErr, tail(out.String(), 4000))
	}
	t.Logf("s3-tests: %d tests in %s", len(got), time.Since(start).Round(time.Second))
	t.Log("s3-tests passed per area:\n" + areaTable(got))

	passed := map[string]bool{}
	for _, r := range got {
		passed[r.name] = r.outcome == "passed"
	}
	var regressed, newly []string
	for _, name := range must {
		if !passed[name] {
			regressed = append(regressed, name)
		}
	}
	listed := map[string]bool{}
	for _, name := range must {
		listed[name] = true
	}
	for _, r := range got {
		if r.outcome == "passed" && !listed[r.name] {
			newly = append(newly, r.name)
		}
	}
	if len(newly) > 0 {
		t.Logf("%d tests pass that testdata/s3tests-pass.txt does not list (add them):\n%s", len(newly), strings.Join(newly, "\n"))
	}
	if len(regressed) > 0 {
		t.Errorf("%d tests of testdata/s3tests-pass.txt do not pass:\n%s\n\npytest's report:\n%s", len(regressed),
			strings.Join(regressed, "\n"), failureReport(out.String(), regressed))
	}
	if t.Failed() {
		t.Logf("gridfsd's log (tail):\n%s", tail(srv.log.String(), 8000))
	}
}

func readResults(t *testing.T, path string) []s3testResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []s3testResult
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) == 3 {
			out = append(out, s3testResult{f[0], f[1], f[2]})
		}
	}
	return out
}

// areaTable counts passes per area, core first.
func areaTable(rs []s3testResult) string {
	type count struct{ pass, all int }
	counts := map[string]*count{}
	total := &count{}
	for _, r := range rs {
		c := counts[r.area]
		if c == nil {
			c = &count{}
			counts[r.area] = c
		}
		c.all++
		total.all++
		if r.outcome == "passed" {
			c.pass++
			total.pass++
		}
	}
	areas := make([]string, 0, len(counts))
	for a := range counts {
		areas = append(areas, a)
	}
	sort.Slice(areas, func(i, j int) bool { return areas[i] == "core" || areas[j] != "core" && areas[i] < areas[j] })
	var b strings.Builder
	for _, a := range areas {
		fmt.Fprintf(&b, "  %-18s %3d / %3d\n", a, counts[a].pass, counts[a].all)
	}
	fmt.Fprintf(&b, "  %-18s %3d / %3d\n", "all", total.pass, total.all)
	return b.String()
}

// failureReport picks pytest's sections about the named tests.
func failureReport(out string, names []string) string {
	var b strings.Builder
	for _, sec := range strings.Split(out, "\n____") {
		for _, n := range names {
			if strings.HasPrefix(strings.TrimLeft(sec, "_ "), n+" ") {
				b.WriteString(tail(sec, 3000))
				b.WriteString("\n")
				break
			}
		}
	}
	if b.Len() == 0 {
		return tail(out, 6000)
	}
	return tail(b.String(), 30000)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// cleanEnv is the environment without the machine's AWS and proxy
// settings, so that the clients reach only the server under test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "AWS_"), strings.HasPrefix(strings.ToUpper(k), "HTTP_PROXY"),
			strings.HasPrefix(strings.ToUpper(k), "HTTPS_PROXY"), k == "HOME", k == "SERVER_ENDPOINT",
			k == "ACCESS_KEY", k == "SECRET_KEY", k == "ENABLE_HTTPS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "AWS_EC2_METADATA_DISABLED=true", "NO_PROXY=127.0.0.1,localhost")
}

// minioGoVersion is the minio-go release whose functional suite runs;
// testdata/miniogo/go.mod and go.sum pin its dependencies.
const minioGoVersion = "v7.4.1"

// buildMinioFunctional builds minio-go's functional_tests.go from the
// module cache (downloading the module when missing) with the pinned
// dependencies of testdata/miniogo.
func buildMinioFunctional(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	dl := exec.Command("go", "mod", "download", "-json", "github.com/minio/minio-go/v7@"+minioGoVersion)
	dl.Env, dl.Dir = env, dir
	out, err := dl.Output()
	if err != nil {
		t.Fatalf("go mod download minio-go: %v\n%s", err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download minio-go: %v %s", err, out)
	}
	src, err := os.ReadFile(filepath.Join(mod.Dir, "functional_tests.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The file carries the build tag "mint", which would also add it to
	// the minio-go package it sits in; a copy builds alone without it.
	src = bytes.Replace(src, []byte("//go:build mint\n"), nil, 1)
	files := map[string][]byte{"functional_tests.go": src}
	for _, f := range []string{"go.mod", "go.sum"} {
		if files[f], err = os.ReadFile(filepath.Join("testdata", "miniogo", f)); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "functional")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env, build.Dir = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly"), dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build minio-go's functional tests: %v\n%s", err, out)
	}
	return bin
}

// minioResult is one line of the functional suite's JSON log.
type minioResult struct {
	Name     string `json:"name"`
	Function string `json:"function"`
	Status   string `json:"status"`
	Message  string `json:"message"`
	Error    string `json:"error"`
	Alert    string `json:"alert"`
}

// TestMinioGoFunctional runs minio-go's functional suite (MINT_MODE=full)
// against gridfsd: no test function may fail but the known failures, and
// only those listed in testdata/miniogo-unsupported.txt may answer
// NotImplemented (NA).
func TestMinioGoFunctional(t *testing.T) {
	if testing.Short() {
		t.Skip("minio-go's functional suite takes minutes; -short leaves it out")
	}
	t.Parallel()
	bin := buildMinioFunctional(t)
	srv := startServe(t)
	unsupported := map[string]bool{}
	for _, n := range readList(t, "miniogo-unsupported.txt") {
		unsupported[n] = true
	}
	known := map[string]bool{}
	for _, n := range readList(t, "miniogo-known-failures.txt") {
		known[n] = true
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = t.TempDir()
	// SERVER_ENDPOINT always names the server under test: unset, the
	// program would test a public server.
	cmd.Env = append(cleanEnv(), "SERVER_ENDPOINT="+srv.s3Addr, "ACCESS_KEY="+mainUser.name, "SECRET_KEY="+mainUser.secret,
		"ENABLE_HTTPS=0", "ENABLE_KMS=0", "MINT_MODE=full", "RUN_ON_FAIL=1", "HOME="+cmd.Dir,
		// Its temporary files (some of 129 MiB, not all removed) stay in
		// the test's directory, which the test removes.
		"TMPDIR="+cmd.Dir,
		"GOMAXPROCS="+fmt.Sprint(runtime.GOMAXPROCS(0)))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()

	status := map[string]string{} // test function → PASS, FAIL or NA (the worst seen)
	detail := map[string]string{}
	rank := map[string]int{"PASS": 0, "NA": 1, "FAIL": 2}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r minioResult
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Name == "" || r.Status == "" {
			continue
		}
		name := strings.TrimPrefix(r.Name, "minio-go: ")
		if prev, ok := status[name]; !ok || rank[r.Status] > rank[prev] {
			status[name] = r.Status
			detail[name] = strings.TrimSpace(r.Function + ": " + r.Message + " " + r.Error + " " + r.Alert)
		}
	}
	counts := map[string]int{}
	var failed, fixed, notImplemented, implemented []string
	for name, st := range status {
		counts[st]++
		if st == "PASS" && unsupported[name] {
			implemented = append(implemented, name)
		}
		switch {
		case st == "FAIL" && !known[name]:
			failed = append(failed, name+" — "+detail[name])
		case st == "NA" && !unsupported[name]:
			notImplemented = append(notImplemented, name+" — "+detail[name])
		case st != "FAIL" && known[name]:
			fixed = append(fixed, name)
		}
	}
	sort.Strings(failed)
	sort.Strings(notImplemented)
	sort.Strings(fixed)
	t.Logf("minio-go %s functional suite in %s: %d functions, %d pass, %d fail, %d NA", minioGoVersion,
		time.Since(start).Round(time.Second), len(status), counts["PASS"], counts["FAIL"], counts["NA"])
	if len(status) == 0 || runErr != nil && counts["FAIL"] == 0 {
		t.Fatalf("the functional suite did not run through: %v\n%s\n%s", runErr, tail(stdout.String(), 4000), tail(stderr.String(), 4000))
	}
	if len(failed) > 0 {
		t.Errorf("%d test functions fail:\n%s", len(failed), strings.Join(failed, "\n"))
	}
	if len(notImplemented) > 0 {
		t.Errorf("%d test functions met NotImplemented for a feature testdata/miniogo-unsupported.txt does not list:\n%s",
			len(notImplemented), strings.Join(notImplemented, "\n"))
	}
	if len(fixed) > 0 {
		// Not a failure: the run is green, and the list should shrink.
		t.Logf("%d test functions of testdata/miniogo-known-failures.txt no longer fail: take them off the list:\n%s",
			len(fixed), strings.Join(fixed, "\n"))
	}
	if len(implemented) > 0 {
		// Not a failure either: the list should shrink.
		sort.Strings(implemented)
		t.Logf("%d test functions of testdata/miniogo-unsupported.txt pass: take them off the list:\n%s",
			len(implemented), strings.Join(implemented, "\n"))
	}
	if t.Failed() {
		t.Logf("gridfsd's log (tail):\n%s", tail(srv.log.String(), 8000))
	}
}
