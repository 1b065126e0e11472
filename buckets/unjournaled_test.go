package buckets_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// writeLog records the writes a client sends, in the order they start and
// succeed.
type writeLog struct {
	mu     sync.Mutex
	events []writeEvent
}

type writeEvent struct {
	id          int64 // the command's request id
	done        bool  // succeeded, else started
	unjournaled bool  // write concern j: false
	what        string
}

func (l *writeLog) monitor() *event.CommandMonitor {
	started := map[int64]writeEvent{}
	return &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			switch e.CommandName {
			case "insert", "update", "delete", "findAndModify":
			default:
				return
			}
			j, err := e.Command.LookupErr("writeConcern", "j")
			ev := writeEvent{id: e.RequestID, unjournaled: err == nil && !j.Boolean(),
				what: fmt.Sprintf("%s %s", e.CommandName, e.Command.Lookup(e.CommandName).StringValue())}
			l.mu.Lock()
			started[e.RequestID] = ev
			l.events = append(l.events, ev)
			l.mu.Unlock()
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			l.mu.Lock()
			if ev, ok := started[e.RequestID]; ok {
				ev.done = true
				l.events = append(l.events, ev)
			}
			l.mu.Unlock()
		},
	}
}

// take returns the events since the last take.
func (l *writeLog) take() []writeEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	evs := l.events
	l.events = nil
	return evs
}

// checkCovered fails unless some chunks went unjournaled and a journaled
// write started after the last of them succeeded: the write whose sync
// makes them durable before the operation reports them stored.
func checkCovered(t *testing.T, op string, evs []writeEvent) {
	t.Helper()
	lastUnjournaled := -1
	for i, ev := range evs {
		if ev.unjournaled && ev.done {
			lastUnjournaled = i
		}
	}
	if lastUnjournaled < 0 {
		t.Errorf("%s: no chunks inserted unjournaled: %v", op, evs)
		return
	}
	for _, ev := range evs[lastUnjournaled+1:] {
		if !ev.unjournaled && !ev.done {
			return
		}
	}
	t.Errorf("%s: no journaled write after the last unjournaled insert: %v", op, evs)
}

// TestUnjournaledChunksAreCovered: on a store whose durability is ordered
// (the embedded store says so in buildInfo), every door's uploads (a PUT,
// an S3 part, a resumable upload's appends, middle and last) insert chunks
// with j: false and follow them with a journaled write before they return;
// on any other (MongoDB, GRIDFSD_TEST_URI), no write is unjournaled.
func TestUnjournaledChunksAreCovered(t *testing.T) {
	ctx := context.Background()
	var log writeLog
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(log.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(ctx) })
	db := client.Database(storetest.DBName())
	t.Cleanup(func() { db.Drop(ctx) })

	info, err := db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	on := info.Lookup("gridfsdOrderedDurability").Type == bson.TypeBoolean && info.Lookup("gridfsdOrderedDurability").Boolean()
	if os.Getenv("GRIDFSD_TEST_URI") == "" && !on {
		t.Fatal("the embedded store does not say its durability is ordered")
	}

	const cs = 1 << 10
	data := randomBytes(20*cs + 17)
	b, err := buckets.NewDB(db).Bucket(ctx, "unjournaled")
	if err != nil {
		t.Fatal(err)
	}
	check := func(op string) {
		t.Helper()
		evs := log.take()
		if on {
			checkCovered(t, op, evs)
			return
		}
		for _, ev := range evs {
			if ev.unjournaled {
				t.Errorf("%s on a store whose durability is not ordered: %s unjournaled", op, ev.what)
			}
		}
	}

	log.take()
	if _, err := b.Upload(ctx, "put", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: cs}); err != nil {
		t.Fatal(err)
	}
	check("upload")

	mu, err := b.CreateMultipart(ctx, "multipart", buckets.UploadOptions{ChunkSize: cs})
	if err != nil {
		t.Fatal(err)
	}
	log.take()
	p, err := b.OpenPart(ctx, mu.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	check("upload part")

	rec, err := b.CreateResumable(ctx, buckets.ResumableOptions{Filename: "tus", Length: int64(2 * len(data)), ChunkSize: cs, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range []string{"middle append", "last append"} {
		log.take()
		if _, err := appendTo(ctx, b, rec.ID, int64(i*len(data)), bytes.NewReader(data), buckets.AppendOptions{Expect: -1}); err != nil {
			t.Fatal(err)
		}
		check(op)
	}
	readBack(t, b, rec.FileID)
}
