package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
)

var sink, src = []byte(nil), make([]byte, 256<<10)

// garbage allocates n bytes in pieces of 256 KiB, each garbage at once,
// and returns the bytes allocated and the collections that ran meanwhile.
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

// A floor held applies until it is released; then the collector runs as
// before (GOGC).
func TestHold(t *testing.T) {
	if debug.SetGCPercent(100) != 100 {
		t.Skip("GOGC is set: the test measures the default")
	}
	runtime.GC()
	a, c := garbage(128 << 20)
	t.Logf("no floor: %d MiB allocated, %d collections", a>>20, c)
	if c == 0 || a/uint64(c) > 8<<20 {
		t.Fatalf("without a floor a collection every %d bytes; the test expects Go's 4 MiB minimum", a/uint64(max(c, 1)))
	}
	release := Hold(16 << 20)
	release2 := Hold(16 << 20)
	runtime.GC()
	runtime.GC()
	a, c = garbage(256 << 20)
	t.Logf("held 16 MiB: %d MiB allocated, %d collections", a>>20, c)
	if c == 0 || a/uint64(c) < 12<<20 {
		t.Errorf("with a floor of 16 MiB held a collection every %.1f MiB, want at least 12", float64(a)/float64(max(c, 1))/(1<<20))
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
	runtime.GC()
	runtime.GC()
	mu.Lock()
	f, p := floor, percent
	mu.Unlock()
	if f != 0 || p != 100 || debug.SetGCPercent(100) != 100 {
		t.Errorf("floor %d and GC percent %d after every hold was released, want 0 and 100", f, p)
	}
	a, c = garbage(128 << 20)
	t.Logf("released: %d MiB allocated, %d collections", a>>20, c)
	if c == 0 || a/uint64(c) > 8<<20 {
		t.Errorf("after the release a collection every %.1f MiB, want Go's 4 MiB minimum again", float64(a)/float64(max(c, 1))/(1<<20))
	}
}

// With a floor of 16 MiB raised, the collector runs every 12-24 MiB over a
// live heap of a few KiB (about every 4 MiB without, TestHold); with a live heap over the floor,
// as it ran before (GOGC), and with the floor's setting gone.
func TestFloor(t *testing.T) {
	if debug.SetGCPercent(100) != 100 {
		t.Skip("GOGC is set: the test measures the default")
	}
	runtime.GC()
	a, c := garbage(256 << 20)
	t.Logf("no floor: %d MiB allocated, %d collections", a>>20, c) // TestHold checks it

	Raise(16 << 20)
	runtime.GC()
	runtime.GC() // the finalizer of the first sentinel has run
	a, c = garbage(256 << 20)
	mu.Lock()
	t.Logf("floor 16 MiB: %d MiB allocated, %d collections, GC percent %d", a>>20, c, percent)
	mu.Unlock()
	if c == 0 || a/uint64(c) < 12<<20 || a/uint64(c) > 24<<20 {
		t.Errorf("with a floor of 16 MiB a collection every %.1f MiB, want 12 to 24", float64(a)/float64(max(c, 1))/(1<<20))
	}
	if tunes < int(c) {
		t.Errorf("%d tunes for %d collections: the hook does not follow every collection", tunes, c)
	}

	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	runtime.GC()
	mu.Lock()
	p := percent
	mu.Unlock()
	if p != 100 {
		t.Errorf("GC percent %d with 64 MiB live, want GOGC's 100", p)
	}
	runtime.KeepAlive(live)
}
