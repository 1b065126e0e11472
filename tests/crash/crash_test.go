// Package crash kills a real gridfsd serve process in the middle of an
// upload and checks that nothing committed is lost and that what the dead
// upload left behind is found and removed, by gridfsd fsck --repair and by
// the background sweeper, without touching an upload still in progress.
package crash

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// server is a running gridfsd serve.
type server struct {
	cmd  *exec.Cmd
	addr string
	log  *proctest.Log
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

// startServe runs gridfsd serve on the test store's database db and waits
// until it answers /readyz.
func startServe(t *testing.T, bin, db string, extra ...string) *server {
	t.Helper()
	s := &server{addr: freeAddr(t), log: &proctest.Log{}}
	args := append([]string{"serve", "--uri", storetest.URI(t), "--db", db, "--listen", s.addr, "--s3-listen=", "--log-level", "debug"}, extra...)
	s.cmd = exec.Command(bin, args...)
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
	waitFor(t, "gridfsd serve to be ready", func() bool {
		res, err := http.Get("http://" + s.addr + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	return s
}

// kill sends SIGKILL: no deferred function, no abort, no graceful anything.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
}

func (s *server) put(t *testing.T, path string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest("PUT", "http://"+s.addr+path, bytes.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("PUT %s: %d %s", path, res.StatusCode, b)
	}
}

// streamingUpload starts a PUT of size bytes on a raw connection and
// returns it, to be written to further or abandoned.
func (s *server) streamingUpload(t *testing.T, name string, chunkSize, size int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "PUT /b/fs/%s?chunkSize=%d HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", name, chunkSize, size)
	return conn
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func content(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31) ^ seed + byte(i>>10)
	}
	return b
}

// state reads what the bucket holds.
type state struct {
	b *buckets.Bucket
}

func (s state) chunks(t *testing.T) int64 {
	t.Helper()
	n, err := s.b.ChunksCollection().CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (s state) filesNamed(t *testing.T, name string) int64 {
	t.Helper()
	n, err := s.b.FilesCollection().CountDocuments(context.Background(), bson.D{{Key: "filename", Value: name}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (s state) orphans(t *testing.T, grace time.Duration) (chunks int64) {
	t.Helper()
	o, err := s.b.FindOrphans(context.Background(), grace)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range append(o.Old, o.Pending...) {
		chunks += x.Chunks
	}
	return chunks
}

// mustRead downloads name and compares it with want.
func (s state) mustRead(t *testing.T, name string, want []byte) {
	t.Helper()
	d, err := s.b.OpenName(context.Background(), name, -1)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes differ from the %d uploaded", name, len(got), len(want))
	}
}

func (s state) mustBeClean(t *testing.T) {
	t.Helper()
	rep, err := s.b.Fsck(context.Background(), time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Damaged) != 0 || len(rep.Old) != 0 || len(rep.Pending) != 0 {
		t.Fatalf("fsck: %d damaged, %d old and %d pending orphans", len(rep.Damaged), len(rep.Old), len(rep.Pending))
	}
}

const (
	chunkSize = 64 << 10
	batch     = 1 << 20 // the chunk writer's default insert batch
)

// killMidUpload commits a file, then kills the server while a second
// upload is streaming, once some of its chunks are in the store.
func killMidUpload(t *testing.T, bin string, db string, st state, committed []byte) {
	t.Helper()
	srv := startServe(t, bin, db)
	srv.put(t, "/b/fs/committed?chunkSize=4096", committed)
	before := st.chunks(t)

	conn := srv.streamingUpload(t, "dying", chunkSize, 8<<20)
	conn.Write(content(batch+batch/2, 7))
	waitFor(t, "chunks of the dying upload", func() bool { return st.chunks(t) > before })
	srv.kill(t)

	if n := st.filesNamed(t, "dying"); n != 0 {
		t.Fatalf("the killed upload has %d files documents", n)
	}
	if n := st.orphans(t, time.Nanosecond); n == 0 {
		t.Fatal("the killed upload left no orphaned chunks: the test did not kill it mid-upload")
	}
	st.mustRead(t, "committed", committed)
}

// TestKilledUploadFsckRepair: after SIGKILL mid-upload, gridfsd fsck
// --repair removes the orphans and the committed file is untouched.
func TestKilledUploadFsckRepair(t *testing.T) {
	bin := proctest.BuildGridfsd(t, "")
	mdb := storetest.MustOpenDB(t)
	st := state{b: mustBucket(t, mdb.Name())}
	committed := content(50_000, 1)
	killMidUpload(t, bin, mdb.Name(), st, committed)

	fsck := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"fsck", "--uri", storetest.URI(t), "--db", mdb.Name()}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// With the default grace of an hour, the fresh orphans may belong to
	// an upload in progress: left alone.
	if out, err := fsck("--repair"); err != nil || !strings.Contains(out, "left alone") {
		t.Fatalf("fsck --repair with the default grace: %v\n%s", err, out)
	}
	if st.orphans(t, time.Nanosecond) == 0 {
		t.Fatal("fsck removed chunks younger than its grace period")
	}
	// Plain fsck reports them once they are older than --grace, and fails.
	time.Sleep(1100 * time.Millisecond) // ObjectId timestamps count whole seconds
	if out, err := fsck("--grace", "1s"); err == nil || !strings.Contains(out, "orphan") {
		t.Fatalf("fsck without --repair: %v\n%s", err, out)
	}
	if out, err := fsck("--grace", "1s", "--repair"); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("fsck --repair: %v\n%s", err, out)
	}
	if n := st.orphans(t, time.Nanosecond); n != 0 {
		t.Fatalf("%d orphaned chunks after fsck --repair", n)
	}
	st.mustRead(t, "committed", committed)
	st.mustBeClean(t)
}

// TestKilledUploadSweeper: a restarted gateway's sweeper removes what a
// killed upload left, while an upload that keeps streaming through many
// sweeps is untouched and commits complete.
func TestKilledUploadSweeper(t *testing.T) {
	bin := proctest.BuildGridfsd(t, "")
	mdb := storetest.MustOpenDB(t)
	st := state{b: mustBucket(t, mdb.Name())}
	committed := content(50_000, 2)
	killMidUpload(t, bin, mdb.Name(), st, committed)

	// The grace is generous next to the second the live upload takes
	// between batches, so only the dead upload's chunks age past it.
	srv := startServe(t, bin, mdb.Name(), "--sweep-interval", "200ms", "--sweep-grace", "6s")
	const liveSize = 16 * batch
	live := content(liveSize, 3)
	conn := srv.streamingUpload(t, "live", chunkSize, liveSize)
	swept := func() bool { return strings.Contains(srv.log.String(), "removed orphaned chunks") }
	sent := 0
	// One batch a second keeps the live upload's newest chunk fresh; it
	// stops once the sweeper has removed the dead upload's chunks.
	for sent < 2*batch || !swept() {
		if sent+batch >= liveSize {
			t.Fatalf("no sweep within %d seconds; server log:\n%s", liveSize/batch, srv.log.String())
		}
		conn.Write(live[sent : sent+batch])
		sent += batch
		time.Sleep(time.Second)
	}
	conn.Write(live[sent:])
	res, err := http.ReadResponse(newReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 {
		t.Fatalf("live upload: %d %s\nserver log:\n%s", res.StatusCode, body, srv.log.String())
	}
	st.mustRead(t, "live", live)
	st.mustRead(t, "committed", committed)
	st.mustBeClean(t)
	if !strings.Contains(srv.log.String(), "orphan sweeper started") {
		t.Errorf("no sweeper start in the log:\n%s", srv.log.String())
	}
}

func mustBucket(t *testing.T, db string) *buckets.Bucket {
	t.Helper()
	b, err := buckets.NewDB(storetest.Client(t).Database(db)).Bucket(context.Background(), "fs")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
