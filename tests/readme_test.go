package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
)

// runnableMark, on the line before a ```sh fence in README.md, makes that
// block part of the walkthrough TestReadme runs.
const runnableMark = "<!-- runnable -->"

// readmeBlocks returns the README's runnable shell blocks, in order.
func readmeBlocks(t *testing.T, readme string) []string {
	t.Helper()
	var blocks []string
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != runnableMark {
			continue
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			t.Fatalf("README.md line %d: %s is not followed by a ```sh fence", i+1, runnableMark)
		}
		var block []string
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block = append(block, lines[i])
		}
		blocks = append(blocks, strings.Join(block, "\n")+"\n")
	}
	return blocks
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// TestReadme runs README.md's walkthroughs as a newcomer would: every
// runnable block, in order, in one empty directory, against one real
// `gridfsd serve` on the embedded store, with the gridfsd binary, curl and
// awscli on PATH. Each block runs in bash with errexit and pipefail, so
// any line that fails fails the test. The default ports in the blocks are
// rewritten to free ones, and the file commands find the store through
// GRIDFSD_EMBEDDED_LISTEN, as they would need nothing on the default ports.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```sh\ngo run ./cmd/gridfsd serve\n```", "```sh\n./test.sh\n```", "## Use it from S3 tools"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	blocks := readmeBlocks(t, string(readme))
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d runnable blocks", len(blocks))
	}
	for _, tool := range []string{"bash", "curl", "/usr/bin/aws"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (./test.sh installs it): %v", tool, err)
		}
	}

	bin := t.TempDir()
	proctest.BuildGridfsd(t, bin)
	// aws on PATH may be a pyenv shim without the module.
	if err := os.Symlink("/usr/bin/aws", filepath.Join(bin, "aws")); err != nil {
		t.Fatal(err)
	}

	httpPort, s3Port, storePort := freePort(t), freePort(t), freePort(t)
	home := t.TempDir()
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, // no ~/.aws of the machine's user
		"LANG=C.UTF-8",
		// What serve on other ports tells the file commands (its banner
		// says so); on the default ports they need nothing.
		"GRIDFSD_EMBEDDED_LISTEN=127.0.0.1:" + storePort,
		"AWS_EC2_METADATA_DISABLED=true",
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	serveDir := t.TempDir()
	serve := exec.CommandContext(ctx, filepath.Join(bin, "gridfsd"), "serve",
		"--listen", "127.0.0.1:"+httpPort, "--s3-listen", "127.0.0.1:"+s3Port, "--embedded-listen", "127.0.0.1:"+storePort)
	serve.Dir = serveDir
	serve.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	serveLog := &proctest.Log{}
	serve.Stdout, serve.Stderr = serveLog, serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serve.Wait() }()
	defer func() {
		serve.Process.Signal(os.Interrupt)
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			serve.Process.Kill()
		}
	}()
	waitReady(t, "http://127.0.0.1:"+httpPort+"/readyz", served, serveLog)
	// The banner the README shows, with the data directory made absolute.
	for _, want := range []string{"gridfsd is serving", "HTTP API and UI  http://127.0.0.1:" + httpPort + "/",
		"Data directory   " + filepath.Join(serveDir, "gridfsd-data")} {
		if !strings.Contains(serveLog.String(), want) {
			t.Errorf("serve's banner lacks %q:\n%s", want, serveLog)
		}
	}

	ports := strings.NewReplacer(":8080", ":"+httpPort, ":9000", ":"+s3Port, ":27017", ":"+storePort)
	// The banner the README shows is the one serve prints, but for the
	// lines that depend on the directory and on the ports being defaults.
	_, shown, ok := strings.Cut(string(readme), "```text\ngridfsd is serving\n")
	shown, _, _ = strings.Cut(shown, "```")
	if !ok || strings.Count(shown, "\n") < 8 {
		t.Errorf("README.md does not show the banner")
	}
	for _, line := range strings.Split(strings.TrimSuffix(ports.Replace(shown), "\n"), "\n") {
		if strings.HasPrefix(line, "  Data directory") || strings.HasPrefix(line, "  File commands") {
			continue
		}
		if !strings.Contains(serveLog.String(), line+"\n") {
			t.Errorf("serve's banner lacks the README's line %q:\n%s", line, serveLog)
		}
	}

	work := t.TempDir()
	var all strings.Builder
	for i, block := range blocks {
		script := "set -eu -o pipefail\ntrap 'echo \"README block failed at: $BASH_COMMAND\" >&2' ERR\n" + ports.Replace(block)
		cmd := exec.CommandContext(ctx, "bash", "-c", script)
		cmd.Dir = work
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("README runnable block %d failed: %v\n--- block\n%s--- output\n%s--- serve log\n%s", i+1, err, block, out.String(), serveLog)
		}
		fmt.Fprintf(&all, "--- block %d\n%s", i+1, out.String())
	}
	got := all.String()
	t.Logf("README walkthrough output:\n%s", got)

	for _, want := range []string{
		`"filename":"docs/report.txt"`,   // the upload's JSON reply
		"Quarterly report: all is well.", // the download
		"10 first-bytes.txt",             // the range
		"1000000 tail.mp4",               // the open range
		`"filename":"docs/final.txt"`,    // the PATCH reply
		"Content-Type: text/plain",       // the PATCH kept the type
		"412\n",                          // If-None-Match: * on a name that exists
		"201\n",                          // If-Match with the ETag just read
		"\"owner\":\"ann\"",              // the metadata listing
		"backup.txt\t16",                 // gridfsd list
		"pets/cat.txt",                   // aws s3 ls
		"meow",                           // S3 upload read over HTTP
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the walkthrough's output lacks %q", want)
		}
	}
	files := map[string]int64{"report.txt": 31, "movie.mp4": 2000000, "tail.mp4": 1000000, "first-bytes.txt": 10, "restored.txt": 16}
	for name, size := range files {
		if fi, err := os.Stat(filepath.Join(work, name)); err != nil || fi.Size() != size {
			t.Errorf("%s: %v, want %d bytes", name, err, size)
		}
	}
	// The DELETE removed docs/report.txt; the renamed file is another one.
	for path, status := range map[string]int{"/b/fs/docs/report.txt": 404, "/b/fs/docs/final.txt": 200, "/b/fs/backup.txt": 404} {
		res, err := http.Get("http://127.0.0.1:" + httpPort + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != status {
			t.Errorf("GET %s after the walkthrough: %d, want %d", path, res.StatusCode, status)
		}
	}
}

// waitReady polls url until it answers 200, serve stops, or a minute passes.
func waitReady(t *testing.T, url string, served <-chan error, log fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-served:
			t.Fatalf("serve stopped: %v\n%s", err, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
