package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/internal/proctest"
)

// TestServeBanner starts serve on the embedded store in text log format
// with a relative data directory and reads the banner a person sees.
func TestServeBanner(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	httpAddr, s3Addr, storeAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	srv := startServe(t, http.DefaultClient, "http://"+httpAddr, "serve", "--listen", httpAddr, "--s3-listen", s3Addr,
		"--data-dir", "rel-data", "--embedded-listen", storeAddr, "--shutdown-timeout", "7s")
	srv.cancel()
	if err := <-srv.done; err != nil {
		t.Fatal(err)
	}
	log := srv.logs.String()
	absData := filepath.Join(dir, "rel-data")
	for _, want := range []string{
		"gridfsd is serving\n",
		"HTTP API and UI  http://" + httpAddr + "/\n",
		"S3 API           http://" + s3Addr + "/ ",
		// one line: the next one is the data directory
		"Store            embedded single-node FerretDB on SQLite (GiBs of media, seeks in ms); for production: --uri mongodb://...\n  Data directory",
		"Data directory   " + absData + "\n",
		"MongoDB URI      mongodb://" + storeAddr + "/ ",
		// Not the default address: the file commands must be told.
		"File commands    gridfsd list --embedded-listen " + storeAddr + "\n",
		"mongofiles       mongofiles --uri mongodb://" + storeAddr + "/test list\n",
		"Access control   off: ",
		"Stop             Ctrl-C or SIGTERM (requests in flight get 7s to finish)\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("banner lacks %q:\n%s", want, log)
		}
	}
	// The banner says what the embedded store is; the warning would repeat it.
	if strings.Contains(log, "level=WARN") {
		t.Errorf("a warning beside the banner:\n%s", log)
	}
	if _, err := os.Stat(absData); err != nil {
		t.Errorf("data directory: %v", err)
	}
}

// TestBannerLines checks the lines that depend on the configuration: the
// file command needs no flags when serve runs on the defaults, and the
// access control line says what is open.
func TestBannerLines(t *testing.T) {
	addr := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	def, err := config.Load(config.New())
	if err != nil {
		t.Fatal(err)
	}
	open := def
	open.DataDir = "./gridfsd-data"
	locked := def
	locked.Auth = auth.Config{AnonymousRead: []string{"public"}, Tokens: []auth.Token{{Name: "ci", Secret: "ci-secret-0123456789", Buckets: []string{"*"}, Access: auth.Admin}}}
	mongo := def
	mongo.URI = "mongodb://admin:hunter2@db1:27017,db2:27017/files?replicaSet=rs0"
	wd, _ := os.Getwd()
	for _, c := range []struct {
		name     string
		b        banner
		want     []string
		unwanted []string
	}{
		{"defaults", newBanner(open, addr("127.0.0.1:8080"), nil, "mongodb://127.0.0.1:27017/", "test"), []string{
			"S3 API           off (--s3-listen is empty)\n",
			"Data directory   " + filepath.Join(wd, "gridfsd-data") + "\n",
			"File commands    gridfsd list\n",
			"mongofiles       mongofiles --uri mongodb://127.0.0.1:27017/test list\n",
			"Access control   off: ",
		}, nil},
		{"other database", newBanner(open, addr("127.0.0.1:8080"), nil, "mongodb://127.0.0.1:27017/", "photos"), []string{
			"File commands    gridfsd list -d photos\n",
		}, nil},
		{"access control", newBanner(locked, addr("127.0.0.1:8080"), addr("127.0.0.1:9000"), "mongodb://127.0.0.1:27017/", "test"), []string{
			"S3 API           http://127.0.0.1:9000/ ",
			"Access control   on: 1 token(s); anyone may read bucket(s) public\n",
		}, nil},
		{"mongodb", newBanner(mongo, addr("127.0.0.1:8080"), nil, "", "files"), []string{
			"Store            MongoDB at db1:27017,db2:27017, database files\n",
			"File commands    gridfsd list   (with the same --uri",
		}, []string{"hunter2", "Data directory", "embedded"}},
	} {
		var sb strings.Builder
		c.b.writeText(&sb)
		for _, w := range c.want {
			if !strings.Contains(sb.String(), w) {
				t.Errorf("%s: banner lacks %q:\n%s", c.name, w, sb.String())
			}
		}
		for _, w := range c.unwanted {
			if strings.Contains(sb.String(), w) {
				t.Errorf("%s: banner shows %q:\n%s", c.name, w, sb.String())
			}
		}
	}
}

