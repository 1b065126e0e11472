//go:build race

package wire

// poisonReleased makes a recycled message buffer's release overwrite it (gridfsd, PATCHES.md item
// 5), so that race builds, which run the test suites, see any use of a message after its release.
const poisonReleased = true
