package ui

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/ui/", http.StripPrefix("/ui", Handler()))
	mux.Handle("/ui", http.StripPrefix("/ui", Handler()))
	tests := []struct {
		path, status, contentType, location, body string
	}{
		{"/ui/", "200", "text/html; charset=utf-8", "", `<script type="module" src="app.js">`},
		{"/ui/app.js", "200", "text/javascript; charset=utf-8", "", "import"},
		{"/ui/api.js", "200", "text/javascript; charset=utf-8", "", "authHeaders"},
		{"/ui/style.css", "200", "text/css; charset=utf-8", "", ":root"},
		{"/ui/favicon.svg", "200", "image/svg+xml", "", "<svg"},
		{"/ui", "301", "", "/ui/", ""},
		{"/ui?x=1", "301", "", "/ui/?x=1", ""},
		{"/ui/missing.js", "404", "", "", ""},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		res := rec.Result()
		if got := res.Status[:3]; got != tt.status {
			t.Errorf("GET %s: status %s, want %s", tt.path, res.Status, tt.status)
			continue
		}
		if tt.contentType != "" && res.Header.Get("Content-Type") != tt.contentType {
			t.Errorf("GET %s: Content-Type %q, want %q", tt.path, res.Header.Get("Content-Type"), tt.contentType)
		}
		if tt.location != "" && res.Header.Get("Location") != tt.location {
			t.Errorf("GET %s: Location %q, want %q", tt.path, res.Header.Get("Location"), tt.location)
		}
		if !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("GET %s: body does not contain %q", tt.path, tt.body)
		}
	}
}
