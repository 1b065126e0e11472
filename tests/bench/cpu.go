package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minio/sha256-simd"
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
// from getrusage: the driver's and the chunker's rows run here (the
// embedded store does not: it has a process of its own).
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
// process (pid > 0) or from the benchmark's own process (pid 0), and of
// the embedded store's process beside it (storePID > 0).
type cpuMeter struct {
	pid, storePID     int
	start, storeStart float64
	runs, storeRuns   []float64
}

// meter measures pid (0: the benchmark itself) and, on the embedded store,
// the store's process.
func (b *bench) meter(pid int) *cpuMeter {
	return &cpuMeter{pid: pid, storePID: b.s.storePID}
}

func cpuOf(pid int) float64 {
	if pid == 0 {
		return selfCPU()
	}
	v, err := processCPU(pid)
	if err != nil {
		return 0
	}
	return v
}

func (m *cpuMeter) begin() {
	m.start = cpuOf(m.pid)
	if m.storePID > 0 {
		m.storeStart = cpuOf(m.storePID)
	}
}

func (m *cpuMeter) end(n int64) {
	m.runs = append(m.runs, perGiB(cpuOf(m.pid)-m.start, n))
	if m.storePID > 0 {
		m.storeRuns = append(m.storeRuns, perGiB(cpuOf(m.storePID)-m.storeStart, n))
	}
}

const (
	cpuNoteGateway = "the gridfsd serve process alone, /proc/<pid>/stat"
	cpuNoteSelf    = "the benchmark's process (the client), getrusage"
)

// addCPU adds the CPU rows that go beside a throughput row: the client's
// or gateway's, and the embedded store's when it runs in its own process.
func (b *bench) addCPU(group, name string, m *cpuMeter, note string) {
	b.add(group, name+": CPU", "CPU s/GiB", m.runs, note)
	if m.storePID > 0 {
		b.add(group, name+": store CPU", "CPU s/GiB", m.storeRuns, "the embedded store's gridfsd serve process, /proc/<pid>/stat")
	}
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

// settleIdle is how long the embedded store's process must stay idle for
// settle: longer than the second after a drop at which the store starts
// to give the dropped collection's pages back (FerretDB fork item 19).
const settleIdle = 1500 * time.Millisecond

// settle waits until the embedded store's process has used under 2% of a
// core for settleIdle, for at most 30 s. Why: dropping a run's 1 GiB
// file makes the store vacuum and checkpoint for 2-5 s from a second
// later, its writers taking turns with the next run's. That cost belonged
// to the run before, and it fell unevenly: a tus upload, which waits at
// each PATCH's end for its last inserts and record, lost more to it than
// the PUT beside it (tus / PUT 0.76x with it, 0.88x without, the store's
// CPU per GiB of tus 4.70 against 3.28 s: docs/BENCHMARKS.md). Nothing to
// wait for on MongoDB (no store process here) or in a smoke run.
func (b *bench) settle(ctx context.Context) {
	if b.s.storePID == 0 || b.s.smoke {
		return
	}
	const step = 250 * time.Millisecond
	deadline := time.Now().Add(30 * time.Second)
	prev, idle := cpuOf(b.s.storePID), time.Duration(0)
	for idle < settleIdle && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(step):
		}
		cur := cpuOf(b.s.storePID)
		if cur-prev < 0.02*step.Seconds() {
			idle += step
		} else {
			idle = 0
		}
		prev = cur
	}
}
