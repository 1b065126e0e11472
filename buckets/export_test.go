package buckets

// LeaseID exposes leaseID to the tests.
var LeaseID = leaseID

// SweepLeaseID exposes sweepLeaseID to the tests.
var SweepLeaseID = sweepLeaseID

// WrapStoreError exposes full to the tests.
var WrapStoreError = full
