//go:build !race

package main

// raceEnabled is false: the binary the tests build has no race detector.
const raceEnabled = false
