package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestParseExpiry(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2031-02-03T04:05:06Z", time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"2031-02-03T05:05:06.5+01:00", time.Date(2031, 2, 3, 4, 5, 6, 5e8, time.UTC)},
		{"Mon, 03 Feb 2031 04:05:06 GMT", time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"Monday, 03-Feb-31 04:05:06 GMT", time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"Mon Feb  3 04:05:06 2031", time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"3600s", now.Add(time.Hour)},
		{" 90m ", now.Add(90 * time.Minute)},
		{"72h", now.Add(72 * time.Hour)},
		{"30d", now.Add(30 * 24 * time.Hour)},
		{"1h30m", now.Add(90 * time.Minute)},
		{"1990-01-01T00:00:00Z", time.UnixMilli(1_000_000_000_000).UTC()}, // long past: the floor
	} {
		got, err := buckets.ParseExpiry(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseExpiry(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "0s", "-5m", "-1d", "1.5d", "20200101", "3000-01-01T00:00:00Z", "Mon, 03 Feb 2031 04:05:06 PST", "99999999999d"} {
		if got, err := buckets.ParseExpiry(bad, now); !errors.Is(err, buckets.ErrInvalidExpiry) {
			t.Errorf("ParseExpiry(%q) = %v, %v; want ErrInvalidExpiry", bad, got, err)
		}
	}
}

func TestCheckLifecycle(t *testing.T) {
	day := buckets.Age(24 * time.Hour)
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	good := []buckets.Rule{{Prefix: "tmp/", ExpireAfter: day}, {ID: "x", ExpireDate: &date}, {KeepRevisions: 3}, {ExpireOldRevisionsAfter: day, AbortUnfinishedAfter: day}}
	if err := buckets.CheckLifecycle(good); err != nil {
		t.Fatal(err)
	}
	if good[0].ID == "" || good[0].ID == good[2].ID {
		t.Errorf("ids not filled in: %+v", good)
	}
	long := string(bytes.Repeat([]byte("a"), 256))
	for i, bad := range [][]buckets.Rule{
		{{Prefix: "a"}},
		{{ID: long, ExpireAfter: day}},
		{{ID: "a", ExpireAfter: day}, {ID: "a", ExpireAfter: day}},
		{{ExpireAfter: day, ExpireDate: &date}},
		{{ExpireAfter: -day}},
		{{KeepRevisions: -1, ExpireAfter: day}},
		{{Prefix: "a\x00", ExpireAfter: day}},
	} {
		if err := buckets.CheckLifecycle(bad); !errors.Is(err, buckets.ErrInvalidLifecycle) {
			t.Errorf("case %d: %v, want ErrInvalidLifecycle", i, err)
		}
	}
}

// visible lists what every read of b shows of name: Find, FindByName and
// Stat by id, and fails unless they agree.
func names(t *testing.T, b *buckets.Bucket) []string {
	t.Helper()
	page, err := b.Find(context.Background(), buckets.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range page.Files {
		out = append(out, f.Filename)
	}
	return out
}

func TestExpiredFilesAreInvisibleAtOnce(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	soon := time.Now().Add(400 * time.Millisecond)
	gone, err := b.Upload(ctx, "soon", bytes.NewReader([]byte("bye")), buckets.UploadOptions{ExpireAt: soon})
	if err != nil {
		t.Fatal(err)
	}
	if !gone.ExpireAt.Equal(soon.UTC().Truncate(time.Millisecond)) {
		t.Fatalf("ExpireAt %v, want %v", gone.ExpireAt, soon)
	}
	if _, err := b.Upload(ctx, "keep", bytes.NewReader([]byte("hi")), buckets.UploadOptions{ExpireAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "plain", bytes.NewReader([]byte("hi")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	// The stored field is gridfsd's own top-level date, never metadata.
	raw, err := b.FilesCollection().FindOne(ctx, bson.D{{Key: "_id", Value: gone.ID}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if raw.Lookup("expireAt").Type != bson.TypeDateTime || raw.Lookup("metadata").Type != 0 {
		t.Fatalf("files document %v", raw)
	}
	if got := names(t, b); len(got) != 3 {
		t.Fatalf("before expiry: %v", got)
	}
	time.Sleep(time.Until(soon) + 10*time.Millisecond)
	if got := names(t, b); len(got) != 2 || got[0] != "keep" || got[1] != "plain" {
		t.Fatalf("after expiry the listing shows %v", got)
	}
	if _, err := b.Stat(ctx, gone.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("Stat of an expired file: %v", err)
	}
	if _, err := b.FindByName(ctx, "soon", -1); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("FindByName of an expired file: %v", err)
	}
	st, err := b.Stats(ctx)
	if err != nil || st.Files != 2 || st.Bytes != 4 {
		t.Errorf("Stats %+v, %v; want 2 files of 4 bytes", st, err)
	}
	// Clearing the expiry of an expired file does not bring it back.
	zero := time.Time{}
	if _, err := b.PatchFileIf(ctx, gone.ID, buckets.FilePatch{ExpireAt: &zero}, buckets.Conditions{}); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("PATCH of an expired file: %v", err)
	}
	// Its _id stays taken until the sweeper removes it.
	if _, err := b.Upload(ctx, "other", bytes.NewReader(nil), buckets.UploadOptions{ID: gone.ID}); !errors.Is(err, buckets.ErrFileExists) {
		t.Errorf("upload under an expired file's id: %v", err)
	}
	// If-None-Match: * sees no file of the name.
	if _, err := b.Upload(ctx, "soon", bytes.NewReader([]byte("again")), buckets.UploadOptions{Conditions: buckets.Conditions{IfNoneMatch: "*"}}); err != nil {
		t.Errorf("create-only upload over an expired name: %v", err)
	}
}

func TestPatchExpiry(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "f", bytes.NewReader([]byte("x")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	g, err := b.PatchFileIf(ctx, f.ID, buckets.FilePatch{ExpireAt: &at}, buckets.Conditions{})
	if err != nil || !g.ExpireAt.Equal(at) {
		t.Fatalf("set: %v, %v", g, err)
	}
	zero := time.Time{}
	if g, err = b.PatchFileIf(ctx, f.ID, buckets.FilePatch{ExpireAt: &zero}, buckets.Conditions{}); err != nil || !g.ExpireAt.IsZero() || g.Raw.Lookup("expireAt").Type != 0 {
		t.Fatalf("clear: %v, %v", g, err)
	}
	past := time.Now().Add(-time.Second)
	if _, err = b.PatchFileIf(ctx, f.ID, buckets.FilePatch{ExpireAt: &past}, buckets.Conditions{IfMatch: g.ETag()}); !errors.Is(err, buckets.ErrFileNotFound) && err != nil {
		t.Fatalf("expire now: %v", err)
	}
	if _, err := b.Stat(ctx, f.ID); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("a file whose expiry was set in the past: %v", err)
	}
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := b.PatchFileIf(ctx, f.ID, buckets.FilePatch{ExpireAt: &far}, buckets.Conditions{}); !errors.Is(err, buckets.ErrInvalidExpiry) {
		t.Errorf("expiry in 3000: %v", err)
	}
}

func TestRulesExpireAtOnce(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"tmp/a", "tmp/b", "keep/a", "past/x"} {
		if _, err := b.Upload(ctx, n, bytes.NewReader([]byte(n)), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	future := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []buckets.Rule{
		{ID: "tmp", Prefix: "tmp/", ExpireAfter: buckets.Age(300 * time.Millisecond)},
		{ID: "past", Prefix: "past/", ExpireDate: &past},
		{ID: "future", Prefix: "keep/", ExpireDate: &future},
	}
	if b, err = db.SetLifecycle(ctx, "fs", rules); err != nil {
		t.Fatal(err)
	}
	if got := names(t, b); len(got) != 3 || got[2] != "tmp/b" {
		t.Fatalf("with the rules: %v", got)
	}
	time.Sleep(350 * time.Millisecond)
	if got := names(t, b); len(got) != 1 || got[0] != "keep/a" {
		t.Fatalf("after the age: %v", got)
	}
	f, err := b.FindByName(ctx, "keep/a", -1)
	if err != nil {
		t.Fatal(err)
	}
	if at, rule := b.ExpiresAt(f); !at.Equal(future) || rule != "future" {
		t.Errorf("ExpiresAt %v %q", at, rule)
	}
	// Nothing changes with bad rules.
	if _, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "x"}}); !errors.Is(err, buckets.ErrInvalidLifecycle) {
		t.Fatalf("bad rule: %v", err)
	}
	b2, err := buckets.NewDB(b.FilesCollection().Database()).Bucket(ctx, "fs")
	if err != nil || len(b2.Settings().Lifecycle) != 3 {
		t.Fatalf("rules after a bad update: %+v, %v", b2.Settings().Lifecycle, err)
	}
}

func TestKeepRevisions(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{KeepRevisions: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	for _, s := range []string{"1", "2", "3", "4"} {
		f, err := b.Upload(ctx, "r", bytes.NewReader([]byte(s)), buckets.UploadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
		time.Sleep(2 * time.Millisecond)
	}
	if got := names(t, b); len(got) != 2 {
		t.Fatalf("listing shows %d revisions, want 2", len(got))
	}
	for rev, want := range map[int]any{0: ids[2], 1: ids[3], -1: ids[3], -2: ids[2]} {
		f, err := b.FindByName(ctx, "r", rev)
		if err != nil || f.ID != want {
			t.Errorf("revision %d: %v, %v", rev, f, err)
		}
	}
	if _, err := b.FindByName(ctx, "r", -3); !errors.Is(err, buckets.ErrRevisionNotFound) {
		t.Errorf("revision -3: %v", err)
	}
	if _, err := b.Stat(ctx, ids[1]); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Errorf("Stat of a hidden revision: %v", err)
	}
	st, err := b.Stats(ctx)
	if err != nil || st.Files != 2 || st.Bytes != 2 {
		t.Errorf("Stats %+v, %v", st, err)
	}
}

// TestTagRulesExpire: a rule with tags expires the files that carry all of
// them, at once for every read and then for the sweeper, and follows a
// file's tags as they change.
func TestTagRulesExpire(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	tom, huck := buckets.Tag{Key: "tom", Value: "sawyer"}, buckets.Tag{Key: "huck", Value: "finn"}
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Prefix: "days1/", Tags: []buckets.Tag{tom, huck}, ExpireAfter: buckets.Age(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]buckets.Tag{"days1/both": {huck, tom}, "days1/tom": {tom}, "days1/none": nil, "other/both": {tom, huck}}
	ids := map[string]any{}
	for name, tags := range files {
		f, err := b.Upload(ctx, name, strings.NewReader(name), buckets.UploadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tags != nil {
			if err := b.SetTags(ctx, f.ID, tags); err != nil {
				t.Fatal(err)
			}
		}
		ids[name] = f.ID
	}
	// Not yet an hour old: everything is there.
	if got := names(t, b); len(got) != 4 {
		t.Fatalf("listing %v, want 4 files", got)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	// The one a rule expires: x-amz-expiration names the rule for it only.
	for name, id := range ids {
		f, err := b.Stat(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		_, rule, ok := b.S3Expiration(f)
		if want := name == "days1/both"; ok != want || (ok && rule != b.Settings().Lifecycle[0].ID) {
			t.Errorf("%s: S3Expiration rule %q, %v; want %v", name, rule, ok, want)
		}
	}
	// Tagged like the rule asks, tom too expires.
	if err := b.SetTags(ctx, ids["days1/tom"], []buckets.Tag{tom, huck}); err != nil {
		t.Fatal(err)
	}
	res, err := b.SweepExpired(ctx, buckets.SweepOptions{Now: later})
	if err != nil || res.Files != 2 {
		t.Fatalf("sweep %+v, %v; want 2 files", res, err)
	}
	for _, name := range []string{"days1/both", "days1/tom"} {
		if n, _ := b.FilesCollection().CountDocuments(ctx, bson.D{{Key: "_id", Value: ids[name]}}); n != 0 {
			t.Errorf("%s still stored after the sweep", name)
		}
	}
	for _, name := range []string{"days1/none", "other/both"} {
		if _, err := b.Stat(ctx, ids[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A rule by date hides what it expires from listings at once.
	past := time.Now().Add(-time.Hour)
	if b, err = db.SetLifecycle(ctx, "fs", []buckets.Rule{{Tags: []buckets.Tag{tom}, ExpireDate: &past}}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, b); len(got) != 1 || got[0] != "days1/none" {
		t.Errorf("listing under a date rule with a tag: %v, want [days1/none]", got)
	}
	if st, err := b.Stats(ctx); err != nil || st.Files != 1 {
		t.Errorf("Stats under a date rule with a tag: %+v, %v; want 1 file", st, err)
	}
	// Tags only filter expirations by age or date.
	if _, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Tags: []buckets.Tag{tom}, KeepRevisions: 2}}); !errors.Is(err, buckets.ErrInvalidLifecycle) {
		t.Errorf("tags on a revision rule: %v", err)
	}
	if _, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{Tags: []buckets.Tag{{Key: "", Value: "x"}}, ExpireAfter: buckets.Age(time.Hour)}}); !errors.Is(err, buckets.ErrInvalidLifecycle) {
		t.Errorf("an empty tag key: %v", err)
	}
}
