//go:build !race

package web_test

// raceEnabled is false: allocation counts are the real ones.
const raceEnabled = false
