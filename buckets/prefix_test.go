package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

func upload(t *testing.T, b *buckets.Bucket, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := b.Upload(context.Background(), n, bytes.NewReader([]byte(n)), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// A folder moves whole: every revision of every name under it, nothing
// beside it (a name that only starts like it included), and its content
// stays readable under the new names.
func TestRenamePrefix(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "docs/", "docs/a.txt", "docs/a.txt", "docs/sub/b.txt", "docs2/c.txt", "docsx", "other/d.txt")
	n, err := b.RenamePrefix(ctx, "docs/", "archive/2024/")
	if err != nil || n != 4 {
		t.Fatalf("RenamePrefix: %d, %v; want 4 files", n, err)
	}
	want := []string{"archive/2024/", "archive/2024/a.txt", "archive/2024/a.txt", "archive/2024/sub/b.txt", "docs2/c.txt", "docsx", "other/d.txt"}
	if got := names(t, b); !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	d, err := b.OpenName(ctx, "archive/2024/sub/b.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(d); err != nil || buf.String() != "docs/sub/b.txt" {
		t.Errorf("content %q, %v", buf.String(), err)
	}
	if _, err := b.RenamePrefix(ctx, "docs/", "x/"); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("rename of an empty folder: %v, want ErrFileNotFound", err)
	}
}

// A rename that would make an invalid name changes nothing.
func TestRenamePrefixPlansFirst(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "a/short", "a/"+strings.Repeat("x", buckets.MaxFilenameBytes-10))
	before := names(t, b)
	if _, err := b.RenamePrefix(ctx, "a/", "much-longer-folder-name/"); !errors.Is(err, buckets.ErrInvalidFilename) {
		t.Fatalf("RenamePrefix past the name limit: %v, want ErrInvalidFilename", err)
	}
	if _, err := b.RenamePrefix(ctx, "a/", "b/../"); !errors.Is(err, buckets.ErrInvalidFilename) {
		t.Fatalf("RenamePrefix to a .. segment: %v, want ErrInvalidFilename", err)
	}
	if got := names(t, b); !slices.Equal(got, before) {
		t.Errorf("names %q after a refused rename, want %q", got, before)
	}
}

func TestDeletePrefix(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "tmp/", "tmp/a", "tmp/a", "tmp/deep/er/b", "tmpfile", "keep/c")
	n, err := b.DeletePrefix(ctx, "tmp/")
	if err != nil || n != 4 {
		t.Fatalf("DeletePrefix: %d, %v; want 4", n, err)
	}
	if got, want := names(t, b), []string{"keep/c", "tmpfile"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if ok, err := b.HasPrefix(ctx, "tmp/"); ok || err != nil {
		t.Errorf("HasPrefix after the delete: %v, %v", ok, err)
	}
	if ok, err := b.HasPrefix(ctx, "keep/"); !ok || err != nil {
		t.Errorf("HasPrefix(keep/): %v, %v", ok, err)
	}
	if n, err := b.DeletePrefix(ctx, "none/"); n != 0 || err != nil {
		t.Errorf("DeletePrefix of nothing: %d, %v", n, err)
	}
}

