//go:build !race

package emulator_test

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
