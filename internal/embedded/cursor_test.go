package embedded

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestCursorsOutliveConnections reads one file through GridFS from 8
// goroutines sharing a client with a small pool, 20 rounds each, while half
// of them give up mid-file (as a video player abandons a range): the driver
// then closes the connection it was reading on. A cursor belongs to no
// connection in MongoDB, and the driver sends a getMore on whichever pooled
// connection is free, so closing a connection must not close or cancel the
// cursors other readers created on it.
func TestCursorsOutliveConnections(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetMaxPoolSize(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	b := c.Database("test").GridFSBucket(options.GridFSBucket().SetChunkSizeBytes(4096))
	data := make([]byte, 600*4096) // past the first batch of 101 chunks: getMores
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	id, err := b.UploadFromStream(context.Background(), "f", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				if g%2 == 1 {
					// give up after a few chunks, while the driver reads a batch
					ctx, cancel := context.WithCancel(context.Background())
					ds, err := b.OpenDownloadStream(ctx, id)
					if err == nil {
						io.CopyN(io.Discard, ds, int64(4096*(110+round)))
						go func() { time.Sleep(time.Duration(round%3) * time.Millisecond); cancel() }()
						io.Copy(io.Discard, ds)
						ds.Close()
					}
					cancel()
					continue
				}
				ds, err := b.OpenDownloadStream(context.Background(), id)
				if err != nil {
					errs <- fmt.Errorf("reader %d round %d: open: %w", g, round, err)
					return
				}
				got, err := io.ReadAll(ds)
				ds.Close()
				if err != nil {
					errs <- fmt.Errorf("reader %d round %d: %w", g, round, err)
					return
				}
				if !bytes.Equal(got, data) {
					errs <- fmt.Errorf("reader %d round %d: %d bytes differ from the %d written", g, round, len(got), len(data))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

}
