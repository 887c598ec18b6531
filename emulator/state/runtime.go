package state

import (
	"context"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// RuntimeScenarios holds the scenarios each namespace adds at run time
// through the admin API; a namespace's own win over the catalogue. It is
// state that outlives a request: in memory by default, shared by every
// replica in a shared store. Implementations are safe for concurrent use;
// the scenarios they return must not be modified.
type RuntimeScenarios interface {
	// Add parses a scenario document (scenarios.ParseRuntime) and adds its
	// scenarios to namespace ns all at once or not at all. It returns the
	// added scenarios, a *scenarios.LoadError, or an error wrapping
	// scenarios.ErrExists or scenarios.ErrLimit.
	Add(ctx context.Context, ns string, doc []byte) ([]scenarios.Scenario, error)
	// List returns the scenarios of ns in the order they were added.
	List(ctx context.Context, ns string) ([]scenarios.Scenario, error)
	// Delete removes the scenario id of ns and reports whether it was there.
	Delete(ctx context.Context, ns, id string) (bool, error)
	// Reset removes every scenario of ns and returns how many there were.
	Reset(ctx context.Context, ns string) (int, error)
	// Catalogue returns the scenarios of ns as a catalogue without a
	// fallback, or nil when ns has none. A change made anywhere is seen
	// within a second.
	Catalogue(ctx context.Context, ns string) (*scenarios.Catalogue, error)
}
