package buckets

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// A listing of the names under a prefix is a search of the filename index
// on every store, not a test of each files document (the embedded store
// read a folder of 10,000 names for seconds), and lists exactly those
// names, non-ASCII and From included.
func TestPrefixListingsUseFilenameIndex(t *testing.T) {
	ctx := context.Background()
	b, err := NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"d/", "d/a", "d/b/c", "d/é", "d0", "d.txt", "e/a", "é/a", "é/b", "éa", "f\u00ff/x", "f\u0100"}
	for _, n := range names {
		if _, err := b.Upload(ctx, n, bytes.NewReader(nil), UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		q    Query
		want []string
	}{
		{Query{Prefix: "d/"}, []string{"d/", "d/a", "d/b/c", "d/é"}},
		{Query{Prefix: "d/", From: "d/b"}, []string{"d/b/c", "d/é"}},
		{Query{Prefix: "d/", From: "c"}, []string{"d/", "d/a", "d/b/c", "d/é"}},
		{Query{Prefix: "é/"}, []string{"é/a", "é/b"}},
		{Query{Prefix: "é"}, []string{"é/a", "é/b", "éa"}},
		{Query{Prefix: "f\u00ff"}, []string{"f\u00ff/x"}},
	} {
		page, err := b.Find(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range page.Files {
			got = append(got, f.Filename)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Find %+v: %q, want %q", c.q, got, c.want)
		}
		filter, err := b.filter(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		find := bson.D{{Key: "find", Value: b.files.Name()}, {Key: "filter", Value: b.live(filter, time.Now())}, {Key: "sort", Value: listingOrder}}
		raw, err := b.files.Database().RunCommand(ctx, bson.D{{Key: "explain", Value: find}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if v, err := raw.LookupErr("filterPushdown"); err == nil {
			// The embedded store: SQLite searches the index.
			if !v.Boolean() || !strings.Contains(raw.String(), "USING INDEX") {
				t.Errorf("Find %+v: not answered from an index: %s", c.q, raw)
			}
		} else if !strings.Contains(raw.String(), "IXSCAN") {
			t.Errorf("Find %+v: not answered from an index: %s", c.q, raw)
		}
	}
}

// PrefixEnd bounds exactly the names that start with p: every such name
// sorts below it, every other name above p sorts at or above it, and it
// is valid UTF-8.
func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ p, want string }{
		{"a/", "a0"},
		{"photos/2024/", "photos/20240"},
		{"é", "ê"},
		{"a\u00ff", "a\u0100"},
		{"a\ud7ff", "a\ue000"},
		{"a\U0010FFFF", "b"},
		{"a\U0010FFFF\U0010FFFF", "b"},
		{"\x7f", "\u0080"},
	} {
		got, ok := PrefixEnd(c.p)
		if !ok || got != c.want {
			t.Errorf("PrefixEnd(%q) = %q, %v; want %q", c.p, got, ok, c.want)
		}
	}
	for _, p := range []string{"", "\U0010FFFF", "a\xff"} {
		if got, ok := PrefixEnd(p); ok {
			t.Errorf("PrefixEnd(%q) = %q, want none", p, got)
		}
	}
	alphabet := []rune{'a', 'b', '/', 0x7f, 0x80, 'é', 0xd7ff, 0xe000, 0xffff, utf8.MaxRune}
	word := func(r *rand.Rand) string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p, s := word(r), word(r)
		end, ok := PrefixEnd(p)
		if !ok {
			continue
		}
		if !utf8.ValidString(end) {
			t.Fatalf("PrefixEnd(%q) = %q, not UTF-8", p, end)
		}
		if strings.HasPrefix(s, p) != (s >= p && s < end) {
			t.Fatalf("PrefixEnd(%q) = %q: %q starts with it: %v, in the range: %v", p, end, s, strings.HasPrefix(s, p), s >= p && s < end)
		}
	}
}
