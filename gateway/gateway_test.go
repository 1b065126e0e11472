package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/grants"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// env is one gateway over HTTP on a fresh database.
type env struct {
	t   *testing.T
	db  *buckets.DB
	srv *gateway.Server
	url string
}

func newEnv(t *testing.T, cfg gateway.Config) *env {
	t.Helper()
	cfg.DB = buckets.NewDB(storetest.MustOpenDB(t))
	if cfg.Auth != nil {
		cfg.Auth.SetGrants(grants.Of(cfg.DB)) // as serve wires it
	}
	srv, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, db: cfg.DB, srv: srv, url: hs.URL}
}

// newUnreachableEnv is a gateway whose MongoDB does not answer: a port
// nothing listens on.
func newUnreachableEnv(t *testing.T) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr).SetServerSelectionTimeout(300 * time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	cfg := gateway.Config{DB: buckets.NewDB(client.Database("test")), ReadyTimeout: time.Second}
	srv, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, db: cfg.DB, srv: srv, url: hs.URL}
}

// httpTest is one request and what its reply must be.
type httpTest struct {
	name   string
	method string
	path   string
	header map[string]string
	body   string

	code      int
	resHeader map[string]string // "" means the header must be absent
	resBody   *string           // exact body, when set
	contains  []string          // substrings of the body
	errCode   string            // the JSON error code
}

func str(s string) *string { return &s }

func (e *env) run(tests []httpTest) {
	e.t.Helper()
	for _, tt := range tests {
		e.t.Run(tt.name, func(t *testing.T) {
			t.Helper()
			res, body := e.do(tt.method, tt.path, tt.header, tt.body)
			if res.StatusCode != tt.code {
				t.Fatalf("%s %s: status %d, want %d; body %.300s", tt.method, tt.path, res.StatusCode, tt.code, body)
			}
			for k, want := range tt.resHeader {
				if got := res.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if tt.resBody != nil && string(body) != *tt.resBody {
				t.Errorf("body %q, want %q", body, *tt.resBody)
			}
			for _, s := range tt.contains {
				if !strings.Contains(string(body), s) {
					t.Errorf("body %.300q does not contain %q", body, s)
				}
			}
			if tt.errCode != "" {
				checkError(t, res, body, tt.errCode)
			}
		})
	}
}

func checkError(t *testing.T, res *http.Response, body []byte, code string) {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error reply has Content-Type %q", ct)
	}
	if res.Request.Method == http.MethodHead {
		return
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error reply %q is not JSON: %v", body, err)
	}
	if e.Error.Code != code || e.Error.Message == "" {
		t.Errorf("error %+v, want code %q and a message", e.Error, code)
	}
}

func (e *env) do(method, path string, header map[string]string, body string) (*http.Response, []byte) {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return res, b
}

// put uploads content and returns the file's JSON.
func (e *env) put(path, content string, header map[string]string) fileJSON {
	e.t.Helper()
	res, body := e.do(http.MethodPut, path, header, content)
	if res.StatusCode != http.StatusCreated {
		e.t.Fatalf("PUT %s: %d %s", path, res.StatusCode, body)
	}
	var f fileJSON
	if err := json.Unmarshal(body, &f); err != nil {
		e.t.Fatalf("PUT %s: %v in %s", path, err, body)
	}
	f.ETag = res.Header.Get("ETag")
	f.Location = res.Header.Get("Location")
	return f
}

type fileJSON struct {
	ID          json.RawMessage `json:"id"`
	Filename    string          `json:"filename"`
	Length      int64           `json:"length"`
	ChunkSize   int             `json:"chunkSize"`
	UploadDate  string          `json:"uploadDate"`
	ContentType string          `json:"contentType"`
	SHA256      string          `json:"sha256"`
	Metadata    map[string]any  `json:"metadata"`
	ETag        string          `json:"-"`
	Location    string          `json:"-"`
}

// oid is the hex of an upload's ObjectId.
func (f fileJSON) oid(t *testing.T) string {
	t.Helper()
	var v struct {
		OID string `json:"$oid"`
	}
	if err := json.Unmarshal(f.ID, &v); err != nil || v.OID == "" {
		t.Fatalf("id %s is not an ObjectId", f.ID)
	}
	return v.OID
}

// counts is how many files documents and chunks a bucket holds.
func (e *env) counts(bucket string) (files, chunks int64) {
	e.t.Helper()
	ctx := context.Background()
	d := e.db.Database()
	files, err := d.Collection(bucket+".files").CountDocuments(ctx, bson.D{})
	if err != nil {
		e.t.Fatal(err)
	}
	chunks, err = d.Collection(bucket+".chunks").CountDocuments(ctx, bson.D{})
	if err != nil {
		e.t.Fatal(err)
	}
	return files, chunks
}

func (e *env) mustBeEmpty(bucket string) {
	e.t.Helper()
	if f, c := e.counts(bucket); f != 0 || c != 0 {
		e.t.Fatalf("bucket %s holds %d files and %d chunks, want none", bucket, f, c)
	}
}

// pattern is n bytes that differ at every offset modulo 251, so a wrong
// range is visible.
func pattern(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%251)%26
		if i%7 == 0 {
			b[i] = '0' + byte(i%10)
		}
	}
	return string(b)
}

func mustJSON(t *testing.T, body []byte, v any) {
	t.Helper()
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
}

// TestUIRefusesFraming: the browser UI (on the gateway's origin, working
// without a token when access control is off, the default on loopback) may
// not be framed by another site. Without X-Frame-Options or CSP
// frame-ancestors, a page of any origin could load /ui/#/b/fs/f/<name> in
// an invisible iframe and line "Delete…" and the dialog's "Delete" up under
// the visitor's clicks (clickjacking): a DELETE its own script could never
// send, since a cross-origin DELETE needs a preflight the gateway refuses.
func TestUIRefusesFraming(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for _, path := range []string{"/ui/", "/ui/index.html"} {
		res, body := e.do("GET", path, nil, "")
		if res.StatusCode != 200 || !strings.Contains(string(body), `<script type="module" src="app.js">`) {
			t.Fatalf("GET %s: %d, not the UI page", path, res.StatusCode)
		}
		xfo := strings.ToUpper(res.Header.Get("X-Frame-Options"))
		csp := res.Header.Get("Content-Security-Policy")
		if xfo != "DENY" && xfo != "SAMEORIGIN" && !strings.Contains(csp, "frame-ancestors") {
			t.Errorf("GET %s: the UI may be framed by any site: X-Frame-Options %q, Content-Security-Policy %q", path, res.Header.Get("X-Frame-Options"), csp)
		}
	}
}
