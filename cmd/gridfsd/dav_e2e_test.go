package main

import (
	"crypto/sha256"
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
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
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

// TestWebDAVRclone copies a tree (sizes 0 to 20 MiB, names with spaces
// and non-ASCII characters, nested folders) into GridFS with rclone's
// webdav backend, checks it byte for byte, and copies it back. The
// owncloud vendor sends X-OC-Mtime, which must be kept.
func TestWebDAVRclone(t *testing.T) {
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Fatalf("rclone is needed (test.sh installs it): %v", err)
	}
	addr := serveDAV(t, storetest.MustOpenDB(t))
	if st, _, body := davReq(t, "MKCOL", "http://"+addr+"/dav/backup/", davUser, davSecret, nil, ""); st != http.StatusCreated {
		t.Fatalf("MKCOL: %d %s", st, body)
	}
	src := t.TempDir()
	mtime := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	files := map[string]int{
		"empty": 0, "one byte": 1, "chunk exactly.bin": 261120, "chunk and one.bin": 261121,
		"sub dir/ñandú é.txt": 1000, "sub dir/深い/日本語 ファイル.bin": 5 << 20, "big/twenty.bin": 20 << 20,
	}
	for name, size := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + len(name))
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	pass, err := run(t, os.Environ(), "rclone", "obscure", davSecret)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "RCLONE_CONFIG="+filepath.Join(t.TempDir(), "none.conf"),
		"RCLONE_CONFIG_GF_TYPE=webdav", "RCLONE_CONFIG_GF_URL=http://"+addr+"/dav/", "RCLONE_CONFIG_GF_VENDOR=owncloud",
		"RCLONE_CONFIG_GF_USER="+davUser, "RCLONE_CONFIG_GF_PASS="+strings.TrimSpace(pass))
	if out, err := run(t, env, "rclone", "copy", src, "gf:backup/tree"); err != nil {
		t.Fatalf("rclone copy to WebDAV: %v\n%s", err, out)
	}
	if out, err := run(t, env, "rclone", "check", "--download", src, "gf:backup/tree"); err != nil {
		t.Fatalf("rclone check --download: %v\n%s", err, out)
	}
	out, err := run(t, env, "rclone", "lsl", "gf:backup/tree")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "2021-03-04 05:06:07"); n != len(files) {
		t.Errorf("%d of %d files kept their modification time:\n%s", n, len(files), out)
	}
	back := t.TempDir()
	if out, err := run(t, env, "rclone", "copy", "gf:backup/tree", back); err != nil {
		t.Fatalf("rclone copy from WebDAV: %v\n%s", err, out)
	}
	if out, err := run(t, env, "rclone", "check", src, back); err != nil {
		t.Fatalf("the tree copied back differs: %v\n%s", err, out)
	}
}

