package buckets

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
