//go:build !race

package wire

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
