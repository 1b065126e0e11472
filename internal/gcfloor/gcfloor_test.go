package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

var sink, src = []byte(nil), make([]byte, 256<<10)

// garbage allocates n bytes in pieces of 256 KiB, each garbage at once,
// and returns the bytes allocated and the collections that ran meanwhile.
//
// On a busy machine (CI runs many test binaries at once) a cycle can take
// long enough in wall time for the allocation to run far past the heap
// goal, so that fewer collections run: load only ever raises the bytes per
// collection, never lowers them. Tests bound it from below with it, and from
// above with heapGoal, which load does not change.
func garbage(n int) (allocated uint64, cycles uint32) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n / (256 << 10) {
		sink = make([]byte, 256<<10)
		copy(sink, src) // as a chunk read fills its buffer
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.NumGC - before.NumGC
}

// heapGoal returns the collector's heap goal and the live heap the last
// collection found: the next cycle is due when the heap nears the goal.
func heapGoal() (goal, live uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// settle runs two collections, so that the finalizer hook after the
// first has run and the goal is set for the live heap.
func settle() {
	runtime.GC()
	runtime.GC()
}

// A floor held applies until it is released; then the collector runs as
// before (GOGC).
func TestHold(t *testing.T) {
	if debug.SetGCPercent(100) != 100 {
		t.Skip("GOGC is set: the test measures the default")
	}
	settle()
	goal, live := heapGoal()
	a, c := garbage(128 << 20)
	t.Logf("no floor: heap goal %.1f MiB over %.1f MiB live; %d MiB allocated, %d collections", mib(goal), mib(live), a>>20, c)
	if goal > 8<<20 {
		t.Fatalf("without a floor a heap goal of %.1f MiB; the test expects Go's 4 MiB minimum", mib(goal))
	}

	release := Hold(16 << 20)
	release2 := Hold(16 << 20)
	settle()
	goal, live = heapGoal()
	a, c = garbage(256 << 20)
	t.Logf("held 16 MiB: heap goal %.1f MiB over %.1f MiB live; %d MiB allocated, %d collections", mib(goal), mib(live), a>>20, c)
	if goal < live+15<<20 {
		t.Errorf("with a floor of 16 MiB held a heap goal of %.1f MiB over %.1f MiB live, want about 16 MiB more", mib(goal), mib(live))
	}
	if c == 0 || a/uint64(c) < 12<<20 {
		t.Errorf("with a floor of 16 MiB held a collection every %.1f MiB, want at least 12", mib(a/uint64(max(c, 1))))
	}

	release()
	release() // a second call does nothing: the other hold stays
	mu.Lock()
	f := floor
	mu.Unlock()
	if f != 16<<20 {
		t.Errorf("floor %d with one hold left, want %d", f, 16<<20)
	}
	release2()
	settle()
	mu.Lock()
	f, p := floor, percent
	mu.Unlock()
	if f != 0 || p != 100 || debug.SetGCPercent(100) != 100 {
		t.Errorf("floor %d and GC percent %d after every hold was released, want 0 and 100", f, p)
	}
	goal, live = heapGoal()
	a, c = garbage(128 << 20)
	t.Logf("released: heap goal %.1f MiB over %.1f MiB live; %d MiB allocated, %d collections", mib(goal), mib(live), a>>20, c)
	if goal > 8<<20 {
		t.Errorf("after the release a heap goal of %.1f MiB, want Go's 4 MiB minimum again", mib(goal))
	}
}

// With a floor of 16 MiB raised, the collector lets 16 MiB of garbage
// build up over a live heap of a few KiB (about 4 MiB without, TestHold);
// with a live heap over the floor, it runs as before (GOGC), and the
// floor's setting is gone.
func TestFloor(t *testing.T) {
	if debug.SetGCPercent(100) != 100 {
		t.Skip("GOGC is set: the test measures the default")
	}
	settle()
	a, c := garbage(256 << 20)
	t.Logf("no floor: %d MiB allocated, %d collections", a>>20, c) // TestHold checks it

	Raise(16 << 20)
	settle()
	goal, live := heapGoal()
	a, c = garbage(256 << 20)
	mu.Lock()
	t.Logf("floor 16 MiB: heap goal %.1f MiB over %.1f MiB live; %d MiB allocated, %d collections, GC percent %d", mib(goal), mib(live), a>>20, c, percent)
	mu.Unlock()
	// The goal is the largest that keeps garbage within the floor (the
	// GC percent is a whole number: a little under it).
	if goal < live+15<<20 || goal > live+17<<20 {
		t.Errorf("with a floor of 16 MiB a heap goal of %.1f MiB over %.1f MiB live, want about 16 MiB more", mib(goal), mib(live))
	}
	if c == 0 || a/uint64(c) < 12<<20 {
		t.Errorf("with a floor of 16 MiB a collection every %.1f MiB, want at least 12", mib(a/uint64(max(c, 1))))
	}
	if tunes < int(c) {
		t.Errorf("%d tunes for %d collections: the hook does not follow every collection", tunes, c)
	}

	live64 := make([][]byte, 64)
	for i := range live64 {
		live64[i] = make([]byte, 1<<20)
	}
	settle()
	mu.Lock()
	p := percent
	mu.Unlock()
	if p != 100 {
		t.Errorf("GC percent %d with 64 MiB live, want GOGC's 100", p)
	}
	runtime.KeepAlive(live64)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
