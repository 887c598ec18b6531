package scenarios

import "fmt"

// Catalogue is the active set of scenarios. It is immutable once built and
// safe for concurrent use. The scenarios it returns are shared: callers
// must not modify them.
type Catalogue struct {
	scenarios []Scenario
	byID      map[string]*Scenario
	byNumber  map[string]*Scenario
	byPrefix  map[string]*Scenario
	maxPrefix int // length of the longest cardPrefix
	fallback  *Scenario
}

// builtinFallback is what unmatched cards get when nothing names a fallback.
func builtinFallback() *Scenario {
	return &Scenario{
		ID:           FallbackID,
		Description:  "Any other card: frictionless, authenticated (Y)",
		Frictionless: &Frictionless{Status: "Y", Version: Version220},
		Source:       Position{File: "(built-in)"},
	}
}

// NewCatalogue builds a catalogue from parsed files, in order. It checks
// what spans files: duplicate ids, card numbers and card prefixes, at most
// one file setting fallback, and that the fallback names a known scenario.
// Every problem is returned at once in a *LoadError.
func NewCatalogue(files ...*File) (*Catalogue, error) {
	fb, problems := crossCheck(files, "")
	if err := loadError(problems); err != nil {
		return nil, err
	}
	return assemble(files, fb), nil
}

// crossCheck runs the checks that span files and returns the fallback id
// (see resolveFallback) with the problems found. override, when not empty,
// replaces the files' fallback id.
func crossCheck(files []*File, override string) (string, []Problem) {
	problems := checkDuplicates(files)
	fb, more := resolveFallback(files, override)
	return fb, append(problems, more...)
}

// assemble indexes the scenarios of files that passed every check; fb is
// the fallback id, "" for the built-in fallback.
func assemble(files []*File, fb string) *Catalogue {
	n := 0
	for _, f := range files {
		n += len(f.Scenarios)
	}
	c := &Catalogue{
		scenarios: make([]Scenario, 0, n),
		byID:      make(map[string]*Scenario, n),
		byNumber:  make(map[string]*Scenario, n),
		byPrefix:  map[string]*Scenario{},
	}
	for _, f := range files {
		c.scenarios = append(c.scenarios, f.Scenarios...)
	}
	for i := range c.scenarios {
		s := &c.scenarios[i]
		c.byID[s.ID] = s
		if s.Match.CardNumber != "" {
			c.byNumber[s.Match.CardNumber] = s
		}
		if p := s.Match.CardPrefix; p != "" {
			c.byPrefix[p] = s
			c.maxPrefix = max(c.maxPrefix, len(p))
		}
	}
	if fb == "" {
		c.fallback = builtinFallback()
		c.byID[FallbackID] = c.fallback
	} else {
		c.fallback = c.byID[fb]
	}
	return c
}

// marksOf returns the identifying fields of a file's scenarios: those
// recorded by the parser, or for a File built by hand, those of its
// scenarios at their Source lines.
func marksOf(f *File) []mark {
	if f.marks != nil {
		return f.marks
	}
	marks := make([]mark, len(f.Scenarios))
	for i, s := range f.Scenarios {
		l := s.Source.Line
		marks[i] = mark{id: s.ID, number: s.Match.CardNumber, prefix: s.Match.CardPrefix, idLine: l, numberLine: l, prefixLine: l}
	}
	return marks
}

// checkDuplicates reports ids, card numbers and card prefixes defined more
// than once across files, at the second definition.
func checkDuplicates(files []*File) []Problem {
	var problems []Problem
	ids := map[string]Position{}
	numbers := map[string]Position{}
	prefixes := map[string]Position{}
	check := func(seen map[string]Position, what, value, file string, line int) {
		if value == "" {
			return
		}
		pos := Position{File: file, Line: line}
		if first, dup := seen[value]; dup {
			problems = append(problems, Problem{File: file, Line: line,
				Reason: fmt.Sprintf("duplicate %s %s; first defined at %s", what, value, first)})
			return
		}
		seen[value] = pos
	}
	for _, f := range files {
		for _, m := range marksOf(f) {
			check(ids, "id", m.id, f.Name, m.idLine)
			check(numbers, "cardNumber", m.number, f.Name, m.numberLine)
			check(prefixes, "cardPrefix", m.prefix, f.Name, m.prefixLine)
		}
	}
	return problems
}

// resolveFallback finds the fallback id of the catalogue: the override when
// set, else the one user file that sets fallback, else the embedded
// defaults' one, else "" (the built-in fallback). It reports a second file
// setting fallback and a fallback naming no known scenario.
func resolveFallback(files []*File, override string) (string, []Problem) {
	var problems []Problem
	known := map[string]bool{}
	for _, f := range files {
		for _, m := range marksOf(f) {
			known[m.id] = true
		}
	}
	var user, embedded *File
	for _, f := range files {
		if f.Fallback == "" {
			continue
		}
		if !known[f.Fallback] {
			problems = append(problems, Problem{File: f.Name, Line: f.fallbackLine,
				Reason: fmt.Sprintf("fallback %q names no scenario of the loaded files", f.Fallback)})
		}
		first := &user
		if f.embedded {
			first = &embedded
		}
		if *first != nil {
			problems = append(problems, Problem{File: f.Name, Line: f.fallbackLine,
				Reason: fmt.Sprintf("fallback already set at %s: only one file may set it",
					Position{File: (*first).Name, Line: (*first).fallbackLine})})
			continue
		}
		*first = f
	}
	switch {
	case override != "":
		if !known[override] {
			problems = append(problems, Problem{
				Reason: fmt.Sprintf("fallback option %q names no scenario of the loaded files", override)})
		}
		return override, problems
	case user != nil:
		return user.Fallback, problems
	case embedded != nil:
		return embedded.Fallback, problems
	}
	return "", problems
}

// Match returns the scenario for a request: the one whose cardNumber equals
// the request's card number, else the one with the longest cardPrefix that
// starts it, else the fallback. It never returns nil. Only the card number
// of the request is looked at; the other fields are there for selectors to
// come. A lookup costs at most one map access per digit of the card number.
func (c *Catalogue) Match(r Request) *Scenario {
	pan := r.CardNumber
	if s, ok := c.byNumber[pan]; ok {
		return s
	}
	for n := min(len(pan), c.maxPrefix); n > 0; n-- {
		if s, ok := c.byPrefix[pan[:n]]; ok {
			return s
		}
	}
	return c.fallback
}

// Fallback returns the scenario unmatched cards get.
func (c *Catalogue) Fallback() *Scenario {
	return c.fallback
}

// ByID returns the scenario with the given id. The built-in fallback, when
// active, is found under FallbackID.
func (c *Catalogue) ByID(id string) (*Scenario, bool) {
	s, ok := c.byID[id]
	return s, ok
}

// All returns the scenarios of the loaded files in file order. The built-in
// fallback is not among them.
func (c *Catalogue) All() []Scenario {
	out := make([]Scenario, len(c.scenarios))
	copy(out, c.scenarios)
	return out
}

// Len returns the number of scenarios of the loaded files.
func (c *Catalogue) Len() int {
	return len(c.scenarios)
}
