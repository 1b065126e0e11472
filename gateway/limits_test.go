package gateway_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// serveEnv runs a gateway through Server.Serve on a loopback port, so that
// the http.Server settings (TLS, header limits, timeouts) apply.
func serveEnv(t *testing.T, cfg gateway.Config) (*env, net.Listener) {
	t.Helper()
	cfg.DB = buckets.NewDB(storetest.MustOpenDB(t))
	srv, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	scheme := "http"
	if cfg.TLSCertFile != "" {
		scheme = "https"
	}
	return &env{t: t, db: cfg.DB, srv: srv, url: scheme + "://" + ln.Addr().String()}, ln
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gridfsd test"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	e, ln := serveEnv(t, gateway.Config{TLSCertFile: certFile, TLSKeyFile: keyFile})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()

	req, _ := http.NewRequest("PUT", e.url+"/b/fs/secure", strings.NewReader("over tls"))
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 || res.TLS == nil {
		t.Fatalf("PUT over TLS: %d, tls %v", res.StatusCode, res.TLS != nil)
	}
	res, err = client.Get(e.url + "/b/fs/secure")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "over tls" {
		t.Fatalf("GET over TLS: %d %q", res.StatusCode, body)
	}

	// Plain HTTP to the TLS port is refused, never served.
	res, err = http.Get("http://" + ln.Addr().String() + "/b/fs/secure")
	if err == nil {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || strings.Contains(string(body), "over tls") {
			t.Errorf("plain HTTP to the TLS port: %d %q", res.StatusCode, body)
		}
	}
	// A client that does not trust the certificate fails the handshake.
	if _, err := http.Get(e.url + "/healthz"); err == nil {
		t.Error("an untrusted certificate was accepted")
	}

	// Bad configurations fail at New, not at the first handshake.
	db := e.db
	for _, cfg := range []gateway.Config{
		{DB: db, TLSCertFile: certFile},
		{DB: db, TLSCertFile: filepath.Join(t.TempDir(), "missing.pem"), TLSKeyFile: keyFile},
		{DB: db, TLSCertFile: keyFile, TLSKeyFile: certFile},
	} {
		if _, err := gateway.New(cfg); err == nil {
			t.Errorf("New accepted cert %q key %q", cfg.TLSCertFile, cfg.TLSKeyFile)
		}
	}
}

func TestCORS(t *testing.T) {
	authz, err := auth.New(testAuthConfig())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, gateway.Config{CORSOrigins: []string{"https://app.example"}, Auth: authz})
	e.put("/b/media/x", "cors", bearer(writerSecret))

	preflight := map[string]string{
		"Origin":                         "https://app.example",
		"Access-Control-Request-Method":  "PUT",
		"Access-Control-Request-Headers": "authorization, x-meta-owner, if-match, content-md5, repr-digest, x-gridfs-metadata, range, x-evil",
	}
	res, body := e.do("OPTIONS", "/b/media/x", preflight, "")
	if res.StatusCode != 204 {
		t.Fatalf("preflight: %d %s", res.StatusCode, body)
	}
	h := res.Header
	if got := h.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Errorf("Allow-Origin %q", got)
	}
	if got := h.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "PUT") || !strings.Contains(got, "PATCH") {
		t.Errorf("Allow-Methods %q", got)
	}
	allowed := h.Get("Access-Control-Allow-Headers")
	for _, want := range []string{"authorization", "x-meta-owner", "if-match", "content-md5", "repr-digest", "x-gridfs-metadata", "range"} {
		if !strings.Contains(allowed, want) {
			t.Errorf("Allow-Headers %q lacks %s", allowed, want)
		}
	}
	if strings.Contains(allowed, "x-evil") {
		t.Errorf("Allow-Headers %q allows x-evil", allowed)
	}
	if !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Errorf("Vary %q", h.Values("Vary"))
	}

	// The actual request: headers a browser script may read.
	res, body = e.do("GET", "/b/media/x", map[string]string{"Origin": "https://app.example", "Authorization": "Bearer " + readerSecret, "Range": "bytes=0-1"}, "")
	if res.StatusCode != 206 || string(body) != "co" {
		t.Fatalf("CORS GET: %d %q", res.StatusCode, body)
	}
	exposed := res.Header.Get("Access-Control-Expose-Headers")
	for _, want := range []string{"ETag", "Content-Range", "X-Gridfs-Id", "Location", "X-Gridfs-Metadata"} {
		if !strings.Contains(exposed, want) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, want)
		}
	}
	// Errors carry the CORS headers too, or the browser hides them.
	res, _ = e.do("GET", "/b/media/x", map[string]string{"Origin": "https://app.example"}, "")
	if res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("401 to an allowed origin: %d, Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}

	// Another origin gets no CORS headers, so the browser refuses (echo
	// still answers OPTIONS itself with 204 and Allow).
	res, _ = e.do("OPTIONS", "/b/media/x", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"}, "")
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" || res.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("other origin's preflight: %d, Allow-Origin %q", res.StatusCode, got)
	}

	// "*" allows any origin, without credentials.
	anyOrigin := newEnv(t, gateway.Config{CORSOrigins: []string{"*"}})
	res, _ = anyOrigin.do("OPTIONS", "/b/fs/x", map[string]string{"Origin": "https://anywhere.example", "Access-Control-Request-Method": "GET"}, "")
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("wildcard preflight: %d %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	// Without configured origins, nothing changes.
	none := newEnv(t, gateway.Config{})
	res, _ = none.do("GET", "/healthz", map[string]string{"Origin": "https://app.example"}, "")
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers without cors.origins")
	}
}

