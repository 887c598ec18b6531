package testkit

import (
	"testing"
	"time"
)

// Patience is how long a test waits for what should happen soon (a
// process to start or end, a change to reach another replica, a server
// to answer): far beyond what it takes on a busy machine running two
// copies of the suite, it only bounds a test that would otherwise hang.
// A test never asserts that something happens within a short time; it
// waits for it to happen, here, or on a channel.
const Patience = 2 * time.Minute

// pollEvery is how often Eventually asks again.
const pollEvery = 20 * time.Millisecond

// Eventually asks cond until it holds and fails tb (Fatal) when it still
// does not after Patience, saying what was awaited. A test that wants to
// report more (the last answer, say) uses Within.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	if !Within(Patience, cond) {
		tb.Fatalf("%s: still not so after %s", what, Patience)
	}
}

// Within asks cond until it holds, for at most d, and tells whether it
// held: for a wait whose failure the test reports itself.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}
