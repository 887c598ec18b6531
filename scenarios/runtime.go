package scenarios

import (
	"errors"
	"fmt"
)

// RuntimeFile is the name problems of a runtime scenario document are
// reported under.
const RuntimeFile = "request body"

// RuntimePack is the pack of runtime scenarios.
const RuntimePack = "runtime"

// Default bounds of the runtime scenarios (RuntimeLimits).
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
	// ErrExists is wrapped by the error of an addition refused because a
	// scenario of the document has the id, or the same match and
	// priority, of one already in the namespace. Nothing is added.
	ErrExists = errors.New("scenario already exists")
	// ErrLimit is wrapped by the error of an addition refused because the
	// namespace would hold more scenarios, or the store more namespaces,
	// than allowed. Nothing is added.
	ErrLimit = errors.New("runtime scenario limit reached")
	// ErrTooLarge is wrapped by the error of an addition refused because
	// the namespace's scenarios, or every namespace's, would take more
	// bytes than allowed. Nothing is added.
	ErrTooLarge = errors.New("runtime scenarios too large")
)

// RuntimeLimits bound the runtime scenarios every store keeps. Zero
// fields take the defaults (WithDefaults).
type RuntimeLimits struct {
	// MaxScenarios bounds the scenarios of one namespace.
	MaxScenarios int
	// MaxNamespaces bounds the namespaces holding scenarios.
	MaxNamespaces int
	// MaxBytes bounds the size of one namespace's scenarios, their
	// documents counted (Scenario.Document).
	MaxBytes int
	// MaxTotalBytes bounds the size of every namespace's scenarios
	// together: with the per-namespace bound alone, many tokens could
	// fill the memory.
	MaxTotalBytes int
}

// WithDefaults returns l with its zero (or negative) fields set to the
// defaults.
func (l RuntimeLimits) WithDefaults() RuntimeLimits {
	return RuntimeLimits{
		MaxScenarios:  limit(l.MaxScenarios, DefaultMaxRuntimeScenarios),
		MaxNamespaces: limit(l.MaxNamespaces, DefaultMaxRuntimeNamespaces),
		MaxBytes:      limit(l.MaxBytes, DefaultMaxRuntimeBytes),
		MaxTotalBytes: limit(l.MaxTotalBytes, DefaultMaxRuntimeTotalBytes),
	}
}

// RuntimeRule names a rule that an addition of runtime scenarios broke.
// The names are those a store's atomic script answers with.
type RuntimeRule string

// The rules of an addition of runtime scenarios: the bounds of
// RuntimeLimits, then the uniqueness of ids and of selectors in a
// namespace.
const (
	RuleNamespaces RuntimeRule = "namespaces" // too many namespaces hold scenarios
	RuleCount      RuntimeRule = "count"      // the namespace would hold too many scenarios
	RuleBytes      RuntimeRule = "bytes"      // the namespace's scenarios would take too many bytes
	RuleTotal      RuntimeRule = "total"      // every namespace's scenarios would take too many bytes
	RuleID         RuntimeRule = "id"         // an id is taken
	RuleSelector   RuntimeRule = "selector"   // a selector (match and priority) is taken
)

// RuntimeUsage is what a namespace and the store hold when scenarios are
// added, and what the addition brings.
type RuntimeUsage struct {
	// Namespaces is how many namespaces hold scenarios; New whether the
	// namespace holds none yet (it would become one more).
	Namespaces int
	New        bool
	// Scenarios and Bytes are what the namespace holds; TotalBytes what
	// every namespace holds together.
	Scenarios, Bytes, TotalBytes int
	// Adding and AddingBytes are the scenarios added and their bytes.
	Adding, AddingBytes int
}

// RuntimeRefusal is an addition of runtime scenarios refused by a rule:
// the rule, the usage it was checked against, and for the uniqueness rules
// the id added and the scenario that holds the selector already.
type RuntimeRefusal struct {
	Rule      RuntimeRule
	Usage     RuntimeUsage
	ID, Other string
}

