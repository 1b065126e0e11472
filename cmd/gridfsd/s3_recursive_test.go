package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestS3AwsRecursive: `aws s3 cp --recursive` of a mixed folder (a 20 MiB
// file, which goes in 8 MiB parts, beside small and nested ones) finishes
// promptly and reads back byte for byte. Issue 23 saw it take 72-74 s: one
// request stalled until awscli's 60 s read timeout and retry. The bound
// here only tells a stall from a run (a read timeout of 20 s makes any
// stall show); the wall time itself is the benchmark's (docs/BENCHMARKS.md).
func TestS3AwsRecursive(t *testing.T) {
	if _, err := exec.LookPath("/usr/bin/aws"); err != nil {
		t.Fatalf("awscli is needed (see the README's test command): %v", err)
	}
	dir := t.TempDir()
	_, _, s3Addr := serveS3(t, dir)
	env := s3Env(t, s3Secret)
	aws := func(args ...string) (string, error) {
		return run(t, env, "/usr/bin/aws", append([]string{"--endpoint-url", "http://" + s3Addr, "--cli-read-timeout", "20"}, args...)...)
	}
	src := filepath.Join(dir, "src")
	files := map[string]int{"big.bin": 20 << 20, "a.txt": 1000, "b.txt": 0, "sub/c.bin": 3 << 20, "sub/deeper/d.txt": 12345}
	for name, n := range files {
		data := make([]byte, n)
		rand.Read(data)
		os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o700)
		if err := os.WriteFile(filepath.Join(src, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := aws("s3", "mb", "s3://tree"); err != nil {
		t.Fatalf("mb: %v %s", err, out)
	}
	// --debug tells what botocore made of every reply: a reply it could
	// not parse, or a retry, is the stall.
	cmd := exec.Command("/usr/bin/aws", "--endpoint-url", "http://"+s3Addr, "--cli-read-timeout", "20", "--debug",
		"s3", "cp", "--recursive", "--only-show-errors", src, "s3://tree/up/")
	cmd.Env = env
	var debug bytes.Buffer
	cmd.Stderr = &debug
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("cp --recursive: %v", err)
	}
	took := time.Since(start)
	t.Logf("aws s3 cp --recursive of %d files: %s", len(files), took.Round(time.Millisecond))
	for _, sign := range []string{"Failed to parse headers", "Retry needed", "Read timed out"} {
		if n := strings.Count(debug.String(), sign); n > 0 {
			t.Errorf("awscli logged %q %d times: a request stalled until its read timeout", sign, n)
		}
	}
	if took > 45*time.Second {
		t.Errorf("aws s3 cp --recursive took %s: a request stalled", took.Round(time.Second))
	}
	back := filepath.Join(dir, "back")
	if out, err := aws("s3", "cp", "--recursive", "--only-show-errors", "s3://tree/up/", back); err != nil {
		t.Fatalf("cp back: %v %s", err, out)
	}
	for name := range files {
		a, _ := os.ReadFile(filepath.Join(src, name))
		b, err := os.ReadFile(filepath.Join(back, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s read back %d bytes (%v), want %d", name, len(b), err, len(a))
		}
	}
}
