package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
)

// panicBody hands out n bytes, then panics, as a bug deep in an upload
// would.
type panicBody struct{ n int }

func (p *panicBody) Read(b []byte) (int, error) {
	if p.n <= 0 {
		panic("boom in the upload")
	}
	k := min(len(b), p.n)
	clear(b[:k])
	p.n -= k
	return k, nil
}

func (p *panicBody) Close() error { return nil }

// TestUploadPanicAborts: a panic while an upload streams is recovered as a
// 500, and the upload is aborted: the chunks it wrote go, its share of the
// write budget comes back (the next upload, with room for one, runs).
func TestUploadPanicAborts(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	if err := e.db.SetLimits(buckets.Limits{MaxConcurrentUploads: 1}); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPut, "/b/fs/panics?chunkSize=65536", &panicBody{n: 3 << 20})
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("panicking upload answered %d %s", rec.Code, rec.Body)
	}
	e.mustBeEmpty("fs")
	e.put("/b/fs/after", "x", nil)
}
