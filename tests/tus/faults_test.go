package tus

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// rawPatch starts a PATCH of length bytes at off on a raw connection and
// sends the first part of body; the caller sends more, closes the
// connection, or reads the reply.
func rawPatch(t *testing.T, s *server, path string, off, length int, first []byte) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "PATCH %s HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\nUpload-Offset: %d\r\nContent-Length: %d\r\n\r\n", path, off, length)
	if _, err := conn.Write(first); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestAlternatingGateways sends the PATCHes of one upload to two gateways
// in turn, at sizes that end inside chunks: each continues the short last
// chunk the other stored.
func TestAlternatingGateways(t *testing.T) {
	db := storetest.MustOpenDB(t)
	a, b := serve(t, db.Name()), serve(t, db.Name())
	data := content(3<<20+11, 7)
	loc := create(t, a, "alternating", len(data))
	off := 0
	for i, n := range []int{1, chunk - 2, 1, 700001, chunk, 5, 1 << 20} {
		s := []*server{a, b}[i%2]
		patch(t, s, loc, off, data[off:off+n])
		off += n
	}
	res := patch(t, b, loc, off, data[off:])
	if res.Header.Get("X-Gridfs-Id") == "" {
		t.Fatal("the last PATCH has no X-Gridfs-Id")
	}
	checkFile(t, a, "alternating", data)
	if n := offset(t, a, loc); n != len(data) {
		t.Fatalf("HEAD on the other gateway after the end: %d", n)
	}
}

// TestCutConnection: a client gone in the middle of a PATCH keeps what
// arrived; it resumes from there.
func TestCutConnection(t *testing.T) {
	db := storetest.MustOpenDB(t)
	s := serve(t, db.Name())
	data := content(2<<20, 8)
	loc := create(t, s, "cut", len(data))
	sent := 1<<20 + 12345
	conn := rawPatch(t, s, loc, 0, len(data), data[:sent])
	time.Sleep(300 * time.Millisecond)
	conn.Close()
	waitFor(t, "the cut PATCH's bytes to be stored", 20*time.Second, func() bool { return offset(t, s, loc) == sent })
	patch(t, s, loc, sent, data[sent:])
	checkFile(t, s, "cut", data)
}

// TestKilledGateway: a gateway killed (SIGKILL) in the middle of a long
// PATCH; the client resumes through a second gateway on the same store,
// which takes the dead gateway's lock over once its lease ends. The PATCH
// recorded its offset as its chunks were stored (every
// buckets.ResumableProgress bytes), so the second gateway answers more
// than the first PATCH's end and only the rest is sent again.
func TestKilledGateway(t *testing.T) {
	db := storetest.MustOpenDB(t)
	a, b := serve(t, db.Name()), serve(t, db.Name())
	data := content(buckets.ResumableProgress+8<<20+3, 9)
	loc := create(t, a, "killed", len(data))
	first := 1<<20 + 7 // ends inside a chunk
	patch(t, a, loc, 0, data[:first])
	sent := buckets.ResumableProgress + 4<<20
	rawPatch(t, a, loc, first, len(data)-first, data[first:first+sent])
	_, id := path.Split(loc)
	waitFor(t, "the long PATCH to record its progress", 60*time.Second, func() bool { return recordedOffset(t, db, id) > int64(first) })
	a.kill(t)
	start := time.Now()
	off := offset(t, b, loc)
	t.Logf("HEAD through the second gateway: offset %d after %s (%d bytes of the cut PATCH kept)", off, time.Since(start).Round(time.Millisecond), off-first)
	if off <= first || off > first+sent || off%chunk != 0 {
		t.Fatalf("offset %d after the kill: want a chunk boundary past %d, at most %d", off, first, first+sent)
	}
	patch(t, b, loc, off, data[off:])
	checkFile(t, b, "killed", data)
}

// recordedOffset is the offset the record of upload id holds in the store.
func recordedOffset(t *testing.T, db *mongo.Database, id string) int64 {
	t.Helper()
	var rec struct {
		Offset int64 `bson:"offset"`
	}
	if err := db.Collection("fs"+buckets.ResumableSuffix).FindOne(context.Background(), bson.D{{Key: "_id", Value: id}}).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	return rec.Offset
}

// TestConcurrentPatches: while one client's PATCH streams on one gateway,
// a second client PATCHes the same upload at the same offset on another.
// The first is asked to let go and keeps what it stored; the second is
// refused (409 or 423); the stored bytes are the first client's only.
func TestConcurrentPatches(t *testing.T) {
	db := storetest.MustOpenDB(t)
	a, b := serve(t, db.Name()), serve(t, db.Name())
	one, two := content(2<<20, 10), content(2<<20, 11)
	loc := create(t, a, "contended", len(one))
	conn := rawPatch(t, a, loc, 0, len(one), one[:1<<20+99])
	time.Sleep(500 * time.Millisecond)
	res := tusReq(t, http.MethodPatch, b.url(loc), two, "Upload-Offset", "0")
	if res.StatusCode != http.StatusConflict && res.StatusCode != http.StatusLocked {
		t.Fatalf("second writer: %d", res.StatusCode)
	}
	// The first writer's request was ended for the second.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	reply, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("first writer's reply: %v", err)
	}
	t.Logf("first writer: %d, offset %s", reply.StatusCode, reply.Header.Get("Upload-Offset"))
	off := offset(t, b, loc)
	if off != 1<<20+99 {
		t.Fatalf("offset %d, want what the first writer sent (%d)", off, 1<<20+99)
	}
	patch(t, b, loc, off, one[off:])
	checkFile(t, a, "contended", one)
	_ = strconv.Itoa
}
