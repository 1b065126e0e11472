package s3_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/grants"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/s3"
)

// env is the S3 door and the HTTP API over one fresh database, access
// control off (any well-formed request is served, unsigned ones too).
type env struct {
	t       *testing.T
	db      *buckets.DB
	s3      *s3.Server
	url     string // the S3 door
	httpURL string // the HTTP API
}

func newEnv(t *testing.T, cfg s3.Config) *env {
	t.Helper()
	return newEnvAuth(t, cfg, auth.Config{})
}

// Keys of the admin token of newSignedEnv.
const (
	testKey    = "tester"
	testSecret = "tester-secret-0123456789"
)

// newSignedEnv is an env with access control on: one admin token, whose
// name and secret are the key pair testKey / testSecret.
func newSignedEnv(t *testing.T, cfg s3.Config) *env {
	t.Helper()
	return newEnvAuth(t, cfg, auth.Config{Tokens: []auth.Token{{Name: testKey, Secret: testSecret, Buckets: []string{"*"}, Access: auth.Admin}}})
}

func newEnvAuth(t *testing.T, cfg s3.Config, ac auth.Config) *env {
	t.Helper()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	authz, err := auth.New(ac)
	if err != nil {
		t.Fatal(err)
	}
	authz.SetGrants(grants.Of(db)) // as serve wires it
	cfg.DB, cfg.Auth = db, authz
	srv, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	gw, err := gateway.New(gateway.Config{DB: db, Auth: authz})
	if err != nil {
		t.Fatal(err)
	}
	gs := httptest.NewServer(gw.Handler())
	t.Cleanup(gs.Close)
	return &env{t: t, db: db, s3: srv, url: hs.URL, httpURL: gs.URL}
}

// rawClient shows replies as sent: no transparent gunzip.
// Redirects are not followed: tests look at them, and they may name hosts
// that are not this machine's.
var rawClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// reply is an answer read whole.
type reply struct {
	status int
	header http.Header
	body   string
}

// do sends an unsigned request to the S3 door; header alternates names
// and values.
func (e *env) do(method, path, body string, header ...string) reply {
	e.t.Helper()
	return e.send(e.url, method, path, body, header...)
}

func (e *env) send(base, method, path, body string, header ...string) reply {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	res, err := rawClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return reply{res.StatusCode, res.Header, string(b)}
}

// must sends a request that must answer want.
func (e *env) must(want int, method, path, body string, header ...string) reply {
	e.t.Helper()
	r := e.do(method, path, body, header...)
	if r.status != want {
		e.t.Fatalf("%s %s: %d, want %d\n%s", method, path, r.status, want, r.body)
	}
	return r
}
