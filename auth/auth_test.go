package auth_test

import (
	"errors"
	"net/http/httptest"
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
	q, err := a.Sign("GET", "/b/media/clip.webm", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	try := func(method, target string) error {
		_, err := a.Authorize(httptest.NewRequest(method, target, nil), "media", auth.Read)
		return err
	}
	if err := try("GET", "/b/media/clip.webm?"+q); err != nil {
		t.Errorf("signed GET: %v", err)
	}
	if err := try("HEAD", "/b/media/clip.webm?"+q); err != nil {
		t.Errorf("signed GET used for HEAD: %v", err)
	}
	if err := try("PUT", "/b/media/clip.webm?"+q); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("signed GET used for PUT: %v", err)
	}
	if err := try("GET", "/b/media/other.webm?"+q); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("signature for another path: %v", err)
	}
	tampered := strings.Replace(q, "expires=", "expires=9", 1)
	if err := try("GET", "/b/media/clip.webm?"+tampered); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("tampered expiry: %v", err)
	}
	old, _ := a.Sign("GET", "/b/media/clip.webm", time.Now().Add(-time.Second))
	if err := try("GET", "/b/media/clip.webm?"+old); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("expired URL: %v", err)
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
