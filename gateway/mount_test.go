package gateway_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/reqlog"
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

// A mounted door's requests get the gateway's log line, with what the door
// adds to it (internal/reqlog): who called, why it refused.
func TestMountsAddToTheRequestLine(t *testing.T) {
	var logs bytes.Buffer
	door := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqlog.From(r.Context(), nil).Add("principal", "alice", "error", "locked")
		w.WriteHeader(423)
	})
	e := newEnv(t, gateway.Config{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Mounts: []gateway.Mount{{Prefix: "/door/", Handler: door}},
	})
	req, _ := http.NewRequest("PROPFIND", e.url+"/door/x", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	line := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "msg=request") {
			line = l
		}
	}
	for _, want := range []string{"method=PROPFIND", "route=/door/*", "status=423", "principal=alice", "error=locked"} {
		if !strings.Contains(line, want) {
			t.Errorf("request line %q lacks %s", line, want)
		}
	}
	body, _ := gatewayMetrics(t, e)
	if !strings.Contains(body, `gridfsd_http_requests_total{method="PROPFIND",route="/door/*",status="423"} 1`) {
		t.Errorf("metrics lack the PROPFIND:\n%s", body)
	}
}

func gatewayMetrics(t *testing.T, e *env) (string, error) {
	t.Helper()
	res, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}