// Check returns the bound of l that u breaks, or nil. The stores call it,
// or enforce the same bounds in one atomic step and report the rule
// broken with the same usage. RuleTotal is not final: at the total, the
// namespaces holding more bytes than the adding one would give way
// (Room), and only when they cannot make room is the addition refused.
func (l RuntimeLimits) Check(u RuntimeUsage) *RuntimeRefusal {
	l = l.WithDefaults()
	switch {
	case u.New && u.Namespaces >= l.MaxNamespaces:
		return &RuntimeRefusal{Rule: RuleNamespaces, Usage: u}
	case u.Scenarios+u.Adding > l.MaxScenarios:
		return &RuntimeRefusal{Rule: RuleCount, Usage: u}
	case u.Bytes+u.AddingBytes > l.MaxBytes:
		return &RuntimeRefusal{Rule: RuleBytes, Usage: u}
	case u.TotalBytes+u.AddingBytes > l.MaxTotalBytes:
		return &RuntimeRefusal{Rule: RuleTotal, Usage: u}
	}
	return nil
}

// Room is what must be freed for u's addition under the total of l, and
// whether the namespaces holding more than the adding one would (after
// the addition) can free it: each gives way, its oldest scenarios first,
// only while it holds more than that, the one holding the most first.
// held lists the bytes each other namespace holds (any order, the adding
// one left out or not). A store that cannot make room refuses with
// RuleTotal; nothing is dropped then.
func (l RuntimeLimits) Room(u RuntimeUsage, held func(yield func(ns string, bytes int) bool), adding string) (need int, ok bool) {
	l = l.WithDefaults()
	need = u.TotalBytes + u.AddingBytes - l.MaxTotalBytes
	if need <= 0 {
		return 0, true
	}
	after, excess := u.Bytes+u.AddingBytes, 0
	for ns, b := range held {
		if ns != adding && b > after {
			if excess += b - after; excess >= need {
				return need, true
			}
		}
	}
	return need, false
}

// Err is the error of the refusal under l: it wraps ErrLimit,
// ErrTooLarge or ErrExists and says which bound or which scenario.
func (l RuntimeLimits) Err(r *RuntimeRefusal) error {
	l, u := l.WithDefaults(), r.Usage
	switch r.Rule {
	case RuleNamespaces:
		return fmt.Errorf("%w: %d namespaces hold runtime scenarios already", ErrLimit, u.Namespaces)
	case RuleCount:
		return fmt.Errorf("%w: the namespace holds %d scenarios, adding %d would pass the limit of %d",
			ErrLimit, u.Scenarios, u.Adding, l.MaxScenarios)
	case RuleBytes:
		return fmt.Errorf("%w: the namespace's scenarios take %d bytes, adding %d would pass the limit of %d",
			ErrTooLarge, u.Bytes, u.AddingBytes, l.MaxBytes)
	case RuleTotal:
		return fmt.Errorf("%w: the runtime scenarios of every token take %d bytes together, adding %d would pass the sandbox's limit of %d, and no token holds more than this one would",
			ErrTooLarge, u.TotalBytes, u.AddingBytes, l.MaxTotalBytes)
	case RuleID:
		return fmt.Errorf("%w: id %s is taken in this namespace; delete it first", ErrExists, r.ID)
	case RuleSelector:
		return fmt.Errorf("%w: scenario %s has the same selectors and priority as %s", ErrExists, r.ID, r.Other)
	}
	return fmt.Errorf("scenarios: runtime rule %q is unknown", r.Rule)
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

// Taken returns the uniqueness rule an added scenario breaks in a
// namespace: its id is taken (RuleID), or another scenario holds its
// selector key (RuleSelector); nil when neither. ids holds the ids of the
// namespace, keys its selector keys with the id of each; added scenarios
// join them one after the other.
func Taken(ids map[string]bool, keys map[string]string, added []Scenario) *RuntimeRefusal {
	for _, s := range added {
		if ids[s.ID] {
			return &RuntimeRefusal{Rule: RuleID, ID: s.ID}
		}
		if other, ok := keys[s.SelectorKey()]; ok {
			return &RuntimeRefusal{Rule: RuleSelector, ID: s.ID, Other: other}
		}
		ids[s.ID], keys[s.SelectorKey()] = true, s.ID
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
