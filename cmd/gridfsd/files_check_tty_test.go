//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/gridfsd/gridfsd/buckets"
)

// openTerminal opens a pseudo-terminal: the command writes to tty, which
// isatty accepts, and what it wrote can be read from the returned
// function once the command is done.
func openTerminal(t *testing.T) (tty *os.File, output func() string) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	ioctl := func(req uintptr, arg unsafe.Pointer) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), req, uintptr(arg)); errno != 0 {
			t.Fatalf("ioctl %#x: %v", req, errno)
		}
	}
	var unlock int32
	ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(&buf, ptmx) // ends with EIO once tty is closed
	}()
	return tty, func() string {
		tty.Close()
		<-done
		return buf.String()
	}
}

// TestCheckProgressOnTerminal runs verify and fsck with stderr on a
// terminal: each draws a progress bar that ends at 100% on its own line,
// then its summary.
func TestCheckProgressOnTerminal(t *testing.T) {
	e := newEnv(t)
	data := make([]byte, 3<<20)
	rand.Read(data)
	if _, err := e.bucket("fs").Upload(context.Background(), "big.bin", bytes.NewReader(data), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		bar  string
		sum  *regexp.Regexp
	}{
		{[]string{"verify", "big.bin"}, "verify  3.0 MiB / 3.0 MiB  [========================] 100%",
			regexp.MustCompile(`verified 1 files \(3\.0 MiB\) in [0-9.]+m?s, [0-9.]+ [KMG]iB/s: 0 damaged`)},
		{[]string{"verify"}, "verify  3.0 MiB / 3.0 MiB  [========================] 100%",
			regexp.MustCompile(`verified 1 files \(3\.0 MiB\) in `)},
		{[]string{"fsck"}, "fsck fs  3.0 MiB / 3.0 MiB  [========================] 100%",
			regexp.MustCompile(`checked 1 files and 13 chunks in [0-9.]+m?s: 0 damaged files`)},
	} {
		tty, output := openTerminal(t)
		root := newRootCommand()
		root.SetArgs(append(c.args, "--uri", e.uri, "-d", e.db.Name()))
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(tty)
		err := root.ExecuteContext(context.Background())
		got := output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, got)
		}
		bar := strings.Index(got, "\r"+c.bar)
		if bar < 0 {
			t.Errorf("%v: no bar %q on the terminal:\n%q", c.args, c.bar, got)
			continue
		}
		// The bar's line ends before the summary starts.
		rest := got[bar:]
		if end := strings.Index(rest, "\n"); end < 0 || !c.sum.MatchString(rest[end:]) {
			t.Errorf("%v: no summary %s after the bar:\n%q", c.args, c.sum, got)
		}
	}

	// --quiet, or stderr not a terminal: no bar.
	tty, output := openTerminal(t)
	root := newRootCommand()
	root.SetArgs([]string{"verify", "--quiet", "--uri", e.uri, "-d", e.db.Name()})
	root.SetErr(tty)
	root.SetOut(io.Discard)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := output(); got != "" {
		t.Errorf("verify --quiet wrote %q", got)
	}
	if r := e.run(nil, "verify"); strings.Contains(r.err, "\r") || strings.Contains(r.err, "[====") {
		t.Errorf("a bar on a buffer: %q", r.err)
	}
}
