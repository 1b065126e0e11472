// Package tus drives real tus clients (tus-js-client in Node, installed by
// test.sh into this directory; Debian's python3-tuspy) and raw tus requests
// against real gridfsd serve processes sharing one store: the sizes, the
// extensions, the protocol's refusals, and faults (a gateway killed in the
// middle of a PATCH, a connection cut, PATCHes spread over two gateways,
// two clients writing one upload at once). PyMongo and GET /b/... read the
// results.
package tus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var (
	binOnce sync.Once
	binPath string
	binDir  string
)

// gridfsd builds the binary once for the package.
func gridfsd(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gridfsd-tus-bin")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
		binPath = proctest.BuildGridfsd(t, dir)
	})
	if binPath == "" {
		t.Fatal("gridfsd did not build")
	}
	return binPath
}

// server is a running gridfsd serve.
type server struct {
	cmd  *exec.Cmd
	addr string
	log  *proctest.Log
}

func (s *server) url(path string) string { return "http://" + s.addr + path }

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve starts gridfsd serve on database db of the test store.
func serve(t *testing.T, db string, extra ...string) *server {
	t.Helper()
	s := &server{addr: freeAddr(t), log: &proctest.Log{}}
	args := append([]string{"serve", "--uri", storetest.URI(t), "--db", db, "--listen", s.addr, "--s3-listen="}, extra...)
	s.cmd = exec.Command(gridfsd(t), args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("gridfsd %s log:\n%s", s.addr, s.log)
		}
	})
	waitFor(t, "gridfsd serve to be ready", 60*time.Second, func() bool {
		res, err := http.Get(s.url("/readyz"))
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	return s
}

// kill sends SIGKILL.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// content is size bytes that differ with seed and position.
func content(size int, seed byte) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*31) ^ seed + byte(i>>10)
	}
	return b
}

// tusReq sends one tus request; body may be nil.
func tusReq(t *testing.T, method, url string, body []byte, hdr ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/offset+octet-stream")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func meta(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

// create makes an upload of length bytes (-1: deferred) named name in fs
// and returns its URL on s.
func create(t *testing.T, s *server, name string, length int, hdr ...string) string {
	t.Helper()
	h := []string{"Upload-Metadata", meta("filename", name)}
	if length < 0 {
		h = append(h, "Upload-Defer-Length", "1")
	} else {
		h = append(h, "Upload-Length", strconv.Itoa(length))
	}
	res := tusReq(t, http.MethodPost, s.url("/uploads/fs/"), nil, append(h, hdr...)...)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create %s: %d", name, res.StatusCode)
	}
	return res.Header.Get("Location")
}

// offset HEADs the upload at path on s.
func offset(t *testing.T, s *server, path string) int {
	t.Helper()
	res := tusReq(t, http.MethodHead, s.url(path), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("HEAD %s: %d", path, res.StatusCode)
	}
	n, err := strconv.Atoi(res.Header.Get("Upload-Offset"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// patch sends data at off and expects 204.
func patch(t *testing.T, s *server, path string, off int, data []byte) *http.Response {
	t.Helper()
	res := tusReq(t, http.MethodPatch, s.url(path), data, "Upload-Offset", strconv.Itoa(off))
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("PATCH %s at %d: %d", path, off, res.StatusCode)
	}
	if got := res.Header.Get("Upload-Offset"); got != strconv.Itoa(off+len(data)) {
		t.Fatalf("PATCH %s at %d: offset %s", path, off, got)
	}
	return res
}

// fileInfo is what GET /b/fs/?prefix= says of a file.
type fileInfo struct {
	Filename string `json:"filename"`
	Length   int64  `json:"length"`
	SHA256   string `json:"sha256"`
}

// checkFile reads name back through GET /b/fs/<name> and the listing, and
// compares its bytes and its stored SHA-256 with want.
func checkFile(t *testing.T, s *server, name string, want []byte) {
	t.Helper()
	res, err := http.Get(s.url("/b/fs/" + name))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, want) {
		t.Fatalf("GET %s: %d, %d bytes (want %d), equal %v", name, res.StatusCode, len(got), len(want), bytes.Equal(got, want))
	}
	res, err = http.Get(s.url("/b/fs?prefix=" + name + "&limit=1"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Files []fileInfo `json:"files"`
	}
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Files) == 0 || list.Files[0].SHA256 != fmt.Sprintf("%x", sha256.Sum256(want)) {
		t.Fatalf("%s: listing %+v, want sha256 %x", name, list.Files, sha256.Sum256(want))
	}
}

// pymongoSums reads every file of bucket fs through PyMongo's GridFS and
// returns the SHA-256 of each name's newest revision.
func pymongoSums(t *testing.T, db string) map[string]string {
	t.Helper()
	script := `
import gridfs, hashlib, json, pymongo, sys
db = pymongo.MongoClient(sys.argv[1])[sys.argv[2]]
fs = gridfs.GridFSBucket(db)
out = {}
for f in db["fs.files"].find():
    g = fs.open_download_stream_by_name(f["filename"])
    out[f["filename"]] = hashlib.sha256(g.read()).hexdigest()
print(json.dumps(out))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, storetest.URI(t), db).CombinedOutput()
	if err != nil {
		t.Fatalf("pymongo: %v\n%s", err, out)
	}
	sums := map[string]string{}
	if err := json.Unmarshal(out, &sums); err != nil {
		t.Fatalf("pymongo: %v\n%s", err, out)
	}
	return sums
}

func chunksOf(t *testing.T, db *mongo.Database) int64 {
	t.Helper()
	n, err := db.Collection("fs.chunks").CountDocuments(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// node runs upload.mjs (tus-js-client) and decodes its JSON line.
func node(t *testing.T, endpoint, file string, opts map[string]any) (map[string]any, error) {
	t.Helper()
	if _, err := os.Stat("node_modules/tus-js-client"); err != nil {
		t.Fatalf("tus-js-client is not installed in tests/tus (test.sh runs npm ci there): %v", err)
	}
	return runJSON(t, exec.Command("node", "upload.mjs", endpoint, file, mustJSON(opts)))
}

// tuspy runs tuspy_upload.py and decodes its JSON line.
func tuspy(t *testing.T, endpoint, file string, opts map[string]any) (map[string]any, error) {
	t.Helper()
	return runJSON(t, exec.Command("/usr/bin/python3", "tuspy_upload.py", endpoint, file, mustJSON(opts)))
}

func runJSON(t *testing.T, cmd *exec.Cmd) (map[string]any, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s%s", strings.Join(cmd.Args[:2], " "), err, out.String(), errb.String())
	}
	var v map[string]any
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", cmd.Args[0], err, out.String())
	}
	return v, nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
