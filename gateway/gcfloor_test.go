package gateway_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/gcfloor"
)

// TestDownloadHoldsGCFloor: a GET holds the download's garbage-collector
// floor while it sends the file, and gives it back when it is done; an
// upload holds none.
func TestDownloadHoldsGCFloor(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	// larger than the sockets between hold: the handler is still sending
	content := pattern(16 << 20)
	before := gcfloor.Held()
	e.put("/b/fs/big", content, nil)
	if n := gcfloor.Held(); n != before {
		t.Errorf("%d floors held after an upload, want %d", n, before)
	}
	res, err := http.Get(e.url + "/b/fs/big")
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 1024)
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatal(err)
	}
	if n := gcfloor.Held(); n != before+1 {
		t.Errorf("%d floors held while a GET sends, want %d", n, before+1)
	}
	rest, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(first)+string(rest) != content {
		t.Fatalf("read %d bytes, %v", len(first)+len(rest), err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcfloor.Held() != before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := gcfloor.Held(); n != before {
		t.Errorf("%d floors held after the GET, want %d", n, before)
	}
}