// TestServePortInUse takes each address serve needs in turn: serve must
// refuse in one line naming the flag, before it creates the data
// directory or starts the store.
func TestServePortInUse(t *testing.T) {
	for _, key := range []string{"listen", "s3-listen", "embedded-listen"} {
		t.Run(key, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			addrs := map[string]string{"listen": freeAddr(t), "s3-listen": freeAddr(t), "embedded-listen": freeAddr(t)}
			addrs[key] = taken.Addr().String()
			dataDir := filepath.Join(t.TempDir(), "data")
			args := []string{"serve", "--data-dir", dataDir}
			for k, v := range addrs {
				args = append(args, "--"+k, v)
			}
			root := newRootCommand()
			root.SetArgs(args)
			root.SetOut(io.Discard)
			logs := &proctest.Log{}
			root.SetErr(logs)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			err = root.ExecuteContext(ctx)
			if err == nil {
				t.Fatal("serve started on a taken port")
			}
			want := "--" + key + " " + addrs[key] + ": address already in use; "
			if msg := oneLine(err); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "--"+key) {
				t.Errorf("error %q, want it to start with %q", msg, want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusing took %v: something started first", d)
			}
			if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
				t.Errorf("the data directory was created: %v", err)
			}
			if regexp.MustCompile(`MongoDB|gridfsd is serving`).MatchString(logs.String()) {
				t.Errorf("serve logged as if it had started:\n%s", logs)
			}
			// Every other address was released: serve can start on them now.
			for k, v := range addrs {
				if k == key {
					continue
				}
				l, err := net.Listen("tcp", v)
				if err != nil {
					t.Errorf("--%s %s still taken after the refusal: %v", k, v, err)
					continue
				}
				l.Close()
			}
		})
	}
}

// TestAnnounce checks how the banner reaches the log in each format and
// level: plain lines in text, one record in JSON, and above info only the
// warning that the embedded store is not for production.
func TestAnnounce(t *testing.T) {
	addr, _ := net.ResolveTCPAddr("tcp", "127.0.0.1:8080")
	for _, c := range []struct {
		format, level  string
		want, unwanted []string
	}{
		{"text", "info", []string{"\ngridfsd is serving\n  HTTP API and UI  http://127.0.0.1:8080/\n"}, []string{"level=", "msg="}},
		{"json", "info", []string{`"level":"WARN","msg":"no --uri given: using the embedded store`,
			`"level":"INFO","msg":"gridfsd is serving","http":"http://127.0.0.1:8080/"`, `"store":"embedded"`, `"files_command":"gridfsd list"`},
			[]string{"\n  "}},
		{"text", "warn", []string{`level=WARN msg="no --uri given: using the embedded store`}, []string{"gridfsd is serving"}},
	} {
		cfg, err := config.Load(config.New())
		if err != nil {
			t.Fatal(err)
		}
		cfg.LogFormat, cfg.LogLevel = c.format, c.level
		var buf strings.Builder
		m := &Main{Config: cfg, Logger: newLogger(&buf, cfg), LogOut: &buf}
		m.announce(newBanner(cfg, addr, nil, "mongodb://127.0.0.1:27017/", "test"))
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s/%s: log lacks %q:\n%s", c.format, c.level, w, buf.String())
			}
		}
		for _, w := range c.unwanted {
			if strings.Contains(buf.String(), w) {
				t.Errorf("%s/%s: log has %q:\n%s", c.format, c.level, w, buf.String())
			}
		}
	}
}
