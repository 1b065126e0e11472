package chunker

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// ReadBudget is what the Readers of one process share so that the memory of
// their read-ahead stays flat however many clients download at once: a byte
// budget divided among the Readers that are open, down to one chunk each.
// One download reads ahead up to maxReadaheadBytes, many read ahead less,
// and with many the store or the network is the bottleneck anyway.
//
// It also bounds the chunk queries (find, getMore) its Readers have in
// flight. Past the bound they wait in the order they came, so that when
// many clients read at once each waits about as long as the others: a store
// that serves them all at once finishes them in no useful order, and the
// slowest wait many times the median (the benchmark's 64 range readers:
// p99 3.4× p50 unbounded, 1.6–1.7× with 4 or 8 queries in flight, at the
// same throughput). A nil ReadBudget bounds nothing.
type ReadBudget struct {
	bytes   int
	active  atomic.Int64
	queries *semaphore.Weighted // FIFO; nil: unbounded
}

// NewReadBudget returns a ReadBudget of bytes of read-ahead in all, with at
// most queries chunk queries in flight (0: no bound).
func NewReadBudget(queries, bytes int) *ReadBudget {
	b := &ReadBudget{bytes: bytes}
	if queries > 0 {
		b.queries = semaphore.NewWeighted(int64(queries))
	}
	return b
}

// query waits for a turn to send a chunk query; the caller calls done once
// the reply is in.
func (b *ReadBudget) query(ctx context.Context) (done func(), err error) {
	if b == nil || b.queries == nil {
		return func() {}, nil
	}
	if err := b.queries.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("waiting to query the store: %w", err)
	}
	return func() { b.queries.Release(1) }, nil
}

// share is the read-ahead of one of the open Readers, in bytes.
func (b *ReadBudget) share() int {
	if b == nil {
		return maxReadaheadBytes
	}
	return min(b.bytes/int(max(b.active.Load(), 1)), maxReadaheadBytes)
}

// ShareReadahead makes r one of the Readers that share b, until Close. Call
// it before the first Read.
func (r *Reader) ShareReadahead(b *ReadBudget) {
	if b == nil || r.budget != nil || r.closed {
		return
	}
	r.budget = b
	b.active.Add(1)
}
