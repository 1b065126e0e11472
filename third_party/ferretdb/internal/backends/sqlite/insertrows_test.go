// gridfsd patch (PATCHES.md item 42): one INSERT per document.

package sqlite

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// statements records the SQL texts the backend logs before running them.
type statements struct {
	mu    sync.Mutex
	texts []string
}

func (s *statements) Enabled(context.Context, slog.Level) bool { return true }
func (s *statements) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *statements) WithGroup(string) slog.Handler            { return s }
func (s *statements) Handle(_ context.Context, r slog.Record) error {
	if q, ok := strings.CutPrefix(r.Message, ">>> "); ok {
		s.mu.Lock()
		s.texts = append(s.texts, q)
		s.mu.Unlock()
	}
	return nil
}

func (s *statements) inserts() (n int, rows []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.texts {
		if strings.HasPrefix(q, "INSERT INTO") {
			rows = append(rows, strings.Count(q, "?, ?)")+strings.Count(q, "|| '', ?)"))
		}
	}
	s.texts = nil
	return len(rows), rows
}

// TestInsertsKeepNoStatementJournal: a batch of documents is inserted one row per INSERT
// statement, inside one transaction. An INSERT of several rows may fail after writing some, so
// SQLite keeps a statement journal for it inside a transaction: a copy of every page it changes
// that existed before it (32 KiB each, the free pages reused for the chunks' data too), spilled
// to a temporary file past 64 KiB. It fails before the change (one INSERT of three rows). A
// duplicate key still fails the whole batch and leaves none of it.
func TestInsertsKeepNoStatementJournal(t *testing.T) {
	sp := must.NotFail(state.NewProvider(""))
	log := new(statements)
	b := must.NotFail(NewBackend(&NewBackendParams{URI: "file:" + t.TempDir() + "/", L: slog.New(log), P: sp, BatchSize: 100}))
	t.Cleanup(b.Close)
	ctx := context.Background()
	db := must.NotFail(b.Database("x"))
	must.NoError(db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}))
	c := must.NotFail(db.Collection("c"))
	_, err := c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "files_id_1_n_1", Unique: true, Key: []backends.IndexKeyPair{{Field: "files_id"}, {Field: "n"}}},
	}})
	must.NoError(err)

	docs := chunkDocs(3)
	log.inserts()
	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
	must.NoError(err)
	if n, rows := log.inserts(); n != len(docs) {
		t.Errorf("%d INSERT statements of %v rows for %d documents, want one row each", n, rows, len(docs))
	}

	// the third document takes the first one's key: nothing of the batch is stored
	files, _ := docs[0].Get("files_id")
	dup := must.NotFail(types.NewDocument("_id", types.NewObjectID(), "files_id", files, "n", int32(0)))
	batch := []*types.Document{
		must.NotFail(types.NewDocument("_id", types.NewObjectID(), "files_id", files, "n", int32(100))),
		must.NotFail(types.NewDocument("_id", types.NewObjectID(), "files_id", files, "n", int32(101))),
		dup,
	}
	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: batch})
	if !backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID) {
		t.Fatalf("a batch with a duplicate key: %v", err)
	}
	res, err := c.Query(ctx, nil)
	must.NoError(err)
	defer res.Iter.Close()
	count := 0
	for {
		if _, _, err := res.Iter.Next(); err != nil {
			break
		}
		count++
	}
	if count != len(docs) {
		t.Errorf("%d documents after a failed batch, want the %d before it", count, len(docs))
	}
}
