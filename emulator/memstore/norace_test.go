//go:build !race

package memstore_test

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
