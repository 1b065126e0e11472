package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// failsWith runs a command that must fail with the given exit status and
// returns its error message.
func (e *env) failsWith(status int, args ...string) string {
	e.t.Helper()
	r := e.run(nil, args...)
	if r.e == nil {
		e.t.Fatalf("gridfsd %s succeeded; stdout %q", strings.Join(args, " "), r.out)
	}
	if got := exitStatus(r.e); got != status {
		e.t.Errorf("gridfsd %s: exit status %d, want %d (%v)", strings.Join(args, " "), got, status, r.e)
	}
	return oneLine(r.e)
}

// execute runs the binary's root command on args as main does (flags may
// come before the command), with no --uri added.
func execute(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	root := newRootCommand()
	root.SetArgs(commandFirst(root, args))
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(""))
	err = root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestUsageErrorsExit2(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"put_id", "local.txt"}, "'put_id' argument missing: <id>"},
		{[]string{"get"}, "'get' argument missing: <name>"},
		{[]string{"rename", "first"}, "'rename' argument missing: <new-name>"},
		{[]string{"list", "a", "b"}, "too many positional arguments"},
		{[]string{"list", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"get", "x", "--prefix", ""}, "--prefix cannot be blank"},
		{[]string{"fsck", "--grace", "0s"}, "must be more than 0"},
		{[]string{"list", "--connect-timeout", "soon"}, `invalid argument "soon"`},
		{[]string{"put", "a", "b", "-l", "x"}, "cannot put multiple files with --local specified"},
	} {
		if msg := e.failsWith(exitUsage, tc.args...); !strings.Contains(msg, tc.want) {
			t.Errorf("gridfsd %v: %q, want %q", tc.args, msg, tc.want)
		}
	}
	if _, err := execute(t, "lsit"); err == nil || exitStatus(err) != exitUsage {
		t.Errorf("unknown command: %v, status %d", err, exitStatus(err))
	}
}

// TestMalformedFlagValuesExit2: a flag value or a pattern that cannot be
// read is wrong usage, refused before connecting (no "connected to" on
// stderr); a well-formed range outside the file is a failure.
func TestMalformedFlagValuesExit2(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "c", "0123456789", buckets.UploadOptions{})
	for _, args := range [][]string{
		{"cat", "c", "--range", "x"},
		{"get_regex", "c", "--regexOptions", "x"},
		{"get_regex", "("},
		{"buckets", "create", "b", "--chunk-size", "lots"},
		{"buckets", "create", "b", "--max-file-size", "lots"},
		{"search", "("},
	} {
		e.failsWith(exitUsage, args...)
		if r := e.run(nil, args...); r.err != "" {
			t.Errorf("gridfsd %s wrote %q on stderr; want nothing before the usage error", strings.Join(args, " "), r.err)
		}
	}
	e.failsWith(exitFailure, "cat", "c", "--range", "10-")
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := execute(t, args...)
		if err != nil || !strings.HasPrefix(out, "gridfsd ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("gridfsd %v: %q, %v; want the version and %s", args, out, err, runtime.Version())
		}
	}
}

