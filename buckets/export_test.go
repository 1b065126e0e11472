package buckets

import "context"

// LeaseID exposes leaseID to the tests.
var LeaseID = leaseID

// SweepLeaseID exposes sweepLeaseID to the tests.
var SweepLeaseID = sweepLeaseID

// WrapStoreError exposes full to the tests.
var WrapStoreError = full

// SetResumableProgress sets how often a long append records its offset,
// and returns what puts it back.
func SetResumableProgress(n int64) (restore func()) {
	old := resumableProgress
	resumableProgress = n
	return func() { resumableProgress = old }
}

// AssumeUnorderedDurability makes d write as on a store whose durability
// is not ordered (MongoDB): every insert journaled, and a resumable
// append's record update overlapping its last insert (Pending).
func (d *DB) AssumeUnorderedDurability(ctx context.Context) {
	d.store(ctx)
	d.types.mu.Lock()
	d.types.known, d.types.ordered = true, false
	d.types.mu.Unlock()
}

// SetDeleteListed makes f run in a delete between the listing of what it
// removes and their removal (see deleteListed), and returns what takes it
// away.
func SetDeleteListed(f func()) (restore func()) {
	deleteListed = f
	return func() { deleteListed = nil }
}
