package tus

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/internal/storetest"
)

const (
	writerSecret = "writer-secret-0123456789"
	readerSecret = "reader-secret-0123456789"
)

// TestAccess: uploads need write access to the bucket, by bearer token or
// by a signed creation URL (POST /sign, gridfsd sign) whose Location
// replies are signed for that one upload, so that a browser uploads with
// no token.
func TestAccess(t *testing.T) {
	db := storetest.MustOpenDB(t)
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "gridfsd.yaml")
	cfg := fmt.Sprintf(`auth:
  signing_key: "signing-key-0123456789abcdef"
  tokens:
    - {name: writer, secret: %q, buckets: ["fs"], access: write}
    - {name: reader, secret: %q, buckets: ["fs"], access: read}
`, writerSecret, readerSecret)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := serve(t, db.Name(), "--config", cfgFile)
	endpoint := s.url("/uploads/fs/")
	data := content(chunk+3, 12)
	file := writeTemp(t, data)

	if res := tusReq(t, http.MethodPost, endpoint, nil, "Upload-Length", "1", "Upload-Metadata", meta("filename", "x")); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", res.StatusCode)
	}
	if res := tusReq(t, http.MethodPost, endpoint, nil, "Upload-Length", "1", "Upload-Metadata", meta("filename", "x"), "Authorization", "Bearer "+readerSecret); res.StatusCode != http.StatusForbidden {
		t.Fatalf("read-only token: %d", res.StatusCode)
	}
	if _, err := node(t, endpoint, file, map[string]any{"filename": "bearer", "chunkSize": 100000, "headers": map[string]string{"Authorization": "Bearer " + writerSecret}}); err != nil {
		t.Fatal(err)
	}

	// POST /sign, then tus-js-client with no token.
	req, _ := http.NewRequest(http.MethodPost, s.url("/sign"), strings.NewReader(`{"method":"POST","path":"/uploads/fs/","expires":"10m"}`))
	req.Header.Set("Authorization", "Bearer "+writerSecret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var signed struct {
		URL string `json:"url"`
	}
	json.NewDecoder(res.Body).Decode(&signed)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(signed.URL, "signature=") {
		t.Fatalf("POST /sign: %d %+v", res.StatusCode, signed)
	}
	out, err := node(t, s.url(signed.URL), file, map[string]any{"filename": "signed", "chunkSize": 100000})
	if err != nil {
		t.Fatal(err)
	}
	url := out["url"].(string)
	if !strings.Contains(url, "signature=") {
		t.Fatalf("the upload's URL is not signed: %s", url)
	}
	if res := tusReq(t, http.MethodHead, url, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("HEAD with the signed Location: %d", res.StatusCode)
	}
	if res := tusReq(t, http.MethodHead, strings.Split(url, "?")[0], nil); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HEAD without its signature: %d", res.StatusCode)
	}
	// The creation URL signs nothing else: another bucket, another method.
	other := strings.Replace(s.url(signed.URL), "/uploads/fs/", "/uploads/other/", 1)
	if res := tusReq(t, http.MethodPost, other, nil, "Upload-Length", "1", "Upload-Metadata", meta("filename", "x")); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signed URL on another bucket: %d", res.StatusCode)
	}

	// gridfsd sign, then tuspy with no token.
	cmd := exec.Command(gridfsd(t), "sign", "POST", "/uploads/fs/", "--config", cfgFile, "--expires", "5m", "--base", "http://"+s.addr)
	line, err := cmd.Output()
	if err != nil {
		t.Fatalf("gridfsd sign: %v", err)
	}
	signedURL := strings.TrimSpace(string(line))
	if !strings.HasPrefix(signedURL, "http") {
		signedURL = s.url(signedURL)
	}
	if _, err := tuspy(t, signedURL, file, map[string]any{"filename": "signed-py", "chunk_size": 100000}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bearer", "signed", "signed-py"} {
		req, _ := http.NewRequest(http.MethodGet, s.url("/b/fs/"+name), nil)
		req.Header.Set("Authorization", "Bearer "+readerSecret)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 || res.ContentLength != int64(len(data)) {
			t.Fatalf("GET %s: %v %v", name, res, err)
		}
		res.Body.Close()
	}
}
