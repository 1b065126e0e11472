package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

const (
	readerSecret = "reader-secret-0123456789"
	writerSecret = "writer-secret-0123456789"
	adminSecret  = "admin-secret-01234567890"
	signingKey   = "signing-key-0123456789abcdef"
)

func testAuthConfig() auth.Config {
	return auth.Config{
		Tokens: []auth.Token{
			{Name: "reader", Secret: readerSecret, Buckets: []string{"media"}, Access: auth.Read},
			{Name: "writer", Secret: writerSecret, Buckets: []string{"media"}, Access: auth.Write},
			{Name: "admin", Secret: adminSecret, Buckets: []string{auth.AllBuckets}, Access: auth.Admin},
		},
		AnonymousRead: []string{"public"},
		SigningKey:    signingKey,
	}
}

func newAuthEnv(t *testing.T, cfg auth.Config) (*env, *auth.Authorizer) {
	t.Helper()
	a, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, gateway.Config{Auth: a}), a
}

func bearer(secret string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + secret}
}

func TestAccessControl(t *testing.T) {
	e, _ := newAuthEnv(t, testAuthConfig())
	f := e.put("/b/media/clip", "movie", bearer(writerSecret))
	e.put("/b/public/readme", "hello", bearer(adminSecret))
	e.put("/b/secret/plan", "plan", bearer(adminSecret))
	unauth := map[string]string{"WWW-Authenticate": `Bearer realm="gridfsd"`}
	id := "/id/media/" + f.oid(t)

	e.run([]httpTest{
		// Open routes.
		{name: "healthz open", method: "GET", path: "/healthz", code: 200},
		{name: "readyz open", method: "GET", path: "/readyz", code: 200},
		{name: "metrics open", method: "GET", path: "/metrics", code: 200},
		{name: "ui open", method: "GET", path: "/ui/", code: 200},
		{name: "auth open", method: "GET", path: "/auth", code: 200, contains: []string{`"enabled":true`}},
		{name: "auth with a wrong token", method: "GET", path: "/auth", header: bearer("nope-nope-nope-nope-nope"), code: 200, contains: []string{`"authenticated":false`}},

		// Missing or wrong credentials: 401 with a challenge.
		{name: "no token", method: "GET", path: "/b/media/clip", code: 401, resHeader: unauth, errCode: "unauthenticated"},
		{name: "unknown token", method: "GET", path: "/b/media/clip", header: bearer("nope-nope-nope-nope-nope"), code: 401, resHeader: unauth, errCode: "unauthenticated"},
		{name: "basic auth", method: "GET", path: "/b/media/clip", header: map[string]string{"Authorization": "Basic eDp5"}, code: 401, errCode: "unauthenticated"},
		{name: "no token listing", method: "GET", path: "/b/media", code: 401, errCode: "unauthenticated"},
		{name: "no token by id", method: "GET", path: id, code: 401, errCode: "unauthenticated"},
		{name: "no token upload", method: "PUT", path: "/b/media/new", body: "x", code: 401, errCode: "unauthenticated"},

		// Read.
		{name: "reader downloads", method: "GET", path: "/b/media/clip", header: bearer(readerSecret), code: 200, resBody: str("movie")},
		{name: "reader HEAD", method: "HEAD", path: "/b/media/clip", header: bearer(readerSecret), code: 200},
		{name: "reader by id", method: "GET", path: id, header: bearer(readerSecret), code: 200, resBody: str("movie")},
		{name: "reader lists", method: "GET", path: "/b/media/", header: bearer(readerSecret), code: 200, contains: []string{`"clip"`}},
		{name: "reader other bucket", method: "GET", path: "/b/secret/plan", header: bearer(readerSecret), code: 403, errCode: "forbidden"},
		{name: "anonymous public", method: "GET", path: "/b/public/readme", code: 200, resBody: str("hello")},
		{name: "anonymous public listing", method: "GET", path: "/b/public", code: 200, contains: []string{`"readme"`}},
		{name: "token does not widen to anonymous buckets", method: "GET", path: "/b/public/readme", header: bearer(readerSecret), code: 403, errCode: "forbidden"},

		// Write.
		{name: "reader cannot upload", method: "PUT", path: "/b/media/new", body: "x", header: bearer(readerSecret), code: 403, errCode: "forbidden"},
		{name: "reader cannot delete", method: "DELETE", path: "/b/media/clip", header: bearer(readerSecret), code: 403, errCode: "forbidden"},
		{name: "reader cannot delete by id", method: "DELETE", path: id, header: bearer(readerSecret), code: 403, errCode: "forbidden"},
		{name: "reader cannot patch", method: "PATCH", path: id, body: `{"filename":"y"}`, header: bearer(readerSecret), code: 403, errCode: "forbidden"},
		{name: "anonymous cannot upload to public", method: "PUT", path: "/b/public/x", body: "x", code: 401, errCode: "unauthenticated"},
		{name: "writer other bucket", method: "PUT", path: "/b/secret/x", body: "x", header: bearer(writerSecret), code: 403, errCode: "forbidden"},
		{name: "writer patches", method: "PATCH", path: id, body: `{"metadata":{"a":1}}`, header: bearer(writerSecret), code: 200},

		// Admin.
		{name: "writer cannot create bucket", method: "PUT", path: "/buckets/media", header: bearer(writerSecret), code: 403, errCode: "forbidden"},
		{name: "writer cannot drop bucket", method: "DELETE", path: "/buckets/media", header: bearer(writerSecret), code: 403, errCode: "forbidden"},
		{name: "anonymous cannot drop bucket", method: "DELETE", path: "/buckets/public?force=true", code: 401, errCode: "unauthenticated"},
		{name: "admin creates bucket", method: "PUT", path: "/buckets/made", header: bearer(adminSecret), code: 200},

		// An empty bucket name is not a request about no bucket.
		{name: "empty bucket download", method: "GET", path: "/b//clip", header: bearer(readerSecret), code: 400, errCode: "bad_request"},
		{name: "empty bucket upload", method: "PUT", path: "/b//x", body: "x", header: bearer(readerSecret), code: 400, errCode: "bad_request"},
		{name: "empty bucket by id", method: "DELETE", path: "/id//" + f.oid(t), header: bearer(readerSecret), code: 400, errCode: "bad_request"},

		// The scheme is case-insensitive (RFC 9110 11.1).
		{name: "bearer in lower case", method: "GET", path: "/b/media/clip", header: map[string]string{"Authorization": "bearer " + readerSecret}, code: 200, resBody: str("movie")},
		{name: "BEARER in upper case", method: "GET", path: "/b/media/clip", header: map[string]string{"Authorization": "BEARER " + readerSecret}, code: 200, resBody: str("movie")},
	})
	if files, _ := e.counts("public"); files != 1 {
		t.Errorf("public holds %d files after refused writes, want 1", files)
	}
	if files, _ := e.counts("secret"); files != 1 {
		t.Errorf("secret holds %d files after refused writes, want 1", files)
	}
	for _, name := range []string{"media", "public", "secret"} {
		if _, err := e.db.Bucket(context.Background(), name); err != nil {
			t.Errorf("bucket %s: %v", name, err)
		}
	}

	// The bucket list shows only what the caller may read.
	for _, tc := range []struct {
		who    map[string]string
		want   string
		status int
	}{
		{nil, "public", 200},
		{bearer(readerSecret), "media", 200},
		{bearer(writerSecret), "media", 200},
		{bearer(adminSecret), "made,media,public,secret", 200},
		{bearer("wrong-wrong-wrong-wrong"), "", 401},
	} {
		res, body := e.do("GET", "/buckets", tc.who, "")
		if res.StatusCode != tc.status {
			t.Fatalf("GET /buckets as %v: %d %s", tc.who, res.StatusCode, body)
		}
		if tc.status != 200 {
			continue
		}
		var l struct{ Buckets []struct{ Name string } }
		mustJSON(t, body, &l)
		var got []string
		for _, b := range l.Buckets {
			got = append(got, b.Name)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("GET /buckets as %v lists %v, want %s", tc.who, got, tc.want)
		}
	}
}

