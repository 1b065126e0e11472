package flaky

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestAfterNeverRunsLate: a fault's start that after schedules has done
// all it does once the fault's stop has returned, or never runs (else it
// comes after the stop's Clear and the proxy keeps the fault: the gateway
// was never ready again in TestDownloadsUnderFaults). The starts take a
// while, and many fire just before their stop comes.
func TestAfterNeverRunsLate(t *testing.T) {
	var late, ran atomic.Int64
	const rounds = 5000
	for i := range rounds {
		var returned atomic.Bool
		stop := after(time.Duration(i%40)*time.Microsecond, func() {
			ran.Add(1)
			time.Sleep(50 * time.Microsecond)
			if returned.Load() {
				late.Add(1)
			}
		})
		for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
		}
		stop()
		returned.Store(true)
	}
	time.Sleep(100 * time.Millisecond)
	if late.Load() > 0 {
		t.Fatalf("%d of %d starts (%d ran) were not done when their stop returned", late.Load(), rounds, ran.Load())
	}
	if ran.Load() == 0 || ran.Load() == rounds {
		t.Fatalf("%d of %d starts ran: the test did not race the stops with the starts", ran.Load(), rounds)
	}
	t.Logf("%d of %d starts ran before their stop", ran.Load(), rounds)
}
