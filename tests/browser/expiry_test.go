package browser

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gridfsd/gridfsd/gateway"
)

// TestBrowserExpiry sets an expiry when uploading through the UI, sees it
// on the file's page, and sets a bucket's lifecycle rules on its page (a
// bad rule refused with the rules unchanged).
func TestBrowserExpiry(t *testing.T) {
	db, ts, _ := startGateway(t, gateway.Config{})
	ctx := startBrowser(t)
	note := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(note, []byte("short-lived\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open a bucket", chromedp.Navigate(ts.URL+"/ui/#/b/tmp"), visible("#upload-files"))
	do(t, ctx, "upload with an expiry of a day",
		chromedp.Click(chromedp.CSS(".upload-options summary")),
		chromedp.SetValue(chromedp.CSS("#upload-expires"), "1d"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("upload-expires").dispatchEvent(new Event("change"))`),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{note}),
		visible(`.uploads li[data-state="done"][data-name="note.txt"]`),
	)
	b, err := db.Bucket(context.Background(), "tmp")
	if err != nil {
		t.Fatal(err)
	}
	f, err := b.FindByName(context.Background(), "note.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(f.ExpireAt); d < 23*time.Hour || d > 25*time.Hour {
		t.Fatalf("stored expiry %v, want in a day", f.ExpireAt)
	}
	do(t, ctx, "open the file", goTo("#/b/tmp/f/note.txt"), visible(`section[aria-labelledby="details-h"]`))
	if got := eval[string](t, ctx, "expires row", `[...document.querySelectorAll(".details dt")].find(dt => dt.textContent === "Expires")?.nextElementSibling?.querySelector("time")?.getAttribute("datetime") ?? ""`); got == "" {
		t.Errorf("the file's page shows no expiry")
	}

	do(t, ctx, "open the lifecycle rules", goTo("#/b/tmp"), visible(`section[aria-labelledby="lifecycle-h"] summary`),
		chromedp.Click(chromedp.CSS(`section[aria-labelledby="lifecycle-h"] summary`)), visible("#lifecycle-rules"))
	do(t, ctx, "save a bad rule",
		chromedp.SetValue(chromedp.CSS("#lifecycle-rules"), `[{"prefix": "x/"}]`),
		chromedp.Click(chromedp.CSS("#save-lifecycle")),
		visible(`section[aria-labelledby="lifecycle-h"] .error-text`),
	)
	do(t, ctx, "save rules",
		chromedp.SetValue(chromedp.CSS("#lifecycle-rules"), `[{"id": "logs", "prefix": "logs/", "expireAfter": "7d"}, {"keepRevisions": 2}]`),
		chromedp.Click(chromedp.CSS("#save-lifecycle")),
		visible(`tr[data-rule="logs"]`),
	)
	b, err = db.Bucket(context.Background(), "tmp")
	if err != nil {
		t.Fatal(err)
	}
	if r := b.Settings().Lifecycle; len(r) != 2 || r[0].ID != "logs" || r[0].Prefix != "logs/" || r[1].KeepRevisions != 2 {
		t.Errorf("stored rules %+v", r)
	}
}
