// Package browser drives the gateway's web application in a real, headless
// Chromium: upload through the file picker, media playback with seeking over
// range requests, previews, edits, deletes and error display. It lives apart
// from package gateway because gateway imports gateway/ui.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// EnvChromium overrides where the tests look for the browser.
const EnvChromium = "GRIDFSD_CHROMIUM"

// EnvScreenshot names the file a run saves docs/ui.md's picture to
// (GRIDFSD_SCREENSHOT=docs/ui.png); a relative path is taken from the
// repository's root. Unset, no picture is written, so a test run leaves
// the worktree clean.
const EnvScreenshot = "GRIDFSD_SCREENSHOT"

func TestMain(m *testing.M) { storetest.Main(m) }

// hit is one request the gateway answered.
type hit struct {
	method, path, query, rng string
	status                   int
}

// recorder wraps the gateway and remembers every status it sent, so a test
// can see that the browser's media requests were answered with 206.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	hits []hit
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	rec.next.ServeHTTP(sw, r)
	rec.mu.Lock()
	rec.hits = append(rec.hits, hit{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Range"), sw.status})
	rec.mu.Unlock()
}

// count returns how many requests for paths starting with prefix got
// status (any status for 0) and were done.
func (rec *recorder) count(prefix string, status int) int {
	return rec.countWhere(func(h hit) bool {
		return strings.HasPrefix(h.path, prefix) && (status == 0 || h.status == status)
	})
}

// countWhere returns how many done requests match.
func (rec *recorder) countWhere(match func(hit) bool) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, h := range rec.hits {
		if match(h) {
			n++
		}
	}
	return n
}

func (rec *recorder) String() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var b strings.Builder
	for _, h := range rec.hits {
		fmt.Fprintf(&b, "%s %s?%s range=%q -> %d\n", h.method, h.path, h.query, h.rng, h.status)
	}
	return b.String()
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// holdUpload lets the first bytes of the upload to path through, then holds
// the rest of the body until release is closed: the test cancels that
// upload in the browser while the gateway has part of it stored.
type holdUpload struct {
	next    http.Handler
	path    string
	after   int64
	held    chan struct{} // closed once the first bytes went through
	release chan struct{}
}

func (h *holdUpload) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut && r.URL.Path == h.path {
		r.Body = &heldBody{ReadCloser: r.Body, h: h}
	}
	h.next.ServeHTTP(w, r)
}

type heldBody struct {
	io.ReadCloser
	h    *holdUpload
	n    int64
	once sync.Once
}

func (b *heldBody) Read(p []byte) (int, error) {
	if b.n >= b.h.after {
		b.once.Do(func() { close(b.h.held) })
		<-b.h.release
		return b.ReadCloser.Read(p)
	}
	if left := b.h.after - b.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// console collects what the page wrote to its console that counts as an
// error: uncaught exceptions, console.error calls and error entries of the
// browser log (failed loads among them).
type console struct {
	mu   sync.Mutex
	errs []chromedp.ConsoleMessage
}

func (c *console) watch(ctx context.Context) {
	for m, err := range chromedp.Console(ctx) {
		if err != nil {
			return
		}
		if m.IsException() || m.Type == chromedp.ConsoleError {
			c.mu.Lock()
			c.errs = append(c.errs, m)
			c.mu.Unlock()
		}
	}
}

// unexpected returns the errors except those allow accepts.
func (c *console) unexpected(allow func(chromedp.ConsoleMessage) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.errs {
		if !allow(m) {
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
		}
	}
	return out
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv(EnvChromium)
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (%v): install it with `apt-get install -y chromium`, "+
			"or point %s at a Chrome or Chromium binary", path, err, EnvChromium)
	}
	return path
}

// startBrowser starts a headless Chromium with a fresh profile and returns
// a tab's context; the browser stops when the test ends.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// The test plays a muted clip from a script, with no user gesture.
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The first Run starts the browser; it must not carry a timeout, which
	// would stop the browser with it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// do runs browser actions with a time limit and fails the test with what
// was being done.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, what, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// visible waits until a selector shows up.
func visible(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
}

// gone waits until no element matches the selector.
func gone(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitNotPresent(chromedp.CSS(sel))
}

// toast waits for a status message.
func toast(msg string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//p[@class="toast"][text()=%q]`, msg)))
}

// goTo changes the application's route without reloading the page, and
// returns once the application has handled the change and replaced the old
// view (its listener was added first, so it runs before this one).
func goTo(hash string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`new Promise((done) => {
		addEventListener("hashchange", () => setTimeout(done), { once: true });
		location.hash = %q;
	})`, hash), chromedp.EvalAwaitPromise)
}

