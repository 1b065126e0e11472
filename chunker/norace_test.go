//go:build !race

package chunker

const raceEnabled = false