// signURL asks POST /sign for a signed URL as the holder of secret.
func (e *env) signURL(secret, method, path, expires string) (*http.Response, []byte) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]string{"method": method, "path": path, "expires": expires})
	h := map[string]string{"Content-Type": "application/json"}
	if secret != "" {
		h["Authorization"] = "Bearer " + secret
	}
	return e.do("POST", "/sign", h, string(body))
}

func TestSignedURLs(t *testing.T) {
	e, a := newAuthEnv(t, testAuthConfig())
	e.put("/b/media/dir/clip one.mp4", pattern(100), bearer(writerSecret))

	res, body := e.signURL(readerSecret, "GET", "/b/media/dir/clip%20one.mp4", "5m")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign: %d %s", res.StatusCode, body)
	}
	var signed struct {
		URL, Method, Path string
		Expires           time.Time
	}
	mustJSON(t, body, &signed)
	if signed.Method != "GET" || signed.Path != "/b/media/dir/clip one.mp4" ||
		!strings.HasPrefix(signed.URL, "/b/media/dir/clip%20one.mp4?by=reader&expires=") ||
		time.Until(signed.Expires) > 5*time.Minute || time.Until(signed.Expires) < 4*time.Minute {
		t.Errorf("signed %+v", signed)
	}
	tampered := strings.Replace(signed.URL, "signature=", "signature=x", 1)
	e.run([]httpTest{
		{name: "signed GET without token", method: "GET", path: signed.URL, code: 200, resBody: str(pattern(100))},
		{name: "signed GET, range", method: "GET", path: signed.URL, header: map[string]string{"Range": "bytes=10-19"}, code: 206, resBody: str(pattern(100)[10:20])},
		{name: "signed GET allows HEAD", method: "HEAD", path: signed.URL, code: 200},
		{name: "signed GET does not allow DELETE", method: "DELETE", path: signed.URL, code: 401, errCode: "unauthenticated"},
		{name: "signed GET does not allow PUT", method: "PUT", path: signed.URL, body: "x", code: 401, errCode: "unauthenticated"},
		{name: "tampered signature", method: "GET", path: tampered, code: 401, errCode: "unauthenticated"},
		{name: "other path", method: "GET", path: "/b/media/other?" + strings.SplitN(signed.URL, "?", 2)[1], code: 401, errCode: "unauthenticated"},

		{name: "sign without token", method: "POST", path: "/sign", body: `{"method":"GET","path":"/b/media/x"}`, code: 401, errCode: "unauthenticated"},
		{name: "sign beyond the token", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"PUT","path":"/b/media/x"}`, code: 403, errCode: "forbidden"},
		{name: "sign another bucket", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/secret/x"}`, code: 403, errCode: "forbidden"},
		{name: "sign with wrong token", method: "POST", path: "/sign", header: bearer("wrong-wrong-wrong-wrong"), body: `{"method":"GET","path":"/b/media/x"}`, code: 401, errCode: "unauthenticated"},
		{name: "sign too long", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/media/x","expires":"25h"}`, code: 400, errCode: "bad_request"},
		{name: "sign negative", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/media/x","expires":"-1m"}`, code: 400, errCode: "bad_request"},
		{name: "sign bad method", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"TRACE","path":"/b/media/x"}`, code: 400, errCode: "bad_request"},
		{name: "sign absolute URL", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"http://evil/b/media/x"}`, code: 400, errCode: "bad_request"},
		{name: "sign service route", method: "POST", path: "/sign", header: bearer(adminSecret), body: `{"method":"GET","path":"/metrics"}`, code: 400, errCode: "bad_request"},
		{name: "sign not JSON", method: "POST", path: "/sign", header: bearer(readerSecret), body: `GET /b/media/x`, code: 400, errCode: "bad_request"},
		{name: "sign unknown field", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/media/x","bucket":"secret"}`, code: 400, errCode: "bad_request"},
	})

	// A signed listing: the signature's parameters are not list filters.
	res, body = e.signURL(readerSecret, "GET", "/b/media/", "1m")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign listing: %d %s", res.StatusCode, body)
	}
	mustJSON(t, body, &signed)
	e.run([]httpTest{
		{name: "signed listing", method: "GET", path: signed.URL, code: 200, contains: []string{`"dir/clip one.mp4"`}},
		{name: "signed listing with a filter added", method: "GET", path: signed.URL + "&prefix=dir/", code: 401, errCode: "unauthenticated"},
	})

	// The query is signed: a download link, a revision, a forced drop.
	res, body = e.signURL(readerSecret, "GET", "/b/media/dir/clip%20one.mp4?download=1", "1m")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign with query: %d %s", res.StatusCode, body)
	}
	if !strings.Contains(string(body), "download=1&expires=") || strings.Contains(string(body), `\u0026`) {
		t.Errorf("the signed URL is not written with a plain &: %s", body)
	}
	mustJSON(t, body, &signed)
	download := signed.URL
	res, body = e.signURL(readerSecret, "HEAD", "/b/media/dir/clip%20one.mp4", "1m")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign HEAD: %d %s", res.StatusCode, body)
	}
	mustJSON(t, body, &signed)
	head := signed.URL
	res, body = e.signURL(adminSecret, "DELETE", "/buckets/media", "1m")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign DELETE: %d %s", res.StatusCode, body)
	}
	mustJSON(t, body, &signed)
	drop := signed.URL
	e.run([]httpTest{
		{name: "signed query", method: "GET", path: download, code: 200, resHeader: map[string]string{"Content-Disposition": `attachment; filename="clip one.mp4"; filename*=UTF-8''clip%20one.mp4`}},
		{name: "signed query with a parameter removed", method: "GET", path: strings.Replace(download, "download=1&", "", 1), code: 401, errCode: "unauthenticated"},
		{name: "signed query with a revision added", method: "GET", path: download + "&revision=0", code: 401, errCode: "unauthenticated"},
		{name: "signed HEAD", method: "HEAD", path: head, code: 200},
		{name: "signed HEAD is not a GET", method: "GET", path: head, code: 401, errCode: "unauthenticated"},
		{name: "signed drop made forced", method: "DELETE", path: drop + "&force=true", code: 401, errCode: "unauthenticated"},
		{name: "sign query with a signature", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/media/x?signature=y"}`, code: 400, errCode: "bad_request"},
		{name: "sign empty bucket", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b//x"}`, code: 400, errCode: "bad_request"},
	})
	if n, _ := e.counts("media"); n != 1 {
		t.Errorf("media holds %d files after the refused forced drop, want 1", n)
	}

	// An expired signature, made with the same key.
	q, err := a.Sign("reader", "GET", "/b/media/dir/clip one.mp4", nil, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.do("GET", "/b/media/dir/clip%20one.mp4?"+q, nil, "")
	if res.StatusCode != 401 || !strings.Contains(string(body), "expired") {
		t.Errorf("expired URL: %d %s", res.StatusCode, body)
	}

	// A writer signs an upload; the browser PUTs without a token.
	res, body = e.signURL(writerSecret, "PUT", "/b/media/from-browser", "")
	if res.StatusCode != 200 {
		t.Fatalf("POST /sign PUT: %d %s", res.StatusCode, body)
	}
	mustJSON(t, body, &signed)
	if d := time.Until(signed.Expires); d > gateway.DefaultSignExpiry || d < gateway.DefaultSignExpiry-time.Minute {
		t.Errorf("default expiry: %s from now", d)
	}
	e.run([]httpTest{
		{name: "signed PUT", method: "PUT", path: signed.URL, body: "browser", code: 201},
		{name: "signed PUT is not a GET", method: "GET", path: signed.URL, code: 401, errCode: "unauthenticated"},
		{name: "uploaded", method: "GET", path: "/b/media/from-browser", header: bearer(readerSecret), code: 200, resBody: str("browser")},
	})
}

// TestSignedURLOfOwnedTokenDoesNotReachAnotherTenantsBucket: a token
// limited to its own buckets ("$owned") may sign PUT/DELETE /buckets/{b}
// for a bucket that does not exist yet (it could create it). Such a URL
// was checked at use by its signature only, so once another tenant had
// created that bucket, the URL changed that tenant's settings (made it
// public-read-write) and dropped it with all its files. A signed URL is
// now decided at use for the token that minted it: it never grants more
// than that token has then.
func TestSignedURLOfOwnedTokenDoesNotReachAnotherTenantsBucket(t *testing.T) {
	const (
		teamA = "team-a-secret-0123456789"
		teamB = "team-b-secret-0123456789"
	)
	e, _ := newAuthEnv(t, auth.Config{
		Tokens: []auth.Token{
			{Name: "team-a", Secret: teamA, Buckets: []string{auth.OwnedBuckets}, Access: auth.Admin},
			{Name: "team-b", Secret: teamB, Buckets: []string{auth.OwnedBuckets}, Access: auth.Admin},
		},
		SigningKey: signingKey,
	})
	// team-a signs, ahead of time, the administration of a name nobody has.
	signed := func(method, path string) string {
		res, body := e.signURL(teamA, method, path, "24h")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("team-a signs %s %s: %d %s", method, path, res.StatusCode, body)
		}
		var s struct{ URL string }
		mustJSON(t, body, &s)
		return s.URL
	}
	putURL := signed("PUT", "/buckets/victim")
	dropURL := signed("DELETE", "/buckets/victim?force=true")

	// team-b creates the bucket and stores a file in it.
	if res, body := e.do("PUT", "/buckets/victim", bearer(teamB), ""); res.StatusCode != 200 {
		t.Fatalf("team-b creates victim: %d %s", res.StatusCode, body)
	}
	e.put("/b/victim/payroll.csv", "secret", bearer(teamB))
	// team-a's token itself reaches nothing there.
	if res, _ := e.do("PUT", "/buckets/victim", bearer(teamA), `{"acl":"public-read-write"}`); res.StatusCode != http.StatusForbidden {
		t.Fatalf("team-a's own token on victim: %d, want 403", res.StatusCode)
	}

	res, body := e.do("PUT", putURL, map[string]string{"Content-Type": "application/json"}, `{"acl":"public-read-write"}`)
	if res.StatusCode == http.StatusOK {
		t.Errorf("team-a's pre-signed PUT changed team-b's bucket settings: %d %s", res.StatusCode, body)
	}
	res, body = e.do("DELETE", dropURL, nil, "")
	if res.StatusCode == http.StatusNoContent {
		t.Errorf("team-a's pre-signed DELETE dropped team-b's bucket and its files: %d %s", res.StatusCode, body)
	}
	if files, _ := e.counts("victim"); files != 1 {
		t.Errorf("team-b's bucket holds %d files after team-a's signed URLs, want its 1", files)
	}

	// What team-a may still do, its URL does: create a bucket of its own,
	// which it then owns as if it had created it itself.
	res, body = e.do("PUT", signed("PUT", "/buckets/team-a-media"), nil, "")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("team-a's signed PUT of a new bucket: %d %s", res.StatusCode, body)
	}
	if res, body := e.do("PUT", "/b/team-a-media/x", bearer(teamA), "x"); res.StatusCode != http.StatusCreated {
		t.Errorf("team-a writes into the bucket its signed URL created: %d %s", res.StatusCode, body)
	}
}

