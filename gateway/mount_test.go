package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
)

// A mounted door sees every method under its prefix with the full path, and
// its requests run past RequestTimeout as the doors' own streams do.
func TestMountsServeTheirPrefix(t *testing.T) {
	door := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PUT" {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-r.Context().Done():
				http.Error(w, "cut", http.StatusServiceUnavailable)
				return
			}
		}
		io.WriteString(w, r.Method+" "+r.URL.Path)
	})
	e := newEnv(t, gateway.Config{
		RequestTimeout: 50 * time.Millisecond,
		Mounts:         []gateway.Mount{{Prefix: "/door/", Handler: door}},
	})
	for _, tc := range []struct{ method, path, want string }{
		{"PROPFIND", "/door/", "PROPFIND /door/"},
		{"MKCOL", "/door/a/b/", "MKCOL /door/a/b/"},
		{"PATCH", "/door/x", "PATCH /door/x"},
		{"PUT", "/door/slow", "PUT /door/slow"},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), tc.method, e.url+tc.path, strings.NewReader("x"))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != tc.want {
			t.Errorf("%s %s: %d %q, want 200 %q", tc.method, tc.path, res.StatusCode, body, tc.want)
		}
	}
	if _, err := gateway.New(gateway.Config{DB: e.db, Mounts: []gateway.Mount{{Prefix: "nodoor", Handler: door}}}); err == nil {
		t.Error("a mount prefix without slashes was accepted")
	}
}
