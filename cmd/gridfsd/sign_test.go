package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
)

func TestSign(t *testing.T) {
	e := newEnv(t)
	const key = "a-signing-key-of-some-length"
	cfg := filepath.Join(e.dir, "gridfsd.yaml")
	if err := os.WriteFile(cfg, []byte("auth:\n  signing_key: "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSpace(e.ok("sign", "GET", "/b/media/a clip.webm", "--expires", "1h", "--config", cfg, "--base", "https://files.example"))
	u, err := url.Parse(out)
	if err != nil || u.Host != "files.example" || u.Path != "/b/media/a clip.webm" {
		t.Fatalf("sign printed %q", out)
	}
	a, err := auth.New(auth.Config{SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authorize(httptest.NewRequest("GET", u.RequestURI(), nil), "media", auth.Read); err != nil {
		t.Errorf("the gateway would refuse the signed URL: %v", err)
	}
	if _, err := a.Authorize(httptest.NewRequest("PUT", u.RequestURI(), nil), "media", auth.Write); err == nil {
		t.Error("a signed GET URL allowed PUT")
	}

	// The query is signed with the path: a parameter added is refused.
	out = strings.TrimSpace(e.ok("sign", "GET", "/b/media/x?download=1", "--config", cfg))
	u, err = url.Parse(out)
	if err != nil || u.Query().Get("download") != "1" {
		t.Fatalf("sign printed %q", out)
	}
	if _, err := a.Authorize(httptest.NewRequest("GET", u.RequestURI(), nil), "media", auth.Read); err != nil {
		t.Errorf("the gateway would refuse the signed URL with a query: %v", err)
	}
	if _, err := a.Authorize(httptest.NewRequest("GET", u.RequestURI()+"&revision=0", nil), "media", auth.Read); err == nil {
		t.Error("a parameter added to a signed URL was accepted")
	}

	if msg := e.fails("sign", "GET", "/b/media/x"); !strings.Contains(msg, "signing_key") { // no signing key
		t.Errorf("sign without a signing key: %s", msg)
	}
	for _, args := range [][]string{
		{"sign", "BREW", "/b/media/x", "--config", cfg},                      // bad method
		{"sign", "GET", "b/media/x", "--config", cfg},                        // relative path
		{"sign", "GET", "/b/media/x", "--expires", "-1m", "--config", cfg},   // expired
		{"sign", "GET", "/b/media/x", "--expires", "8760h", "--config", cfg}, // beyond the maximum life
		{"sign", "GET", "/b/media/x", "--expires", "25h", "--config", cfg},
	} {
		if msg := e.failsWith(exitUsage, args...); msg == "" {
			t.Errorf("gridfsd %v: empty error", args)
		}
	}
}
