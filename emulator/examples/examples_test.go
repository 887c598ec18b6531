package examples_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// TestSamplesAreValid decodes every sample with the decoder of the
// operation it is a body of: each is valid and has no field the sandbox
// would ignore.
func TestSamplesAreValid(t *testing.T) {
	decoders := map[string]func([]byte) ([]string, error){
		"/authentication/brw": func(b []byte) ([]string, error) { _, ignored, err := wire.DecodeLookup(b); return ignored, err },
		"/authentication/3ri": func(b []byte) ([]string, error) { _, ignored, err := wire.DecodeThreeRI(b); return ignored, err },
		"/authentication/ddc": func(b []byte) ([]string, error) { _, ignored, err := wire.DecodeDDC(b); return ignored, err },
		"/enquiry/":           func(b []byte) ([]string, error) { _, ignored, err := wire.DecodeEnquiry(b); return ignored, err },
	}
	names := map[string]bool{}
	for _, e := range examples.All() {
		t.Run(e.Name, func(t *testing.T) {
			if names[e.Name] {
				t.Fatalf("two samples are called %s", e.Name)
			}
			names[e.Name] = true
			if e.Flow == "" || e.Method != "POST" || e.Description == "" {
				t.Errorf("sample %+v lacks its flow, method or description", e)
			}
			decode, ok := decoders[e.Path]
			if !ok {
				t.Fatalf("sample %s is for %s, which no decoder of this test knows", e.Name, e.Path)
			}
			ignored, err := decode(e.Body())
			if err != nil {
				t.Fatalf("the sandbox refuses the sample: %v", err)
			}
			if len(ignored) > 0 {
				t.Errorf("the sandbox ignores fields of the sample: %v", ignored)
			}
			if got, ok := examples.Find(e.Name); !ok || got.Name != e.Name {
				t.Errorf("Find(%q) = %v, %v", e.Name, got.Name, ok)
			}
		})
	}
	if _, ok := examples.Find("nothing.json"); ok {
		t.Error("Find found a sample that does not exist")
	}
}

// TestChallengeLookup checks that the challenge sample is the
// frictionless one with the challenge card and its own reference, and
// nothing else changed.
func TestChallengeLookup(t *testing.T) {
	var frictionless, challenge map[string]any
	if err := json.Unmarshal(examples.Lookup(), &frictionless); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(examples.ChallengeLookup(), &challenge); err != nil {
		t.Fatal(err)
	}
	card := func(m map[string]any) any { return m["card"].(map[string]any)["cardNumber"] }
	if card(frictionless) != examples.FrictionlessCard || frictionless["externalReferenceId"] != examples.FrictionlessReference {
		t.Errorf("lookup.json: card %v, reference %v", card(frictionless), frictionless["externalReferenceId"])
	}
	if card(challenge) != examples.ChallengeCard || challenge["externalReferenceId"] != examples.ChallengeReference {
		t.Errorf("lookup-challenge.json: card %v, reference %v", card(challenge), challenge["externalReferenceId"])
	}
	challenge["card"].(map[string]any)["cardNumber"] = examples.FrictionlessCard
	challenge["externalReferenceId"] = examples.FrictionlessReference
	a, _ := json.Marshal(frictionless)
	b, _ := json.Marshal(challenge)
	if !bytes.Equal(a, b) {
		t.Errorf("the challenge sample differs from the frictionless one beyond its card and reference:\n%s\n%s", a, b)
	}
}

// TestBodiesAreCopies makes sure a caller changing a body changes no
// later one.
func TestBodiesAreCopies(t *testing.T) {
	for _, e := range examples.All() {
		b := e.Body()
		want := string(b)
		b[0] = 'X'
		if got := string(e.Body()); got != want {
			t.Errorf("%s: changing a body changed the next one", e.Name)
		}
	}
}
