package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

const runtimeDoc = `{"scenarios": [
  {"id": "force-challenge", "match": {"cardPrefix": "4"}, "challenge": {}},
  {"id": "exact", "match": {"cardNumber": "4000000000009003"}, "frictionless": {"status": "N", "reason": "05"}}
]}`

func TestRuntimeAddMatchDelete(t *testing.T) {
	var rt Runtime
	added, err := rt.Add("team-a", []byte(runtimeDoc))
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 2 || added[0].Pack != RuntimePack || added[0].Source.File != RuntimeFile {
		t.Errorf("got added %+v, want 2 scenarios of pack %s from %s", added, RuntimePack, RuntimeFile)
	}
	tests := []struct {
		name   string
		ns     string
		card   string
		want   string
		wantOK bool
	}{
		{"exact card", "team-a", "4000000000009003", "exact", true},
		{"prefix", "team-a", "4111111111111111", "force-challenge", true},
		{"no runtime scenario matches", "team-a", "5200000000009008", "", false},
		{"other namespace sees nothing", "team-b", "4000000000009003", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := rt.Match(tt.ns, Request{CardNumber: tt.card})
			if ok != tt.wantOK || (ok && s.ID != tt.want) {
				t.Errorf("got %v, %v, want %s, %v", s, ok, tt.want, tt.wantOK)
			}
		})
	}
	if s, ok := rt.ByID("team-a", "exact"); !ok || s.Frictionless.Reason != "05" {
		t.Errorf("got ByID %v, %v, want exact", s, ok)
	}
	if got := len(rt.List("team-a")); got != 2 {
		t.Errorf("got %d listed, want 2", got)
	}
	if !rt.Delete("team-a", "exact") || rt.Delete("team-a", "exact") || rt.Delete("team-b", "exact") {
		t.Error("Delete: want true once, then false")
	}
	if s, _ := rt.Match("team-a", Request{CardNumber: "4000000000009003"}); s == nil || s.ID != "force-challenge" {
		t.Errorf("after delete: got %v, want force-challenge", s)
	}
	if got := rt.Reset("team-a"); got != 1 {
		t.Errorf("got Reset %d, want 1", got)
	}
	if got := rt.Reset("team-a"); got != 0 {
		t.Errorf("got second Reset %d, want 0", got)
	}
}

func TestRuntimeAddRefuses(t *testing.T) {
	one := func(id, prefix string) string {
		return fmt.Sprintf(`{"scenarios": [{"id": %q, "match": {"cardPrefix": %q}, "frictionless": {"status": "Y"}}]}`, id, prefix)
	}
	tests := []struct {
		name    string
		limits  [2]int // MaxScenarios, MaxNamespaces
		setup   []string
		body    string
		wantErr error  // a sentinel, or nil for a *LoadError
		reason  string // part of the error text
	}{
		{name: "not a document", body: "{", reason: "request body:"},
		{name: "fallback", body: `{"fallback": "a", "scenarios": [{"id": "a", "frictionless": {"status": "Y"}}]}`, reason: "runtime scenarios cannot set fallback"},
		{name: "no match", body: `{"scenarios": [{"id": "a", "frictionless": {"status": "Y"}}]}`, reason: `scenario "a" has no match`},
		{name: "unknown key", body: `{"scenarios": [{"id": "a", "match": {"cardPrefix": "4"}, "frictionles": {"status": "Y"}}]}`, reason: `unknown key "frictionles"`},
		{name: "duplicate in the body", body: `{"scenarios": [{"id": "a", "match": {"cardPrefix": "4"}, "frictionless": {"status": "Y"}}, {"id": "a", "match": {"cardPrefix": "5"}, "frictionless": {"status": "Y"}}]}`, reason: "duplicate id a"},
		{name: "id taken", setup: []string{one("a", "4")}, body: one("a", "5"), wantErr: ErrExists, reason: "id a is taken"},
		{name: "same match", setup: []string{one("a", "4")}, body: one("b", "4"), wantErr: ErrExists, reason: "same selectors and priority as a"},
		{name: "too many scenarios", limits: [2]int{1, 0}, setup: []string{one("a", "4")}, body: one("b", "5"), wantErr: ErrLimit, reason: "limit of 1"},
		{name: "too many namespaces", limits: [2]int{0, 1}, setup: []string{one("a", "4")}, body: one("b", "5"), wantErr: ErrLimit, reason: "1 namespaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &Runtime{MaxScenarios: tt.limits[0], MaxNamespaces: tt.limits[1]}
			for _, s := range tt.setup {
				if _, err := rt.Add("first", []byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			ns := "first"
			if tt.name == "too many namespaces" {
				ns = "second"
			}
			added, err := rt.Add(ns, []byte(tt.body))
			if added != nil || err == nil {
				t.Fatalf("got %v, %v, want an error", added, err)
			}
			var le *LoadError
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("got %v, want %v", err, tt.wantErr)
			case tt.wantErr == nil && !errors.As(err, &le):
				t.Errorf("got %T %v, want a *LoadError", err, err)
			case !strings.Contains(err.Error(), tt.reason):
				t.Errorf("got %q, want it to contain %q", err, tt.reason)
			}
			if got := len(rt.List(ns)); ns == "second" && got != 0 {
				t.Errorf("got %d scenarios after a refused add, want 0", got)
			}
		})
	}
}

