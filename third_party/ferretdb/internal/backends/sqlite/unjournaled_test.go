// gridfsd patch (PATCHES.md item 50): inserts with write concern j: false commit without a sync.

package sqlite

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends/sqlite/metadata"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// An InsertAll marked Unjournaled commits through the database's unsynced transactions, and one
// not marked does not; both documents are stored.
func TestUnjournaledInsert(t *testing.T) {
	sp, err := state.NewProvider("")
	if err != nil {
		t.Fatal(err)
	}
	r, err := metadata.NewRegistry("file:"+t.TempDir()+"/", 100, slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler), sp, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)

	ctx := context.Background()
	c := newCollection(r, "j", "c")
	insert := func(id string, unjournaled bool) {
		doc := must.NotFail(types.NewDocument("_id", id, "data", types.Binary{B: make([]byte, 1000)}))
		if _, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{doc}, Unjournaled: unjournaled}); err != nil {
			t.Fatal(err)
		}
	}
	insert("journaled", false)
	sqlDB := r.DatabaseGetExisting(ctx, "j")
	if got := sqlDB.UnjournaledCommits(); got != 0 {
		t.Fatalf("after a journaled insert, %d unjournaled commits; want 0", got)
	}
	insert("unjournaled", true)
	if got := sqlDB.UnjournaledCommits(); got != 1 {
		t.Fatalf("after an unjournaled insert, %d unjournaled commits; want 1", got)
	}
	res, err := c.Query(ctx, new(backends.QueryParams))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Iter.Close()
	var n int
	for {
		if _, _, err := res.Iter.Next(); err != nil {
			break
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d documents stored; want 2", n)
	}
}

// An unjournaled insert that fails on a duplicate _id after inserting documents before it runs in
// the group of the unjournaled inserts before it (PATCHES.md item 60): it deletes what it inserted,
// and leaves the group's others. Without the delete, its first document stayed.
func TestUnjournaledInsertFailsAlone(t *testing.T) {
	t.Cleanup(fsql.SetGroupLinger(time.Hour)) // the inserts group however slowly they run
	sp, err := state.NewProvider("")
	if err != nil {
		t.Fatal(err)
	}
	r, err := metadata.NewRegistry("file:"+t.TempDir()+"/", 100, slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler), sp, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)

	ctx := context.Background()
	c := newCollection(r, "j", "c")
	insert := func(ids ...string) error {
		var docs []*types.Document
		for _, id := range ids {
			docs = append(docs, must.NotFail(types.NewDocument("_id", id, "data", types.Binary{B: make([]byte, 1000)})))
		}
		_, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs, Unjournaled: true})
		return err
	}
	if err := insert("a", "b"); err != nil {
		t.Fatal(err)
	}
	if err := insert("c", "d", "a"); !backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID) {
		t.Fatalf("insert of a duplicate: %v", err)
	}
	if err := insert("e"); err != nil {
		t.Fatal(err)
	}
	sqlDB := r.DatabaseGetExisting(ctx, "j")
	if got := sqlDB.UnjournaledGroups(); got != 0 {
		t.Fatalf("%d groups committed before a read; want 0 (one open)", got)
	}

	res, err := c.Query(ctx, new(backends.QueryParams))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Iter.Close()
	var ids []string
	for {
		_, doc, err := res.Iter.Next()
		if err != nil {
			break
		}
		ids = append(ids, must.NotFail(doc.Get("_id")).(string))
	}
	if got := strings.Join(ids, ","); got != "a,b,e" {
		t.Errorf("documents %s; want a,b,e", got)
	}
	if got := sqlDB.UnjournaledGroups(); got != 1 {
		t.Errorf("%d groups committed after a read; want 1", got)
	}
}
