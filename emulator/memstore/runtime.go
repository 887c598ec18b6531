package memstore

import (
	"context"
	"slices"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Runtime holds the scenarios each namespace adds at run time through the
// admin API, in this process: the state.RuntimeScenarios of the memory
// store, bounded by scenarios.RuntimeLimits. At the bound of every
// namespace's bytes, the namespace holding the most (package fairshare)
// loses its oldest scenarios, while it holds more than the adding one
// would (scenarios.RuntimeLimits.Room). It is safe for concurrent use;
// the scenarios it returns are shared and must not be modified.
type Runtime struct {
	limits scenarios.RuntimeLimits

	mu     sync.RWMutex
	spaces map[string]*scenarios.Catalogue
	total  int                // DocumentBytes of every namespace's scenarios
	held   fairshare.Holdings // DocumentBytes by namespace
}

var _ state.RuntimeScenarios = (*Runtime)(nil)

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
	if r := rt.limits.Check(u); r != nil && r.Rule != scenarios.RuleTotal {
		return nil, rt.limits.Err(r)
	}
	ids, keys := make(map[string]bool, len(current)), make(map[string]string, len(current))
	for _, s := range current {
		ids[s.ID], keys[s.SelectorKey()] = true, s.ID
	}
	if r := scenarios.Taken(ids, keys, added); r != nil {
		return nil, rt.limits.Err(r)
	}
	need, ok := rt.limits.Room(u, rt.holdings, ns)
	if !ok {
		return nil, rt.limits.Err(&scenarios.RuntimeRefusal{Rule: scenarios.RuleTotal, Usage: u})
	}
	rt.giveWay(need)
	rt.spaces[ns] = scenarios.NewRuntimeCatalogue(append(current, added...))
	rt.total += u.AddingBytes
	rt.held.Add(ns, int64(u.AddingBytes))
	return slices.Clone(added), nil
}

// holdings yields the bytes of each namespace; rt.mu is held.
func (rt *Runtime) holdings(yield func(string, int) bool) {
	for ns := range rt.spaces {
		if !yield(ns, int(rt.held.Of(ns))) {
			return
		}
	}
}

// giveWay frees need bytes: the namespace holding the most loses its
// oldest scenario, then again, whichever holds the most then; rt.mu is
// held. Room has checked that those holding more than the adding
// namespace would free enough.
func (rt *Runtime) giveWay(need int) {
	lists := map[string][]scenarios.Scenario{} // of the namespaces giving way
	dropped := map[string]int{}                // namespace -> how many of its oldest go
	defer func() {
		for ns, n := range dropped {
			if rest := lists[ns][n:]; len(rest) > 0 {
				rt.spaces[ns] = scenarios.NewRuntimeCatalogue(rest)
			} else {
				delete(rt.spaces, ns)
			}
		}
	}()
	for need > 0 {
		most, _ := rt.held.Largest()
		list, ok := lists[most]
		if !ok {
			c := rt.spaces[most]
			if c == nil {
				return
			}
			list = c.All()
			lists[most] = list
		}
		n := dropped[most]
		if n >= len(list) {
			return
		}
		size := scenarios.DocumentBytes(list[n : n+1])
		dropped[most] = n + 1
		rt.held.Add(most, -int64(size))
		rt.total -= size
		need -= size
	}
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
	size := scenarios.DocumentBytes(list[i : i+1])
	rt.total -= size
	rt.held.Add(ns, -int64(size))
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
	rt.held.Add(ns, -rt.held.Of(ns))
	return len(list), nil
}

// Catalogue returns the scenarios of ns as a catalogue without a
// fallback, or nil when ns has none.
func (rt *Runtime) Catalogue(_ context.Context, ns string) (*scenarios.Catalogue, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.spaces[ns], nil
}
