package buckets_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// insertRevisions writes files documents (no chunks: length 0 needs none,
// and Stats reads lengths only) for names with 1 to 4 revisions each, some
// of one millisecond told apart by _ids of several types, as other GridFS
// tools may write them.
func insertRevisions(t *testing.T, b *buckets.Bucket, names int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed))
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var docs []any
	for i := range names {
		name := fmt.Sprintf("%s/%04d", []string{"a", "b", "c"}[i%3], i)
		at := base.Add(time.Duration(rng.IntN(3_000_000)) * time.Millisecond)
		for r := range 1 + rng.IntN(4) {
			if rng.IntN(3) > 0 { // else the same instant as the revision before
				at = at.Add(time.Duration(1+rng.IntN(600_000)) * time.Millisecond)
			}
			var id any = bson.NewObjectID()
			switch rng.IntN(4) {
			case 0:
				id = fmt.Sprintf("s%d-%d-%d", rng.IntN(100), i, r)
			case 1:
				id = int64(i*10 + r)
			}
			docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "filename", Value: name},
				{Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(255 << 10)}, {Key: "uploadDate", Value: at}})
		}
	}
	if _, err := b.FilesCollection().InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
}

// visibleByName counts the revisions of each name through FindByName,
// which asks the store to order each name's revisions: the reference the
// bucket's statistics and listings must agree with.
func visibleByName(t *testing.T, b *buckets.Bucket) (files int64, ids map[string]bool) {
	t.Helper()
	ctx := context.Background()
	all, err := b.FilesCollection().Distinct(ctx, "filename", bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := bson.RawArray(all).Values()
	ids = map[string]bool{}
	for _, v := range vals {
		name := v.StringValue()
		for rev := 0; ; rev++ {
			f, err := b.FindByName(ctx, name, rev)
			if errors.Is(err, buckets.ErrRevisionNotFound) || errors.Is(err, buckets.ErrFileNotFound) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files++
			ids[buckets.FormatID(f.ID)] = true
		}
	}
	return files, ids
}

// TestRevisionRulesStatsAndListings checks the bucket statistics and the
// listing of a bucket whose rules hide older revisions against FindByName,
// revision by revision, for several rules, with revisions of one instant.
func TestRevisionRulesStatsAndListings(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	insertRevisions(t, b, 120, 7)
	for _, rules := range [][]buckets.Rule{
		{{KeepRevisions: 1}},
		{{Prefix: "a/", KeepRevisions: 2}},
		{{Prefix: "b/", ExpireOldRevisionsAfter: buckets.Age(20 * time.Minute)}, {Prefix: "c/", KeepRevisions: 3}},
	} {
		if b, err = db.SetLifecycle(ctx, "fs", rules); err != nil {
			t.Fatal(err)
		}
		want, ids := visibleByName(t, b)
		st, err := b.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Files != want {
			t.Errorf("rules %+v: Stats counts %d files, FindByName finds %d", rules, st.Files, want)
		}
		listed := map[string]bool{}
		for q := (buckets.Query{Limit: 37}); ; {
			page, err := b.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range page.Files {
				listed[buckets.FormatID(f.ID)] = true
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
		if len(listed) != len(ids) {
			t.Errorf("rules %+v: listing shows %d files, FindByName finds %d", rules, len(listed), len(ids))
		}
		for id := range ids {
			if !listed[id] {
				t.Errorf("rules %+v: listing misses %s", rules, id)
			}
		}
	}
}

// TestListingWithRevisionRulesQueriesOncePerPage: a page of names under a
// revision rule costs one query for their revisions, not one per name.
func TestListingWithRevisionRulesQueriesOncePerPage(t *testing.T) {
	ctx := context.Background()
	var finds atomic.Int64
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "find" {
			finds.Add(1)
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	mdb := storetest.MustOpenDB(t)
	db := buckets.NewDB(client.Database(mdb.Name()))
	b, err := db.SetLifecycle(ctx, "fs", []buckets.Rule{{KeepRevisions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	insertRevisions(t, b, 200, 8)
	finds.Store(0)
	page, err := b.Find(ctx, buckets.Query{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Files) != 200 {
		t.Errorf("listing shows %d files, want 200 (one revision of each name)", len(page.Files))
	}
	if n := finds.Load(); n > 3 {
		t.Errorf("a listing of 200 names sent %d find commands, want at most 3", n)
	}
	// A folder listing (S3's delimiter, WebDAV's PROPFIND) likewise.
	finds.Store(0)
	listed := 0
	err = b.EachInFolder(ctx, "a/", "/", func(f *buckets.File, folder string) error {
		listed++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if listed != 67 {
		t.Errorf("folder a/ lists %d files, want 67", listed)
	}
	if n := finds.Load(); n > 3 {
		t.Errorf("a folder listing of 67 names sent %d find commands, want at most 3", n)
	}
}
