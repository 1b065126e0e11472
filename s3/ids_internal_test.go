package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// TestVersionIDIsAValue: a versionId that would act as a query is
// InvalidArgument and never reaches a file: before, {"$ne":null} named
// an arbitrary revision, which DeleteObject then removed.
func TestVersionIDIsAValue(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "media")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "k", strings.NewReader("x"), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{`{"$ne":null}`, `{"$exists":true}`, `{"$regex":"."}`, `[1]`} {
		f, err := findObject(ctx, b, "k", v)
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrInvalidArgument.Code {
			t.Errorf("versionId %s: %v, %v; want InvalidArgument", v, f, err)
		}
	}
}

// TestUserMetadataRules: x-amz-meta-* go through buckets' metadata rules.
func TestUserMetadataRules(t *testing.T) {
	h := http.Header{}
	h.Set("X-Amz-Meta-Big", strings.Repeat("v", buckets.MaxMetadataBytes))
	if _, err := userMetadata(h); !errors.Is(err, buckets.ErrInvalidMetadata) {
		t.Errorf("metadata over MaxMetadataBytes: %v", err)
	}
	h = http.Header{}
	h.Set("X-Amz-Meta-Owner", "ann")
	if md, err := userMetadata(h); err != nil || len(md) != 1 || md[0].Key != "owner" {
		t.Errorf("x-amz-meta-owner: %v, %v", md, err)
	}
}

// TestRefusedDocumentIsInvalidArgument: the store refusing a document for
// what it holds is the client's error, not InternalError.
func TestRefusedDocumentIsInvalidArgument(t *testing.T) {
	err := fmt.Errorf("insert: %w", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 2, Message: `invalid key: "a.b"`}}})
	if e, internal := toError(err); e.Code != ErrInvalidArgument.Code || internal {
		t.Errorf("toError(%v) = %s (internal %v), want InvalidArgument", err, e.Code, internal)
	}
}

// TestRangedGetReadsItsChunks: a GetObject of a range with an end, as S3
// clients' ranged downloads send, reads exactly the chunks that hold it in
// one query, where before the read-ahead fetched chunks past it; an open
// range still reads ahead.
func TestRangedGetReadsItsChunks(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Create(ctx, "media", buckets.Settings{ChunkSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if _, err := b.Upload(ctx, "k", bytes.NewReader(data), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := auth.New(auth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	s, err := New(Config{DB: db, Auth: a, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	storeBytes := func() float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == "gridfsd_s3_store_read_bytes_total" {
				return f.GetMetric()[0].GetCounter().GetValue()
			}
		}
		t.Fatal("no gridfsd_s3_store_read_bytes_total")
		return 0
	}
	for _, c := range []struct {
		rng        string
		first, end int
		fetched    float64 // at most
	}{
		{"bytes=1000-40000", 1000, 40001, 10 * 4096}, // chunks 0 to 9, past one 32 KiB read
		{"bytes=-5000", len(data) - 5000, len(data), 2 * 4096},
	} {
		before := storeBytes()
		req := httptest.NewRequest(http.MethodGet, "/media/k", nil)
		req.Header.Set("Range", c.rng)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), data[c.first:c.end]) {
			t.Fatalf("%s: status %d, %d bytes", c.rng, rec.Code, rec.Body.Len())
		}
		if got := storeBytes() - before; got > c.fetched {
			t.Errorf("%s: %v bytes from the store, want at most %v", c.rng, got, c.fetched)
		}
	}
}
