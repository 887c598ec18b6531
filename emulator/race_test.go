//go:build race

package emulator_test

// raceEnabled tells the allocation-budget test that the race detector is
// on: it instruments memory accesses and changes allocation counts, so the
// budgets are checked only without it.
const raceEnabled = true
