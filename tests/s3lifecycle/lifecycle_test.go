// Package s3lifecycle runs the lifecycle tests of ceph's s3-tests (marker
// `lifecycle`) against gridfsd serve, with a lifecycle day shortened to the
// suite's lc_debug_interval (lifecycle-debug-day), as Ceph RGW runs them
// with rgw_lc_debug_interval. Every test of testdata/lifecycle-pass.txt must
// pass; the file says why the others are left out.
package s3lifecycle

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// lcInterval is the suite's lifecycle day in seconds, and gridfsd's.
const lcInterval = 2

// s3testsDir finds ceph's s3-tests: $GRIDFSD_S3TESTS_DIR, else
// shared/conformance/s3-tests beside the repository.
func s3testsDir(t *testing.T) string {
	t.Helper()
	var candidates []string
	if d := os.Getenv("GRIDFSD_S3TESTS_DIR"); d != "" {
		candidates = append(candidates, d)
	}
	if root, err := filepath.Abs("../.."); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(root), "shared", "conformance", "s3-tests"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "s3tests", "functional", "test_s3.py")); err == nil {
			return c
		}
	}
	t.Fatalf("ceph s3-tests not found: set GRIDFSD_S3TESTS_DIR or put shared/conformance/s3-tests beside the repository (looked in %s)", strings.Join(candidates, ", "))
	return ""
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func conf(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	user := func(section, name string, extra string) string {
		return fmt.Sprintf("[%s]\ndisplay_name = %s\nuser_id = %s\nemail = %s@example.com\naccess_key = %s\nsecret_key = %s-secret-0123456789\n%s\n",
			section, name, name, name, name, name, extra)
	}
	return fmt.Sprintf("[DEFAULT]\nhost = %s\nport = %s\nis_secure = False\nssl_verify = False\n\n[fixtures]\nbucket prefix = gridfsd-{random}-\n\n", host, port) +
		user("s3 main", "main", fmt.Sprintf("api_name = default\nlc_debug_interval = %d", lcInterval)) +
		user("s3 alt", "alt", "") + user("s3 tenant", "tenant", "tenant = testx") +
		user("iam", "main", "") + user("iam root", "main", "") + user("iam alt root", "alt", "")
}

func TestS3TestsLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("the lifecycle tests wait for lifecycle days: a minute or two; -short leaves them out")
	}
	suite := s3testsDir(t)
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import pytest, xdist, boto3, munch, isodate, lxml, gevent, httplib2, dateutil").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot run s3-tests (./test.sh installs python3-pytest, python3-pytest-xdist, python3-boto3, ...): %v\n%s", py, err, out)
	}
	var want []string
	raw, err := os.ReadFile("testdata/lifecycle-pass.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}

	bin := proctest.BuildGridfsd(t, "")
	db := storetest.MustOpenDB(t)
	httpAddr, s3Addr := freeAddr(t), freeAddr(t)
	logs := &proctest.Log{}
	srv := exec.Command(bin, "serve", "--uri", storetest.URI(t), "--db", db.Name(), "--listen", httpAddr, "--s3-listen", s3Addr,
		"--lifecycle-debug-day", fmt.Sprintf("%ds", lcInterval), "--expiry-sweep-interval", "1s")
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if res, err := http.Get("http://" + httpAddr + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gridfsd serve is not ready:\n%s", logs.String())
		}
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s3tests.conf")
	if err := os.WriteFile(cfg, []byte(conf(s3Addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", "-rA", "-n", "4"}
	for _, name := range want {
		args = append(args, "s3tests/functional/test_s3.py::"+name)
	}
	cmd := exec.Command(py, args...)
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), "S3TEST_CONF="+cfg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	passed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "PASSED s3tests/functional/test_s3.py::"); ok {
			passed[strings.Fields(rest)[0]] = true
		}
	}
	var failed []string
	for _, name := range want {
		if !passed[name] {
			failed = append(failed, name)
		}
	}
	if len(failed) > 0 {
		tail := out.String()
		if len(tail) > 8000 {
			tail = tail[len(tail)-8000:]
		}
		t.Fatalf("%d of %d lifecycle tests did not pass: %s (pytest: %v)\n%s", len(failed), len(want), strings.Join(failed, ", "), runErr, tail)
	}
	t.Logf("%d lifecycle tests of s3-tests passed", len(want))
}
