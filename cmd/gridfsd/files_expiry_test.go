package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

func TestExpiryCommands(t *testing.T) {
	e := newEnv(t)
	e.writeLocal("a.txt", "short-lived")
	e.ok("put", "a.txt", "--expires", "1s")
	e.ok("put", "b.txt", "--local", "a.txt", "--expires", "2031-02-03T04:05:06Z")
	var st struct {
		Expires string `json:"expires"`
	}
	if err := json.Unmarshal([]byte(e.ok("stat", "b.txt")), &st); err != nil || st.Expires != "2031-02-03T04:05:06Z" {
		t.Fatalf("stat shows expires %q (%v)", st.Expires, err)
	}
	if msg := e.fails("put", "c.txt", "--local", "a.txt", "--expires", "whenever"); !strings.Contains(msg, "--expires") {
		t.Errorf("bad --expires: %s", msg)
	}
	if r := e.run(nil, "put", "c.txt", "--local", "a.txt", "--expires", "whenever"); exitStatus(r.e) != 2 {
		t.Errorf("bad --expires: exit %d, want 2", exitStatus(r.e))
	}
	if out := e.ok("list"); out != "a.txt\t11\nb.txt\t11\n" {
		t.Fatalf("list before expiry %q", out)
	}
	time.Sleep(1100 * time.Millisecond)
	if out := e.ok("list"); out != "b.txt\t11\n" {
		t.Errorf("list after expiry %q", out)
	}
	if msg := e.fails("get", "a.txt", "--local", "out.txt"); !strings.Contains(msg, "a.txt") {
		t.Errorf("get of an expired file: %s", msg)
	}
	// fsck reports it, without calling it damage.
	r := e.run(nil, "fsck")
	if r.e != nil || !strings.HasPrefix(r.out, "expired\t1 files\t") {
		t.Errorf("fsck: %v, %q", r.e, r.out)
	}

	// Rules through gridfsd buckets lifecycle.
	if out := e.ok("buckets", "lifecycle", "fs"); out != "[]\n" {
		t.Errorf("no rules: %q", out)
	}
	out := e.ok("buckets", "lifecycle", "fs", "--set", `[{"id": "b", "prefix": "b", "expireAfter": "1s"}, {"keepRevisions": 2}]`)
	var rules []buckets.Rule
	if err := json.Unmarshal([]byte(out), &rules); err != nil || len(rules) != 2 || rules[0].ID != "b" || rules[1].KeepRevisions != 2 {
		t.Fatalf("set rules: %q, %v", out, err)
	}
	if out := e.ok("list"); out != "" {
		t.Errorf("list under a rule of 1s: %q", out)
	}
	for _, bad := range []string{`[{"prefix": "x"}]`, `{"expireAfter": "1d"}`, `[{"expireAfter": "1 day"}]`} {
		r := e.run(nil, "buckets", "lifecycle", "fs", "--set", bad)
		if exitStatus(r.e) != 2 || !strings.Contains(oneLine(r.e), "lifecycle") {
			t.Errorf("--set %s: exit %d, %v", bad, exitStatus(r.e), r.e)
		}
	}
	if out := e.ok("buckets", "lifecycle", "fs", "--clear"); out != "[]\n" {
		t.Errorf("--clear: %q", out)
	}
	if out := e.ok("list"); out != "b.txt\t11\n" {
		t.Errorf("list without rules %q", out)
	}
}
