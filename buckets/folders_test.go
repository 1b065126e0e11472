package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
)

// TestFindFolder checks folder listings against the listing rolled up in
// memory, for every page size: each folder once, where its first name
// sorts; the files of the level with every revision; pages of exactly
// the limit until the last, and nothing lost or repeated across pages.
func TestFindFolder(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	names := []string{
		"a.txt", "a.txt", // two revisions
		"b/1.txt", "b/2.txt", "b/c/3.txt", "b/c/4.txt", "b/d.txt", "b/d.txt",
		"b0.txt", "b-x/y", // sort around b/'s bound "b0"
		"bé/é.txt", "bé/f", "bé!",
		"photos/2024/a.jpg", "photos/2024/b.jpg", "photos/2025/a.jpg", "photos/top.jpg", "photos/",
		"/rooted", "z", "zz/",
	}
	for i, n := range names {
		if _, err := b.Upload(ctx, n, bytes.NewReader([]byte(fmt.Sprint(i))), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		prefix, delimiter, regex string
	}{
		{"", "/", ""},
		{"b/", "/", ""},
		{"b", "/", ""},
		{"photos/", "/", ""},
		{"photos/2024/", "/", ""},
		{"b", "é", ""}, // no ASCII bound: folders are read through
		{"", "/c/", ""},
		{"", "/", `\.txt$`},
		{"nothing/", "/", ""},
	} {
		want := rolledUp(t, b, tt.prefix, tt.delimiter, tt.regex)
		for limit := 1; limit <= len(want)+1; limit++ {
			q := buckets.Query{Prefix: tt.prefix, Regex: tt.regex, Limit: limit}
			var got []string
			for pages := 0; ; pages++ {
				if pages > len(want)+1 {
					t.Fatalf("%+v limit %d: more pages than entries", tt, limit)
				}
				page, err := b.FindFolder(ctx, q, tt.delimiter)
				if err != nil {
					t.Fatalf("%+v limit %d: %v", tt, limit, err)
				}
				entries := entriesOf(page)
				if len(entries) > limit || (page.Next != "" && len(entries) != limit) {
					t.Fatalf("%+v limit %d: page of %d entries, next %q", tt, limit, len(entries), page.Next)
				}
				got = append(got, entries...)
				if page.Next == "" {
					break
				}
				q.After = page.Next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("prefix %q delimiter %q regex %q limit %d:\n got %q\nwant %q", tt.prefix, tt.delimiter, tt.regex, limit, got, want)
			}
		}
		if tt.regex != "" {
			continue // EachInFolder takes no regex
		}
		var got []string
		err := b.EachInFolder(ctx, tt.prefix, tt.delimiter, func(f *buckets.File, folder string) error {
			if f == nil {
				got = append(got, "folder "+folder)
			} else {
				got = append(got, "file "+f.Filename+" "+buckets.FormatID(f.ID))
			}
			return nil
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("EachInFolder prefix %q delimiter %q: %v\n got %q\nwant %q", tt.prefix, tt.delimiter, err, got, want)
		}
	}
}

// rolledUp is the folder listing made from Find's full listing in memory.
func rolledUp(t *testing.T, b *buckets.Bucket, prefix, delimiter, regex string) []string {
	t.Helper()
	var out []string
	err := b.Each(context.Background(), buckets.Query{Prefix: prefix, Regex: regex}, func(f *buckets.File) error {
		rest := strings.TrimPrefix(f.Filename, prefix)
		if i := strings.Index(rest, delimiter); i >= 0 {
			folder := "folder " + prefix + rest[:i+len(delimiter)]
			if len(out) == 0 || out[len(out)-1] != folder {
				out = append(out, folder)
			}
			return nil
		}
		out = append(out, "file "+f.Filename+" "+buckets.FormatID(f.ID))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// entriesOf merges a page's files and folders in name order, as rolledUp
// writes them.
func entriesOf(p *buckets.FolderPage) []string {
	var out []string
	files, folders := p.Files, p.Prefixes
	for len(files) > 0 || len(folders) > 0 {
		if len(folders) == 0 || (len(files) > 0 && files[0].Filename < folders[0]) {
			out = append(out, "file "+files[0].Filename+" "+buckets.FormatID(files[0].ID))
			files = files[1:]
			continue
		}
		out = append(out, "folder "+folders[0])
		folders = folders[1:]
	}
	return out
}

func TestFindFolderRefuses(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	for i := range 3 {
		if _, err := b.Upload(ctx, fmt.Sprint(i), bytes.NewReader(nil), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	flat, err := b.Find(ctx, buckets.Query{Limit: 1})
	if err != nil || flat.Next == "" {
		t.Fatalf("find: %v, next %q", err, flat.Next)
	}
	for _, tt := range []struct {
		name      string
		q         buckets.Query
		delimiter string
	}{
		{"empty delimiter", buckets.Query{}, ""},
		{"limit too large", buckets.Query{Limit: buckets.MaxLimit + 1}, "/"},
		{"a cursor of Find", buckets.Query{After: flat.Next}, "/"},
		{"a made-up cursor", buckets.Query{After: "bm90IGEgY3Vyc29y"}, "/"},
		{"bad regex", buckets.Query{Regex: "("}, "/"},
	} {
		if _, err := b.FindFolder(ctx, tt.q, tt.delimiter); !errors.Is(err, buckets.ErrInvalidQuery) {
			t.Errorf("%s: %v, want ErrInvalidQuery", tt.name, err)
		}
	}
}

// In a versioned bucket a folder whose names were all deleted (delete
// markers) is no folder for Find and FindFolder; EachInFolder (WebDAV's
// PROPFIND and Readdir) and HasPrefix (WebDAV's stat of a folder) agree,
// and still see a folder with one name left among deleted ones.
func TestEachInFolderHidesDeletedFolders(t *testing.T) {
	ctx := context.Background()
	_, b := versionedBucket(t, "vf", "Enabled")
	keep := putRev(t, b, "keep.txt", "k")
	putRev(t, b, "gone/a.txt", "a")
	putRev(t, b, "half/a.txt", "a")
	putRev(t, b, "half/b.txt", "b")
	for _, n := range []string{"gone/a.txt", "half/a.txt"} {
		if _, err := b.DeleteName(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if got := listed(t, b, buckets.Query{Prefix: "gone/"}); len(got) != 0 {
		t.Fatalf("Find lists %v under the deleted folder", got)
	}
	fp, err := b.FindFolder(ctx, buckets.Query{}, "/")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	if err := b.EachInFolder(ctx, "", "/", func(f *buckets.File, folder string) error {
		if f == nil {
			entries = append(entries, "folder "+folder)
		} else {
			entries = append(entries, "file "+f.Filename+" "+buckets.FormatID(f.ID))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"folder half/", "file keep.txt " + buckets.FormatID(keep.ID)}
	if !slices.Equal(entries, want) || !slices.Equal(entriesOf(fp), want) {
		t.Errorf("EachInFolder lists %q, FindFolder %q; want %q", entries, entriesOf(fp), want)
	}
	for prefix, want := range map[string]bool{"gone/": false, "half/": true, "keep": true, "none/": false} {
		if ok, err := b.HasPrefix(ctx, prefix); err != nil || ok != want {
			t.Errorf("HasPrefix(%q) = %v, %v; want %v", prefix, ok, err, want)
		}
	}
}
