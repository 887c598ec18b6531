//go:build race

package testkit

// Race tells whether the race detector is on. It instruments memory
// accesses and changes allocation counts and timings, so allocation
// budgets are checked only without it.
const Race = true
