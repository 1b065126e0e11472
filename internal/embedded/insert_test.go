package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// insertMessage is an OP_MSG as the Go driver sends an InsertMany of chunks into test.fs.chunks:
// the command, then the documents in a kind 1 section.
func insertMessage(t testing.TB, id int32, docs ...bson.D) []byte {
	t.Helper()
	cmd, err := bson.Marshal(bson.D{{Key: "insert", Value: "fs.chunks"}, {Key: "ordered", Value: true}, {Key: "$db", Value: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	var seq []byte
	for _, d := range docs {
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, b...)
	}
	body := binary.LittleEndian.AppendUint32(nil, 0) // flags
	body = append(append(body, 0), cmd...)
	body = append(body, 1)
	body = binary.LittleEndian.AppendUint32(body, uint32(4+len("documents\x00")+len(seq)))
	body = append(append(body, "documents\x00"...), seq...)
	msg := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	msg = binary.LittleEndian.AppendUint32(msg, uint32(id))
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = binary.LittleEndian.AppendUint32(msg, 2013) // OP_MSG
	return append(msg, body...)
}

// roundTrip sends an insert message on conn and checks its reply: ok, n inserted.
func roundTrip(conn net.Conn, msg []byte, n int32) error {
	if _, err := conn.Write(msg); err != nil {
		return err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return err
	}
	reply := make([]byte, binary.LittleEndian.Uint32(size[:])-4)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return err
	}
	doc := bson.Raw(reply[12+4+1:])
	if ok, _ := doc.Lookup("ok").DoubleOK(); ok != 1 {
		return fmt.Errorf("reply %v", doc)
	}
	if got, _ := doc.Lookup("n").Int32OK(); got != n {
		return fmt.Errorf("reply %v, want n %d", doc, n)
	}
	return nil
}

// TestInsertsRecycleMessages: the store reads large inserts into recycled buffers and decodes
// their binary data in place (FerretDB fork items 40 and 41), so an insert of four 255 KiB
// chunks, as gridfsd's uploads send them, allocates a small part of its size: 2.1 MB each
// before item 40 (the message, and a copy of every chunk), 1.1 MB before item 41 (the message),
// which made the collector of the store run every few inserts. Recycling must never give a
// message's memory to another before the first is written: every chunk of inserts made at once
// on several connections reads back as sent (race builds overwrite a buffer given back, so a
// use after it would show).
func TestInsertsRecycleMessages(t *testing.T) {
	ctx := context.Background()
	s, chunks := chunksCollection(t, true)
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URI(), "mongodb://"), "/")

	const size, perInsert = 255 << 10, 4
	chunk := func(files, n int) []byte {
		b := bytes.Repeat([]byte{byte(files), byte(n), byte(n >> 8)}, size/3+1)
		return b[:size]
	}
	// messages are the inserts of files' chunks, each file's on a connection of its own
	messages := func(files, inserts int) [][][]byte {
		all := make([][][]byte, files)
		for f := range files {
			for i := range inserts {
				var docs []bson.D
				for j := range perInsert {
					n := i*perInsert + j
					docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "files_id", Value: int32(f)}, {Key: "n", Value: int32(n)}, {Key: "data", Value: chunk(f, n)}})
				}
				all[f] = append(all[f], insertMessage(t, int32(i+1), docs...))
			}
		}
		return all
	}

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const inserts = 32
	one := messages(1, inserts)[0]
	for _, m := range one[:4] { // warm: the collection, the prepared statement, the pool
		if err := roundTrip(conn, m, perInsert); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, m := range one[4:] {
		if err := roundTrip(conn, m, perInsert); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / (inserts - 4)
	t.Logf("%d bytes allocated per insert of %d bytes", per, len(one[4]))
	if per > 256<<10 && !raceEnabled {
		t.Errorf("an insert of %d bytes of chunks allocated %d bytes, want its buffer recycled and its data uncopied", len(one[4]), per)
	}

	// five connections at once, files 1-5, then every chunk of files 0-5 read back
	const files = 6
	all := messages(files, 16)
	var wg sync.WaitGroup
	errs := make(chan error, files)
	for f := 1; f < files; f++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for _, m := range all[f] {
				if err := roundTrip(c, m, perInsert); err != nil {
					errs <- fmt.Errorf("file %d: %w", f, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for f := range files {
		want := 16 * perInsert
		if f == 0 {
			want = inserts * perInsert
		}
		cur, err := chunks.Find(ctx, bson.D{{Key: "files_id", Value: int32(f)}}, options.Find().SetSort(bson.D{{Key: "n", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for ; cur.Next(ctx); n++ {
			_, data, _ := cur.Current.Lookup("data").BinaryOK()
			if got, _ := cur.Current.Lookup("n").Int32OK(); got != int32(n) || !bytes.Equal(data, chunk(f, n)) {
				t.Fatalf("file %d chunk %d: n %d, %d bytes, not what was sent", f, n, got, len(data))
			}
		}
		if err := cur.Err(); err != nil || n != want {
			t.Fatalf("file %d: %d chunks, %v; want %d", f, n, err, want)
		}
	}
}
