package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that it returns either a file
// or a *LoadError naming problems of that file, and that a file it accepts
// is well formed and builds a catalogue that finds each of its cards.
func FuzzParse(f *testing.F) {
	names, _ := fs.Glob(defaultFiles, "defaults/*.yaml")
	for _, name := range names {
		data, err := fs.ReadFile(defaultFiles, name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	examples, _ := filepath.Glob("testdata/example/*.y*ml")
	for _, name := range examples {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"scenarios: []",
		"scenarios:\n  - id: a\n    match: {cardNumber: 4000000000001000}\n    frictionless: {status: N}\n",
		"scenarios:\n  - id: a\n    match: x: y\n",
		"scenarios: &a [*a]",
		"a: &a [*a, *a, *a]\nscenarios: *a",
		"scenarios:\n  - <<: {id: a}\n",
		"fallback: a\nscenarios:\n  - id: a\n    challenge: {otps: {\"1\": {status: N}}, auto: pass, autoAfter: 10m1s}\n---\n",
		"scenarios:\n  - id: a\n    match: {cardPrefix: \"4\"}\n    error: {httpStatus: 0x1F7, errorCode: SC03, emvErrorCode: \"999\"}\n",
		"\xff\xfe",
		"scenarios:\n  - id: a\n    priority: 3\n    match: {binRange: {from: \"40\", to: \"41\"}, amount: {min: \"1\", max: 2.5}, currency: eur}\n    delay: {min: 1s, max: 2s}\n    whiteList: {status: Y, source: \"03\"}\n    frictionless: {status: Y}\n",
		"scenarios:\n  - id: a\n    match: {cardPattern: \"4000xxxxxxxx??27\", challengeInd: 2, messageVersion: 2.2.0, messageCategory: \"01\", authInd: \"01\", cardholderName: Jo Do}\n    steps: {lookup: {fault: {kind: drop, probability: 0.5}}, enquiry: {delay: 1s, fault: {kind: emvError, emvErrorCode: \"403\"}}, challenge: {fault: {kind: httpError}}}\n    challenge: {pass: {status: U, reason: \"22\"}}\n",
		"scenarios:\n  - id: a\n    match: {cardNumber: \"4000000000009003\"}\n    when: {channel: [3ri, app], threeRIInd: \"05\", priorStatus: [none, N]}\n    challenge: {}\n    threeRI: {status: N, reason: \"01\"}\n",
		"scenarios:\n  - id: a\n    match: {cardNumber: \"4000000000009003\"}\n    frictionless: {status: Y}\n  - id: b\n    match: {cardNumber: \"4000000000009003\", challengeInd: 2}\n    frictionless: {status: I}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("got error %T %v, want a *LoadError with problems", err, err)
			}
			for _, p := range le.Problems {
				if p.File != "fuzz.yaml" || p.Line < 0 || p.Reason == "" {
					t.Fatalf("got problem %+v, want one of fuzz.yaml with a reason", p)
				}
			}
			if file != nil {
				t.Fatal("got a file with an error")
			}
			return
		}
		if len(file.Scenarios) == 0 {
			t.Fatal("accepted a file without scenarios")
		}
		for _, s := range file.Scenarios {
			results := 0
			for _, set := range []bool{s.Frictionless != nil, s.Challenge != nil, s.Error != nil} {
				if set {
					results++
				}
			}
			if results != 1 || !idPattern.MatchString(s.ID) || s.Source.Line <= 0 {
				t.Fatalf("accepted a malformed scenario %+v", s)
			}
			if s.Match == (Match{}) && s.ID != file.Fallback {
				t.Fatalf("accepted scenario %s without match", s.ID)
			}
		}
		known := false
		for _, s := range file.Scenarios {
			known = known || s.ID == file.Fallback
		}
		if file.Fallback != "" && !known {
			return // names a scenario of another file
		}
		c, err := NewCatalogue(file)
		if err != nil {
			t.Fatalf("Parse accepted the file, NewCatalogue refused it: %v", err)
		}
		checkMatches(t, c, file.Scenarios)
	})
}

// checkMatches checks, for every scenario with a card selector, that a
// request built to satisfy all its selectors gets a scenario that accepts
// the request and that the scenario does not outrank.
func checkMatches(t *testing.T, c *Catalogue, list []Scenario) {
	t.Helper()
	for i := range list {
		s := &list[i]
		r, ok := requestFor(s.Match, s.When)
		if !ok {
			continue
		}
		got := c.Match(r)
		accepts := got.Match.matches(r) && got.When.matches(&r)
		if got.ID == c.Fallback().ID && !accepts {
			t.Fatalf("Match(%+v): got the fallback, want at least %s", r, s.ID)
		}
		if !accepts && got != c.Fallback() {
			t.Fatalf("Match(%+v): got %s, whose match refuses the request", r, got.ID)
		}
		if rankOf(s, i).beats(rankOf(got, indexOf(list, got.ID))) {
			t.Fatalf("Match(%+v): got %s, want %s or a scenario that outranks it", r, got.ID, s.ID)
		}
	}
}

// indexOf returns the position of the scenario with the given id.
func indexOf(list []Scenario, id string) int {
	for i := range list {
		if list[i].ID == id {
			return i
		}
	}
	return len(list)
}

// requestFor builds a request that every selector of m and every
// condition of w accept; false when m has no card selector.
func requestFor(m Match, w When) (Request, bool) {
	var r Request
	switch {
	case m.CardNumber != "":
		r.CardNumber = m.CardNumber
	case m.CardPrefix != "":
		r.CardNumber = m.CardPrefix + strings.Repeat("0", max(0, 16-len(m.CardPrefix)))
	case m.CardPattern != "":
		r.CardNumber = strings.ReplaceAll(m.CardPattern, "x", "0")
	case m.BINRange != nil:
		r.CardNumber = m.BINRange.From + strings.Repeat("0", max(0, 16-len(m.BINRange.From)))
	default:
		return r, false
	}
	if a := m.Amount; a != nil {
		r.Amount = a.Exact + a.Min
		if r.Amount == "" {
			r.Amount = a.Max
		}
	}
	r.Currency, r.CardholderName, r.ChallengeInd = m.Currency, m.CardholderName, m.ChallengeInd
	r.MessageVersion, r.MessageCategory, r.AuthInd = m.MessageVersion, m.MessageCategory, m.AuthInd
	r.ThreeDSCompInd = m.ThreeDSCompInd
	for key, values := range w {
		*condition(key).field(&r) = values[0]
	}
	return r, true
}
