package resumable_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/resumable"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// testDoor serves a Door over a fresh database of the test store.
func testDoor(t *testing.T) (*httptest.Server, *buckets.DB) {
	t.Helper()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	return serveDoor(t, resumable.Config{DB: db}), db
}

// serveDoor serves a Door of cfg until the test ends.
func serveDoor(t *testing.T, cfg resumable.Config) *httptest.Server {
	t.Helper()
	d, err := resumable.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	t.Cleanup(d.Close)
	return srv
}

// tusRequest sends a tus 1.0.0 request: Tus-Resumable set, a PATCH's
// Content-Type too, then hdr's pairs (which may replace them).
func tusRequest(t *testing.T, method, url string, body []byte, hdr ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	std := []string{"Tus-Resumable", "1.0.0"}
	if method == http.MethodPatch {
		std = append(std, "Content-Type", offsetStream)
	}
	return rawRequest(t, method, url, r, int64(len(body)), append(std, hdr...)...)
}

func tusMetadata(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

// TestConcatNamingAPartTwice: through the door, a final upload naming one
// partial upload (of whole chunks) twice failed with a 500, and took the
// partial's chunks with it while its HEAD still said it was complete. Now
// the part is copied twice.
func TestConcatNamingAPartTwice(t *testing.T) {
	srv, db := testDoor(t)
	ctx := context.Background()
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, b.ChunkSize())
	rand.Read(data)
	res := tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Length", strconv.Itoa(len(data)), "Upload-Concat", "partial")
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create the partial: %d", res.StatusCode)
	}
	part := res.Header.Get("Location")
	if res = tusRequest(t, http.MethodPatch, srv.URL+part, data, "Upload-Offset", "0"); res.StatusCode != http.StatusNoContent {
		t.Fatalf("patch the partial: %d", res.StatusCode)
	}
	res = tusRequest(t, http.MethodPost, srv.URL+"/uploads/fs/", nil, "Upload-Concat", "final;"+part+" "+part,
		"Upload-Metadata", tusMetadata("filename", "twice"))
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("final upload of the partial twice: %d", res.StatusCode)
	}
	d, err := b.OpenName(ctx, "twice", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(append([]byte{}, data...), data...)) {
		t.Fatalf("the joined file holds %d bytes that are not the partial twice", len(got))
	}
}

// TestSignedLocationDecidedForItsToken: the Location of an upload created
// with a signed URL is signed for the token that minted that URL, and
// every request with either URL is decided for that token as it is then:
// a gateway where the token no longer reaches the bucket refuses both.
func TestSignedLocationDecidedForItsToken(t *testing.T) {
	const (
		writerSecret = "writer-secret-0123456789"
		signingKey   = "signing-key-0123456789ab"
	)
	authorizer := func(writerBuckets ...string) *auth.Authorizer {
		a, err := auth.New(auth.Config{
			Tokens:     []auth.Token{{Name: "writer", Secret: writerSecret, Buckets: writerBuckets, Access: auth.Write}},
			SigningKey: signingKey,
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := authorizer("fs")
	db := buckets.NewDB(storetest.MustOpenDB(t))
	srv := serveDoor(t, resumable.Config{DB: db, Auth: a})
	narrowed := serveDoor(t, resumable.Config{DB: db, Auth: authorizer("other")})

	q, err := a.Sign("writer", http.MethodPost, "/uploads/fs/", nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	create := "/uploads/fs/?" + q
	res := tusRequest(t, http.MethodPost, srv.URL+create, nil, "Upload-Length", "5", "Upload-Metadata", tusMetadata("filename", "x"))
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create with the signed URL: %d", res.StatusCode)
	}
	location := res.Header.Get("Location")
	if !strings.Contains(location, auth.ParamBy+"=writer&") {
		t.Fatalf("the upload's Location is not signed for the writer: %s", location)
	}
	if res := tusRequest(t, http.MethodHead, srv.URL+location, nil); res.StatusCode != http.StatusOK {
		t.Errorf("HEAD with the signed Location: %d", res.StatusCode)
	}
	if res := tusRequest(t, http.MethodHead, narrowed.URL+location, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("HEAD with the signed Location where the writer no longer reaches fs: %d, want 403", res.StatusCode)
	}
	if res := tusRequest(t, http.MethodPatch, narrowed.URL+location, []byte("hello"), "Upload-Offset", "0"); res.StatusCode != http.StatusForbidden {
		t.Errorf("PATCH with the signed Location where the writer no longer reaches fs: %d, want 403", res.StatusCode)
	}
	res = tusRequest(t, http.MethodPost, narrowed.URL+create, nil, "Upload-Length", "5", "Upload-Metadata", tusMetadata("filename", "y"))
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("create with the signed URL where the writer no longer reaches fs: %d, want 403", res.StatusCode)
	}
}
