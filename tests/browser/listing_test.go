package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
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

// idPath is the /id/ path of a file the store gave an ObjectID.
func idPath(t *testing.T, bucket string, f *buckets.File) string {
	t.Helper()
	oid, ok := f.ID.(bson.ObjectID)
	if !ok {
		t.Fatalf("%s has id %v, want an ObjectID", f.Filename, f.ID)
	}
	return "/id/" + bucket + "/" + oid.Hex()
}

// firstRowShown is whether the first row of the file list is on screen,
// whole, with the page scrolled to its top.
const firstRowShown = `(() => {
	scrollTo(0, 0);
	const r = document.querySelector("table.files tbody tr").getBoundingClientRect();
	return r.top >= 0 && r.bottom <= innerHeight;
})()`

// TestBrowserLayout checks the file list's layout: sizes and dates on one
// line at 1280 pixels beside a long name and a long type, the first row on
// screen without scrolling on a laptop and a phone, and an upload panel of
// one line while no upload runs.
func TestBrowserLayout(t *testing.T) {
	db, ts, _ := startGateway(t, gateway.Config{})
	photos := putPhotos(t, db)
	long := strings.Repeat("quarterly-report-of-the-northern-region-", 4) + "final.xlsx"
	put(t, photos, long, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "cells")
	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)

	do(t, ctx, "open the bucket at 1280 pixels",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(ts.URL+"/ui/#/b/photos"),
		visible(`tr[data-filename="`+long+`"]`),
	)
	wrapped := eval[[]string](t, ctx, "wrapped sizes and dates", `[...document.querySelectorAll("table.files tbody td.num, table.files tbody td.date")]
		.filter(td => td.textContent && td.firstElementChild && td.firstElementChild.getClientRects().length !== 1)
		.map(td => td.textContent)`)
	if len(wrapped) > 0 {
		t.Errorf("at 1280 pixels these sizes and dates wrap: %q", wrapped)
	}
	if w := eval[int](t, ctx, "page width", `document.documentElement.scrollWidth`); w > 1280 {
		t.Errorf("at 1280 pixels the page is %dpx wide", w)
	}

	for _, screen := range []struct {
		name          string
		width, height int64
	}{
		{"laptop", 1366, 768},
		{"phone", 390, 844},
	} {
		do(t, ctx, "a "+screen.name+" screen", chromedp.EmulateViewport(screen.width, screen.height), goTo("#/"), goTo("#/b/photos"), visible(`tr[data-prefix="2024/"]`))
		if !eval[bool](t, ctx, "first row shown", firstRowShown) {
			top := eval[float64](t, ctx, "first row's bottom", `document.querySelector("table.files tbody tr").getBoundingClientRect().bottom`)
			t.Errorf("on a %s screen (%d×%d) the first row of the file list ends at %vpx, below the screen", screen.name, screen.width, screen.height, top)
		}
		if w := eval[int](t, ctx, "page width", `document.documentElement.scrollWidth`); w > int(screen.width) {
			t.Errorf("on a %s screen the page is %dpx wide, wider than %d", screen.name, w, screen.width)
		}
	}

	// Idle, the upload panel is one line; while files upload it shows them,
	// and once they are done it goes back to one line.
	do(t, ctx, "laptop screen", chromedp.EmulateViewport(1366, 768), goTo("#/"), goTo("#/b/photos"), visible(`tr[data-prefix="2024/"]`))
	idle := eval[float64](t, ctx, "panel height", `document.querySelector(".card.upload").getBoundingClientRect().height`)
	if idle > 80 {
		t.Errorf("the idle upload panel is %vpx high, want one line", idle)
	}
	local := filepath.Join(t.TempDir(), "new.txt")
	if err := os.WriteFile(local, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "upload a file",
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{local}),
		visible(`.uploads li[data-state="done"][data-name="new.txt"]`),
		visible(`tr[data-filename="new.txt"]`),
	)
	do(t, ctx, "the panel shrinks back", chromedp.Poll[chromedp.Void](`document.querySelector(".uploads").hidden`, chromedp.WithPollingTimeout(30*time.Second)))
	if h := eval[float64](t, ctx, "panel height", `document.querySelector(".card.upload").getBoundingClientRect().height`); h != idle {
		t.Errorf("after the upload the panel is %vpx high, want %v as before", h, idle)
	}

	if errs := con.unexpected(func(chromedp.ConsoleMessage) bool { return false }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// thumbLoaded is whether the thumbnail of a row has been fetched and drawn.
func thumbLoaded(name string) string {
	return fmt.Sprintf(`(() => { const i = document.querySelector('tr[data-filename=%q] img.thumb'); return !!i && i.complete && i.naturalWidth > 0; })()`, name)
}

// TestBrowserThumbnails checks the thumbnails of the file list: small
// images get one, loaded when their row comes into view; a large image and
// other files get an icon and cost no download. With access control a read
// token sees the folders and the thumbnails come from signed URLs.
func TestBrowserThumbnails(t *testing.T) {
	db, ts, rec := startGateway(t, gateway.Config{})
	photos := putPhotos(t, db)
	put(t, photos, "aa", "", string(pngOf(t, 16, 16)))     // no stored type, no extension: no thumbnail
	put(t, photos, "ab.png", "", string(pngOf(t, 16, 16))) // no stored type: an image by its name
	big := put(t, photos, "big.png", "image/png", string(pngOf(t, 8, 8))+strings.Repeat("\x00", 2<<20))
	for i := range 60 {
		put(t, photos, fmt.Sprintf("list-%02d.txt", i), "text/plain", "filler\n")
	}
	last := put(t, photos, "zz-last.png", "image/png", string(pngOf(t, 24, 24)))
	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)

	do(t, ctx, "open the bucket",
		chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(ts.URL+"/ui/#/b/photos?limit=200"),
		visible(`tr[data-filename="zz-last.png"]`),
		chromedp.Poll[chromedp.Void](thumbLoaded("ab.png")),
	)
	icons := eval[map[string]bool](t, ctx, "rows with a thumbnail", `Object.fromEntries([...document.querySelectorAll("tr[data-filename]")].map(tr => [tr.dataset.filename, !!tr.querySelector("img.thumb")]))`)
	for name, want := range map[string]bool{"ab.png": true, "top.png": true, "zz-last.png": true, "aa": false, "big.png": false, "readme.txt": false} {
		if icons[name] != want {
			t.Errorf("row %s has a thumbnail: %v, want %v", name, icons[name], want)
		}
	}
	fetched := func(f *buckets.File) int {
		p := idPath(t, "photos", f)
		return rec.countWhere(func(h hit) bool { return h.path == p })
	}
	if n := fetched(big); n != 0 {
		t.Errorf("big.png (%d bytes) was fetched %d times for the list", big.Length, n)
	}
	// Lazy: the last row is far below the screen, and its image is asked
	// for only once it is scrolled to.
	if n := fetched(last); n != 0 {
		t.Errorf("zz-last.png, below the screen, was fetched before it was scrolled to")
	}
	do(t, ctx, "scroll to the last row",
		chromedp.ScrollIntoView(chromedp.CSS(`tr[data-filename="zz-last.png"]`)),
		chromedp.Poll[chromedp.Void](thumbLoaded("zz-last.png")),
	)
	if n := fetched(last); n == 0 {
		t.Errorf("zz-last.png's thumbnail is shown but was not fetched from the gateway; requests:\n%s", rec)
	}
	if n := fetched(big); n != 0 {
		t.Errorf("big.png was fetched %d times for the list", n)
	}
	if errs := con.unexpected(func(chromedp.ConsoleMessage) bool { return false }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}

	// The same store behind access control: a read token of bucket photos.
	const secret = "browser-reader-secret-0123456789"
	authz, err := auth.New(auth.Config{
		Tokens:     []auth.Token{{Name: "reader", Secret: secret, Buckets: []string{"photos"}, Access: auth.Read}},
		SigningKey: "browser-signing-key-0123456789",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, locked, lockedRec := startGateway(t, gateway.Config{DB: db, Auth: authz})
	beach, err := photos.FindByName(context.Background(), "2024/beach.png", -1)
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the gateway with access control",
		chromedp.Navigate(locked.URL+"/ui/"),
		chromedp.WaitReady(chromedp.CSS(`#token-form[data-auth="on"]`)),
		chromedp.SendKeys(chromedp.CSS("#token"), secret),
		chromedp.Click(chromedp.CSS("#token-save")),
		chromedp.WaitVisible(chromedp.Search(`//span[@id="token-who"][text()="Signed in as reader"]`)),
		goTo("#/b/photos"),
		chromedp.Click(chromedp.CSS(`tr[data-prefix="2024/"] a`)),
		visible(`tr[data-prefix="2024/city/"]`),
		chromedp.Poll[chromedp.Void](thumbLoaded("2024/beach.png")),
	)
	p := idPath(t, "photos", beach)
	signed := lockedRec.countWhere(func(h hit) bool {
		return h.path == p && strings.Contains(h.query, "signature=") && h.status == http.StatusOK
	})
	if signed == 0 {
		t.Errorf("with a read token the thumbnail of 2024/beach.png did not come from a signed URL; requests:\n%s", lockedRec)
	}
	if n := lockedRec.countWhere(func(h hit) bool { return h.path == "/b/photos" && h.status != http.StatusOK }); n != 0 {
		t.Errorf("%d folder listings refused with a read token; requests:\n%s", n, lockedRec)
	}
	if errs := con.unexpected(func(chromedp.ConsoleMessage) bool { return false }); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
