package scenarios

import "strings"

// Card selector kinds, from the least to the most specific.
const (
	cardNone = iota
	cardRange
	cardPattern
	cardExact
)

// rank orders the candidates of a request (see Catalogue.Match): a higher
// rank wins.
type rank struct {
	priority  int
	card      int // one of the card selector kinds
	cardLen   int // digits the card selector fixes
	selectors int // request selectors set
	order     int // position in the catalogue; lower wins
}

// beats reports whether a outranks b.
func (a rank) beats(b rank) bool {
	switch {
	case a.priority != b.priority:
		return a.priority > b.priority
	case a.card != b.card:
		return a.card > b.card
	case a.cardLen != b.cardLen:
		return a.cardLen > b.cardLen
	case a.selectors != b.selectors:
		return a.selectors > b.selectors
	default:
		return a.order < b.order
	}
}

// rankOf computes the rank of the scenario at position order.
func rankOf(s *Scenario, order int) rank {
	m := &s.Match
	r := rank{priority: s.Priority, order: order}
	switch {
	case m.CardNumber != "":
		r.card, r.cardLen = cardExact, len(m.CardNumber)
	case m.CardPattern != "":
		r.card, r.cardLen = cardPattern, len(m.CardPattern)-strings.Count(m.CardPattern, "x")
	case m.CardPrefix != "":
		r.card, r.cardLen = cardRange, len(m.CardPrefix)
	case m.BINRange != nil:
		r.card, r.cardLen = cardRange, len(m.BINRange.From)
	}
	for _, set := range []bool{m.Amount != nil, m.Currency != "", m.CardholderName != "", m.ChallengeInd != 0,
		m.MessageVersion != "", m.MessageCategory != "", m.AuthInd != "", m.Scheme != "", m.ThreeDSCompInd != ""} {
		if set {
			r.selectors++
		}
	}
	r.selectors += len(s.When)
	return r
}

// matches reports whether every selector of m accepts r. An empty match
// accepts nothing.
func (m *Match) matches(r Request) bool {
	if *m == (Match{}) {
		return false
	}
	pan := r.CardNumber
	switch {
	case m.CardNumber != "" && pan != m.CardNumber,
		m.CardPrefix != "" && !strings.HasPrefix(pan, m.CardPrefix),
		m.BINRange != nil && !m.BINRange.contains(pan),
		m.CardPattern != "" && !patternMatches(m.CardPattern, pan),
		m.Amount != nil && !m.Amount.matches(r.Amount),
		m.Currency != "" && numericCurrency(m.Currency) != numericCurrency(r.Currency),
		m.CardholderName != "" && !strings.EqualFold(m.CardholderName, strings.TrimSpace(r.CardholderName)),
		m.ChallengeInd != 0 && m.ChallengeInd != r.ChallengeInd,
		m.MessageVersion != "" && m.MessageVersion != r.MessageVersion,
		m.MessageCategory != "" && m.MessageCategory != r.MessageCategory,
		m.AuthInd != "" && m.AuthInd != r.AuthInd,
		m.Scheme != "" && m.Scheme != r.CardScheme,
		m.ThreeDSCompInd != "" && m.ThreeDSCompInd != r.ThreeDSCompInd:
		return false
	}
	return true
}

// contains reports whether the leading digits of pan, as many as From has,
// lie in the range.
func (b *BINRange) contains(pan string) bool {
	if len(pan) < len(b.From) {
		return false
	}
	p := pan[:len(b.From)]
	return allDigits(p) && p >= b.From && p <= b.To
}

// patternMatches reports whether pan matches a card pattern of digits and
// 'x' wildcards (any digit) of the same length.
func patternMatches(pattern, pan string) bool {
	if len(pattern) != len(pan) {
		return false
	}
	for i := 0; i < len(pan); i++ {
		c := pan[i]
		if c < '0' || c > '9' || (pattern[i] != 'x' && pattern[i] != c) {
			return false
		}
	}
	return true
}

// matchIndex finds the candidates of a request without looking at every
// scenario: those with a card number or prefix are found by map look-ups,
// the others (binRange, cardPattern, no card selector) are expected to be
// few and are all checked.
type matchIndex struct {
	entries   []indexEntry
	byNumber  map[string][]int
	byPrefix  map[string][]int
	maxPrefix int
	patterns  map[int][]int // cardPattern scenarios by pattern length
	ranges    []int
	others    []int // scenarios with a match but no card selector
}

// indexEntry is one indexed scenario with its rank.
type indexEntry struct {
	s    *Scenario
	rank rank
}

// newMatchIndex indexes the scenarios; scenarios must not change later.
func newMatchIndex(scenarios []Scenario) *matchIndex {
	x := &matchIndex{
		byNumber: map[string][]int{},
		byPrefix: map[string][]int{},
		patterns: map[int][]int{},
	}
	for i := range scenarios {
		s := &scenarios[i]
		m := &s.Match
		if *m == (Match{}) {
			continue
		}
		e := len(x.entries)
		x.entries = append(x.entries, indexEntry{s: s, rank: rankOf(s, i)})
		switch {
		case m.CardNumber != "":
			x.byNumber[m.CardNumber] = append(x.byNumber[m.CardNumber], e)
		case m.CardPrefix != "":
			x.byPrefix[m.CardPrefix] = append(x.byPrefix[m.CardPrefix], e)
			x.maxPrefix = max(x.maxPrefix, len(m.CardPrefix))
		case m.CardPattern != "":
			x.patterns[len(m.CardPattern)] = append(x.patterns[len(m.CardPattern)], e)
		case m.BINRange != nil:
			x.ranges = append(x.ranges, e)
		default:
			x.others = append(x.others, e)
		}
	}
	return x
}

// best returns the winning candidate for r, or nil when none matches.
func (x *matchIndex) best(r Request) *Scenario {
	var win *indexEntry
	try := func(list []int) {
		for _, i := range list {
			e := &x.entries[i]
			if (win == nil || e.rank.beats(win.rank)) && e.s.Match.matches(r) && e.s.When.matches(&r) {
				win = e
			}
		}
	}
	pan := r.CardNumber
	try(x.byNumber[pan])
	for n := min(len(pan), x.maxPrefix); n > 0; n-- {
		try(x.byPrefix[pan[:n]])
	}
	try(x.patterns[len(pan)])
	try(x.ranges)
	try(x.others)
	if win == nil {
		return nil
	}
	return win.s
}
