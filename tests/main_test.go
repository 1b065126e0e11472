// Package tests holds gridfsd's conformance tests: the official GridFS
// specification suite run against package buckets, interoperability with
// the MongoDB Go driver's own GridFS, and properties of the storage core.
// They run against the embedded store, or the MongoDB that
// GRIDFSD_TEST_URI names.
package tests

import (
	"testing"

	"github.com/gridfsd/gridfsd/internal/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
