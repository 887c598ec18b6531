package memstore

import (
	"context"
	"slices"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Runtime holds the scenarios each namespace adds at run time through the
// admin API, in this process: the emulator.RuntimeScenarios of the memory
// store, bounded by scenarios.RuntimeLimits. It is safe for concurrent
// use; the scenarios it returns are shared and must not be modified.
type Runtime struct {
	limits scenarios.RuntimeLimits

	mu     sync.RWMutex
	spaces map[string]*scenarios.Catalogue
	total  int // DocumentBytes of every namespace's scenarios
}

var _ emulator.RuntimeScenarios = (*Runtime)(nil)

// NewRuntime returns empty runtime scenarios with the given bounds (zero
// fields take the defaults).
func NewRuntime(limits scenarios.RuntimeLimits) *Runtime {
	return &Runtime{limits: limits.WithDefaults(), spaces: map[string]*scenarios.Catalogue{}}
}

// Add parses a scenario document (scenarios.ParseRuntime) and adds its
// scenarios to namespace ns all at once or not at all.
func (rt *Runtime) Add(_ context.Context, ns string, doc []byte) ([]scenarios.Scenario, error) {
	added, err := scenarios.ParseRuntime(doc)
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var current []scenarios.Scenario
	if c := rt.spaces[ns]; c != nil {
		current = c.All()
	}
	u := scenarios.RuntimeUsage{
		Namespaces: len(rt.spaces), New: len(current) == 0,
		Scenarios: len(current), Bytes: scenarios.DocumentBytes(current), TotalBytes: rt.total,
		Adding: len(added), AddingBytes: scenarios.DocumentBytes(added),
	}
	if r := rt.limits.Check(u); r != nil {
		return nil, rt.limits.Err(r)
	}
	ids, keys := make(map[string]bool, len(current)), make(map[string]string, len(current))
	for _, s := range current {
		ids[s.ID], keys[s.SelectorKey()] = true, s.ID
	}
	if r := scenarios.Taken(ids, keys, added); r != nil {
		return nil, rt.limits.Err(r)
	}
	rt.spaces[ns] = scenarios.NewRuntimeCatalogue(append(current, added...))
	rt.total += u.AddingBytes
	return slices.Clone(added), nil
}

// List returns the scenarios of ns in the order they were added.
func (rt *Runtime) List(_ context.Context, ns string) ([]scenarios.Scenario, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	if c := rt.spaces[ns]; c != nil {
		return c.All(), nil
	}
	return nil, nil
}

// Delete removes the scenario id of ns and reports whether it was there.
func (rt *Runtime) Delete(_ context.Context, ns, id string) (bool, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.spaces[ns]
	if c == nil {
		return false, nil
	}
	list := c.All()
	i := slices.IndexFunc(list, func(s scenarios.Scenario) bool { return s.ID == id })
	if i < 0 {
		return false, nil
	}
	rt.total -= scenarios.DocumentBytes(list[i : i+1])
	if rest := slices.Delete(list, i, i+1); len(rest) > 0 {
		rt.spaces[ns] = scenarios.NewRuntimeCatalogue(rest)
	} else {
		delete(rt.spaces, ns)
	}
	return true, nil
}

// Reset removes every scenario of ns and returns how many there were.
func (rt *Runtime) Reset(_ context.Context, ns string) (int, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.spaces[ns]
	if c == nil {
		return 0, nil
	}
	delete(rt.spaces, ns)
	list := c.All()
	rt.total -= scenarios.DocumentBytes(list)
	return len(list), nil
}

// Catalogue returns the scenarios of ns as a catalogue without a
// fallback, or nil when ns has none.
func (rt *Runtime) Catalogue(_ context.Context, ns string) (*scenarios.Catalogue, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.spaces[ns], nil
}
