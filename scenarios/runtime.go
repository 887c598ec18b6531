package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// RuntimeFile is the name problems of a runtime scenario document are
// reported under.
const RuntimeFile = "request body"

// RuntimePack is the pack of runtime scenarios.
const RuntimePack = "runtime"

// Default bounds of a Runtime.
const (
	DefaultMaxRuntimeScenarios  = 1000
	DefaultMaxRuntimeNamespaces = 10000
	// DefaultMaxRuntimeBytes bounds the documents of one namespace's
	// runtime scenarios (Scenario.Document), in bytes.
	DefaultMaxRuntimeBytes = 1 << 20
	// DefaultMaxRuntimeTotalBytes bounds the documents of every
	// namespace's runtime scenarios together, in bytes: with the
	// per-namespace bound alone, many tokens could fill the memory.
	DefaultMaxRuntimeTotalBytes = 16 << 20
)

var (
	// ErrExists is returned (wrapped) by Runtime.Add when a scenario of
	// the document has the id, or the same match and priority, of one
	// already in the namespace. Nothing is added.
	ErrExists = errors.New("scenario already exists")
	// ErrLimit is returned (wrapped) by Runtime.Add when the namespace
	// would hold more scenarios, or the Runtime more namespaces, than
	// allowed. Nothing is added.
	ErrLimit = errors.New("runtime scenario limit reached")
	// ErrTooLarge is returned (wrapped) by Runtime.Add when the
	// namespace's scenarios would take more bytes than allowed. Nothing is
	// added.
	ErrTooLarge = errors.New("runtime scenarios too large")
)

// Runtime holds the scenarios added at run time, per namespace (the
// caller's token). Runtime scenarios of a namespace are matched before the
// file catalogue. The zero value is ready to use with the default bounds;
// set the bounds before the first use. A Runtime is safe for concurrent
// use; the scenarios it returns are shared and must not be modified.
type Runtime struct {
	// MaxScenarios bounds the scenarios of one namespace; 0 means
	// DefaultMaxRuntimeScenarios.
	MaxScenarios int
	// MaxNamespaces bounds the namespaces holding scenarios; 0 means
	// DefaultMaxRuntimeNamespaces.
	MaxNamespaces int
	// MaxBytes bounds the size of one namespace's scenarios, their
	// documents counted (Scenario.Document); 0 means
	// DefaultMaxRuntimeBytes.
	MaxBytes int
	// MaxTotalBytes bounds the size of every namespace's scenarios
	// together, their documents counted; 0 means
	// DefaultMaxRuntimeTotalBytes.
	MaxTotalBytes int

	mu     sync.RWMutex
	spaces map[string]*Catalogue
	total  int // DocumentBytes of every namespace's scenarios
}

// Add parses a document of the scenario file format (YAML, or JSON, which
// is YAML) with the rules of a file, except that it may not set fallback
// and every scenario needs a match, and adds its scenarios to namespace ns
// all at once or not at all. It returns the added scenarios, a *LoadError
// naming the problems of the document (under RuntimeFile), or an error
// wrapping ErrExists or ErrLimit.
func (rt *Runtime) Add(ns string, data []byte) ([]Scenario, error) {
	added, err := ParseRuntime(data)
	if err != nil {
		return nil, err
	}

	rt.mu.Lock()
	defer rt.mu.Unlock()
	old := rt.spaces[ns]
	var current []Scenario
	if old != nil {
		current = old.scenarios
	} else if len(rt.spaces) >= limit(rt.MaxNamespaces, DefaultMaxRuntimeNamespaces) {
		return nil, fmt.Errorf("%w: %d namespaces hold runtime scenarios already", ErrLimit, len(rt.spaces))
	}
	if max := limit(rt.MaxScenarios, DefaultMaxRuntimeScenarios); len(current)+len(added) > max {
		return nil, fmt.Errorf("%w: the namespace holds %d scenarios, adding %d would pass the limit of %d",
			ErrLimit, len(current), len(added), max)
	}
	if max, have, adding := limit(rt.MaxBytes, DefaultMaxRuntimeBytes), DocumentBytes(current), DocumentBytes(added); have+adding > max {
		return nil, fmt.Errorf("%w: the namespace's scenarios take %d bytes, adding %d would pass the limit of %d",
			ErrTooLarge, have, adding, max)
	}
	adding := DocumentBytes(added)
	if max := limit(rt.MaxTotalBytes, DefaultMaxRuntimeTotalBytes); rt.total+adding > max {
		return nil, fmt.Errorf("%w: the runtime scenarios of every token take %d bytes together, adding %d would pass the sandbox's limit of %d",
			ErrTooLarge, rt.total, adding, max)
	}
	if err := conflicts(current, added); err != nil {
		return nil, err
	}
	if rt.spaces == nil {
		rt.spaces = map[string]*Catalogue{}
	}
	rt.spaces[ns] = NewRuntimeCatalogue(append(slices.Clone(current), added...))
	rt.total += adding
	return slices.Clone(added), nil
}

