package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
)

const (
	readerSecret = "reader-secret-0123456789"
	writerSecret = "writer-secret-0123456789"
	adminSecret  = "admin-secret-01234567890"
	signingKey   = "signing-key-0123456789ab"
)

func mustAuthorizer(t *testing.T) *auth.Authorizer {
	t.Helper()
	a, err := auth.New(auth.Config{
		Tokens: []auth.Token{
			{Name: "reader", Secret: readerSecret, Buckets: []string{"media"}, Access: auth.Read},
			{Name: "uploader", Secret: writerSecret, Buckets: []string{"media", "docs"}, Access: auth.Write},
			{Name: "root", Secret: adminSecret, Buckets: []string{"*"}, Access: auth.Admin},
		},
		AnonymousRead: []string{"public"},
		SigningKey:    signingKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAuthorize(t *testing.T) {
	a := mustAuthorizer(t)
	tests := []struct {
		name   string
		header string
		method string
		bucket string
		need   auth.Access
		want   error
	}{
		{"no token, private bucket", "", "GET", "media", auth.Read, auth.ErrUnauthenticated},
		{"no token, public bucket read", "", "GET", "public", auth.Read, nil},
		{"no token, public bucket write", "", "PUT", "public", auth.Write, auth.ErrUnauthenticated},
		{"wrong token", "Bearer nope-nope-nope-nope", "GET", "media", auth.Read, auth.ErrUnauthenticated},
		{"not bearer", "Basic " + readerSecret, "GET", "media", auth.Read, auth.ErrUnauthenticated},
		{"reader reads", "Bearer " + readerSecret, "GET", "media", auth.Read, nil},
		{"reader writes", "Bearer " + readerSecret, "PUT", "media", auth.Write, auth.ErrForbidden},
		{"reader other bucket", "Bearer " + readerSecret, "GET", "docs", auth.Read, auth.ErrForbidden},
		{"writer writes", "Bearer " + writerSecret, "PUT", "docs", auth.Write, nil},
		{"writer creates bucket", "Bearer " + writerSecret, "PUT", "docs", auth.Admin, auth.ErrForbidden},
		{"admin anywhere", "Bearer " + adminSecret, "DELETE", "anything", auth.Admin, nil},
		{"scheme in lower case", "bearer " + readerSecret, "GET", "media", auth.Read, nil},
		{"scheme in upper case", "BEARER " + readerSecret, "GET", "media", auth.Read, nil},
		{"scheme alone", "Bearer", "GET", "media", auth.Read, auth.ErrUnauthenticated},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "/b/"+tt.bucket+"/f", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		_, err := a.Authorize(r, tt.bucket, tt.need)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestSignedURL(t *testing.T) {
	a := mustAuthorizer(t)
	mint := func(a *auth.Authorizer, method, target string, life time.Duration) string {
		t.Helper()
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		q, err := a.Sign(auth.KeyHolder, method, u.Path, u.Query(), time.Now().Add(life))
		if err != nil {
			t.Fatal(err)
		}
		return u.Path + "?" + q
	}
	get := mint(a, "GET", "/b/media/clip.webm", time.Hour)
	head := mint(a, "HEAD", "/b/media/clip.webm", time.Hour)
	rev := mint(a, "GET", "/b/media/clip.webm?revision=0&download=1", time.Hour)
	drop := mint(a, "DELETE", "/buckets/media", time.Hour)
	expired := mint(a, "GET", "/b/media/clip.webm", -time.Second)
	// Minted with the same key where the maximum is longer: the verifier's
	// own cap refuses it.
	long, err := auth.New(auth.Config{SigningKey: signingKey, MaxSignedLife: 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	year := mint(long, "GET", "/b/media/clip.webm", 8760*time.Hour)
	_, sig, _ := strings.Cut(get, "?")

	tests := []struct {
		name, method, target string
		ok                   bool
	}{
		{"signed GET", "GET", get, true},
		{"GET signature serves HEAD", "HEAD", get, true},
		{"signed HEAD", "HEAD", head, true},
		{"HEAD signature does not serve GET", "GET", head, false},
		{"GET signature does not serve PUT", "PUT", get, false},
		{"another path", "GET", "/b/media/other.webm?" + sig, false},
		{"tampered expiry", "GET", strings.Replace(get, "expires=", "expires=9", 1), false},
		{"expired", "GET", expired, false},
		{"beyond the maximum life", "GET", year, false},
		{"signed query", "GET", rev, true},
		{"query in another order", "GET", "/b/media/clip.webm?download=1&" + strings.Replace(strings.SplitN(rev, "?", 2)[1], "download=1&", "", 1), true},
		{"parameter added", "GET", get + "&revision=0", false},
		{"parameter added to a signed query", "GET", rev + "&prefix=x", false},
		{"parameter removed", "GET", strings.Replace(rev, "download=1&", "", 1), false},
		{"parameter changed", "GET", strings.Replace(rev, "revision=0", "revision=1", 1), false},
		{"parameter repeated", "GET", rev + "&revision=1", false},
		{"signature repeated", "GET", get + "&signature=x", false},
		{"signed drop", "DELETE", drop, true},
		{"signed drop made forced", "DELETE", drop + "&force=true", false},
	}
	for _, tt := range tests {
		_, err := a.Authorize(httptest.NewRequest(tt.method, tt.target, nil), "media", auth.Read)
		if tt.ok && err != nil {
			t.Errorf("%s: %s %s refused: %v", tt.name, tt.method, tt.target, err)
		}
		if !tt.ok && !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("%s: %s %s: err = %v, want ErrUnauthenticated", tt.name, tt.method, tt.target, err)
		}
	}
}

func TestSignRefusesLongLife(t *testing.T) {
	a := mustAuthorizer(t)
	if _, err := a.Sign("reader", "GET", "/b/media/x", nil, time.Now().Add(auth.DefaultMaxSignedLife+time.Minute)); !errors.Is(err, auth.ErrSignedLifeTooLong) {
		t.Errorf("Sign beyond the maximum: %v", err)
	}
	if _, err := a.Sign("reader", "GET", "/b/media/x", nil, time.Now().Add(auth.DefaultMaxSignedLife-time.Minute)); err != nil {
		t.Errorf("Sign within the maximum: %v", err)
	}
	if _, err := a.Sign("reader", "GET", "/b/media/x", url.Values{"signature": {"x"}}, time.Now().Add(time.Minute)); err == nil {
		t.Error("Sign accepted a query with its own signature parameter")
	}
}

func TestNewRejectsWeakConfig(t *testing.T) {
	bad := []auth.Config{
		{Tokens: []auth.Token{{Name: "a", Secret: "short", Buckets: []string{"*"}, Access: auth.Read}}},
		{Tokens: []auth.Token{{Name: "", Secret: readerSecret, Buckets: []string{"*"}, Access: auth.Read}}},
		{Tokens: []auth.Token{{Name: "a", Secret: readerSecret, Access: auth.Read}}},
		{Tokens: []auth.Token{{Name: "a", Secret: readerSecret, Buckets: []string{"*"}}}},
		{Tokens: []auth.Token{
			{Name: "a", Secret: readerSecret, Buckets: []string{"*"}, Access: auth.Read},
			{Name: "b", Secret: readerSecret, Buckets: []string{"*"}, Access: auth.Read},
		}},
		{SigningKey: "short"},
		{SigningKey: signingKey, MaxSignedLife: -time.Hour},
	}
	for i, c := range bad {
		if _, err := auth.New(c); err == nil {
			t.Errorf("config %d accepted", i)
		}
	}
	a, err := auth.New(auth.Config{})
	if err != nil || a.Enabled() {
		t.Fatalf("zero config: %v, enabled %v", err, a.Enabled())
	}
	if _, err := a.Authorize(httptest.NewRequest("DELETE", "/buckets/x", nil), "x", auth.Admin); err != nil {
		t.Errorf("disabled access control refused: %v", err)
	}
}

// TestSignedURLDecidedForItsToken: a signed URL names the token that
// minted it, under the signature, and is decided at every use as a request
// of that token would be: it stops working when the token loses the access
// or is removed, and one that names no token (minted before URLs did) is
// refused, since what it grants can no longer be told.
func TestSignedURLDecidedForItsToken(t *testing.T) {
	a := mustAuthorizer(t)
	mint := func(a *auth.Authorizer, by, method string) string {
		t.Helper()
		q, err := a.Sign(by, method, "/b/media/clip.webm", nil, time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return "/b/media/clip.webm?" + q
	}
	get := func(a *auth.Authorizer, by string) string { return mint(a, by, "GET") }
	byReader := get(a, "reader")
	if !strings.Contains(byReader, auth.ParamBy+"=reader&") {
		t.Fatalf("the URL does not name its token: %s", byReader)
	}
	// The same key, the reader's access narrowed to another bucket, the
	// uploader removed.
	narrowed, err := auth.New(auth.Config{
		Tokens:     []auth.Token{{Name: "reader", Secret: readerSecret, Buckets: []string{"docs"}, Access: auth.Read}},
		SigningKey: signingKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	// As the versions before ParamBy signed: no by parameter.
	exp := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	mac := hmac.New(sha256.New, []byte(signingKey))
	mac.Write([]byte("GET\n/b/media/clip.webm\nexpires=" + exp))
	unnamed := "/b/media/clip.webm?expires=" + exp + "&signature=" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))

	for _, tt := range []struct {
		name           string
		a              *auth.Authorizer
		method, target string
		need           auth.Access
		want           error
	}{
		{"the token's own access", a, "GET", byReader, auth.Read, nil},
		{"more than the token has", a, "PUT", mint(a, "reader", "PUT"), auth.Write, auth.ErrForbidden},
		{"another token named", a, "GET", strings.Replace(byReader, "by=reader", "by=root", 1), auth.Read, auth.ErrUnauthenticated},
		{"the token narrowed since", narrowed, "GET", byReader, auth.Read, auth.ErrForbidden},
		{"the token removed since", narrowed, "GET", get(a, "uploader"), auth.Read, auth.ErrUnauthenticated},
		{"signed with the key itself", narrowed, "GET", get(a, auth.KeyHolder), auth.Read, nil},
		{"minted before URLs named their token", a, "GET", unnamed, auth.Read, auth.ErrUnauthenticated},
	} {
		_, err := tt.a.Authorize(httptest.NewRequest(tt.method, tt.target, nil), "media", tt.need)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := a.Sign("nobody", "GET", "/b/media/x", nil, time.Now().Add(time.Minute)); err == nil {
		t.Error("Sign minted a URL for a token that does not exist")
	}
	if _, err := auth.New(auth.Config{Tokens: []auth.Token{{Name: auth.KeyHolder, Secret: readerSecret, Buckets: []string{"*"}, Access: auth.Read}}}); err == nil {
		t.Errorf("a token may be named %s", auth.KeyHolder)
	}
}
