package scenarios

import "fmt"

// Catalogue is the active set of scenarios. It is immutable once built and
// safe for concurrent use. The scenarios it returns are shared: callers
// must not modify them.
type Catalogue struct {
	scenarios []Scenario
	byID      map[string]*Scenario
	index     *matchIndex
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
	}
	for _, f := range files {
		c.scenarios = append(c.scenarios, f.Scenarios...)
	}
	for i := range c.scenarios {
		c.byID[c.scenarios[i].ID] = &c.scenarios[i]
	}
	c.index = newMatchIndex(c.scenarios)
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
		marks[i] = mark{id: s.ID, idLine: l, mLine: l}
		if s.Match != (Match{}) {
			marks[i].match = matchKey(s.Match, s.When, s.Priority)
		}
	}
	return marks
}

// checkDuplicates reports ids defined more than once, and scenarios whose
// whole match and priority equal an earlier one's (only one of them could
// ever be chosen), across files, at the second definition.
func checkDuplicates(files []*File) []Problem {
	var problems []Problem
	type first struct {
		id  string
		pos Position
	}
	ids := map[string]Position{}
	matches := map[string]first{}
	for _, f := range files {
		for _, m := range marksOf(f) {
			if m.id != "" {
				if pos, dup := ids[m.id]; dup {
					problems = append(problems, Problem{File: f.Name, Line: m.idLine,
						Reason: fmt.Sprintf("duplicate id %s; first defined at %s", m.id, pos)})
				} else {
					ids[m.id] = Position{File: f.Name, Line: m.idLine}
				}
			}
			if m.match == "" {
				continue
			}
			if prev, dup := matches[m.match]; dup {
				problems = append(problems, Problem{File: f.Name, Line: m.mLine,
					Reason: fmt.Sprintf("duplicate match: scenario %s has the same selectors and priority as scenario %s at %s; change one or give one a higher priority", m.id, prev.id, prev.pos)})
				continue
			}
			matches[m.match] = first{id: m.id, pos: Position{File: f.Name, Line: m.mLine}}
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

// Match returns the scenario for a request. A scenario is a candidate when
// every selector of its match accepts the request; an empty match accepts
// nothing. The winner among the candidates is, in this order:
//
//  1. the one with the highest priority;
//  2. the one with the most specific card selector: cardNumber, then
//     cardPattern (more fixed digits first), then cardPrefix or binRange
//     (more digits first: the prefix, or from of the range), then none;
//  3. the one with more request selectors (amount, currency,
//     cardholderName, challengeInd, messageVersion, messageCategory,
//     authInd);
//  4. the one defined first (embedded packs, then user files in the order
//     given, each in file order).
//
// With no candidate it returns the fallback; it never returns nil. Only
// scenarios that could match are looked at: those indexed under the card
// number, under each of its prefixes, the binRange and cardPattern
// scenarios, and those without a card selector.
func (c *Catalogue) Match(r Request) *Scenario {
	if s := c.index.best(r); s != nil {
		return s
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
