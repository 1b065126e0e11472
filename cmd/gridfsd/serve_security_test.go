package main

import (
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

	"github.com/gridfsd/gridfsd/internal/storetest"
)

// testCert writes a self-signed certificate for 127.0.0.1 and its key.
func testCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gridfsd"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeSecurity runs serve with a configuration file that sets tokens,
// a signing key, TLS, CORS, limits and the sweeper, and checks that each
// reaches the gateway.
func TestServeSecurity(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := testCert(t, dir)
	db := storetest.MustOpenDB(t)
	httpAddr := freeAddr(t)
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	os.WriteFile(cfgFile, []byte(fmt.Sprintf(`
tls:
  cert: %s
  key: %s
cors:
  origins: ["https://app.example"]
auth:
  tokens:
    - name: writer
      secret: "writer-secret-0123456789"
      buckets: ["fs"]
      access: write
  signing_key: "signing-key-0123456789abcdef"
`, certFile, keyFile)), 0o600)

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	base := "https://" + httpAddr
	do := func(method, path, token, body string, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b)
	}
	srv := startServe(t, client, base, "serve", "--config", cfgFile, "--uri", storetest.URI(t), "--db", db.Name(), "--listen", httpAddr,
		"--max-concurrent-uploads", "4", "--request-timeout", "30s", "--sweep-interval", "1h", "--sweep-grace", "2h",
		"--max-header-bytes", "8KiB")
	logs, done, cancel := srv.logs, srv.done, srv.cancel

	if res, _ := do("PUT", "/b/fs/x", "", "data"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("PUT without a token: %d", res.StatusCode)
	}
	if res, body := do("PUT", "/b/fs/x", "writer-secret-0123456789", "data"); res.StatusCode != http.StatusCreated {
		t.Fatalf("PUT with a token: %d %s", res.StatusCode, body)
	}
	res, body := do("POST", "/sign", "writer-secret-0123456789", `{"method":"GET","path":"/b/fs/x"}`)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /sign: %d %s", res.StatusCode, body)
	}
	res, _ = do("OPTIONS", "/b/fs/x", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
	}
	if res, _ := do("GET", "/healthz", "", "", "X-Big", strings.Repeat("a", 16<<10)); res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers with --max-header-bytes 8KiB: %d", res.StatusCode)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	for _, want := range []string{"https://" + httpAddr, "Access control   on: 1 token(s); signed URLs accepted\n", "orphan sweeper started", "interval=1h0m0s", "grace=2h0m0s"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

// TestServeSecurityConfigErrors: bad security settings stop serve before
// it serves anything, naming the key.
func TestServeSecurityConfigErrors(t *testing.T) {
	dir := t.TempDir()
	certFile, _, _ := testCert(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls.cert", certFile}, "tls.cert"},
		{[]string{"--tls.cert", filepath.Join(dir, "nope.pem"), "--tls.key", filepath.Join(dir, "nope.key")}, "TLS certificate"},
		{[]string{"--max-header-bytes", "10"}, "max-header-bytes"},
		{[]string{"--max-concurrent-uploads", "-1"}, "max-concurrent-uploads"},
		{[]string{"--request-timeout", "soon"}, "request-timeout"},
		{[]string{"--sweep-interval", "-1s"}, "sweep-interval"},
		{[]string{"--sweep-grace", "never"}, "sweep-grace"},
	} {
		root := newRootCommand()
		root.SetArgs(append([]string{"serve", "--uri", storetest.URI(t), "--listen", freeAddr(t)}, c.args...))
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := root.ExecuteContext(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.args, err, c.want)
		}
	}
}
