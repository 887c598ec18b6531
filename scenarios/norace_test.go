//go:build !race

package scenarios

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