func TestMaxConcurrentUploads(t *testing.T) {
	e, ln := serveEnv(t, gateway.Config{})
	if err := e.db.SetLimits(buckets.Limits{MaxConcurrentUploads: 1}); err != nil {
		t.Fatal(err)
	}
	// An upload that sends half its body and stalls holds the one slot.
	var stalled net.Conn
	stall := func() {
		if stalled != nil {
			stalled.Close()
		}
		var err error
		if stalled, err = net.Dial("tcp", ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(stalled, "PUT /b/fs/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
	}
	stall()
	defer func() { stalled.Close() }()

	var res *http.Response
	var body []byte
	waitFor(t, "a 503 while the slow upload runs", func() bool {
		res, body = e.do("PUT", "/b/fs/other", nil, "x")
		if res.StatusCode == http.StatusCreated {
			// This upload reached the server before the stalled one,
			// which was refused: stall another.
			stall()
		}
		return res.StatusCode == http.StatusServiceUnavailable
	})
	checkError(t, res, body, "too_many_uploads")
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	// Reads are not limited.
	if res, _ := e.do("GET", "/b/fs/", nil, ""); res.StatusCode != 200 {
		t.Errorf("listing during the upload: %d", res.StatusCode)
	}
	stalled.Write([]byte("world"))
	r, err := http.ReadResponse(bufio.NewReader(stalled), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 201 {
		t.Fatalf("slow upload: %d", r.StatusCode)
	}
	e.put("/b/fs/after", "free again", nil)
	if e.metric("gridfsd_uploads_refused_total") < 1 {
		t.Error("refused uploads not counted")
	}
}

func TestMaxHeaderBytes(t *testing.T) {
	e, _ := serveEnv(t, gateway.Config{MaxHeaderBytes: 4096})
	// net/http allows 4 KiB of slack above MaxHeaderBytes.
	res, _ := e.do("PUT", "/b/fs/x", map[string]string{"X-Meta-Big": strings.Repeat("a", 16<<10)}, "x")
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB header: %d, want 431", res.StatusCode)
	}
	e.mustBeEmpty("fs")
	e.put("/b/fs/x", "small headers", map[string]string{"X-Meta-Small": "a"})
}

func TestRequestTimeout(t *testing.T) {
	// A timeout that has always passed: every non-streaming route that
	// touches the store fails, uploads and downloads are not bounded.
	e := newEnv(t, gateway.Config{RequestTimeout: time.Nanosecond})
	e.put("/b/fs/x", "streams are not bounded", nil)
	e.run([]httpTest{
		{name: "download", method: "GET", path: "/b/fs/x", code: 200, resBody: str("streams are not bounded")},
		{name: "buckets", method: "GET", path: "/buckets", code: 503, errCode: "timeout", resHeader: map[string]string{"Retry-After": "2"}},
		{name: "listing", method: "GET", path: "/b/fs/", code: 503, errCode: "timeout"},
		{name: "delete", method: "DELETE", path: "/b/fs/x", code: 503, errCode: "timeout"},
		{name: "healthz", method: "GET", path: "/healthz", code: 200},
	})
	if files, _ := e.counts("fs"); files != 1 {
		t.Errorf("%d files after the timed-out delete, want 1", files)
	}
}

// TestSlowLoris: a client that trickles its headers is cut at
// ReadHeaderTimeout, and other clients are served meanwhile.
func TestSlowLoris(t *testing.T) {
	e, ln := serveEnv(t, gateway.Config{ReadHeaderTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, conn) // returns when the server closes the connection
		close(closed)
	}()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	served := 0
	for i := 0; i < 200; i++ { // at most 200 * 50ms = 10s of trickling
		select {
		case <-closed:
			if served == 0 {
				t.Error("no other request was served while the slow client held its connection")
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		conn.Write([]byte(fmt.Sprintf("X-Trickle-%d: a\r\n", i)))
		if res, _ := e.do("GET", "/healthz", nil, ""); res.StatusCode == 200 {
			served++
		}
	}
	t.Fatal("the server kept a connection that trickled headers for 10s")
}
