//go:build !race

package templates

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