func TestBrowserUI(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	srv, err := gateway.New(gateway.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	hold := &holdUpload{next: srv.Handler(), path: "/b/uploads/big.bin", after: 3 << 20, held: make(chan struct{}), release: make(chan struct{})}
	defer func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
	}()
	rec := &recorder{next: hold}
	ts := httptest.NewServer(rec)
	defer ts.Close()

	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)

	clip, err := filepath.Abs("testdata/clip.webm")
	if err != nil {
		t.Fatal(err)
	}
	clipInfo, err := os.Stat(clip)
	if err != nil {
		t.Fatal(err)
	}
	notesText := "Notes from the browser test.\nSecond line, ünïcödé.\n"
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte(notesText), 0o644); err != nil {
		t.Fatal(err)
	}

	// The root redirects browsers to the application, which starts on the
	// buckets view.
	do(t, ctx, "open the UI", chromedp.Navigate(ts.URL+"/"), visible("#buckets-h"))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasPrefix(loc, ts.URL+"/ui/") {
		t.Fatalf("/ led to %q (%v), want %s/ui/", loc, err, ts.URL)
	}
	// Without access control a token would change nothing: once GET /auth
	// has said so, the header has no token field.
	do(t, ctx, "ask the gateway about access control", chromedp.WaitReady(chromedp.CSS(`#token-form[data-auth="off"]`)))
	if eval[bool](t, ctx, "token field shown", `document.getElementById("token").checkVisibility()`) {
		t.Errorf("without access control the token field is shown")
	}
	if n := rec.count("/auth", http.StatusOK); n == 0 {
		t.Errorf("the UI did not ask GET /auth; requests:\n%s", rec)
	}
	do(t, ctx, "the empty bucket list", visible(`section[aria-labelledby="buckets-h"] a[href="#/b/fs"]`))
	if msg := text(t, ctx, `section[aria-labelledby="buckets-h"] p`); !strings.HasPrefix(msg, "No buckets yet. ") || strings.Contains(msg, "token") {
		t.Errorf("without access control the empty bucket list says %q, want no word of tokens", msg)
	}

	// A bucket with small chunks, so that the clip spans several and a
	// range read has to pick the right ones.
	do(t, ctx, "create a bucket",
		chromedp.SendKeys(chromedp.CSS("#new-bucket"), "media"),
		chromedp.SendKeys(chromedp.CSS("#new-chunk"), "1024"),
		chromedp.Click(chromedp.CSS("#create-bucket")),
		visible("#upload-files"),
	)

	// Two files at once through the picker.
	do(t, ctx, "upload through the file input",
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{clip, notes}),
		visible(`.uploads li[data-state="done"][data-name="clip.webm"]`),
		visible(`.uploads li[data-state="done"][data-name="notes.txt"]`),
		visible(`tr[data-filename="clip.webm"]`),
		visible(`tr[data-filename="notes.txt"]`),
	)
	sizes := eval[map[string]string](t, ctx, "read listed sizes", `Object.fromEntries([...document.querySelectorAll("tr[data-filename]")].map(tr => [tr.dataset.filename, tr.querySelector("data").value]))`)
	if want := fmt.Sprint(clipInfo.Size()); sizes["clip.webm"] != want {
		t.Errorf("listed size of clip.webm = %q, want %s", sizes["clip.webm"], want)
	}
	if want := fmt.Sprint(len(notesText)); sizes["notes.txt"] != want {
		t.Errorf("listed size of notes.txt = %q, want %s", sizes["notes.txt"], want)
	}
	bucket, err := db.Bucket(context.Background(), "media")
	if err != nil {
		t.Fatal(err)
	}
	page, err := bucket.Find(context.Background(), buckets.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Files) != 2 {
		t.Fatalf("store holds %d files after the upload, want 2", len(page.Files))
	}
	for _, f := range page.Files {
		if f.ChunkSize != 1024 {
			t.Errorf("%s stored with chunk size %d, want the bucket's 1024", f.Filename, f.ChunkSize)
		}
	}

	// A phone-sized screen: nothing may force sideways scrolling.
	do(t, ctx, "narrow viewport", chromedp.EmulateViewport(375, 800))
	if w := eval[int](t, ctx, "page width", `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("at 375px the files view is %dpx wide", w)
	}
	do(t, ctx, "wide viewport", chromedp.EmulateViewport(1200, 900))

	// Keyset paging: one file per page, then "Load more".
	do(t, ctx, "page through the listing",
		goTo("#/b/media?limit=1"),
		visible("#more"),
		visible(`tr[data-filename="clip.webm"]`),
		gone(`tr[data-filename="notes.txt"]`),
		chromedp.Click(chromedp.CSS("#more")),
		visible(`tr[data-filename="notes.txt"]`),
		gone("#more"),
	)

	// Play the clip, seek to the middle.
	do(t, ctx, "open the video", chromedp.Click(chromedp.CSS(`tr[data-filename="clip.webm"] a`)), visible("video#player"))
	// A new view moves focus to its heading, as a page load would.
	if focused := eval[string](t, ctx, "focused element", `document.activeElement.tagName + ":" + document.activeElement.textContent`); focused != "H1:clip.webm" {
		t.Errorf("after opening a file, focus is on %q, want its heading", focused)
	}
	before := rec.count("/id/media/", http.StatusPartialContent)
	playAndSeek(t, ctx)
	if n := rec.count("/id/media/", http.StatusPartialContent); n == 0 {
		t.Errorf("the gateway answered no media request with 206 (%d before playing); requests:\n%s", before, rec)
	}

	// Text preview (a Range request for the start), metadata, rename.
	do(t, ctx, "open the text file",
		goTo("#/b/media"),
		visible(`tr[data-filename="notes.txt"] a`),
		chromedp.Click(chromedp.CSS(`tr[data-filename="notes.txt"] a`)),
		visible(".text-preview"),
	)
	if got := text(t, ctx, ".text-preview"); strings.TrimSpace(got) != strings.TrimSpace(notesText) {
		t.Errorf("text preview = %q, want %q", got, notesText)
	}
	do(t, ctx, "edit metadata",
		chromedp.SetValue(chromedp.CSS("#metadata"), `{"owner": "ada", "tags": ["a", "b"]}`),
		chromedp.Click(chromedp.CSS("#save-metadata")),
		toast("Metadata saved."),
		visible(".text-preview"),
	)
	f, err := bucket.FindByName(context.Background(), "notes.txt", -1)
	if err != nil {
		t.Fatalf("find notes.txt: %v", err)
	}
	if owner, _ := f.Metadata.Lookup("owner").StringValueOK(); owner != "ada" {
		t.Errorf("metadata after the edit = %v, want owner ada", f.Metadata)
	}
	do(t, ctx, "rename",
		chromedp.SetValue(chromedp.CSS("#rename"), "docs/notes.txt"),
		chromedp.Click(chromedp.CSS("#rename-submit")),
		chromedp.WaitVisible(chromedp.Search(`//h1[text()="docs/notes.txt"]`)),
		visible(".text-preview"),
	)

	// Delete it, with confirmation.
	do(t, ctx, "delete",
		chromedp.Click(chromedp.CSS("#delete-one")),
		visible("#confirm[open] #confirm-ok"),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
		visible(`tr[data-filename="clip.webm"]`),
		gone(`tr[data-filename="docs/notes.txt"]`),
	)
	if _, err := bucket.FindByName(context.Background(), "docs/notes.txt", -1); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("after delete, opening docs/notes.txt gives %v, want ErrFileNotFound", err)
	}

	// Cancel an upload half way: the browser aborts the PUT and the
	// gateway removes the chunks it had stored. The file is larger than
	// what socket buffers hold, so the browser is still sending.
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 64<<20); err != nil {
		t.Fatal(err)
	}
	uploads, err := db.Create(context.Background(), "uploads", buckets.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "start a large upload",
		goTo("#/b/uploads"),
		visible("#upload-files"),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{big}),
		visible(`.uploads li[data-state="uploading"][data-name="big.bin"]`),
	)
	select {
	case <-hold.held:
	case <-time.After(time.Minute):
		t.Fatalf("the gateway never received the first bytes of big.bin; requests:\n%s", rec)
	}
	waitFor(t, "chunks of big.bin in the store", func() bool { return countChunks(t, uploads) > 0 })
	do(t, ctx, "cancel it",
		chromedp.Click(chromedp.CSS(`.uploads li[data-name="big.bin"] button`)),
		visible(`.uploads li[data-state="cancelled"][data-name="big.bin"]`),
	)
	close(hold.release)
	waitFor(t, "the gateway to finish the cancelled upload", func() bool { return rec.count("/b/uploads/big.bin", 0) > 0 })
	if _, err := uploads.FindByName(context.Background(), "big.bin", -1); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("after cancelling, big.bin gives %v, want ErrFileNotFound", err)
	}
	if n := countChunks(t, uploads); n != 0 {
		t.Errorf("%d chunks left behind by the cancelled upload", n)
	}

	// Drag and drop: the drop zone takes files as the picker does.
	do(t, ctx, "drop a file",
		chromedp.Evaluate[chromedp.Void](`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File(["dropped in\n"], "dropped.txt", { type: "text/plain" }));
			document.querySelector(".listing").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		})()`),
		visible(`.uploads li[data-state="done"][data-name="dropped.txt"]`),
		visible(`tr[data-filename="dropped.txt"]`),
	)
	if f, err := uploads.FindByName(context.Background(), "dropped.txt", -1); err != nil || f.Length != int64(len("dropped in\n")) || f.MediaType() != "text/plain" {
		t.Errorf("dropped.txt in the store: %+v, %v; want %d bytes of text/plain", f, err, len("dropped in\n"))
	}

	// The gateway's JSON error reaches the user.
	do(t, ctx, "bad bucket name",
		goTo("#/"),
		visible("#new-bucket"),
		chromedp.SendKeys(chromedp.CSS("#new-bucket"), "bad$name"),
		chromedp.Click(chromedp.CSS("#create-bucket")),
		visible("#error p"),
	)
	if msg := text(t, ctx, "#error p"); !strings.Contains(msg, "bad$name") || !strings.Contains(msg, "(400 ") {
		t.Errorf("error banner = %q, want the gateway's message about bad$name with status 400", msg)
	}

	// Drop the non-empty bucket: the dialog wants its name typed.
	do(t, ctx, "drop the bucket",
		chromedp.Click(chromedp.CSS(`tr[data-bucket="media"] button`)),
		visible("#confirm[open] #confirm-input"),
		chromedp.SendKeys(chromedp.CSS("#confirm-input"), "media"),
		chromedp.Click(chromedp.CSS("#confirm-ok")),
		gone(`tr[data-bucket="media"]`),
	)
	infos, err := db.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range infos {
		if b.Name == "media" {
			t.Errorf("bucket media still listed after the drop: %+v", b)
		}
	}

	// Nothing went wrong in the page but the one refusal asked for above,
	// which the browser logs as a failed load.
	if errs := con.unexpected(func(m chromedp.ConsoleMessage) bool {
		return m.Source == "network" && strings.Contains(m.URL, "/buckets/bad")
	}); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// playAndSeek plays the video#player on the page, seeks to its middle and
