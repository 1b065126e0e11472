// Package gcfloor keeps the Go garbage collector from running every few
// MiB when the live heap is small: it lets at least a floor of garbage
// build up between two cycles, and leaves the collector as it was
// (GOGC) once the live heap is large enough that GOGC allows as much.
//
// Why: a GridFS download makes garbage at the rate it moves bytes (the
// store's SQLite driver copies every chunk it reads into a new slice, the
// MongoDB driver read every reply into a new buffer until gridfsd's fork of
// it let chunker.Reader pool them), while what either
// side keeps alive is a few chunks. With Go's defaults (GOGC=100, a 4 MiB
// minimum) the collector then runs every 4-5 MB moved, hundreds of times a
// second, and each cycle returns freed pages to the kernel that the next
// chunks fault in again: the embedded store spent 1.6-1.8x the CPU per
// byte on gridfsd's reads (runs of 8 chunks) that it spent on the driver's
// download, whose 16 MiB batches keep its heap large (docs/BENCHMARKS.md,
// "Reads and the garbage collector"). A larger GOGC would do the same for
// small heaps but multiply large ones too (32 concurrent uploads); the
// floor adds at most its own size to what the process holds, and nothing
// once the live heap is over 100/GOGC times the floor.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// minHeap is the Go runtime's minimum heap goal at GOGC=100, scaled by
// the GC percent (runtime.defaultHeapMinimum).
const minHeap = 4 << 20

// maxPercent bounds the GC percent the floor sets, for a live heap of a
// few KiB.
const maxPercent = 10_000

var (
	mu      sync.Mutex
	floor   uint64         // bytes: the largest of raised and what is held
	raised  uint64         // the largest Raise asked for
	held    map[uint64]int // Hold's floors in force, by size, and how many of each
	base    int            // the process's GC percent before the first Raise (GOGC)
	started bool
	percent int // the GC percent set last
	tunes   int // tune calls (for tests)
)

// Raise makes the collector let at least bytes of garbage build up between
// cycles, for the rest of the process's life (a larger floor replaces a
// smaller one). With GOGC=off it does nothing; a memory limit (GOMEMLIMIT)
// still bounds the heap as before.
func Raise(bytes uint64) {
	mu.Lock()
	defer mu.Unlock()
	raised = max(raised, bytes)
	setLocked()
}

// Hold raises the floor to bytes until release is called, as Raise does
// for the process's life: for work that makes garbage at a high rate only
// while it runs (a download moves its bytes through fresh buffers), so
// that other work (uploads, whose live heap the collector should follow
// as GOGC says) is left as it was when none runs. Holds of any number
// cost a lock each; the GC percent changes only when the floor does.
func Hold(bytes uint64) (release func()) {
	mu.Lock()
	defer mu.Unlock()
	if held == nil {
		held = map[uint64]int{}
	}
	held[bytes]++
	setLocked()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if held[bytes]--; held[bytes] == 0 {
				delete(held, bytes)
			}
			setLocked()
		})
	}
}

// setLocked sets floor from raised and held, and the GC percent for it
// when it changed.
func setLocked() {
	f := raised
	for b := range held {
		f = max(f, b)
	}
	if f == floor {
		return
	}
	floor = f
	if !started {
		started = true
		base = debug.SetGCPercent(100)
		debug.SetGCPercent(base)
		percent = base
		if base >= 0 {
			hook()
		}
	}
	if base >= 0 {
		tuneLocked()
	}
}

// sentinel is garbage whose finalizer runs once after each collection.
// It holds a pointer so that it is not one of the tiny allocations Go
// packs together, which are freed (and finalized) together.
type sentinel struct{ _ *int }

// hook arranges for tune to run after the next collection, and again
// after each one after that.
func hook() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		mu.Lock()
		tuneLocked()
		mu.Unlock()
		hook()
	})
}

// samples are what the collector's heap goal is computed from: the goal is
// the live heap plus GC percent of the live heap and the roots (the
// goroutines' stacks and the globals).
var samples = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}

// tuneLocked sets the GC percent for the live heap the last collection
// found: enough for floor bytes of garbage, never less than base.
func tuneLocked() {
	tunes++
	metrics.Read(samples)
	var v [3]uint64
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	live, roots := v[0], v[0]+v[1]+v[2]
	// The goal is the larger of live + roots*p/100 and Go's minimum heap,
	// 4 MiB*p/100: the largest p that keeps both at most live + floor.
	need := (live + floor) * 100 / minHeap
	if roots > 0 {
		need = min(need, floor*100/roots)
	}
	p := base
	if need > uint64(base) {
		p = int(min(need, maxPercent))
	}
	if p != percent {
		percent = p
		debug.SetGCPercent(p)
	}
}

// Held is the number of holds in force (for tests).
func Held() int {
	mu.Lock()
	defer mu.Unlock()
	n := 0
	for _, k := range held {
		n += k
	}
	return n
}
