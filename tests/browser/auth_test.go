package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// TestBrowserAuth drives the UI against a gateway with access control: one
// token that may write two buckets but not create any, anonymous read of
// one of them, and signed URLs. Without a token the UI sees only the
// public bucket and asks for a token where one is needed; with the token
// typed into the header it lists and uploads, and the video plays through
// a signed URL, since a media element cannot send the token.
func TestBrowserAuth(t *testing.T) {
	const secret = "browser-writer-secret-0123456789"
	authz, err := auth.New(auth.Config{
		Tokens:        []auth.Token{{Name: "writer", Secret: secret, Buckets: []string{"private", "public"}, Access: auth.Write}},
		AnonymousRead: []string{"public"},
		SigningKey:    "browser-signing-key-0123456789",
	})
	if err != nil {
		t.Fatal(err)
	}
	db := buckets.NewDB(storetest.MustOpenDB(t))
	private, err := db.Create(context.Background(), "private", buckets.Settings{ChunkSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(context.Background(), "public", buckets.Settings{}); err != nil {
		t.Fatal(err)
	}
	srv, err := gateway.New(gateway.Config{DB: db, Auth: authz})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: srv.Handler()}
	ts := httptest.NewServer(rec)
	defer ts.Close()

	ctx := startBrowser(t)
	var con console
	go con.watch(ctx)
	clip, err := filepath.Abs("testdata/clip.webm")
	if err != nil {
		t.Fatal(err)
	}

	// Anonymous: the public bucket only, and no error for that.
	do(t, ctx, "open the UI without a token", chromedp.Navigate(ts.URL+"/ui/"), visible(`tr[data-bucket="public"]`))
	// GET /auth says access control is on: the token field is offered,
	// with no verdict while no token is saved.
	do(t, ctx, "the token field is shown", chromedp.WaitReady(chromedp.CSS(`#token-form[data-auth="on"]`)), visible("#token"))
	if who := eval[string](t, ctx, "who before a token", `document.getElementById("token-who").textContent`); who != "" {
		t.Errorf("without a token the header says %q, want nothing", who)
	}
	if n := eval[int](t, ctx, "private rows", `document.querySelectorAll('tr[data-bucket="private"]').length`); n != 0 {
		t.Errorf("without a token the bucket list shows the private bucket")
	}

	// The private bucket's listing is refused with 401: the banner asks
	// for a token and focus goes to its field.
	do(t, ctx, "open the private bucket without a token", goTo("#/b/private"), visible("#error p"))
	if msg := text(t, ctx, "#error"); !strings.Contains(msg, "Token needed") || !strings.Contains(msg, "(401 unauthenticated)") {
		t.Errorf("error banner = %q, want it to ask for a token and show the 401", msg)
	}
	if id := eval[string](t, ctx, "focused element", `document.activeElement.id`); id != "token" {
		t.Errorf("after a 401, focus is on #%s, want #token", id)
	}
	if n := rec.countWhere(func(h hit) bool { return h.path == "/b/private" && h.status == http.StatusUnauthorized }); n == 0 {
		t.Errorf("the gateway did not refuse the anonymous listing of the private bucket; requests:\n%s", rec)
	}

	// A token the gateway does not know: the header says so, as GET /auth
	// answered (200, authenticated false), and the field is marked invalid.
	do(t, ctx, "save a wrong token",
		chromedp.SendKeys(chromedp.CSS("#token"), "not-a-token-of-this-gateway"),
		chromedp.Click(chromedp.CSS("#token-save")),
		whoSays("Token not accepted"),
	)
	if inv := eval[string](t, ctx, "aria-invalid", `document.getElementById("token").getAttribute("aria-invalid") ?? ""`); inv != "true" {
		t.Errorf("with a refused token the field has aria-invalid=%q, want true", inv)
	}

	// The token typed into the header: the view reloads with it, and the
	// header names the token the UI now acts as.
	do(t, ctx, "save the token",
		chromedp.SendKeys(chromedp.CSS("#token"), secret),
		chromedp.Click(chromedp.CSS("#token-save")),
		toast("Token saved for this browser tab."),
		visible(".listing .empty"),
		chromedp.WaitNotVisible(chromedp.CSS("#error")),
		visible("#token-forget"),
		whoSays("Signed in as writer"),
	)
	if inv := eval[string](t, ctx, "aria-invalid", `document.getElementById("token").getAttribute("aria-invalid") ?? ""`); inv != "" {
		t.Errorf("with an accepted token the field has aria-invalid=%q", inv)
	}
	if n := rec.countWhere(func(h hit) bool { return h.path == "/auth" && h.status == http.StatusOK }); n < 3 {
		t.Errorf("GET /auth answered %d times, want at start and after each save; requests:\n%s", n, rec)
	}
	// On a phone the verdict takes a line of its own; nothing scrolls sideways.
	do(t, ctx, "narrow viewport", chromedp.EmulateViewport(375, 800), whoSays("Signed in as writer"))
	if w := eval[int](t, ctx, "page width", `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("at 375px with a token saved the page is %dpx wide", w)
	}
	do(t, ctx, "wide viewport", chromedp.EmulateViewport(1200, 900))
	type storage struct {
		Session string `json:"session"`
		Local   int    `json:"local"`
		Field   string `json:"field"`
		Href    string `json:"href"`
	}
	st := eval[storage](t, ctx, "where the token is kept", `({session: sessionStorage.getItem("gridfsd.token") ?? "", local: localStorage.length, field: document.getElementById("token").value, href: location.href})`)
	if st.Session != secret || st.Local != 0 || st.Field != "" || strings.Contains(st.Href, secret) {
		t.Errorf("token kept as %+v, want it in sessionStorage only (not localStorage, the field or the URL)", st)
	}

	// Upload with the token: the XHR carries it too.
	do(t, ctx, "upload with the token",
		chromedp.SetUploadFiles(chromedp.CSS("#upload-files"), []string{clip}),
		visible(`.uploads li[data-state="done"][data-name="clip.webm"]`),
		visible(`tr[data-filename="clip.webm"]`),
	)
	if _, err := private.FindByName(context.Background(), "clip.webm", -1); err != nil {
		t.Fatalf("clip.webm after the upload: %v", err)
	}
	do(t, ctx, "list buckets with the token",
		goTo("#/"),
		visible(`tr[data-bucket="private"]`),
		visible(`tr[data-bucket="public"]`),
	)

	// The video plays and seeks through a signed URL: the player's range
	// requests carry the signature, not the token.
	do(t, ctx, "open the video", goTo("#/b/private/f/clip.webm"), visible("video#player"))
	src := eval[string](t, ctx, "player source", `document.getElementById("player").getAttribute("src")`)
	if !strings.HasPrefix(src, "/id/private/") || !strings.Contains(src, "signature=") || strings.Contains(src, secret) {
		t.Errorf("player src = %q, want a signed /id/private/ URL", src)
	}
	playAndSeek(t, ctx)
	signed206 := func(h hit) bool {
		return strings.HasPrefix(h.path, "/id/private/") && strings.Contains(h.query, "signature=") && h.status == http.StatusPartialContent
	}
	if rec.countWhere(signed206) == 0 {
		t.Errorf("the gateway answered no signed media request with 206; requests:\n%s", rec)
	}
	// The download link is signed too, and works with no header at all.
	type link struct {
		Href   string `json:"href"`
		Status int    `json:"status"`
		Bytes  int    `json:"bytes"`
	}
	dl := eval[link](t, ctx, "follow the download link", `(async () => {
		const a = document.querySelector(".preview-body a[download]");
		const res = await fetch(a.href, { credentials: "omit" });
		return { href: a.getAttribute("href"), status: res.status, bytes: (await res.arrayBuffer()).byteLength };
	})()`)
	if !strings.Contains(dl.Href, "signature=") || !strings.Contains(dl.Href, "download=1") || dl.Status != http.StatusOK || dl.Bytes == 0 {
		t.Errorf("download link %+v, want a signed URL that answers 200 with the file", dl)
	}
	if n := rec.countWhere(func(h hit) bool { return strings.Contains(h.path+"?"+h.query, secret) }); n > 0 {
		t.Errorf("%d requests carried the token in their URL", n)
	}

	// A token that may write files but not create buckets: 403, said so.
	do(t, ctx, "create a bucket the token may not",
		goTo("#/"),
		visible("#new-bucket"),
		chromedp.SendKeys(chromedp.CSS("#new-bucket"), "other"),
		chromedp.Click(chromedp.CSS("#create-bucket")),
		visible("#error p"),
	)
	if msg := text(t, ctx, "#error"); !strings.Contains(msg, "may not do this") || !strings.Contains(msg, "(403 forbidden)") {
		t.Errorf("error banner = %q, want it to say the token may not and show the 403", msg)
	}

	// Forgetting the token goes back to what anonymous users see.
	do(t, ctx, "forget the token",
		chromedp.Click(chromedp.CSS("#token-forget")),
		toast("Token forgotten."),
		gone(`tr[data-bucket="private"]`),
		visible(`tr[data-bucket="public"]`),
	)
	if s := eval[string](t, ctx, "session storage", `sessionStorage.getItem("gridfsd.token") ?? ""`); s != "" {
		t.Errorf("after Forget, sessionStorage still holds %q", s)
	}
	do(t, ctx, "no verdict after Forget", chromedp.WaitNotVisible(chromedp.CSS("#token-who")), visible("#token"))
	if who := eval[string](t, ctx, "who after Forget", `document.getElementById("token-who").textContent`); who != "" {
		t.Errorf("after Forget the header says %q, want nothing", who)
	}

	// The only errors are the two refusals asked for above, which the
	// browser logs as failed loads.
	if errs := con.unexpected(func(m chromedp.ConsoleMessage) bool {
		return m.Source == "network" &&
			(strings.Contains(m.URL, "/b/private?") && strings.Contains(m.Text, "401") ||
				strings.Contains(m.URL, "/buckets/other") && strings.Contains(m.Text, "403"))
	}); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// whoSays waits until the header says who the UI acts as.
func whoSays(msg string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//span[@id="token-who"][text()=%q]`, msg)))
}
