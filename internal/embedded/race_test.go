//go:build race

package embedded

// raceEnabled: a race build, whose sync.Pool drops a quarter of what it is given and whose store
// tracks its resources (FerretDB fork item 27), so allocation bounds do not hold.
const raceEnabled = true