// TestWebDAVCadaver drives cadaver, neon's command-line client, through
// a scripted session: folders, upload, copy, move, properties, a lock,
// download, delete.
func TestWebDAVCadaver(t *testing.T) {
	if _, err := exec.LookPath("cadaver"); err != nil {
		t.Fatalf("cadaver is needed (test.sh installs it): %v", err)
	}
	addr := serveDAV(t, storetest.MustOpenDB(t))
	home := t.TempDir()
	host, _, _ := strings.Cut(addr, ":")
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine "+host+"\nlogin "+davUser+"\npassword "+davSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "local.txt"), []byte("hello from cadaver\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "mkcol docs\ncd docs\nput local.txt f.txt\ncopy f.txt g.txt\nmove g.txt h.txt\n" +
		"propset f.txt color blue\npropget f.txt color\nlock f.txt\nunlock f.txt\nget h.txt back.txt\ndelete f.txt\nls\nquit\n"
	if st, _, body := davReq(t, "MKCOL", "http://"+addr+"/dav/cad/", davUser, davSecret, nil, ""); st != http.StatusCreated {
		t.Fatalf("MKCOL: %d %s", st, body)
	}
	cmd := exec.Command("cadaver", "http://"+addr+"/dav/cad/")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cadaver: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "succeeded"); n != 10 || strings.Contains(string(out), "failed") {
		t.Errorf("cadaver: %d steps succeeded, want 10:\n%s", n, out)
	}
	if !strings.Contains(string(out), "Value of color is: blue") {
		t.Errorf("propget did not read the property back:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(home, "back.txt")); err != nil || string(b) != "hello from cadaver\n" {
		t.Errorf("downloaded copy: %q, %v", b, err)
	}
	// What is left, through the HTTP API.
	req, _ := http.NewRequest("GET", "http://"+addr+"/b/cad/docs/h.txt", nil)
	req.Header.Set("Authorization", "Bearer "+davSecret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "hello from cadaver\n" {
		t.Errorf("docs/h.txt through the HTTP API: %d %q", res.StatusCode, b)
	}
}

// TestWebDAVInterop: a file written through WebDAV is a GridFS file that
// PyMongo, the HTTP API and the S3 API read; files written through the
// HTTP API and S3 appear in PROPFIND and read back through WebDAV.
func TestWebDAVInterop(t *testing.T) {
	if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
		t.Fatalf("/usr/bin/python3 with pymongo and boto3 is needed (test.sh installs them): %v", err)
	}
	db := storetest.MustOpenDB(t)
	s3Addr := freeAddr(t)
	addr := serveDAV(t, db, "--s3-listen", s3Addr)
	base := "http://" + addr
	content := strings.Repeat("written through WebDAV\n", 20000) // 460 KB: two chunks
	for _, step := range []struct{ method, path, body string }{
		{"MKCOL", "/dav/shared/", ""}, {"MKCOL", "/dav/shared/folder/", ""}, {"PUT", "/dav/shared/folder/from dav.txt", content},
	} {
		if st, _, b := davReq(t, step.method, base+step.path, davUser, davSecret, map[string]string{"Content-Type": "text/plain"}, step.body); st != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", step.method, step.path, st, b)
		}
	}
	req, _ := http.NewRequest("PUT", base+"/b/shared/folder/from-http.txt", strings.NewReader("through the HTTP API"))
	req.Header.Set("Authorization", "Bearer "+davSecret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("PUT through the HTTP API: %d", res.StatusCode)
	}
	script := `
import boto3, sys, hashlib, gridfs, pymongo
endpoint, uri, dbname = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="` + davUser + `", aws_secret_access_key="` + davSecret + `", region_name="us-east-1")
s3.put_object(Bucket="shared", Key="folder/from-s3.txt", Body=b"through S3")
import datetime
for key, ct in (("page.html", "text/html"), ("notes.txt", "text/plain; charset=utf-8")):
    s3.put_object(Bucket="shared", Key=key, Body=b"not really gzip", ContentType=ct, CacheControl="public, max-age=60",
        ContentEncoding="gzip", ContentLanguage="fr", Expires=datetime.datetime(2037, 10, 21, 7, 28, tzinfo=datetime.timezone.utc),
        ContentDisposition='inline; filename="stored.bin"')
body = s3.get_object(Bucket="shared", Key="folder/from dav.txt")["Body"].read()
print("s3", hashlib.sha256(body).hexdigest())
db = pymongo.MongoClient(uri, serverSelectionTimeoutMS=10000)[dbname]
fs = gridfs.GridFSBucket(db, bucket_name="shared")
data = fs.open_download_stream_by_name("folder/from dav.txt").read()
print("pymongo", hashlib.sha256(data).hexdigest())
doc = db["shared.files"].find_one({"filename": "folder/from dav.txt"})
print("doc", doc["length"], doc["chunkSize"], doc["sha256"], doc["metadata"]["contentType"], db["shared.chunks"].count_documents({"files_id": doc["_id"]}))
`
	out, err := run(t, s3Env(t, davSecret), "/usr/bin/python3", "-c", script, "http://"+s3Addr, storetest.URI(t), db.Name())
	if err != nil {
		t.Fatalf("boto3 and pymongo: %v\n%s", err, out)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(content)))
	for _, want := range []string{"s3 " + sum, "pymongo " + sum, fmt.Sprintf("doc %d 261120 %s text/plain 2", len(content), sum)} {
		if !strings.Contains(out, want) {
			t.Errorf("python says:\n%s\nwant a line %q", out, want)
		}
	}
	req, _ = http.NewRequest("GET", base+"/b/shared/folder/from%20dav.txt", nil)
	req.Header.Set("Authorization", "Bearer "+davSecret)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != content {
		t.Errorf("GET through the HTTP API: %d, %d bytes", res.StatusCode, len(b))
	}
	_, _, listing := davReq(t, "PROPFIND", base+"/dav/shared/folder/", davUser, davSecret, map[string]string{"Depth": "1"}, "")
	for _, want := range []string{"/dav/shared/folder/from%20dav.txt", "/dav/shared/folder/from-http.txt", "/dav/shared/folder/from-s3.txt"} {
		if !strings.Contains(listing, "<D:href>"+want+"</D:href>") {
			t.Errorf("PROPFIND lacks %s:\n%s", want, listing)
		}
	}
	for path, want := range map[string]string{"/dav/shared/folder/from-http.txt": "through the HTTP API", "/dav/shared/folder/from-s3.txt": "through S3"} {
		if st, _, b := davReq(t, "GET", base+path, davUser, davSecret, nil, ""); st != 200 || b != want {
			t.Errorf("GET %s through WebDAV: %d %q", path, st, b)
		}
	}
	webDAVServesContentHeaders(t, base)
}