func TestRuntimeYAMLAndPriority(t *testing.T) {
	var rt Runtime
	body := "scenarios:\n  - id: low\n    match: {cardPrefix: \"4\"}\n    frictionless: {status: Y}\n" +
		"  - id: high\n    priority: 10\n    match: {challengeInd: 4}\n    challenge: {}\n"
	if _, err := rt.Add("ns", []byte(body)); err != nil {
		t.Fatal(err)
	}
	s, ok := rt.Match("ns", Request{CardNumber: "4000000000009003", ChallengeInd: 4})
	if !ok || s.ID != "high" {
		t.Errorf("got %v, want high (priority beats the card selector)", s)
	}
}

func TestRuntimeConcurrent(t *testing.T) {
	var rt Runtime
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("ns%d", i%2)
			for j := range 50 {
				id := fmt.Sprintf("s%d-%d", i, j)
				body := fmt.Sprintf(`{"scenarios": [{"id": %q, "match": {"cardNumber": "4000000000009003", "amount": "%d.%03d"}, "frictionless": {"status": "Y"}}]}`, id, i, j)
				if _, err := rt.Add(ns, []byte(body)); err != nil {
					t.Error(err)
					return
				}
				rt.Match(ns, Request{CardNumber: "4000000000009003", Amount: fmt.Sprintf("%d.%03d", i, j)})
				rt.List(ns)
				if j%3 == 0 {
					rt.Delete(ns, id)
				}
			}
		}()
	}
	wg.Wait()
}

// TestRuntimeDocumentsRoundTrip: every runtime scenario keeps a document
// of itself alone that parses back into the same scenario, so a shared
// store can keep scenarios one by one.
func TestRuntimeDocumentsRoundTrip(t *testing.T) {
	doc := `scenarios:
  - id: slow-decline
    description: "A decline, <slowly> & \"quoted\""
    priority: 5
    match: {cardPrefix: "411112", amount: {min: "10.00", max: "99.99"}, currency: EUR}
    delay: {min: 10ms, max: 20ms}
    steps: {enquiry: {fault: {kind: emvError, emvErrorCode: "403", probability: 0.5}}}
    frictionless: {status: N, reason: "05", version: 2.1.0}
  - id: otp-map
    match: {cardNumber: "4111111111111111", challengeInd: 4}
    whiteList: {status: Y, source: "03"}
    challenge:
      otps: {"1234": {status: Y}, "0000": {status: N, reason: "11"}}
      auto: pass
      autoAfter: 2s
`
	list, err := ParseRuntime([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d scenarios, want 2", len(list))
	}
	for _, s := range list {
		d := s.Document()
		if len(d) == 0 {
			t.Fatalf("%s has no document", s.ID)
		}
		back, err := ParseRuntime(d)
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: document does not parse back: %v\n%s", s.ID, err, d)
		}
		got, want := back[0], s
		got.Source, want.Source = Position{}, Position{}
		if !reflect.DeepEqual(scenarioFields(got), scenarioFields(want)) || got.SelectorKey() != want.SelectorKey() {
			t.Errorf("%s round trip:\n got %+v\nwant %+v", s.ID, got, want)
		}
	}
	if list[0].SelectorKey() == list[1].SelectorKey() {
		t.Error("different selectors share a key")
	}
	files, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range files.All()[:3] {
		if s.Document() != nil {
			t.Errorf("file scenario %s has a runtime document", s.ID)
		}
	}
}

// scenarioFields is a scenario without its unexported parts, for DeepEqual.
func scenarioFields(s Scenario) []any {
	return []any{s.ID, s.Description, s.Pack, s.Priority, s.Match, s.Frictionless, s.Challenge, s.Error, s.Delay, s.Steps, s.WhiteList}
}
