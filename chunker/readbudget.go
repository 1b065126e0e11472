package chunker

import "sync/atomic"

// ReadBudget is what the Readers of one process share so that the memory of
// their read-ahead stays flat however many clients download at once: a byte
// budget divided among the Readers that are open, down to one chunk each.
// One download reads ahead up to maxReadaheadBytes, many read ahead less,
// and with many the store or the network is the bottleneck anyway. A nil
// ReadBudget bounds nothing.
type ReadBudget struct {
	bytes  int
	active atomic.Int64
}

// NewReadBudget returns a ReadBudget of bytes of read-ahead in all.
func NewReadBudget(bytes int) *ReadBudget { return &ReadBudget{bytes: bytes} }

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
