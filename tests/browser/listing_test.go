package browser

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
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
