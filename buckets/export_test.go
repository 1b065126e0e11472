package buckets

// LeaseID exposes leaseID to the tests.
var LeaseID = leaseID
