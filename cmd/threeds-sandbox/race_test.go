//go:build race

package main

// raceEnabled tells the tests that build the binary that the race
// detector is on, so the binary they start is built with -race too.
const raceEnabled = true
