package main

import (
	"fmt"
	"github.com/minio/sha256-simd"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// processCPU is the user + system CPU seconds process pid has used.
func processCPU(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; the fields after its
	// closing parenthesis start with field 3, state.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64) // field 14
	stime, err2 := strconv.ParseFloat(fields[12], 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	return (utime + stime) / clockTicks, nil
}

// selfCPU is the user + system CPU seconds of the benchmark's own process,
// from getrusage: it includes the embedded store when that runs here.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// perGiB turns CPU seconds spent on n bytes into CPU seconds per GiB.
func perGiB(seconds float64, n int64) float64 { return seconds / (float64(n) / (1 << 30)) }

// cpuMeter collects the CPU per GiB of one row's runs, from the gateway
// process (pid > 0) or from the benchmark's own process (pid 0).
type cpuMeter struct {
	pid   int
	start float64
	runs  []float64
}

func (m *cpuMeter) now() float64 {
	if m.pid == 0 {
		return selfCPU()
	}
	v, err := processCPU(m.pid)
	if err != nil {
		return 0
	}
	return v
}

func (m *cpuMeter) begin() { m.start = m.now() }

func (m *cpuMeter) end(n int64) { m.runs = append(m.runs, perGiB(m.now()-m.start, n)) }

const (
	cpuNoteGateway = "the gridfsd serve process alone, /proc/<pid>/stat"
	cpuNoteSelf    = "the benchmark's process, getrusage"
)

// addCPU adds the CPU row that goes beside a throughput row. The
// benchmark's own process also runs the embedded store, when no --uri was
// given: its rows then count the store's CPU too.
func (b *bench) addCPU(group, name string, m *cpuMeter, note string) {
	if m.pid == 0 && b.s.embedded {
		note += ", embedded store included"
	}
	b.add(group, name+": CPU", "CPU s/GiB", m.runs, note)
}

// sha256CPU measures the CPU that hashing size bytes costs, the part of an
// upload's CPU no gateway can avoid: the upload targets allow it on top of
// mongofiles' CPU.
func (b *bench) sha256CPU(data *pattern, size int64) {
	m := &cpuMeter{}
	buf := make([]byte, 1<<20)
	b.repeat(func(int) (float64, error) {
		m.begin()
		defer m.end(size)
		h := sha256.New()
		r := data.reader(size)
		for {
			n, err := r.Read(buf)
			h.Write(buf[:n])
			if err != nil {
				break
			}
		}
		h.Sum(nil)
		return 0, nil
	})
	b.add("upload", "SHA-256 of the bytes (sha256-simd): CPU", "CPU s/GiB", m.runs, "the hashing every upload pays, data generation included")
}