func TestSignDisabled(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	e.run([]httpTest{
		{name: "no access control", method: "POST", path: "/sign", body: `{"method":"GET","path":"/b/fs/x"}`, code: 404, errCode: "signing_disabled"},
	})
	cfg := testAuthConfig()
	cfg.SigningKey = ""
	ea, _ := newAuthEnv(t, cfg)
	ea.run([]httpTest{
		{name: "no signing key", method: "POST", path: "/sign", header: bearer(readerSecret), body: `{"method":"GET","path":"/b/media/x"}`, code: 404, errCode: "signing_disabled"},
	})
}

// TestAuthStatus: GET /auth tells a client whether access control is on
// and who its token makes it, without needing a token and without a 401
// for a wrong one.
func TestAuthStatus(t *testing.T) {
	type info struct {
		Enabled       bool   `json:"enabled"`
		Signing       bool   `json:"signing"`
		Principal     string `json:"principal"`
		Authenticated bool   `json:"authenticated"`
	}
	off := newEnv(t, gateway.Config{})
	on, a := newAuthEnv(t, testAuthConfig())
	// Even a valid signature for GET /auth names no one.
	signedQuery, err := a.Sign(auth.KeyHolder, "GET", "/auth", nil, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testAuthConfig()
	cfg.SigningKey = ""
	noSigning, _ := newAuthEnv(t, cfg)
	for _, tc := range []struct {
		name   string
		env    *env
		query  string
		header map[string]string
		want   info
	}{
		{"disabled", off, "", nil, info{Principal: "anonymous"}},
		{"disabled, token sent", off, "", bearer(writerSecret), info{Principal: "anonymous"}},
		{"enabled, no token", on, "", nil, info{Enabled: true, Signing: true, Principal: "anonymous"}},
		{"enabled, valid token", on, "", bearer(writerSecret), info{Enabled: true, Signing: true, Principal: "writer", Authenticated: true}},
		{"enabled, admin token", on, "", bearer(adminSecret), info{Enabled: true, Signing: true, Principal: "admin", Authenticated: true}},
		{"enabled, wrong token", on, "", bearer("wrong-wrong-wrong-wrong"), info{Enabled: true, Signing: true, Principal: "anonymous"}},
		{"enabled, basic auth", on, "", map[string]string{"Authorization": "Basic eDp5"}, info{Enabled: true, Signing: true, Principal: "anonymous"}},
		{"enabled, signed query is no identity", on, signedQuery, nil, info{Enabled: true, Signing: true, Principal: "anonymous"}},
		{"no signing key", noSigning, "", bearer(readerSecret), info{Enabled: true, Principal: "reader", Authenticated: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.env
			res, body := e.do("GET", "/auth?"+tc.query, tc.header, "")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET /auth: %d %s", res.StatusCode, body)
			}
			var got info
			mustJSON(t, body, &got)
			if got != tc.want {
				t.Errorf("GET /auth = %+v, want %+v", got, tc.want)
			}
			if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			for _, secret := range []string{readerSecret, writerSecret, adminSecret, signingKey} {
				if strings.Contains(string(body), secret) {
					t.Errorf("GET /auth reveals a secret: %s", body)
				}
			}
		})
	}
}

