package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// TestGracefulShutdown cancels Serve's context with two uploads in flight:
// the one that completes within the shutdown timeout is stored, the one
// that does not is cut and leaves nothing behind.
func TestGracefulShutdown(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	srv, err := gateway.New(gateway.Config{DB: db, ShutdownTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	e := &env{t: t, db: db, srv: srv, url: "http://" + ln.Addr().String()}

	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// The stalled upload: more than one insert batch, then nothing.
	const chunkSize = 256 << 10
	stalled := dial()
	fmt.Fprintf(stalled, "PUT /b/fs/stalled?chunkSize=%d HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", chunkSize, 4<<20)
	part := []byte(pattern(chunkSize))
	for range 6 {
		stalled.Write(part)
	}
	waitFor(t, "chunks of the stalled upload", func() bool { _, c := e.counts("fs"); return c > 0 })

	// The upload that finishes during the shutdown.
	finishing := dial()
	fmt.Fprintf(finishing, "PUT /b/fs/finishing HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
	time.Sleep(100 * time.Millisecond) // let the server start reading it

	cancel()
	time.Sleep(100 * time.Millisecond)
	fmt.Fprintf(finishing, "world")
	res, err := http.ReadResponse(bufio.NewReader(finishing), nil)
	if err != nil {
		t.Fatalf("in-flight upload: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("in-flight upload: %d", res.StatusCode)
	}

	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return")
	}
	// Serve returns after every handler did, aborts included.
	files, chunks := e.counts("fs")
	if files != 1 || chunks != 1 {
		t.Errorf("%d files and %d chunks after shutdown, want the finished upload's 1 and 1", files, chunks)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("still accepting connections after Serve returned")
	}
}
