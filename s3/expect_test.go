package s3_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// TestExpectContinueRefusal: a PUT that waits for "100 Continue" and is
// refused before its body is read gets its reply without sending the body
// (issue 26: s3/server.go replaced the request's body in place, so the
// server waited to discard a body the client never sends; a raw client
// waited 150 s, SDKs 1 s and then sent the whole body for nothing).
func TestExpectContinueRefusal(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/public", nil)
	for path, want := range map[string]int{"/public/anonymous": http.StatusForbidden, "/nosuchbucket/x": http.StatusNotFound} {
		conn, err := net.Dial("tcp", e.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 10485760\r\nExpect: 100-continue\r\n\r\n", path, e.ln.Addr())
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: no reply without the body: %v", path, err)
		}
		res.Body.Close()
		conn.Close()
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}