// TestOpenListenerWarning: listening beyond loopback without access
// control logs a warning; on loopback, or with tokens, it does not.
func TestOpenListenerWarning(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	a, err := auth.New(testAuthConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		listen string
		auth   *auth.Authorizer
		warn   bool
	}{
		{"0.0.0.0:0", nil, true},
		{"127.0.0.1:0", nil, false},
		{"0.0.0.0:0", a, false},
	} {
		var logs bytes.Buffer
		srv, err := gateway.New(gateway.Config{DB: db, Auth: tc.auth, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", tc.listen)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := srv.Serve(ctx, ln); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(logs.String(), "ACCESS CONTROL IS OFF"); got != tc.warn {
			t.Errorf("listen %s, auth %v: warned %v, want %v; log:\n%s", tc.listen, tc.auth != nil, got, tc.warn, logs.String())
		}
	}
}

// TestAccessLog: the request line names the token that made the request,
// never its secret.
func TestAccessLog(t *testing.T) {
	a, err := auth.New(testAuthConfig())
	if err != nil {
		t.Fatal(err)
	}
	var logs proctest.Log
	e := newEnv(t, gateway.Config{Auth: a, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.put("/b/media/x", "x", bearer(writerSecret))
	e.do("GET", "/b/media/x", bearer(readerSecret), "")
	e.do("GET", "/b/media/x", bearer("wrong-wrong-wrong-wrong"), "")
	out := logs.String()
	for _, want := range []string{"principal=writer", "principal=reader", "status=401"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	for _, secret := range []string{writerSecret, readerSecret, "wrong-wrong-wrong-wrong"} {
		if strings.Contains(out, secret) {
			t.Errorf("log holds a secret:\n%s", out)
		}
	}
}

// TestBucketListScansOnlyVisibleBuckets: GET /buckets computes statistics
// (an aggregate over each files collection) only for the buckets the
// caller may read.
func TestBucketListScansOnlyVisibleBuckets(t *testing.T) {
	var mu sync.Mutex
	scanned := map[string]int{}
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "aggregate" || e.CommandName == "count" {
			coll, _ := e.Command.Lookup(e.CommandName).StringValueOK()
			mu.Lock()
			scanned[coll]++
			mu.Unlock()
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	db := storetest.MustOpenDB(t)
	a, err := auth.New(testAuthConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := gateway.New(gateway.Config{DB: buckets.NewDB(client.Database(db.Name())), Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{t: t, db: buckets.NewDB(db), srv: srv, url: hs.URL}
	for _, b := range []string{"media", "public", "secret", "other"} {
		e.put("/b/"+b+"/f", "x", bearer(adminSecret))
	}
	mu.Lock()
	clear(scanned)
	mu.Unlock()
	res, body := e.do("GET", "/buckets", bearer(readerSecret), "")
	if res.StatusCode != 200 || !strings.Contains(string(body), `"media"`) {
		t.Fatalf("GET /buckets: %d %s", res.StatusCode, body)
	}
	mu.Lock()
	defer mu.Unlock()
	for coll := range scanned {
		if coll != "media.files" {
			t.Errorf("GET /buckets as a reader of media scanned %s (%v)", coll, scanned)
		}
	}
	if scanned["media.files"] == 0 {
		t.Errorf("no statistics computed for media: %v", scanned)
	}
}

// TestJSONNotHTMLEscaped: replies are JSON for programs and people, not HTML;
// a signed URL copied from the raw reply must work, and messages read as
// written ("<token>", not "\u003ctoken\u003e").
func TestJSONNotHTMLEscaped(t *testing.T) {
	e, _ := newAuthEnv(t, testAuthConfig())
	res, body := e.signURL(readerSecret, "GET", "/b/media/x", "5m")
	if res.StatusCode != 200 || !strings.Contains(string(body), "&signature=") || strings.Contains(string(body), `\u0026`) {
		t.Errorf("POST /sign: %d %s, want a raw & in the URL", res.StatusCode, body)
	}
	res, body = e.signURL("", "GET", "/b/media/x", "5m")
	if res.StatusCode != 401 || !strings.Contains(string(body), "Bearer <token>") {
		t.Errorf("POST /sign without token: %d %s, want the message to show <token>", res.StatusCode, body)
	}
}
