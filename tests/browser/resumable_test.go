package browser

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/resumable"
)

// restartable is a gateway with the resumable uploads mounted, serving on
// one address across restarts: stop closes every connection at once, as a
// crashed or redeployed gateway would; start serves a fresh gateway there.
type restartable struct {
	t    *testing.T
	db   *buckets.DB
	addr string
	srv  *http.Server
	hold *patchHold
}

func (r *restartable) start() {
	r.t.Helper()
	door, err := resumable.New(resumable.Config{DB: r.db, LockTTL: 2 * time.Second})
	if err != nil {
		r.t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{DB: r.db, Mounts: []gateway.Mount{{Prefix: resumable.DefaultPrefix, Handler: door}}})
	if err != nil {
		r.t.Fatal(err)
	}
	var ln net.Listener
	for i := 0; ; i++ { // the old socket may linger a moment
		if ln, err = net.Listen("tcp", r.addr); err == nil || i == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.hold.next = gw.Handler()
	r.srv = &http.Server{Handler: r.hold}
	go r.srv.Serve(ln)
}

func (r *restartable) stop() {
	r.srv.Close()
	select {
	case <-r.hold.stopped:
	default:
		close(r.hold.stopped)
	}
}

// patchHold lets the second PATCH's first bytes through, then holds its
// body until the gateway stops.
type patchHold struct {
	next    http.Handler
	mu      sync.Mutex
	patches int
	held    chan struct{}
	stopped chan struct{} // closed when the first gateway stops
	once    sync.Once
	log     []string
}

func (h *patchHold) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPatch {
		h.mu.Lock()
		h.patches++
		n := h.patches
		h.mu.Unlock()
		if n == 2 {
			r.Body = &stallBody{ReadCloser: r.Body, after: 1 << 20, h: h, closed: make(chan struct{})}
		}
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	h.next.ServeHTTP(sw, r)
	h.mu.Lock()
	h.log = append(h.log, r.Method+" "+r.URL.Path+" "+r.Header.Get("Upload-Offset")+" -> "+http.StatusText(sw.status)+" "+sw.Header().Get("Upload-Offset"))
	h.mu.Unlock()
}

type stallBody struct {
	io.ReadCloser
	h         *patchHold
	after     int
	n         int
	closed    chan struct{}
	closeOnce sync.Once
}

// Read stalls past after bytes until the gateway goes (stopped) or the
// handler closes the body; then the connection is gone.
func (b *stallBody) Read(p []byte) (int, error) {
	if b.n >= b.after {
		b.h.once.Do(func() { close(b.h.held) })
		select {
		case <-b.h.stopped:
		case <-b.closed:
		}
		return 0, io.ErrUnexpectedEOF
	}
	if len(p) > b.after-b.n {
		p = p[:b.after-b.n]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += n
	return n, err
}

func (b *stallBody) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return b.ReadCloser.Close()
}

// TestBrowserResumableUpload: the UI uploads through tus; the gateway stops
// in the middle of a PATCH and starts again; the upload resumes on its own
// and the stored file is whole.
func TestBrowserResumableUpload(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	r := &restartable{t: t, db: db, addr: "127.0.0.1:0", hold: &patchHold{held: make(chan struct{}), stopped: make(chan struct{})}}
	r.start()
	t.Cleanup(func() { r.stop() })
	if _, err := db.Create(context.Background(), "media", buckets.Settings{}); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("resumable upload through a restart\n"), 20<<20/36)
	file := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := startBrowser(t)
	do(t, ctx, "start an upload",
		chromedp.Navigate("http://"+r.addr+"/ui/#/b/media"),
		visible("#upload-files"),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{file}),
		visible(`.uploads li[data-state="uploading"][data-name="big.txt"]`),
	)
	select {
	case <-r.hold.held:
	case <-time.After(time.Minute):
		t.Fatal("the second PATCH never arrived")
	}
	r.stop()
	time.Sleep(500 * time.Millisecond) // the browser sees the gateway gone
	r.start()
	t.Cleanup(func() {
		if t.Failed() {
			r.hold.mu.Lock()
			t.Logf("requests:\n%s", strings.Join(r.hold.log, "\n"))
			r.hold.mu.Unlock()
			t.Logf("status: %s", eval[string](t, ctx, "status", `document.querySelector(".uploads li")?.textContent ?? ""`))
		}
	})
	do(t, ctx, "the upload to finish after the restart",
		chromedp.WaitVisible(chromedp.CSS(`.uploads li[data-state="done"][data-name="big.txt"]`)),
	)
	b, err := db.Bucket(context.Background(), "media")
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.OpenName(context.Background(), "big.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(d)
	d.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("stored %d bytes (want %d), equal %v, %v", len(got), len(data), bytes.Equal(got, data), err)
	}
	if r.hold.patches < 3 {
		t.Fatalf("%d PATCHes: the upload was not resumed", r.hold.patches)
	}
	if _, err := b.FindByName(context.Background(), "big.txt", -2); !errors.Is(err, buckets.ErrRevisionNotFound) {
		t.Fatalf("more than one revision: %v", err)
	}
}

// TestBrowserResumableAfterReload: the page is reloaded while an upload is
// cut off; choosing the same file again resumes the same upload from what
// the gateway stored instead of starting over.
func TestBrowserResumableAfterReload(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	r := &restartable{t: t, db: db, addr: "127.0.0.1:0", hold: &patchHold{held: make(chan struct{}), stopped: make(chan struct{})}}
	r.start()
	t.Cleanup(func() { r.stop() })
	if _, err := db.Create(context.Background(), "media", buckets.Settings{}); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("resumed after a reload\n"), 20<<20/23)
	file := filepath.Join(t.TempDir(), "reload.txt")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := startBrowser(t)
	do(t, ctx, "start an upload",
		chromedp.Navigate("http://"+r.addr+"/ui/#/b/media"),
		visible("#upload-files"),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{file}),
		visible(`.uploads li[data-state="uploading"][data-name="reload.txt"]`),
	)
	select {
	case <-r.hold.held:
	case <-time.After(time.Minute):
		t.Fatal("the second PATCH never arrived")
	}
	r.stop()
	r.start()
	do(t, ctx, "reload and choose the file again",
		chromedp.Reload(),
		visible("#upload-files"),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{file}),
		chromedp.WaitVisible(chromedp.CSS(`.uploads li[data-state="done"][data-name="reload.txt"]`)),
	)
	r.hold.mu.Lock()
	log := strings.Join(r.hold.log, "\n")
	r.hold.mu.Unlock()
	if n := strings.Count(log, "POST /uploads/"); n != 1 {
		t.Fatalf("%d uploads created, want 1 (resumed):\n%s", n, log)
	}
	b, err := db.Bucket(context.Background(), "media")
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.OpenName(context.Background(), "reload.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(d)
	d.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("stored %d bytes (want %d): %v", len(got), len(data), err)
	}
}
