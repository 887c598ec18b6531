package scenarios

import (
	"reflect"
	"testing"
)

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
    threeRI: {status: N, reason: "01"}
  - id: three-ri-check
    match: {cardNumber: "4111111111111111", challengeInd: 4}
    when: {channel: 3ri, threeRIInd: ["05", "04"], priorStatus: none}
    frictionless: {status: U, reason: "21"}
`
	list, err := ParseRuntime([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("%d scenarios, want 3", len(list))
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
	if list[1].SelectorKey() == list[2].SelectorKey() {
		t.Error("a when does not tell selectors apart")
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
	return []any{s.ID, s.Description, s.Pack, s.Priority, s.Match, s.When, s.Frictionless, s.Challenge, s.Error, s.ThreeRI, s.Delay, s.Steps, s.WhiteList}
}
