package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// serving is a `gridfsd serve` running in-process.
type serving struct {
	logs   *proctest.Log
	done   chan error // receives Execute's result when serve returns
	cancel context.CancelFunc
}

// startServe runs `gridfsd args...` in a goroutine and waits until base
// answers /readyz through client; cancel is what SIGTERM does.
func startServe(t *testing.T, client *http.Client, base string, args ...string) serving {
	t.Helper()
	s := serving{logs: &proctest.Log{}, done: make(chan error, 1)}
	if len(args) > 0 && args[0] == "serve" && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--s3-listen") }) {
		// Parallel tests must not all take the S3 API's default port.
		args = append(args, "--s3-listen=")
	}
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(s.logs)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	t.Cleanup(cancel)
	go func() { s.done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := client.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve stopped: %v\n%s", err, s.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready: %v\n%s", err, s.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestServeEmbedded runs `gridfsd serve` in-process on the embedded store
// in a temporary directory, uploads and downloads over HTTP, reads the file
// back with the Go driver's own GridFS, and stops it as a signal would.
func TestServeEmbedded(t *testing.T) {
	dataDir := t.TempDir()
	httpAddr, storeAddr := freeAddr(t), freeAddr(t)
	srv := startServe(t, http.DefaultClient, "http://"+httpAddr, "serve", "--listen", httpAddr, "--data-dir", dataDir, "--embedded-listen", storeAddr,
		"--max-upload-size", "1KiB", "--shutdown-timeout", "5s", "--log-format", "json")
	logs, done, cancel := srv.logs, srv.done, srv.cancel
	base := "http://" + httpAddr

	content := "hello from gridfsd serve\n"
	req, _ := http.NewRequest(http.MethodPut, base+"/b/fs/hello.txt", strings.NewReader(content))
	req.Header.Set("Content-Type", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d", res.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodGet, base+"/b/fs/hello.txt", nil)
	req.Header.Set("Range", "bytes=6-9")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusPartialContent || string(got) != "from" {
		t.Fatalf("GET range: %d %q", res.StatusCode, got)
	}
	req, _ = http.NewRequest(http.MethodPut, base+"/b/fs/big", strings.NewReader(strings.Repeat("x", 1025)))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT over --max-upload-size: %d", res.StatusCode)
	}

	// The embedded store speaks the wire protocol: another GridFS
	// implementation reads the same bytes.
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + storeAddr))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = client.Database("test").GridFSBucket().DownloadToStreamByName(context.Background(), "hello.txt", &buf)
	client.Disconnect(context.Background())
	if err != nil || buf.String() != content {
		t.Fatalf("driver read %q, %v", buf.String(), err)
	}

	cancel() // what SIGTERM does through the root command's context
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	log := logs.String()
	for _, want := range []string{`"msg":"gridfsd is serving"`, "embedded store", `"request_id":`, `"status":206`, `"msg":"gridfsd stopped"`,
		`"http":"http://` + httpAddr + `/"`, `"data_dir":"` + dataDir + `"`, `"mongodb_uri":"mongodb://` + storeAddr + `/"`,
		`"files_command":"gridfsd list --embedded-listen ` + storeAddr + `"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if entries, err := os.ReadDir(dataDir); err != nil || len(entries) == 0 {
		t.Errorf("data dir holds %d entries, %v", len(entries), err)
	}
}

// TestServeConfigErrors checks that bad settings stop serve before it
// starts anything, naming the key.
func TestServeConfigErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-upload-size", "lots"}, "max-upload-size"},
		{[]string{"--log-level", "loud"}, "log-level"},
		{[]string{"--listen", "8080"}, "listen"},
		{[]string{"--idle-timeout", "soon"}, "idle-timeout"},
		{[]string{"--uri", "http://example.com"}, "uri"},
	} {
		root := newRootCommand()
		dataDir := t.TempDir()
		root.SetArgs(append([]string{"serve", "--data-dir", dataDir}, c.args...))
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		err := root.ExecuteContext(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.args, err, c.want)
		}
		if entries, _ := os.ReadDir(dataDir); len(entries) != 0 {
			t.Errorf("%v: wrote to the data dir", c.args)
		}
	}
}
