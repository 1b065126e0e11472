package gateway_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request refused before its body is read gets its reply at once even
// when the client waits for "100 Continue" before sending the body (curl,
// litmus, .NET and the Windows WebDAV client do). The gateway used to
// replace the body of the server's own request, so the server no longer
// knew that the 100 was never sent and waited to discard a body the
// client would never send: both hung.
func TestRefusalWithoutContinueIsAnswered(t *testing.T) {
	e, _ := newAuthEnv(t, testAuthConfig())
	host := strings.TrimPrefix(e.url, "http://")
	for _, path := range []string{"/b/private/x", "/b/private/"} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := "PUT " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n"
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		// Long enough for any machine; the hang it catches is forever.
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("PUT %s with Expect: 100-continue and no credential: no reply: %v", path, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("PUT %s: %d, want 401", path, res.StatusCode)
		}
	}
}
