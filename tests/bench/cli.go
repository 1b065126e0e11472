package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// commandLine measures the file commands against the same store: `gridfsd
// put`, `gridfsd get` and `gridfsd verify` of one file, and mongofiles' put
// and get when it is on PATH (Debian has no mongo-tools package, so often it
// is not). Wall time as throughput, and the command's own CPU (user +
// system, from its rusage). verify reads the same bytes as get and hashes
// them instead of writing them: it should take about get's time.
func (b *bench) commandLine(ctx context.Context, data *pattern, _ *gateway) error {
	size := b.s.size
	dir, err := os.MkdirTemp("", "gridfsd-bench-cli-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	f, err := os.Create(src)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, data.reader(size)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	tools := []struct{ name, bin string }{{"gridfsd", b.s.gridfsd}}
	if mf, err := exec.LookPath("mongofiles"); err == nil {
		tools = append(tools, struct{ name, bin string }{"mongofiles", mf})
	} else {
		fmt.Fprintln(os.Stderr, "  mongofiles is not on PATH: no mongofiles rows")
	}
	for _, tool := range tools {
		ops := []string{"put", "get"}
		if tool.name == "gridfsd" {
			ops = append(ops, "verify")
		}
		for _, op := range ops {
			var cpu []float64
			runs, err := b.repeat(func(int) (float64, error) {
				if op == "put" {
					if _, err := b.fresh(ctx); err != nil {
						return 0, err
					}
				}
				dst := filepath.Join(dir, "dst")
				os.Remove(dst)
				local := src
				if op == "get" {
					local = dst
				}
				args := []string{op, "--uri", b.s.uri, "--db", b.s.db, "--prefix", bucketName, "--quiet", "--local", local, "f"}
				if op == "verify" {
					// Exit status 0 says the file is sound: the stored
					// SHA-256 matched every byte read.
					args = []string{op, "--uri", b.s.uri, "--db", b.s.db, "--prefix", bucketName, "--quiet", "f"}
				}
				cmd := exec.CommandContext(ctx, tool.bin, args...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					return 0, fmt.Errorf("%s %s: %w: %s", tool.name, op, err, stderr.String())
				}
				elapsed := time.Since(start)
				st := cmd.ProcessState
				cpu = append(cpu, perGiB((st.UserTime()+st.SystemTime()).Seconds(), size))
				if op == "get" {
					got, err := os.ReadFile(dst)
					if err != nil {
						return 0, err
					}
					if int64(len(got)) != size || data.verify(got, 0) >= 0 {
						return 0, fmt.Errorf("%s get: the file read back differs from the one put", tool.name)
					}
				}
				return mbps(size, elapsed), nil
			})
			if err != nil {
				return err
			}
			group := map[string]string{"put": "upload", "get": "download", "verify": "download"}[op]
			b.add(group, tool.name+" "+op, "MB/s", runs, human(size)+", wall time of the command")
			b.add(group, tool.name+" "+op+": CPU", "CPU s/GiB", cpu, "the command's process, its rusage")
		}
	}
	return nil
}
