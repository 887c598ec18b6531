//go:build !race

package testkit

// Race tells whether the race detector is on: without it, allocation
// counts are the real ones.
const Race = false