// TestFlagsBeforeCommand: "mongofiles <options> <command>" is how
// mongofiles is typed; gridfsd takes the flags on either side.
func TestFlagsBeforeCommand(t *testing.T) {
	root := newRootCommand()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--quiet", "list"}, []string{"list", "--quiet"}},
		{[]string{"-d", "list", "--prefix", "media", "get", "x"}, []string{"get", "-d", "list", "--prefix", "media", "x"}},
		{[]string{"--prefix=media", "-l", "out.bin", "get", "x"}, []string{"get", "--prefix=media", "-l", "out.bin", "x"}},
		{[]string{"list", "--quiet"}, []string{"list", "--quiet"}},
		{[]string{"--", "list"}, []string{"--", "list"}},
		{[]string{"--force", "buckets", "drop", "scratch"}, []string{"buckets", "drop", "--force", "scratch"}},
		{[]string{"buckets", "--quiet", "create", "b", "--chunk-size", "1KiB"}, []string{"buckets", "create", "--quiet", "b", "--chunk-size", "1KiB"}},
		{[]string{"--chunk-size", "create", "buckets", "create", "b"}, []string{"buckets", "create", "--chunk-size", "create", "b"}},
		{[]string{"get", "buckets", "create"}, []string{"get", "buckets", "create"}},
	} {
		if got := commandFirst(root, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("commandFirst(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// commandFirst tells a flag's value from a command by the flag's name
	// before it knows the command: a name must take a value in every
	// command that has it, or in none.
	takesValue := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			v := f.NoOptDefVal == ""
			if prev, ok := takesValue[f.Name]; ok && prev != v {
				t.Errorf("--%s takes a value in some commands and not in %s", f.Name, c.CommandPath())
			}
			takesValue[f.Name] = v
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	e := newEnv(t)
	e.upload("media", "clip.webm", "frames", buckets.UploadOptions{})
	out, err := execute(t, "--uri", e.uri, "-d", e.db.Name(), "--prefix", "media", "--quiet", "list")
	if err != nil || out != "clip.webm\t6\n" {
		t.Errorf("flags before list: %q, %v", out, err)
	}
}

// TestSubcommandFlagsBeforeCommand: a flag of a command under buckets,
// typed before it, works as --quiet before list does.
func TestSubcommandFlagsBeforeCommand(t *testing.T) {
	e := newEnv(t)
	e.upload("scratch", "f", "data", buckets.UploadOptions{})
	if _, err := execute(t, "--uri", e.uri, "-d", e.db.Name(), "--quiet", "--force", "buckets", "drop", "scratch"); err != nil {
		t.Fatalf("gridfsd --force buckets drop scratch: %v (status %d)", err, exitStatus(err))
	}
	if _, err := execute(t, "--uri", e.uri, "--chunk-size", "1KiB", "buckets", "-d", e.db.Name(), "--quiet", "create", "photos"); err != nil {
		t.Fatalf("gridfsd --chunk-size 1KiB buckets create photos: %v (status %d)", err, exitStatus(err))
	}
	if out := e.ok("buckets"); out != "photos\t0\t0\t1024\n" {
		t.Errorf("buckets after drop and create: %q", out)
	}
}

// TestSameConfigurationAsServe: without --uri a file command reaches the
// store serve starts with the same configuration: its embedded-listen.
func TestSameConfigurationAsServe(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "shared.txt", "one store", buckets.UploadOptions{})
	host := strings.TrimSuffix(strings.TrimPrefix(e.uri, "mongodb://"), "/")
	host, _, _ = strings.Cut(host, "/")
	cfg := filepath.Join(e.dir, "gridfsd.yaml")
	if err := os.WriteFile(cfg, []byte("embedded-listen: "+host+"\ndb: "+e.db.Name()+"\nquiet: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := execute(t, "list", "--config", cfg); err != nil || out != "shared.txt\t9\n" {
		t.Errorf("list --config: %q, %v", out, err)
	}
	t.Setenv("GRIDFSD_EMBEDDED_LISTEN", host)
	t.Setenv("GRIDFSD_DB", e.db.Name())
	if out, err := execute(t, "list", "--quiet"); err != nil || out != "shared.txt\t9\n" {
		t.Errorf("list with GRIDFSD_EMBEDDED_LISTEN: %q, %v", out, err)
	}
}

// TestUnreachableStore: a store that refuses connections fails with one
// line that says so, not the driver's wait for the whole connect timeout
// and its topology dump; the gateway's HTTP port given as the store's is
// named as such.
func TestUnreachableStore(t *testing.T) {
	newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	_, err = execute(t, "list", "--uri", "mongodb://"+closed)
	if err == nil || !strings.Contains(err.Error(), "cannot reach MongoDB at mongodb://"+closed+": connection refused; is `gridfsd serve`") || strings.Contains(err.Error(), "\n") {
		t.Errorf("refused: %v", err)
	}

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"not_found"}`, http.StatusNotFound)
	}))
	defer web.Close()
	hostPort := strings.TrimPrefix(web.URL, "http://")
	_, err = execute(t, "list", "--uri", "mongodb://"+hostPort, "--connect-timeout", "5s")
	if err == nil || !strings.Contains(err.Error(), hostPort+" answers HTTP") {
		t.Errorf("HTTP port: %v", err)
	}
}

func TestUnknownConfigKeyExit2(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.dir, "gridfsd.yaml")
	if err := os.WriteFile(cfg, []byte("auth:\n  token:\n    - name: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"list", "serve"} {
		_, err := execute(t, cmd, "--config", cfg)
		if err == nil || exitStatus(err) != exitUsage || !strings.Contains(err.Error(), `"auth.token"`) {
			t.Errorf("%s with an unknown key: %v (status %d)", cmd, err, exitStatus(err))
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "gridfsd-data")); !os.IsNotExist(err) {
		t.Errorf("serve with a bad config left a data directory: %v", err)
	}
}

func TestGetCreatesDirectories(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "docs/final.pdf", "%PDF", buckets.UploadOptions{})
	e.upload("fs", "docs/2024/a.txt", "a", buckets.UploadOptions{})
	e.ok("get", "docs/final.pdf")
	if got := e.readLocal("docs/final.pdf"); got != "%PDF" {
		t.Errorf("get docs/final.pdf wrote %q", got)
	}
	e.ok("get", "docs/final.pdf", "-l", "out/deeper/final.pdf")
	if got := e.readLocal("out/deeper/final.pdf"); got != "%PDF" {
		t.Errorf("get -l out/deeper/final.pdf wrote %q", got)
	}
	e.ok("get_regex", "^docs/2024/")
	if got := e.readLocal("docs/2024/a.txt"); got != "a" {
		t.Errorf("get_regex wrote %q", got)
	}
}

// TestGetRegexNeverOverwritesItself: two names that land on one local
// path are refused before anything is written.
func TestGetRegexNeverOverwritesItself(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "a/b", "first", buckets.UploadOptions{})
	e.upload("fs", "a//b", "second", buckets.UploadOptions{})
	e.upload("fs", "x", "a file", buckets.UploadOptions{})
	e.upload("fs", "x/y", "inside", buckets.UploadOptions{})
	for _, regex := range []string{"^a/", "^x"} {
		if msg := e.fails("get_regex", regex); !strings.Contains(msg, "one by one with --local") {
			t.Errorf("get_regex %s: %s", regex, msg)
		}
	}
	for _, p := range []string{"a", "x"} {
		if _, err := os.Stat(filepath.Join(e.dir, p)); !os.IsNotExist(err) {
			t.Errorf("get_regex wrote %s before refusing: %v", p, err)
		}
	}
}
