package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

const (
	davUser   = "davuser"
	davSecret = "davuser-secret-0123456789"
	davReader = "davreader"
	davRead   = "davreader-secret-0123456789"
)

// serveDAV starts gridfsd serve on db with access control on: an admin
// token davUser, a read-only token davReader, the bucket "public" readable
// by anyone. It returns the HTTP address.
func serveDAV(t *testing.T, db *mongo.Database, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cfgFile := filepath.Join(t.TempDir(), "gridfsd.yaml")
	cfg := fmt.Sprintf("auth:\n  tokens:\n"+
		"    - name: %s\n      secret: %q\n      buckets: [\"*\"]\n      access: admin\n"+
		"    - name: %s\n      secret: %q\n      buckets: [\"*\"]\n      access: read\n"+
		"  anonymous_read: [\"public\"]\n", davUser, davSecret, davReader, davRead)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, http.DefaultClient, "http://"+addr, append([]string{"serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(),
		"--listen", addr}, args...)...)
	return addr
}

// davReq sends one WebDAV request as davUser (user "" sends none) and
// returns the status, the headers and the body.
func davReq(t *testing.T, method, url, user, pass string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// TestWebDAVLitmus runs Debian's litmus 0.13, the WebDAV compliance suite,
// against gridfsd serve with access control on: every test of its basic,
// copymove, props, locks and http suites must pass.
func TestWebDAVLitmus(t *testing.T) {
	if _, err := exec.LookPath("litmus"); err != nil {
		t.Fatalf("litmus is needed (test.sh installs it): %v", err)
	}
	addr := serveDAV(t, storetest.MustOpenDB(t))
	base := "http://" + addr + "/dav/litmus/"
	if st, _, body := davReq(t, "MKCOL", base, davUser, davSecret, nil, ""); st != http.StatusCreated {
		t.Fatalf("MKCOL of the bucket: %d %s", st, body)
	}
	summary := regexp.MustCompile(`<- summary for .*: of (\d+) tests run: (\d+) passed, (\d+) failed`)
	for _, suite := range []string{"basic", "copymove", "props", "locks", "http"} {
		dir := t.TempDir()
		cmd := exec.Command("litmus", base, davUser, davSecret)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TESTS="+suite)
		out, err := cmd.CombinedOutput()
		m := summary.FindStringSubmatch(string(out))
		if err != nil || m == nil || m[3] != "0" || m[1] != m[2] {
			t.Errorf("litmus %s: %v\n%s", suite, err, out)
			continue
		}
		t.Logf("litmus %s: %s of %s passed", suite, m[2], m[1])
	}
}

// TestWebDAVLocksAcrossGateways: a lock taken through one gateway holds
// against writes through another on the same store, the holder writes
// with its token through either, and an expired lock frees the file.
func TestWebDAVLocksAcrossGateways(t *testing.T) {
	db := storetest.MustOpenDB(t)
	a, b := "http://"+serveDAV(t, db), "http://"+serveDAV(t, db)
	if st, _, body := davReq(t, "MKCOL", a+"/dav/docs/", davUser, davSecret, nil, ""); st != http.StatusCreated {
		t.Fatalf("MKCOL: %d %s", st, body)
	}
	lockBody := `<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>alice</D:owner></D:lockinfo>`
	st, hdr, body := davReq(t, "LOCK", a+"/dav/docs/report.txt", davUser, davSecret, map[string]string{"Timeout": "Second-600"}, lockBody)
	if st != http.StatusCreated || hdr.Get("Lock-Token") == "" {
		t.Fatalf("LOCK through gateway A: %d %v %s", st, hdr, body)
	}
	token := hdr.Get("Lock-Token")

	if st, _, body := davReq(t, "PUT", b+"/dav/docs/report.txt", davUser, davSecret, nil, "from B"); st != 423 {
		t.Errorf("PUT through gateway B without the token: %d %s, want 423 Locked", st, body)
	}
	if st, _, body := davReq(t, "LOCK", b+"/dav/docs/report.txt", davUser, davSecret, map[string]string{"Timeout": "Second-600"}, lockBody); st != 423 {
		t.Errorf("second LOCK through gateway B: %d %s, want 423", st, body)
	}
	if st, _, body := davReq(t, "PUT", b+"/dav/docs/report.txt", davUser, davSecret, map[string]string{"If": "(" + token + ")"}, "from B with the token"); st != http.StatusCreated {
		t.Errorf("PUT through gateway B with the token: %d %s", st, body)
	}
	if st, _, body := davReq(t, "GET", a+"/dav/docs/report.txt", davUser, davSecret, nil, ""); st != 200 || body != "from B with the token" {
		t.Errorf("GET through A: %d %q", st, body)
	}
	if st, _, body := davReq(t, "UNLOCK", b+"/dav/docs/report.txt", davUser, davSecret, map[string]string{"Lock-Token": token}, ""); st != http.StatusNoContent {
		t.Errorf("UNLOCK through B: %d %s", st, body)
	}
	if st, _, body := davReq(t, "PUT", b+"/dav/docs/report.txt", davUser, davSecret, nil, "unlocked"); st != http.StatusCreated {
		t.Errorf("PUT after UNLOCK: %d %s", st, body)
	}

	// A lock of one second frees the file once it has passed.
	st, _, body = davReq(t, "LOCK", a+"/dav/docs/report.txt", davUser, davSecret, map[string]string{"Timeout": "Second-1"}, lockBody)
	if st != http.StatusOK {
		t.Fatalf("short LOCK: %d %s", st, body)
	}
	if st, _, _ := davReq(t, "DELETE", b+"/dav/docs/report.txt", davUser, davSecret, nil, ""); st != 423 {
		t.Errorf("DELETE while locked: %d, want 423", st)
	}
	time.Sleep(1500 * time.Millisecond)
	if st, _, body := davReq(t, "PUT", b+"/dav/docs/report.txt", davUser, davSecret, nil, "after expiry"); st != http.StatusCreated {
		t.Errorf("PUT after the lock expired: %d %s", st, body)
	}
	// Infinite timeouts are capped.
	_, _, body = davReq(t, "LOCK", a+"/dav/docs/other.txt", davUser, davSecret, map[string]string{"Timeout": "Infinite"}, lockBody)
	if !strings.Contains(body, "<D:timeout>Second-3600</D:timeout>") {
		t.Errorf("LOCK with Timeout: Infinite: %s, want the timeout capped at an hour", body)
	}
}

// TestWebDAVBadInput: requests no file system can honour get a clear 4xx
// and change nothing.
func TestWebDAVBadInput(t *testing.T) {
	db := storetest.MustOpenDB(t)
	base := "http://" + serveDAV(t, db, "--max-upload-size", "1KiB") + "/dav"
	auth := func(method, path string, hdr map[string]string, body string) (int, string) {
		st, _, b := davReq(t, method, base+path, davUser, davSecret, hdr, body)
		return st, b
	}
	for _, step := range []struct{ method, path, body string }{
		{"MKCOL", "/box/", ""}, {"MKCOL", "/box/dir/", ""}, {"PUT", "/box/dir/a.txt", "a"},
	} {
		if st, b := auth(step.method, step.path, nil, step.body); st != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", step.method, step.path, st, b)
		}
	}
	listing := func() string {
		_, b := auth("PROPFIND", "/box/dir/", map[string]string{"Depth": "1"}, "")
		return strings.Join(regexp.MustCompile(`<D:href>[^<]*</D:href>|<D:getetag>[^<]*</D:getetag>`).FindAllString(b, -1), " ")
	}
	before := listing()
	long := strings.Repeat("x", 1100)
	for _, tc := range []struct {
		name, method, path string
		hdr                map[string]string
		body               string
		want               int
	}{
		{"dot-dot", "PUT", "/box/dir/../../etc/passwd", nil, "x", 400},
		{"dot-dot encoded", "PUT", "/box/dir/%2E%2E/x", nil, "x", 400},
		{"NUL", "PUT", "/box/dir/a%00b", nil, "x", 400},
		{"control character", "PUT", "/box/dir/a%01b", nil, "x", 400},
		{"over-long name", "PUT", "/box/dir/" + long, nil, "x", 400},
		{"body too large", "PUT", "/box/dir/big", nil, strings.Repeat("x", 2048), 413},
		{"chunked body too large", "PUT", "/box/dir/big2", map[string]string{"Transfer-Encoding": "chunked"}, strings.Repeat("x", 2048), 413},
		{"MOVE onto itself", "MOVE", "/box/dir/", map[string]string{"Destination": base + "/box/dir/"}, "", 403},
		{"MOVE into its own subfolder", "MOVE", "/box/dir/", map[string]string{"Destination": base + "/box/dir/sub/"}, "", 403},
		{"COPY into its own subfolder", "COPY", "/box/dir/", map[string]string{"Destination": base + "/box/dir/sub/"}, "", 403},
		{"MOVE to another server", "MOVE", "/box/dir/a.txt", map[string]string{"Destination": "http://elsewhere.example/dav/box/a.txt"}, "", 400},
		{"MOVE with .. in the destination", "MOVE", "/box/dir/a.txt", map[string]string{"Destination": base + "/box/dir/../../x"}, "", 400},
		{"PROPFIND of a whole tree", "PROPFIND", "/box/", map[string]string{"Depth": "infinity"}, "", 403},
		{"PROPFIND without Depth", "PROPFIND", "/box/", nil, "", 403},
		{"XML body too large", "PROPFIND", "/box/", map[string]string{"Depth": "0"}, "<a>" + strings.Repeat("x", 2<<20) + "</a>", 413},
		{"not XML", "PROPPATCH", "/box/dir/a.txt", nil, "<D:propertyupdate", 400},
		{"invalid bucket name", "MKCOL", "/bad$name/", nil, "", 400},
		{"partial PUT", "PUT", "/box/dir/a.txt", map[string]string{"Content-Range": "bytes 0-0/1"}, "b", 400},
	} {
		st, b := auth(tc.method, tc.path, tc.hdr, tc.body)
		if st != tc.want {
			t.Errorf("%s: %s %s: %d %q, want %d", tc.name, tc.method, tc.path, st, b, tc.want)
		}
	}
	if after := listing(); after != before {
		t.Errorf("the folder changed:\nbefore %s\nafter  %s", before, after)
	}
	if st, _, b := davReq(t, "GET", base+"/box/dir/a.txt", davUser, davSecret, nil, ""); st != 200 || b != "a" {
		t.Errorf("a.txt after the bad requests: %d %q", st, b)
	}
}
