package gateway

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/labstack/echo/v4"
)

// TestPanicIsRecovered: a handler's panic is a 500 JSON error with the
// request id, logged at error level, and the server goes on serving.
func TestPanicIsRecovered(t *testing.T) {
	var logs proctest.Log
	srv, err := New(Config{
		DB:     buckets.NewDB(storetest.MustOpenDB(t)),
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.echo.GET("/test-panic", func(echo.Context) error { panic("boom") })
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	req, _ := http.NewRequest("GET", hs.URL+"/test-panic", nil)
	req.Header.Set(echo.HeaderXRequestID, "panic-request-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the panic cut the connection: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var e errorBody
	if res.StatusCode != 500 || json.Unmarshal(body, &e) != nil || e.Error.Code != "internal" {
		t.Errorf("panic answered %d %s", res.StatusCode, body)
	}
	if strings.Contains(string(body), "boom") || strings.Contains(string(body), "goroutine") {
		t.Errorf("the reply shows the panic: %s", body)
	}
	out := logs.String()
	if !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "request_id=panic-request-1") || !strings.Contains(out, "boom") {
		t.Errorf("the panic is not logged at error with the request id:\n%s", out)
	}
	res, err = http.Get(hs.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("after the panic: %v %v", res, err)
	}
}
