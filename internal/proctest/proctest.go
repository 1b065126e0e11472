// Package proctest holds what tests that run gridfsd as a process, or a
// server in another goroutine, share: a log both sides may use at once and
// a build of the gridfsd binary.
package proctest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Log collects the output of a process or a goroutine while the test reads
// it. The zero value is ready to use.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// BuildGridfsd builds cmd/gridfsd into dir (a temporary directory when dir
// is empty) and returns the binary's path.
func BuildGridfsd(t testing.TB, dir string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	bin := filepath.Join(dir, "gridfsd")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/gridfsd/gridfsd/cmd/gridfsd")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build gridfsd: %v\n%s", err, out)
	}
	return bin
}
