package state

import (
	"context"
	"errors"
	"time"
)

// DefaultMaxClockOffset bounds how far a namespace's clock may run ahead
// of real time.
const DefaultMaxClockOffset = 30 * 24 * time.Hour

// NamespaceState is what a namespace (a bearer token) sets for its own
// transactions through the admin API: its clock and the line below which
// its transactions are forgotten. The zero state is real time, nothing
// forgotten.
type NamespaceState struct {
	// Offset is how far the namespace's clock runs ahead of real time;
	// never negative. Every time-based outcome of the namespace's
	// transactions follows its clock.
	Offset time.Duration
	// Generation grows at each forgetting (DELETE /admin/transactions):
	// a transaction made under an earlier generation is not found any
	// more. It is a Unix time in microseconds, or one more than the one
	// before when that is larger, so that it only grows, even after a
	// state that expired; it fits a Lua number exactly (below 2^53).
	Generation uint64
}

// Namespaces keeps each namespace's NamespaceState. It is state that
// outlives a request: in memory by default, shared by every replica in a
// shared store. A namespace's state is kept for as long as transactions
// are (the store's maximum age) after its last change. Implementations
// are safe for concurrent use.
type Namespaces interface {
	// State returns the state of ns: the zero state when it set none.
	// The engine reads it on every step of a transaction, so it answers
	// from memory but for a rare check: a change made on another replica
	// is seen as soon as the shared store announces it, and within a
	// second at the latest.
	State(ctx context.Context, ns string) (NamespaceState, error)
	// Advance moves the clock of ns forward by d (> 0), unless its offset
	// would then exceed max: then it changes nothing and returns an error
	// wrapping ErrClockLimit. It returns the new state.
	Advance(ctx context.Context, ns string, d, max time.Duration) (NamespaceState, error)
	// ResetClock sets the offset of ns back to zero and returns the new
	// state.
	ResetClock(ctx context.Context, ns string) (NamespaceState, error)
	// Forget raises the generation of ns above every one before and
	// returns the new state: the transactions made before are forgotten.
	Forget(ctx context.Context, ns string) (NamespaceState, error)
	// Changed returns a channel closed at the next change of the state
	// of ns, made on any replica, or sooner: read the state again.
	Changed(ns string) <-chan struct{}
}

// ErrClockLimit is wrapped by Namespaces.Advance when the offset would
// exceed its bound.
var ErrClockLimit = errors.New("clock offset beyond its bound")

// ErrNamespaceLimit is wrapped by a Namespaces that holds as many
// namespaces as it may and refuses one more.
var ErrNamespaceLimit = errors.New("too many namespaces with a state")

// NextGeneration is the generation that follows prev at time now: now in
// Unix microseconds, or prev+1 when that is not larger.
func NextGeneration(prev uint64, now time.Time) uint64 {
	if n := now.UnixMicro(); n > 0 && uint64(n) > prev {
		return uint64(n)
	}
	return prev + 1
}