// checks that playback started and currentTime moved there; the clip is
// testdata/clip.webm, 4 seconds long.
func playAndSeek(t *testing.T, ctx context.Context) {
	t.Helper()
	type playback struct {
		Duration    float64 `json:"duration"`
		CurrentTime float64 `json:"currentTime"`
		Played      bool    `json:"played"`
	}
	p := eval[playback](t, ctx, "play and seek", `(async () => {
		const v = document.getElementById("player");
		if (v.readyState < 1) {
			await new Promise((ok, fail) => {
				v.addEventListener("loadedmetadata", ok, { once: true });
				v.addEventListener("error", () => fail(new Error("media error " + (v.error && v.error.code))), { once: true });
			});
		}
		v.muted = true;
		await v.play();
		const played = !v.paused;
		v.pause();
		const seeked = new Promise((ok) => v.addEventListener("seeked", ok, { once: true }));
		v.currentTime = v.duration / 2;
		await seeked;
		return { duration: v.duration, currentTime: v.currentTime, played };
	})()`)
	if !p.Played {
		t.Error("the video did not start playing")
	}
	if p.Duration < 3.5 || p.Duration > 4.5 {
		t.Errorf("video duration = %v s, want about 4", p.Duration)
	}
	if p.CurrentTime < p.Duration/2-0.5 || p.CurrentTime > p.Duration/2+0.5 {
		t.Errorf("after seeking to the middle, currentTime = %v s of %v", p.CurrentTime, p.Duration)
	}
}

// waitFor polls cond until it holds, for things the browser does not show:
// the state of the store and of the gateway's handlers.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countChunks(t *testing.T, b *buckets.Bucket) int64 {
	t.Helper()
	n, err := b.ChunksCollection().CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatalf("count chunks: %v", err)
	}
	return n
}

// screenshot saves the current view for docs/ui.md, when EnvScreenshot
// asks for it.
func screenshot(ctx context.Context) error {
	path := os.Getenv(EnvScreenshot)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join("..", "..", path) // the test runs in tests/browser
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
