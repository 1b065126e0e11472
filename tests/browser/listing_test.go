package browser

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// startGateway serves a gateway on the test store, recording its answers.
func startGateway(t *testing.T, cfg gateway.Config) (*buckets.DB, *httptest.Server, *recorder) {
	t.Helper()
	if cfg.DB == nil {
		cfg.DB = buckets.NewDB(storetest.MustOpenDB(t))
	}
	srv, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: srv.Handler()}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return cfg.DB, ts, rec
}

// put stores content under name, with contentType unless it is "".
func put(t *testing.T, b *buckets.Bucket, name, contentType, content string) *buckets.File {
	t.Helper()
	f, err := b.Upload(context.Background(), name, strings.NewReader(content), buckets.UploadOptions{ContentType: contentType})
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	return f
}

// TestBrowserTypesAndCounts checks what the UI says about files stored by
// other clients: a file without a stored content type shows the type the
// gateway serves it with, and the bucket list and the bucket's page count
// the same thing (stored files, every revision one).
func TestBrowserTypesAndCounts(t *testing.T) {
	db, ts, _ := startGateway(t, gateway.Config{})
	docs, err := db.Create(context.Background(), "docs", buckets.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, docs, "a.txt", "text/plain", "first\n")
	put(t, docs, "a.txt", "text/plain", "second\n")
	put(t, docs, "notes", "", "plain words, no type stored\n") // sniffed
	put(t, docs, "tiny.png", "", string(pngOf(t, 8, 8)))       // by its extension

	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)

	do(t, ctx, "open the bucket list", chromedp.Navigate(ts.URL+"/ui/"), visible(`tr[data-bucket="docs"]`))
	if n := text(t, ctx, `tr[data-bucket="docs"] td[data-label="Files"]`); n != "4" {
		t.Errorf("bucket list counts %q files in docs, want 4 (every revision)", n)
	}
	if c := text(t, ctx, "table.buckets caption"); !strings.Contains(c, "every revision counts as a file") {
		t.Errorf("bucket list caption = %q, want it to say what a file is", c)
	}
	do(t, ctx, "open the bucket", goTo("#/b/docs"), visible(`tr[data-filename="notes"]`))
	if c := text(t, ctx, "table.files caption"); !strings.HasPrefix(c, "4 files (3 names)") {
		t.Errorf("bucket page caption = %q, want it to count 4 files as the bucket list does, in 3 names", c)
	}

	for _, tt := range []struct{ name, served string }{
		{"notes", "text/plain; charset=utf-8"},
		{"tiny.png", "image/png"},
	} {
		do(t, ctx, "open "+tt.name, goTo("#/b/docs/f/"+tt.name), chromedp.WaitVisible(chromedp.Search(`//span[@id="served-type"][starts-with(text(), "`+tt.served+`")]`)))
		details := text(t, ctx, ".details")
		if !strings.Contains(details, tt.served+" (none stored") {
			t.Errorf("details of %s = %q, want the served type %s marked as not stored", tt.name, details, tt.served)
		}
	}
	// The sniffed text type gives a text preview, the derived image type an image.
	do(t, ctx, "preview of tiny.png", visible(".preview-body img"))
	do(t, ctx, "preview of notes", goTo("#/b/docs/f/notes"), visible(".text-preview"))

	if errs := con.unexpected(func(chromedp.ConsoleMessage) bool { return false }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// pngOf is a w×h PNG in two colours, so a thumbnail shows something.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: 0x0f, G: 0x6e, B: 0x52, A: 0xff}
			if (x/(max(w/4, 1))+y/(max(h/4, 1)))%2 == 1 {
				c = color.NRGBA{R: 0xf0, G: 0xc0, B: 0x40, A: 0xff}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// photoNames are the files of the bucket the folder, layout and thumbnail
// tests browse.
var photoNames = []string{"2024/beach.png", "2024/city/night.png", "2025/notes.txt", "readme.txt", "top.png"}

// putPhotos fills bucket photos: images under folders, an image without a
// stored type, a name with two revisions and a large image.
func putPhotos(t *testing.T, db *buckets.DB) *buckets.Bucket {
	t.Helper()
	b, err := db.Create(context.Background(), "photos", buckets.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, b, "2024/beach.png", "image/png", string(pngOf(t, 64, 48)))
	put(t, b, "2024/city/night.png", "image/png", string(pngOf(t, 48, 48)))
	put(t, b, "2025/notes.txt", "text/plain", "notes\n")
	put(t, b, "readme.txt", "text/plain", "one\n")
	put(t, b, "readme.txt", "text/plain", "two\n")
	put(t, b, "top.png", "", string(pngOf(t, 32, 32))) // served as image/png by its name
	return b
}

// names of the rows on screen: folders as their prefix, files as their name.
const rowsJS = `[...document.querySelectorAll("table.files tbody tr")].map(tr => tr.dataset.prefix ?? tr.dataset.filename)`

// TestBrowserFolders browses names with "/" as folders: the root lists the
// top folders and files, a folder its own, the crumbs lead back, paging
// carries on past folders, an upload goes into the folder shown, and the
// flat view lists every name.
func TestBrowserFolders(t *testing.T) {
	db, ts, rec := startGateway(t, gateway.Config{})
	photos := putPhotos(t, db)
	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)

	do(t, ctx, "open the bucket", chromedp.Navigate(ts.URL+"/ui/#/b/photos"), visible(`tr[data-prefix="2024/"]`))
	if got := eval[[]string](t, ctx, "rows", rowsJS); strings.Join(got, " ") != "2024/ 2025/ readme.txt top.png" {
		t.Errorf("root of photos lists %q, want the folders 2024/ 2025/ and the files readme.txt top.png", got)
	}
	if c := text(t, ctx, "table.files caption"); !strings.HasPrefix(c, "3 files (2 names), 2 folders") {
		t.Errorf("caption = %q", c)
	}
	if n := rec.countWhere(func(h hit) bool { return h.path == "/b/photos" && strings.Contains(h.query, "delimiter=%2F") }); n == 0 {
		t.Errorf("the UI did not list with ?delimiter=/; requests:\n%s", rec)
	}

	do(t, ctx, "open folder 2024/", chromedp.Click(chromedp.CSS(`tr[data-prefix="2024/"] a`)), visible(`tr[data-filename="2024/beach.png"]`))
	if got := eval[[]string](t, ctx, "rows", rowsJS); strings.Join(got, " ") != "2024/city/ 2024/beach.png" {
		t.Errorf("folder 2024/ lists %q", got)
	}
	// Names are shown without their folder, which the crumbs and heading say.
	if name := text(t, ctx, `tr[data-filename="2024/beach.png"] th a`); name != "beach.png" {
		t.Errorf("2024/beach.png is shown as %q in its folder, want beach.png", name)
	}
	if crumbs := text(t, ctx, "#crumbs"); !strings.Contains(crumbs, "photos") || !strings.Contains(crumbs, "2024") {
		t.Errorf("crumbs = %q, want Buckets / photos / 2024", crumbs)
	}
	do(t, ctx, "one level deeper", chromedp.Click(chromedp.CSS(`tr[data-prefix="2024/city/"] a`)), visible(`tr[data-filename="2024/city/night.png"]`))
	if crumbs := eval[[]string](t, ctx, "crumbs", `[...document.querySelectorAll("#crumbs li")].map(li => li.textContent)`); strings.Join(crumbs, "/") != "Buckets/photos/2024/city" {
		t.Errorf("crumbs = %q, want Buckets, photos, 2024, city", crumbs)
	}
	do(t, ctx, "back through the crumb of 2024",
		chromedp.Click(chromedp.Search(`//ol[@id="crumbs"]//a[text()="2024"]`)),
		visible(`tr[data-filename="2024/beach.png"]`),
		chromedp.Click(chromedp.Search(`//ol[@id="crumbs"]//a[text()="photos"]`)),
		visible(`tr[data-prefix="2025/"]`),
	)

	// An upload from a folder view lands in that folder.
	local := filepath.Join(t.TempDir(), "sunset.png")
	if err := os.WriteFile(local, pngOf(t, 16, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "upload into 2025/",
		goTo("#/b/photos?prefix=2025%2F"),
		visible(`tr[data-filename="2025/notes.txt"]`),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{local}),
		visible(`tr[data-filename="2025/sunset.png"]`),
	)
	if _, err := photos.FindByName(context.Background(), "2025/sunset.png", -1); err != nil {
		t.Errorf("after uploading from folder 2025/: %v", err)
	}

	// Two entries a page: the cursor carries on past folders, server side.
	do(t, ctx, "page through folders",
		goTo("#/b/photos?limit=2"),
		visible(`tr[data-prefix="2025/"]`),
		visible("#more"),
	)
	if got := eval[[]string](t, ctx, "rows", rowsJS); strings.Join(got, " ") != "2024/ 2025/" {
		t.Errorf("first page of two lists %q", got)
	}
	do(t, ctx, "load more", chromedp.Click(chromedp.CSS("#more")), visible(`tr[data-filename="readme.txt"]`))
	do(t, ctx, "load the rest", chromedp.Click(chromedp.CSS("#more")), visible(`tr[data-filename="top.png"]`), gone("#more"))
	if got := eval[[]string](t, ctx, "rows", rowsJS); strings.Join(got, " ") != "2024/ 2025/ readme.txt top.png" {
		t.Errorf("all pages list %q", got)
	}

	// docs/ui.md's picture: a laptop screen on the root of the bucket,
	// thumbnails loaded.
	do(t, ctx, "the root on a laptop screen",
		chromedp.EmulateViewport(1366, 768),
		goTo("#/b/photos"),
		visible(`tr[data-filename="top.png"] img.thumb`),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("img.thumb")].every(i => i.complete && i.naturalWidth > 0)`),
		gone(".toast"),
	)
	if err := screenshot(ctx); err != nil {
		t.Errorf("screenshot: %v", err)
	}

	// The flat view lists every name under the prefix.
	do(t, ctx, "show all files", goTo("#/b/photos?view=all"), visible(`tr[data-filename="2024/city/night.png"]`))
	if got := eval[[]string](t, ctx, "rows", rowsJS); len(got) != len(photoNames)+1 {
		t.Errorf("the flat view lists %q", got)
	}

	if errs := con.unexpected(func(chromedp.ConsoleMessage) bool { return false }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