// webDAVServesContentHeaders: the content headers an uploader stored
// (S3 PutObject's Cache-Control, Content-Encoding, ...) come back from a
// WebDAV GET as from the HTTP API's, the active-content rule included (an
// HTML page is an attachment whatever its stored disposition says).
func webDAVServesContentHeaders(t *testing.T, base string) {
	t.Helper()
	stored := map[string]string{
		"Cache-Control": "public, max-age=60", "Content-Encoding": "gzip", "Content-Language": "fr",
		"Expires": "Wed, 21 Oct 2037 07:28:00 GMT", "Content-Disposition": `inline; filename="stored.bin"`,
	}
	for name, ct := range map[string]string{"page.html": "text/html", "notes.txt": "text/plain; charset=utf-8"} {
		// Accept-Encoding: Go's client would otherwise ungzip and drop
		// Content-Encoding.
		get := map[string]string{"Accept-Encoding": "gzip"}
		_, viaDAV, _ := davReq(t, "GET", base+"/dav/shared/"+name, davUser, davSecret, get, "")
		get["Authorization"] = "Bearer " + davSecret
		_, viaHTTP, _ := davReq(t, "GET", base+"/b/shared/"+name, "", "", get, "")
		for _, k := range []string{"Content-Type", "Cache-Control", "Content-Encoding", "Content-Language", "Expires", "Content-Disposition"} {
			if viaDAV.Get(k) != viaHTTP.Get(k) || viaDAV.Get(k) == "" {
				t.Errorf("GET %s: %s %q through WebDAV, %q through the HTTP API", name, k, viaDAV.Get(k), viaHTTP.Get(k))
			}
		}
		if got := viaDAV.Get("Cache-Control") + "|" + viaDAV.Get("Content-Encoding") + "|" + viaDAV.Get("Content-Language") + "|" + viaDAV.Get("Expires"); got != stored["Cache-Control"]+"|gzip|fr|"+stored["Expires"] {
			t.Errorf("GET %s through WebDAV: %s", name, got)
		}
		want := stored["Content-Disposition"]
		if ct == "text/html" {
			want = `attachment; filename="page.html"; filename*=UTF-8''page.html`
		}
		if got := viaDAV.Get("Content-Disposition"); got != want {
			t.Errorf("GET %s through WebDAV: Content-Disposition %q, want %q", name, got, want)
		}
	}
}