// A folder listing leaves out what has expired, at once, like every read.
func TestEachInFolderLeavesOutExpired(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "d/live")
	if _, err := b.Upload(ctx, "d/gone", bytes.NewReader([]byte("x")), buckets.UploadOptions{ExpireAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "d/sub/gone", bytes.NewReader([]byte("x")), buckets.UploadOptions{ExpireAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := b.EachInFolder(ctx, "d/", "/", func(f *buckets.File, folder string) error {
		if f != nil {
			folder = f.Filename
		}
		got = append(got, folder)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"d/live"}) {
		t.Errorf("EachInFolder: %q, %v; want only d/live", got, err)
	}
}

// A folder rename that cannot finish in time says so and renames nothing.
func TestRenamePrefixTimeout(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "a/1", "a/2", "a/3")
	defer func(d time.Duration) { buckets.RenamePrefixTimeout = d }(buckets.RenamePrefixTimeout)
	buckets.RenamePrefixTimeout = time.Microsecond
	_, err := b.RenamePrefix(ctx, "a/", "b/")
	if !errors.Is(err, buckets.ErrTooManyFiles) || !strings.Contains(err.Error(), "nothing was renamed") {
		t.Fatalf("RenamePrefix past its time: %v, want ErrTooManyFiles and nothing renamed", err)
	}
	if got := names(t, b); !slices.Equal(got, []string{"a/1", "a/2", "a/3"}) {
		t.Errorf("names %q after a rename that timed out", got)
	}
}

// ReplaceName deletes the destination's revisions only once the source has
// its name: a rename that fails leaves the destination as it was.
func TestReplaceName(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "draft", "draft", "report", "report")
	if err := b.ReplaceName(ctx, "missing", "report"); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("replace by a missing file: %v, want ErrFileNotFound", err)
	}
	if err := b.ReplaceName(ctx, "draft", "bad\x00name"); !errors.Is(err, buckets.ErrInvalidFilename) {
		t.Errorf("replace onto an invalid name: %v, want ErrInvalidFilename", err)
	}
	if got, want := names(t, b), []string{"draft", "draft", "report", "report"}; !slices.Equal(got, want) {
		t.Fatalf("failed replaces changed the bucket: %q, want %q", got, want)
	}
	if err := b.ReplaceName(ctx, "draft", "report"); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, b), []string{"report", "report"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q (the draft's two revisions)", got, want)
	}
	d, err := b.OpenName(ctx, "report", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(d); err != nil || buf.String() != "draft" {
		t.Errorf("oldest revision %q, %v; want the draft's", buf.String(), err)
	}
}

// TestRenameNameBesideDeleteName: a rename of a name (WebDAV's MOVE)
// through another gateway while a delete of that name is between listing
// its older revisions and deleting them waits for the delete, and then
// finds nothing to rename. Before the rename took the names' leases it ran
// inside that window: it reported success, and the delete removed the
// renamed file's revisions by _id.
func TestRenameNameBesideDeleteName(t *testing.T) {
	ctx := context.Background()
	for _, replace := range []bool{false, true} {
		b := mustBucket(t, "fs")
		other, err := buckets.NewDB(b.FilesCollection().Database()).Bucket(ctx, "fs")
		if err != nil {
			t.Fatal(err)
		}
		upload(t, b, "draft", "draft")
		renamed := make(chan error, 1)
		restore := buckets.SetDeleteListed(func() {
			go func() {
				if replace {
					renamed <- other.ReplaceName(ctx, "draft", "final")
				} else {
					renamed <- other.RenameName(ctx, "draft", "final")
				}
			}()
			// room for the rename to land here, as it did before
			time.Sleep(200 * time.Millisecond)
		})
		n, err := b.DeleteName(ctx, "draft")
		restore()
		if err != nil || n != 2 {
			t.Fatalf("replace %v: delete: %d, %v", replace, n, err)
		}
		if err := <-renamed; !errors.Is(err, buckets.ErrFileNotFound) {
			t.Errorf("replace %v: the rename of the deleted name: %v, want ErrFileNotFound", replace, err)
		}
		if got := names(t, b); len(got) != 0 {
			t.Errorf("replace %v: names %q left; want none", replace, got)
		}
	}
}

// TestRenamePrefixBesideDeleteName: a folder's move, which takes no lease,
// that lands while a delete of a name inside it is between listing the
// name's older revisions and deleting them leaves the moved files whole,
// and the delete finds nothing left under the name. Before deletes under a
// name's lease filtered on the name, the delete removed the moved file's
// older revision by _id, and its chunks.
func TestRenamePrefixBesideDeleteName(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	for _, content := range []string{"first", "second"} {
		if _, err := b.Upload(ctx, "a/x", strings.NewReader(content), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var moved int
	var moveErr error
	restore := buckets.SetDeleteListed(func() { moved, moveErr = b.RenamePrefix(ctx, "a/", "b/") })
	n, err := b.DeleteName(ctx, "a/x")
	restore()
	if moved != 2 || moveErr != nil {
		t.Fatalf("the move: %d, %v; want 2 files moved", moved, moveErr)
	}
	if !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("the delete of a name moved away: %d, %v; want ErrFileNotFound", n, err)
	}
	if got, want := names(t, b), []string{"b/x", "b/x"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	for revision, want := range []string{"first", "second"} {
		if got := readName(t, b, "b/x", revision); got != want {
			t.Errorf("revision %d: %q, want %q", revision, got, want)
		}
	}
}

// TestRenamePrefixBesideDeletePrefix: a folder's move that lands after a
// delete of the folder listed its files leaves the moved files whole.
// Before, the delete removed each listed file by _id, under whatever name
// it had by then: the move reported the folder moved, and then it was gone.
func TestRenamePrefixBesideDeletePrefix(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	upload(t, b, "a/x", "a/y", "c")
	var moved int
	var moveErr error
	restore := buckets.SetDeleteListed(func() {
		if moved == 0 {
			moved, moveErr = b.RenamePrefix(ctx, "a/", "b/")
		}
	})
	n, err := b.DeletePrefix(ctx, "a/")
	restore()
	if moved != 2 || moveErr != nil {
		t.Fatalf("the move: %d, %v; want 2 files moved", moved, moveErr)
	}
	if n != 0 || err != nil {
		t.Errorf("the delete of a folder moved away: %d, %v; want 0 removed", n, err)
	}
	if got, want := names(t, b), []string{"b/x", "b/y", "c"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	for _, name := range []string{"b/x", "b/y"} {
		if got := readName(t, b, name, -1); got != "a/"+name[2:] {
			t.Errorf("%s: %q, want its content", name, got)
		}
	}
}

// readName reads a revision of name (see FindByName) and checks its sha256.
func readName(t *testing.T, b *buckets.Bucket, name string, revision int) string {
	t.Helper()
	f, err := b.FindByName(context.Background(), name, revision)
	if err != nil {
		t.Fatalf("%s revision %d: %v", name, revision, err)
	}
	return string(readBack(t, b, f.ID))
}

// TestRenamePrefixExpiresHiddenRevisions: a revision rule
// (keepRevisions 1, every name) hides the older revision of a/x. Moving
// the folder a/ to b/ (RenamePrefix: WebDAV's MOVE of a collection)
// plans from a listing, which leaves hidden revisions out; left named
// a/x, the hidden revision would be that name's only one, which no rule
// hides: the moved folder's source would show the file again, with the
// content the rule had removed.
func TestRenamePrefixExpiresHiddenRevisions(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).SetLifecycle(ctx, "fs", []buckets.Rule{{KeepRevisions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	old, err := b.Upload(ctx, "a/x", bytes.NewReader([]byte("old content")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	cur, err := b.Upload(ctx, "a/x", bytes.NewReader([]byte("new content")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, old.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("the older revision is not hidden: %v", err)
	}
	if n, err := b.RenamePrefix(ctx, "a/", "b/"); err != nil || n != 1 {
		t.Fatalf("RenamePrefix: %d, %v", n, err)
	}
	if f, err := b.FindByName(ctx, "b/x", -1); err != nil || f.ID != cur.ID {
		t.Fatalf("b/x after the move: %v, %v", f, err)
	}
	if f, err := b.FindByName(ctx, "a/x", -1); err == nil {
		t.Errorf("a/x after moving a/ to b/ is found: %v (the hidden revision %v, %d bytes); want not found", f.ID, old.ID, f.Length)
	} else if !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatal(err)
	}
	if has, err := b.HasPrefix(ctx, "a/"); err != nil || has {
		t.Errorf("folder a/ after the move: exists %v, %v", has, err)
	}
}

// TestRenameNameExpiresHiddenRevisions: a rule of prefix logs/
// keeps one revision. Renaming logs/a (every revision of the name:
// RenameName, WebDAV's MOVE) to archive/a must not move the hidden
// revision out of the rule's reach, where it would be visible again as
// revision 0 of archive/a: every read treats it as expired, and the
// rename expires it.
func TestRenameNameExpiresHiddenRevisions(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "logs/", KeepRevisions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	old, err := b.Upload(ctx, "logs/a", bytes.NewReader([]byte("old content")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	cur, err := b.Upload(ctx, "logs/a", bytes.NewReader([]byte("new content")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.FindByName(ctx, "logs/a", -2); !errors.Is(err, buckets.ErrRevisionNotFound) {
		t.Fatalf("the older revision is not hidden: %v", err)
	}
	if err := b.RenameName(ctx, "logs/a", "archive/a"); err != nil {
		t.Fatal(err)
	}
	if f, err := b.FindByName(ctx, "archive/a", -1); err != nil || f.ID != cur.ID {
		t.Fatalf("archive/a after the rename: %v, %v", f, err)
	}
	if f, err := b.FindByName(ctx, "archive/a", -2); err == nil {
		t.Errorf("the revision the rule hid (%v) is visible again after a rename, as revision -2 %v", old.ID, f.ID)
	}
	if f, err := b.Stat(ctx, old.ID); err == nil {
		t.Errorf("Stat of the revision the rule hid finds it again after a rename: %q", f.Filename)
	}
}
