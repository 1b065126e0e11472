package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"go.mongodb.org/mongo-driver/v2/mongo"
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
