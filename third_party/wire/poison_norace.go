//go:build !race

package wire

// poisonReleased: see poison_race.go.
const poisonReleased = false
