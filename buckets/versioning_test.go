package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// versionedBucket is bucket name of a fresh database with versioning set
// to status.
func versionedBucket(t *testing.T, name, status string) (*buckets.DB, *buckets.Bucket) {
	t.Helper()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.SetVersioning(context.Background(), name, status)
	if err != nil {
		t.Fatal(err)
	}
	return db, b
}

func putRev(t *testing.T, b *buckets.Bucket, name, content string) *buckets.File {
	t.Helper()
	f, err := b.Upload(context.Background(), name, strings.NewReader(content), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// listed is what a listing of b shows: "name=length" of each file, in order.
func listed(t *testing.T, b *buckets.Bucket, q buckets.Query) []string {
	t.Helper()
	var out []string
	err := b.Each(context.Background(), q, func(f *buckets.File) error {
		s := f.Filename
		if f.DeleteMarker {
			s += "(marker)"
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSetVersioning(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	if _, err := db.SetVersioning(ctx, "vb", "On"); !errors.Is(err, buckets.ErrInvalidVersioning) {
		t.Fatalf("status On: %v, want ErrInvalidVersioning", err)
	}
	b, err := db.Bucket(ctx, "vb")
	if err != nil || b.Settings().Versioning != "" || b.Settings().Versioned() {
		t.Fatalf("a bucket never set: %+v, %v", b.Settings(), err)
	}
	for _, s := range []string{buckets.VersioningEnabled, buckets.VersioningSuspended} {
		if _, err := db.SetVersioning(ctx, "vb", s); err != nil {
			t.Fatal(err)
		}
		// Read back through another DB (another gateway): it is stored.
		other, err := buckets.NewDB(db.Database()).Bucket(ctx, "vb")
		if err != nil || other.Settings().Versioning != s {
			t.Fatalf("set %s, another gateway reads %q (%v)", s, other.Settings().Versioning, err)
		}
	}
}

// In an unversioned bucket deleting a name removes its revisions, as
// always: no marker.
func TestDeleteNameUnversionedRemoves(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "plain")
	putRev(t, b, "k", "one")
	if _, err := b.MarkDeleted(ctx, "k", buckets.Conditions{}); !errors.Is(err, buckets.ErrNotVersioned) {
		t.Fatalf("MarkDeleted in an unversioned bucket: %v", err)
	}
	if n, err := b.DeleteName(ctx, "k"); err != nil || n != 1 {
		t.Fatalf("DeleteName: %d, %v", n, err)
	}
	if n, _ := b.FilesCollection().CountDocuments(ctx, map[string]any{}); n != 0 {
		t.Fatalf("%d files documents left", n)
	}
}

// A delete in an Enabled bucket writes a marker: the name is absent by
// name, by the marker's id and from listings, its revisions stay and are
// read by id; removing the marker brings the newest revision back.
func TestDeleteMarker(t *testing.T) {
	ctx := context.Background()
	_, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	v1 := putRev(t, b, "k", "one")
	v2 := putRev(t, b, "k", "two")
	putRev(t, b, "other", "x")
	if !v1.Versioned || !v2.Versioned {
		t.Fatal("revisions committed while Enabled are not marked versioned")
	}
	m, err := b.MarkDeleted(ctx, "k", buckets.Conditions{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.DeleteMarker || m.Length != 0 || !m.UploadDate.After(v2.UploadDate) {
		t.Fatalf("marker %+v", m)
	}
	if n, _ := b.ChunksCollection().CountDocuments(ctx, map[string]any{"files_id": m.ID}); n != 0 {
		t.Fatalf("the marker has %d chunks", n)
	}
	var dm *buckets.DeleteMarkerError
	for _, rev := range []int{-1, -2, 0} {
		_, err := b.FindByName(ctx, "k", rev)
		if !errors.Is(err, buckets.ErrFileNotFound) || !errors.As(err, &dm) || dm.Marker.ID != m.ID {
			t.Fatalf("FindByName revision %d of a deleted name: %v", rev, err)
		}
	}
	if _, err := b.Stat(ctx, m.ID); !errors.Is(err, buckets.ErrFileNotFound) || !errors.Is(err, buckets.ErrDeleteMarker) {
		t.Fatalf("Stat of the marker: %v", err)
	}
	if _, err := b.OpenName(ctx, "k", -1); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("OpenName: %v", err)
	}
	if f, err := b.Stat(ctx, v1.ID); err != nil || f.Length != 3 {
		t.Fatalf("an older revision by id: %v", err)
	}
	if got := strings.Join(listed(t, b, buckets.Query{}), ","); got != "other" {
		t.Fatalf("listing: %s, want other", got)
	}
	if got := strings.Join(listed(t, b, buckets.Query{DeleteMarkers: true}), ","); got != "k,k,k(marker),other" {
		t.Fatalf("listing with markers: %s", got)
	}
	// A second delete stacks a second marker; DeleteName (the HTTP API's,
	// WebDAV's) of a deleted name is ErrFileNotFound and writes none.
	m2, err := b.MarkDeleted(ctx, "k", buckets.Conditions{})
	if err != nil || !m2.UploadDate.After(m.UploadDate) {
		t.Fatalf("second marker: %v", err)
	}
	if _, err := b.DeleteName(ctx, "k"); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("DeleteName of a deleted name: %v", err)
	}
	// Removing the markers makes v2 current again.
	for _, id := range []any{m2.ID, m.ID} {
		if err := b.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	f, err := b.FindByName(ctx, "k", -1)
	if err != nil || f.ID != v2.ID {
		t.Fatalf("after removing the markers: %v, %v", f, err)
	}
	// A new revision after a marker is current: the name is back, and
	// the marker in its history is listed by no plain listing.
	if _, err := b.DeleteName(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	v3 := putRev(t, b, "k", "three")
	if f, err := b.FindByName(ctx, "k", -1); err != nil || f.ID != v3.ID {
		t.Fatalf("a revision after the marker: %v, %v", f, err)
	}
	if got := strings.Join(listed(t, b, buckets.Query{}), ","); got != "k,k,k,other" {
		t.Fatalf("listing: %s", got)
	}
}

// Conditions of a versioned delete hold against the newest revision, and
// If-None-Match: * of an upload passes on a deleted name.
func TestDeleteMarkerConditions(t *testing.T) {
	ctx := context.Background()
	_, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	f := putRev(t, b, "k", "one")
	if _, err := b.DeleteNameIf(ctx, "k", buckets.Conditions{IfMatch: `"nope"`}); !errors.Is(err, buckets.ErrPreconditionFailed) {
		t.Fatalf("If-Match of another tag: %v", err)
	}
	if _, err := b.DeleteNameIf(ctx, "k", buckets.Conditions{IfMatch: f.ETag()}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "k", strings.NewReader("again"), buckets.UploadOptions{Conditions: buckets.Conditions{IfNoneMatch: "*"}}); err != nil {
		t.Fatalf("If-None-Match: * on a deleted name: %v", err)
	}
}

// In a Suspended bucket a write replaces the name's null version, and a
// delete writes a marker that does the same; versioned revisions stay.
func TestSuspendedNullVersion(t *testing.T) {
	ctx := context.Background()
	db, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	v1 := putRev(t, b, "k", "versioned")
	b, err := db.SetVersioning(ctx, "vb", buckets.VersioningSuspended)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.NullVersion(ctx, "k"); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("null version before any: %v", err)
	}
	n1 := putRev(t, b, "k", "null one")
	n2 := putRev(t, b, "k", "null two")
	if n2.Versioned {
		t.Fatal("a revision of a suspended bucket is marked versioned")
	}
	if _, err := b.Stat(ctx, n1.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("the replaced null version: %v", err)
	}
	if n, _ := b.ChunksCollection().CountDocuments(ctx, map[string]any{"files_id": n1.ID}); n != 0 {
		t.Fatalf("the replaced null version keeps %d chunks", n)
	}
	if f, err := b.NullVersion(ctx, "k"); err != nil || f.ID != n2.ID {
		t.Fatalf("NullVersion: %v, %v", f, err)
	}
	m, err := b.MarkDeleted(ctx, "k", buckets.Conditions{})
	if err != nil {
		t.Fatal(err)
	}
	var dm *buckets.DeleteMarkerError
	if _, err := b.NullVersion(ctx, "k"); !errors.As(err, &dm) || dm.Marker.ID != m.ID {
		t.Fatalf("the null version is the marker: %v", err)
	}
	if got := strings.Join(listed(t, b, buckets.Query{DeleteMarkers: true}), ","); got != "k,k(marker)" {
		t.Fatalf("versions: %s (v1 and the marker)", got)
	}
	if f, err := b.Stat(ctx, v1.ID); err != nil || !f.Versioned {
		t.Fatalf("the versioned revision: %v", err)
	}
}

// A revision written before versioning was set is the null version.
func TestNullVersionOfAnEarlierRevision(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, _ := db.Bucket(ctx, "vb")
	old := putRev(t, b, "k", "before")
	if f, err := b.NullVersion(ctx, "k"); err != nil || f.ID != old.ID {
		t.Fatalf("an unversioned bucket's null version is its newest: %v", err)
	}
	b, err := db.SetVersioning(ctx, "vb", buckets.VersioningEnabled)
	if err != nil {
		t.Fatal(err)
	}
	newer := putRev(t, b, "k", "after")
	revs := []*buckets.File{old, newer}
	if f, err := b.NullVersion(ctx, "k"); err != nil || f.ID != old.ID {
		t.Fatalf("NullVersion: %v", err)
	}
	if !b.IsNullVersion(old, revs) || b.IsNullVersion(newer, revs) {
		t.Fatal("IsNullVersion")
	}
}

// The sweeper removes a delete marker an ExpireDeleteMarkers rule covers
// once the older revisions are gone (NoncurrentDays), never while one is
// left: the name stays deleted either way.
func TestSweepExpiredDeleteMarker(t *testing.T) {
	ctx := context.Background()
	db, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	old := putRev(t, b, "k", "one")
	kept := putRev(t, b, "x/kept", "one")
	for _, name := range []string{"k", "x/kept"} {
		if _, err := b.MarkDeleted(ctx, name, buckets.Conditions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Older revisions of k expire an hour after the marker; those of
	// x/kept never.
	b, err := db.SetLifecycle(ctx, "vb", []buckets.Rule{
		{ExpireDeleteMarkers: true},
		{Prefix: "k", ExpireOldRevisionsAfter: buckets.Age(time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int64 {
		n, err := b.FilesCollection().CountDocuments(ctx, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := b.SweepExpired(ctx, buckets.SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 4 {
		t.Fatalf("a sweep while every older revision is reachable left %d documents, want 4", n)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	for range 2 { // the older revision of k, then its lone marker
		if _, err := b.SweepExpired(ctx, buckets.SweepOptions{Now: later}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 2 {
		t.Fatalf("%d files documents left, want x/kept's two", n)
	}
	if _, err := b.Stat(ctx, old.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("the noncurrent revision of k: %v", err)
	}
	if _, err := b.Stat(ctx, kept.ID); err != nil {
		t.Fatalf("x/kept's older revision: %v", err)
	}
	if _, err := b.FindByName(ctx, "x/kept", -1); !errors.Is(err, buckets.ErrDeleteMarker) {
		t.Fatalf("x/kept is still deleted: %v", err)
	}
}

// A marker is a 0-byte files document without chunks: fsck calls it
// sound and no orphan comes of it.
func TestFsckDeleteMarker(t *testing.T) {
	ctx := context.Background()
	_, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	putRev(t, b, "k", "one")
	if _, err := b.MarkDeleted(ctx, "k", buckets.Conditions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := b.Fsck(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 2 || len(rep.Damaged) != 0 || len(rep.Orphans.Old)+len(rep.Orphans.Pending) != 0 {
		t.Fatalf("fsck: %d files, damaged %v, orphans %v", rep.Files, rep.Damaged, rep.Orphans)
	}
	// Other GridFS readers see a 0-byte revision.
	raw, err := b.FilesCollection().FindOne(ctx, map[string]any{"deleteMarker": true}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	f, err := buckets.ParseFile(raw)
	if err != nil || f.Length != 0 {
		t.Fatalf("the marker as a files document: %v", err)
	}
	d, err := b.Open(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if data, err := io.ReadAll(d); err != nil || !bytes.Equal(data, nil) {
		t.Fatalf("reading the marker's chunks: %q, %v", data, err)
	}
}

// Statistics count revisions, not delete markers.
func TestStatsLeaveOutDeleteMarkers(t *testing.T) {
	ctx := context.Background()
	db, b := versionedBucket(t, "vb", buckets.VersioningEnabled)
	putRev(t, b, "k", "one")
	if _, err := b.MarkDeleted(ctx, "k", buckets.Conditions{}); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Stats(ctx); err != nil || s.Files != 1 || s.Bytes != 3 {
		t.Fatalf("stats %+v, %v; want 1 file of 3 bytes", s, err)
	}
	// The same through the pass of a bucket with revision rules.
	b, err := db.SetLifecycle(ctx, "vb", []buckets.Rule{{KeepRevisions: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := b.Stats(ctx); err != nil || s.Files != 1 || s.Bytes != 3 {
		t.Fatalf("stats with revision rules %+v, %v; want 1 file of 3 bytes", s, err)
	}
}