// ParseRuntime parses a runtime scenario document (the admin API's body)
// with the rules of a file, except that it may not set fallback and every
// scenario needs a match; duplicate ids and selectors inside it are
// refused. Problems come back as a *LoadError under RuntimeFile. Each
// scenario keeps a document of itself alone (Scenario.Document), which
// ParseRuntime reads back into the same scenario.
func ParseRuntime(data []byte) ([]Scenario, error) {
	f, problems := parseFile(RuntimeFile, data)
	if f.Fallback != "" {
		problems = append(problems, Problem{File: RuntimeFile, Line: f.fallbackLine,
			Reason: "runtime scenarios cannot set fallback: every scenario needs a match"})
	}
	problems = append(problems, checkDuplicates([]*File{f})...)
	if err := loadError(problems); err != nil {
		return nil, err
	}
	setPack(f, RuntimePack)
	return f.Scenarios, nil
}

// DocumentBytes is the size of the documents of runtime scenarios, what
// MaxBytes bounds.
func DocumentBytes(list []Scenario) int {
	n := 0
	for i := range list {
		n += len(list[i].doc)
	}
	return n
}

// Conflicts returns an error wrapping ErrExists when a scenario of added
// has the id, or the selector key, of one of current: a namespace may hold
// neither twice.
func Conflicts(current, added []Scenario) error { return conflicts(current, added) }

// conflicts reports the first added scenario whose id, or whose match and
// priority, is already in current.
func conflicts(current, added []Scenario) error {
	ids := map[string]bool{}
	keys := map[string]string{}
	for _, s := range current {
		ids[s.ID] = true
		keys[s.SelectorKey()] = s.ID
	}
	for _, s := range added {
		if ids[s.ID] {
			return fmt.Errorf("%w: id %s is taken in this namespace; delete it first", ErrExists, s.ID)
		}
		if other, ok := keys[s.SelectorKey()]; ok {
			return fmt.Errorf("%w: scenario %s has the same selectors and priority as %s", ErrExists, s.ID, other)
		}
	}
	return nil
}

// limit returns n, or def when n is not positive.
func limit(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// NewRuntimeCatalogue indexes the runtime scenarios of one namespace, in
// the order they were added. It has no fallback: Match returns nil when
// none of them matches.
func NewRuntimeCatalogue(list []Scenario) *Catalogue {
	c := &Catalogue{scenarios: list, byID: make(map[string]*Scenario, len(list))}
	for i := range c.scenarios {
		c.byID[c.scenarios[i].ID] = &c.scenarios[i]
	}
	c.index = newMatchIndex(c.scenarios)
	return c
}

// Catalogue returns the runtime scenarios of namespace ns as a catalogue
// without a fallback, or nil when ns has none.
func (rt *Runtime) Catalogue(ns string) *Catalogue {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.spaces[ns]
}

// List returns the scenarios of namespace ns in the order they were added.
func (rt *Runtime) List(ns string) []Scenario {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	if c := rt.spaces[ns]; c != nil {
		return c.All()
	}
	return nil
}

// ByID returns the runtime scenario of namespace ns with the given id.
func (rt *Runtime) ByID(ns, id string) (*Scenario, bool) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	if c := rt.spaces[ns]; c != nil {
		return c.ByID(id)
	}
	return nil, false
}

// Match returns the runtime scenario of namespace ns that wins for r, by
// the rules of Catalogue.Match, and false when none matches: the caller
// then asks the file catalogue.
func (rt *Runtime) Match(ns string, r Request) (*Scenario, bool) {
	rt.mu.RLock()
	c := rt.spaces[ns]
	rt.mu.RUnlock()
	if c == nil {
		return nil, false
	}
	s := c.index.best(r)
	return s, s != nil
}

// Delete removes the scenario with the given id from namespace ns and
// reports whether there was one.
func (rt *Runtime) Delete(ns, id string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.spaces[ns]
	if c == nil {
		return false
	}
	i := slices.IndexFunc(c.scenarios, func(s Scenario) bool { return s.ID == id })
	if i < 0 {
		return false
	}
	rt.total -= DocumentBytes(c.scenarios[i : i+1])
	rest := slices.Delete(slices.Clone(c.scenarios), i, i+1)
	if len(rest) == 0 {
		delete(rt.spaces, ns)
		return true
	}
	rt.spaces[ns] = NewRuntimeCatalogue(rest)
	return true
}

// Reset removes every scenario of namespace ns and returns how many there
// were.
func (rt *Runtime) Reset(ns string) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.spaces[ns]
	if c == nil {
		return 0
	}
	delete(rt.spaces, ns)
	rt.total -= DocumentBytes(c.scenarios)
	return len(c.scenarios)
}
