//go:build !race

package embedded

// raceEnabled: see race_test.go.
const raceEnabled = false
