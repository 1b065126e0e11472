package buckets_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// Canned ACLs as the store keeps them: a bucket's in its settings, a
// file's in the top-level "acl" of its files document (metadata untouched,
// private leaves no field), each refused when not a canned ACL, when the
// bucket's BlockPublicAcls or the gateway's rule forbids public ones; and
// what they grant, withdrawn by IgnorePublicAcls.
func TestACLs(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	if _, err := db.Create(ctx, "pics", buckets.Settings{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetBucketACL(ctx, "pics", "world-readable"); !errors.Is(err, buckets.ErrInvalidACL) {
		t.Errorf("no canned ACL: %v", err)
	}
	b, err := db.SetBucketACL(ctx, "pics", buckets.ACLPublicRead)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Settings().ACLName(); got != buckets.ACLPublicRead {
		t.Errorf("bucket ACL %q", got)
	}
	if p, err := db.Publicity(ctx, "pics"); err != nil || !p.AnyoneRead || p.AnyoneWrite {
		t.Errorf("public-read bucket: %+v %v", p, err)
	}
	f, err := b.Upload(ctx, "a.txt", strings.NewReader("hi"), buckets.UploadOptions{Extra: buckets.ACLField(buckets.ACLPublicRead)})
	if err != nil {
		t.Fatal(err)
	}
	if f.ACL() != buckets.ACLPublicRead || f.Metadata != nil {
		t.Errorf("file ACL %q, metadata %v", f.ACL(), f.Metadata)
	}
	if anyone, _, err := db.FilePublicity(ctx, "pics", "a.txt"); err != nil || !anyone {
		t.Errorf("public-read file: %v %v", anyone, err)
	}
	if err := b.SetACL(ctx, f.ID, buckets.ACLPrivate); err != nil {
		t.Fatal(err)
	}
	f, _ = b.Stat(ctx, f.ID)
	if _, err := f.Raw.LookupErr(buckets.FieldACL); err == nil || f.ACL() != buckets.ACLPrivate {
		t.Errorf("private file keeps an acl field: %s", f.Raw)
	}
	if anyone, authd, err := db.FilePublicity(ctx, "pics", "a.txt"); err != nil || anyone || authd {
		t.Errorf("private file: %v %v %v", anyone, authd, err)
	}
	if anyone, _, err := db.FilePublicity(ctx, "pics", "missing"); err != nil || anyone {
		t.Errorf("missing file: %v %v", anyone, err)
	}

	b, err = db.SetPublicAccessBlock(ctx, "pics", &buckets.PublicAccessBlock{BlockPublicACLs: true, IgnorePublicACLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := db.Publicity(ctx, "pics"); p.AnyoneRead {
		t.Errorf("IgnorePublicAcls: %+v", p)
	}
	if err := b.SetACL(ctx, f.ID, buckets.ACLPublicRead); !errors.Is(err, buckets.ErrPublicACLRefused) {
		t.Errorf("BlockPublicAcls, file: %v", err)
	}
	if _, err := db.SetBucketACL(ctx, "pics", buckets.ACLPublicReadWrite); !errors.Is(err, buckets.ErrPublicACLRefused) {
		t.Errorf("BlockPublicAcls, bucket: %v", err)
	}
	if _, err := db.SetBucketACL(ctx, "pics", buckets.ACLPrivate); err != nil {
		t.Errorf("private under BlockPublicAcls: %v", err)
	}

	db.SetPublicACLs(false)
	if _, err := db.Create(ctx, "other", buckets.Settings{ACL: buckets.ACLPublicRead}); !errors.Is(err, buckets.ErrPublicACLRefused) {
		t.Errorf("public ACLs off, Create: %v", err)
	}
	if _, err := db.Create(ctx, "other", buckets.Settings{ACL: buckets.ACLAuthenticatedRead}); !errors.Is(err, buckets.ErrPublicACLRefused) {
		t.Errorf("public ACLs off, authenticated-read: %v", err)
	}
}
