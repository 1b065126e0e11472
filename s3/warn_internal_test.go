package s3

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// addrListener is a listener that says it listens on addr.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }

// TestWarnIfOpen: the S3 port warns when it listens beyond loopback with
// access control off, as the HTTP gateway does (before, it said nothing,
// though the Dockerfile publishes it).
func TestWarnIfOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		ip   string
		ac   auth.Config
		warn bool
	}{
		{"open, every interface", "0.0.0.0", auth.Config{}, true},
		{"open, loopback", "127.0.0.1", auth.Config{}, false},
		{"tokens, every interface", "0.0.0.0", auth.Config{Tokens: []auth.Token{{Name: "a", Secret: "0123456789abcdef0", Buckets: []string{"*"}, Access: auth.Admin}}}, false},
	} {
		var logs bytes.Buffer
		a, err := auth.New(tc.ac)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Config{DB: buckets.NewDB(storetest.MustOpenDB(t)), Auth: a, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		s.warnIfOpen(addrListener{addr: &net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 9000}})
		if got := strings.Contains(logs.String(), "ACCESS CONTROL IS OFF"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v: %s", tc.name, got, tc.warn, logs.String())
		}
	}
}
