// Package disk runs gridfsd serve with its embedded store on a small file
// system that the test mounts (a tmpfs of 256 MiB, as root, which CI is)
// and fills it: through uploads, which the reserve refuses with 507 before
// the disk is full, and from outside, where the store's own "disk full" is a
// 507 too. Deletes, fsck --repair and a restart keep working on the full
// disk, and the space comes back without a restart.
package disk

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// The reserve covers what SQLite's log grows by between checkpoints (32
// MiB with 32 KiB pages) and the emergency reserve (a quarter).
const (
	fsSize  = 256 << 20
	reserve = 64 << 20
	fileLen = 32_000_000
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting the small file system needs root (CI runs as root); run this test as root")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Fatalf("mount tmpfs (root, but no mount permission?): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
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

type server struct {
	cmd                   *exec.Cmd
	http, s3, store, data string
	log                   *proctest.Log
}

func startServe(t *testing.T, bin, data, storeAddr string) *server {
	return startServeReserve(t, bin, data, storeAddr, reserve)
}

// startServeReserve runs serve with --min-free-space minFree.
func startServeReserve(t *testing.T, bin, data, storeAddr string, minFree int) *server {
	t.Helper()
	s := &server{http: freeAddr(t), s3: freeAddr(t), store: storeAddr, data: data, log: &proctest.Log{}}
	s.cmd = exec.Command(bin, "serve", "--data-dir", data, "--listen", s.http, "--s3-listen", s.s3,
		"--embedded-listen", s.store, "--min-free-space", fmt.Sprint(minFree), "--sweep-interval", "0s")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	waitFor(t, "gridfsd serve to be ready", 60*time.Second, func() bool {
		res, err := http.Get("http://" + s.http + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	return s
}

func (s *server) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, s.log)
	}
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type reply struct {
	status int
	body   []byte
}

func do(t *testing.T, method, url string, body io.Reader, length int64) reply {
	t.Helper()
	return doWith(t, method, url, body, length)
}

// doWith is do with request headers, given as name and value pairs.
func doWith(t *testing.T, method, url string, body io.Reader, length int64, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, b}
}

func random(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// want507 checks a 507 from the HTTP API: JSON, code insufficient_storage,
// a one-line reason.
func want507(t *testing.T, what string, r reply) {
	t.Helper()
	if r.status != http.StatusInsufficientStorage {
		t.Fatalf("%s: %d %s, want 507", what, r.status, r.body)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code != "insufficient_storage" ||
		!strings.HasPrefix(e.Error.Message, "insufficient storage: ") || strings.Contains(e.Error.Message, "\n") {
		t.Fatalf("%s: 507 body %s", what, r.body)
	}
	if strings.Contains(e.Error.Message, "InternalError") || strings.Contains(e.Error.Message, ".go:") {
		t.Fatalf("%s: the store's text reached the client: %s", what, r.body)
	}
}

// readiness is /readyz's reply.
type readiness struct {
	Status       string
	FreeBytes    *uint64
	MinFreeBytes *uint64
	Uploads      string
}

func (s *server) ready(t *testing.T) readiness {
	t.Helper()
	r := do(t, "GET", "http://"+s.http+"/readyz", nil, 0)
	var rd readiness
	if r.status != 200 || json.Unmarshal(r.body, &rd) != nil || rd.FreeBytes == nil || rd.MinFreeBytes == nil {
		t.Fatalf("/readyz: %d %s", r.status, r.body)
	}
	return rd
}

// store is the embedded store, seen through the driver.
type store struct {
	db *mongo.Database
}

func openStore(t *testing.T, addr string) store {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr).SetServerSelectionTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return store{db: c.Database("test")}
}

// mustHoldExactly checks that bucket fs holds exactly the files of want
// (by name and SHA-256 of its content) and the chunks they need, and that
// no multipart part is left.
func (st store) mustHoldExactly(t *testing.T, want map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	b := st.db.GridFSBucket()
	var chunks int64
	for name, content := range want {
		ds, err := b.OpenDownloadStreamByName(ctx, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(ds)
		ds.Close()
		if err != nil || sha256.Sum256(got) != sha256.Sum256(content) {
			t.Fatalf("%s: %d bytes, %v; want the %d uploaded", name, len(got), err, len(content))
		}
		chunks += (int64(len(content)) + 261119) / 261120
	}
	files, err := st.db.Collection("fs.files").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.db.Collection("fs.chunks").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := st.db.Collection("_gridfsd_parts").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if files != int64(len(want)) || n != chunks || parts != 0 {
		t.Fatalf("the store holds %d files, %d chunks and %d parts; want %d files, %d chunks and no part (something was left behind)",
			files, n, parts, len(want), chunks)
	}
}

// fill writes a file on dir's file system until it is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// ballastSize is the store's emergency reserve: a quarter of
// --min-free-space.
const ballastSize = reserve / 4

// keepFull fills the file system of mnt through the file path and keeps it
// full, as a program that keeps writing would, until the function it
// returns is called: whatever the store gives back meanwhile is taken
// again. Once the store has released its emergency reserve (deleted the
// file ballast), that room (ballastSize) is left free for the deletes, and
// only what the store gives back beyond it is taken, even if the store
// makes its reserve again (a give-back of more than twice its size came
// between two rounds: the log's truncation is one).
func keepFull(t *testing.T, mnt, path, ballast string) (stop func()) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		block := make([]byte, 64<<10)
		released := false
		for {
			// The reserve's state before and after the free space:
			// a reserve released in between is measured again.
			_, before := os.Stat(ballast)
			var st syscall.Statfs_t
			if err := syscall.Statfs(mnt, &st); err != nil {
				t.Error(err)
				return
			}
			_, after := os.Stat(ballast)
			free := int64(st.Bavail) * st.Bsize
			released = released || before != nil && after != nil
			var take int64
			switch {
			case !released && before == nil && after == nil:
				take = free
			case released && free > ballastSize+ballastSize/4:
				take = free - ballastSize
			}
			for take > 0 {
				n, err := f.Write(block[:min(int64(len(block)), take)])
				take -= int64(n)
				if errors.Is(err, syscall.ENOSPC) {
					break
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	stop = sync.OnceFunc(func() {
		close(done)
		<-stopped
		f.Close()
	})
	t.Cleanup(stop)
	return stop
}

func TestFullDisk(t *testing.T) {
	mnt := mountTmpfs(t, fsSize)
	bin := proctest.BuildGridfsd(t, "")
	data := filepath.Join(mnt, "data")
	srv := startServe(t, bin, data, freeAddr(t))
	base := "http://" + srv.http
	if !strings.Contains(srv.log.String(), "Free space") {
		t.Errorf("the banner does not report the free space:\n%s", srv.log)
	}
	if rd := srv.ready(t); rd.Uploads != "accepted" || *rd.MinFreeBytes != reserve {
		t.Fatalf("/readyz at start: %+v", rd)
	}
	if m := do(t, "GET", base+"/metrics", nil, 0); !bytes.Contains(m.body, []byte("gridfsd_store_free_bytes ")) ||
		!bytes.Contains(m.body, []byte("gridfsd_store_min_free_bytes 6.7108864e+07")) {
		t.Error("/metrics lacks the free space gauges")
	}
	if _, err := os.Stat(filepath.Join(data, "gridfsd-ballast")); err != nil {
		t.Errorf("no emergency reserve: %v", err)
	}
	st := openStore(t, srv.store)

	// Uploads until the reserve refuses one, before the disk is full.
	stored := map[string][]byte{}
	refused := false
	for i := range 6 {
		name := fmt.Sprintf("f%d", i)
		body := random(t, fileLen)
		r := do(t, "PUT", base+"/b/fs/"+name, bytes.NewReader(body), int64(len(body)))
		if r.status == http.StatusCreated {
			stored[name] = body
			continue
		}
		want507(t, "PUT "+name, r)
		refused = true
		break
	}
	if !refused || len(stored) == 0 {
		t.Fatalf("%d uploads stored, refused %v: the reserve did not work as it should", len(stored), refused)
	}
	// Streamed without a length, refused while it streams.
	r := do(t, "PUT", base+"/b/fs/streamed", io.LimitReader(rand.Reader, 150<<20), -1)
	want507(t, "PUT of unknown length", r)
	// The S3 port: an XML error with a 507.
	r = do(t, "PUT", "http://"+srv.s3+"/fs/s3-object", io.LimitReader(rand.Reader, fsSize), fsSize)
	if r.status != 507 || !bytes.Contains(r.body, []byte("<Code>InsufficientStorage</Code>")) {
		t.Fatalf("S3 PutObject: %d %s", r.status, r.body)
	}
	// Resumable uploads (tus): a creation announcing more than the room.
	req, _ := http.NewRequest("POST", base+"/uploads/fs/", nil)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Upload-Length", fmt.Sprint(fsSize))
	req.Header.Set("Upload-Metadata", "filename dHVzLWZpbGU=") // tus-file
	if res, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
		if res.StatusCode != 507 {
			t.Fatalf("tus creation: %d, want 507", res.StatusCode)
		}
	}
	// WebDAV: refused while it streams.
	r = do(t, "PUT", base+"/dav/fs/dav-file", io.LimitReader(rand.Reader, fsSize), fsSize)
	if r.status != 507 {
		t.Fatalf("WebDAV PUT: %d %s\n%s", r.status, r.body, srv.log)
	}
	st.mustHoldExactly(t, stored)

	// Space comes back with a delete, without a restart.
	var gone string
	for name := range stored {
		gone = name
		break
	}
	if r := do(t, "DELETE", base+"/b/fs/"+gone, nil, 0); r.status != 204 {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	delete(stored, gone)
	// The store gives the deleted file's pages back in steps (fork item
	// 19): uploads are accepted again once the first steps take it over
	// its reserve, and a PUT fits once the room past the reserve does
	// (CI once tried it at 68.0 MiB free: 507 for 4 MiB over 64).
	body := random(t, 4<<20)
	waitFor(t, "room for a PUT after a delete", 10*time.Second, func() bool {
		rd := srv.ready(t)
		return rd.Uploads == "accepted" && *rd.FreeBytes >= *rd.MinFreeBytes+uint64(len(body))+8<<20
	})
	if r := do(t, "PUT", base+"/b/fs/after-delete", bytes.NewReader(body), int64(len(body))); r.status != 201 {
		t.Fatalf("PUT after a delete: %d %s", r.status, r.body)
	}
	stored["after-delete"] = body

	// Something else fills the disk, and keeps it full: the store releases
	// its emergency reserve, writes are 507 (never 500), deletes and fsck
	// --repair work. (The store gives the deleted file's space back in the
	// background, a second and more after the delete: filled once, the
	// disk had room again before the store looked at it, in 3 of 8 runs
	// on a loaded machine, and the reserve was rightly kept.)
	filler := filepath.Join(mnt, "filler")
	released := func() bool {
		_, err := os.Stat(filepath.Join(data, "gridfsd-ballast"))
		return errors.Is(err, os.ErrNotExist) && strings.Contains(srv.log.String(), "released the emergency reserve")
	}
	stopFilling := keepFull(t, mnt, filler, filepath.Join(data, "gridfsd-ballast"))
	waitFor(t, "the emergency reserve to be released", 30*time.Second, released)
	// What the reserve released is for deletes: uploads are refused, even
	// into pages SQLite freed (they would grow its log).
	body = random(t, 2<<20)
	want507(t, "PUT on a full disk", do(t, "PUT", base+"/b/fs/on-full", bytes.NewReader(body), int64(len(body))))
	r = do(t, "POST", "http://"+srv.s3+"/fs/s3-multipart?uploads", nil, 0)
	if r.status != 507 || !bytes.Contains(r.body, []byte("<Code>InsufficientStorage</Code>")) {
		t.Fatalf("S3 CreateMultipartUpload: %d %s", r.status, r.body)
	}
	st.mustHoldExactly(t, stored)
	var victim string
	for name := range stored {
		if name != "after-delete" {
			victim = name
			break
		}
	}
	if r := do(t, "DELETE", base+"/b/fs/"+victim, nil, 0); r.status != 204 {
		t.Fatalf("DELETE on a full disk: %d %s\n%s", r.status, r.body, srv.log)
	}
	delete(stored, victim)
	fsck := exec.Command(bin, "fsck", "--repair", "--embedded-listen", srv.store)
	if out, err := fsck.CombinedOutput(); err != nil {
		t.Fatalf("fsck --repair on a full disk: %v\n%s", err, out)
	}
	st.mustHoldExactly(t, stored)

	// A restart on a disk filled to the last byte while the store was
	// down: SQLite needs room to open (its shared-memory file and log),
	// which the emergency reserve, released before it opens, gives it.
	stopFilling()
	srv.stop(t)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	srv = startServe(t, bin, data, srv.store)
	if _, err := os.Stat(filepath.Join(data, "gridfsd-ballast")); err != nil {
		var st syscall.Statfs_t
		syscall.Statfs(mnt, &st)
		t.Fatalf("the emergency reserve did not come back at a start with %d bytes free: %v", st.Bavail*uint64(st.Bsize), err)
	}
	srv.stop(t)
	fill(t, filler)
	srv = startServe(t, bin, data, srv.store)
	base = "http://" + srv.http
	rd := srv.ready(t)
	if low := *rd.FreeBytes < *rd.MinFreeBytes; low != strings.HasPrefix(rd.Uploads, "refused") ||
		low != strings.Contains(srv.log.String(), "LOW: ") {
		t.Errorf("a restart on a full disk: /readyz %+v (free %d, reserve %d); banner:\n%s", rd, *rd.FreeBytes, *rd.MinFreeBytes, srv.log)
	}
	if r := do(t, "DELETE", base+"/b/fs/after-delete", nil, 0); r.status != 204 {
		t.Fatalf("DELETE after a restart on a full disk: %d %s\n%s", r.status, r.body, srv.log)
	}
	delete(stored, "after-delete")
	st = openStore(t, srv.store)
	st.mustHoldExactly(t, stored)

	// The disk gets room again: uploads resume, the reserve comes back.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "uploads accepted once the disk has room", 10*time.Second, func() bool { return srv.ready(t).Uploads == "accepted" })
	body = random(t, 4<<20)
	if r := do(t, "PUT", base+"/b/fs/again", bytes.NewReader(body), int64(len(body))); r.status != 201 {
		t.Fatalf("PUT once the disk has room: %d %s", r.status, r.body)
	}
	stored["again"] = body
	waitFor(t, "the emergency reserve to come back", 10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(data, "gridfsd-ballast"))
		return err == nil
	})
	st.mustHoldExactly(t, stored)

	// Without a reserve the store itself runs out of room: its "database
	// or disk is full" is a 507 too, never a 500, and nothing partial is
	// visible.
	srv.stop(t)
	srv = startServeReserve(t, bin, data, srv.store, 0)
	base = "http://" + srv.http
	fill(t, filler)
	refused = false
	for i := range 40 {
		name := fmt.Sprintf("unreserved-%d", i)
		body := random(t, 4<<20)
		r := do(t, "PUT", base+"/b/fs/"+name, bytes.NewReader(body), int64(len(body)))
		if r.status == http.StatusCreated {
			stored[name] = body
			continue
		}
		want507(t, "PUT on a full disk without a reserve", r)
		if g := do(t, "GET", base+"/b/fs/"+name, nil, 0); g.status != 404 {
			t.Fatalf("GET of the refused upload: %d", g.status)
		}
		refused = true
		break
	}
	if !refused {
		t.Fatal("uploads were never refused on a full disk without a reserve")
	}
	if !strings.Contains(srv.log.String(), "database or disk is full") {
		t.Errorf("the 507 was not the store's own disk full:\n%s", srv.log)
	}
	files, err := st.db.Collection("fs.files").CountDocuments(context.Background(), bson.D{})
	if err != nil || files != int64(len(stored)) {
		t.Fatalf("%d files visible, %v; want %d", files, err, len(stored))
	}
	srv.stop(t)
}

// fillToTheLastByte leaves srv's disk full to its last byte with the
// store's write-ahead log empty, as its vacuum leaves it after a delete (of
// a file it uploads for that): the log must grow to take a write. A store
// with an emergency reserve releases it, and that room is taken too.
func fillToTheLastByte(t *testing.T, srv *server, mnt string) {
	t.Helper()
	base := "http://" + srv.http
	if r := do(t, "PUT", base+"/b/fs/gone", bytes.NewReader(random(t, 1<<20)), 1<<20); r.status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", r.status, r.body)
	}
	if r := do(t, "DELETE", base+"/b/fs/gone", nil, 0); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	waitFor(t, "the store's log to be emptied", 30*time.Second, func() bool {
		fi, err := os.Stat(filepath.Join(srv.data, "test.sqlite-wal"))
		return err == nil && fi.Size() == 0
	})
	fill(t, filepath.Join(mnt, "filler"))
	ballast := filepath.Join(srv.data, "gridfsd-ballast")
	if _, err := os.Stat(ballast); err == nil {
		// The log line comes once the store has taken what it keeps of
		// the released room.
		waitFor(t, "the emergency reserve to be released", 10*time.Second, func() bool {
			_, err := os.Stat(ballast)
			return errors.Is(err, os.ErrNotExist) && strings.Contains(srv.log.String(), "released the emergency reserve")
		})
		fill(t, filepath.Join(mnt, "filler-of-the-reserve"))
	}
}

// TestFullToTheLastByte fills the disk to its last byte, the emergency
// reserve released and taken too. Deletes through every door still work:
// the reserve keeps room allocated to the store's log (before: a 500, the
// name's lease could not be written). Without a reserve no write can
// land: every write through every door is a 507 with a one-line reason,
// never a 500, and changes nothing.
func TestFullToTheLastByte(t *testing.T) {
	mnt := mountTmpfs(t, fsSize)
	bin := proctest.BuildGridfsd(t, "")
	data := filepath.Join(mnt, "data")
	srv := startServe(t, bin, data, freeAddr(t))
	base, s3, dav := "http://"+srv.http, "http://"+srv.s3, "http://"+srv.http+"/dav/fs/"
	stored := map[string][]byte{}
	var id string // e's
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		body := random(t, 1<<20)
		r := do(t, "PUT", base+"/b/fs/"+name, bytes.NewReader(body), int64(len(body)))
		if r.status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", name, r.status, r.body)
		}
		stored[name] = body
		var f struct {
			ID struct {
				OID string `json:"$oid"`
			}
		}
		json.Unmarshal(r.body, &f)
		id = f.ID.OID
	}
	st := openStore(t, srv.store)
	fillToTheLastByte(t, srv, mnt)
	body := random(t, 1<<20)
	want507(t, "PUT on a disk full to the last byte", do(t, "PUT", base+"/b/fs/new", bytes.NewReader(body), int64(len(body))))
	for _, d := range []struct{ what, method, url, name string }{
		{"HTTP DELETE", "DELETE", base + "/b/fs/a", "a"},
		{"S3 DeleteObject", "DELETE", s3 + "/fs/b", "b"},
		{"WebDAV DELETE", "DELETE", dav + "c", "c"},
	} {
		if r := do(t, d.method, d.url, nil, 0); r.status != http.StatusNoContent {
			t.Fatalf("%s on a disk full to the last byte: %d %s\n%s", d.what, r.status, r.body, srv.log)
		}
		delete(stored, d.name)
	}
	if out, err := exec.Command(bin, "delete", "d", "--embedded-listen", srv.store).CombinedOutput(); err != nil {
		t.Fatalf("gridfsd delete on a disk full to the last byte: %v\n%s", err, out)
	}
	delete(stored, "d")
	st.mustHoldExactly(t, stored)

	// Without a reserve.
	srv.stop(t)
	for _, f := range []string{"filler", "filler-of-the-reserve"} {
		if err := os.Remove(filepath.Join(mnt, f)); err != nil {
			t.Fatal(err)
		}
	}
	srv = startServeReserve(t, bin, data, srv.store, 0)
	base, s3, dav = "http://"+srv.http, "http://"+srv.s3, "http://"+srv.http+"/dav/fs/"
	fillToTheLastByte(t, srv, mnt)
	for _, c := range []struct {
		what, method, url, body string
		header                  []string
	}{
		{what: "HTTP DELETE", method: "DELETE", url: base + "/b/fs/e"},
		{what: "HTTP DELETE by id", method: "DELETE", url: base + "/id/fs/" + id},
		{what: "HTTP PATCH", method: "PATCH", url: base + "/id/fs/" + id, body: `{"filename":"renamed","metadata":{"k":"v"}}`},
		{what: "HTTP bucket settings", method: "PUT", url: base + "/buckets/fs", body: `{"chunkSize":261120}`},
		{what: "S3 DeleteObject", method: "DELETE", url: s3 + "/fs/e"},
		{what: "S3 CopyObject", method: "PUT", url: s3 + "/fs/copy", header: []string{"x-amz-copy-source", "/fs/e"}},
		{what: "S3 PutObjectTagging", method: "PUT", url: s3 + "/fs/e?tagging",
			body: `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`},
		{what: "S3 CreateMultipartUpload", method: "POST", url: s3 + "/fs/mp?uploads"},
		{what: "WebDAV DELETE", method: "DELETE", url: dav + "e"},
		{what: "WebDAV MOVE", method: "MOVE", url: dav + "e", header: []string{"Destination", dav + "moved"}},
		{what: "WebDAV COPY", method: "COPY", url: dav + "e", header: []string{"Destination", dav + "copied"}},
		{what: "WebDAV PROPPATCH", method: "PROPPATCH", url: dav + "e",
			body: `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:k>v</Z:k></D:prop></D:set></D:propertyupdate>`},
		{what: "WebDAV LOCK", method: "LOCK", url: dav + "e",
			body: `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`},
		{what: "WebDAV MKCOL", method: "MKCOL", url: dav + "folder/"},
		{what: "tus creation", method: "POST", url: base + "/uploads/fs/",
			header: []string{"Tus-Resumable", "1.0.0", "Upload-Length", "10", "Upload-Metadata", "filename dHVzLWZpbGU="}},
	} {
		r := doWith(t, c.method, c.url, strings.NewReader(c.body), int64(len(c.body)), c.header...)
		switch {
		case strings.HasPrefix(c.what, "HTTP"):
			want507(t, c.what, r)
		case r.status != http.StatusInsufficientStorage:
			t.Errorf("%s on a disk full to the last byte without a reserve: %d %s, want 507", c.what, r.status, r.body)
		case strings.HasPrefix(c.what, "S3") && !bytes.Contains(r.body, []byte("<Code>InsufficientStorage</Code>")):
			t.Errorf("%s: 507 %s", c.what, r.body)
		case bytes.Contains(r.body, []byte(".go:")) || bytes.Contains(r.body, []byte("disk is full (")):
			t.Errorf("%s: the store's text reached the client: %s", c.what, r.body)
		}
	}
	out, err := exec.Command(bin, "delete", "e", "--embedded-listen", srv.store).CombinedOutput()
	if code := exitCode(err); code != 1 || !bytes.Contains(out, []byte("insufficient storage: ")) {
		t.Errorf("gridfsd delete on a disk full to the last byte without a reserve: exit %d, %s", code, out)
	}
	st = openStore(t, srv.store)
	st.mustHoldExactly(t, stored)

	// Room again: the delete works.
	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "DELETE", base+"/b/fs/e", nil, 0); r.status != http.StatusNoContent {
		t.Fatalf("DELETE once there is room: %d %s", r.status, r.body)
	}
	delete(stored, "e")
	st.mustHoldExactly(t, stored)
	srv.stop(t)
}

// exitCode is the exit status of a command that ended with err.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
