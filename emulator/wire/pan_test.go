package wire

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// TestLookupHasNoMemberNamedPan: no object of the lookup has a field named
// pan, so a member of that name anywhere in a lookup is one the decoder
// ignores and reports. The engine relies on it: a lookup whose decoder
// ignored nothing holds no pan member, and its event's redaction does not
// look for one (redact.Limits.NoPAN). A pan field added to the lookup
// fails this test.
func TestLookupHasNoMemberNamedPan(t *testing.T) {
	var base map[string]any
	if err := json.Unmarshal(baseBody(t), &base); err != nil {
		t.Fatal(err)
	}
	// Every object of the realistic lookup, by its dotted path.
	paths := [][]string{nil}
	var walk func(m map[string]any, at []string)
	walk = func(m map[string]any, at []string) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				p := append(slices.Clone(at), k)
				paths = append(paths, p)
				walk(sub, p)
			}
		}
	}
	walk(base, nil)
	if len(paths) < 5 {
		t.Fatalf("the example lookup has %d objects, want its nested ones too", len(paths))
	}
	for _, p := range paths {
		var m map[string]any
		if err := json.Unmarshal(baseBody(t), &m); err != nil {
			t.Fatal(err)
		}
		obj := m
		for _, k := range p {
			obj = obj[k].(map[string]any)
		}
		obj["pan"] = "4000000000009003"
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want := "pan"
		for i := len(p) - 1; i >= 0; i-- {
			want = p[i] + "." + want
		}
		_, ignored, err := DecodeLookup(body)
		if err != nil || !slices.Contains(ignored, want) {
			t.Errorf("a member pan at %q: ignored = %v, error %v; want it ignored as %q", p, ignored, err, want)
		}
	}
}

// TestNoRuleNamedPan: a rule set with a field named pan is refused when it
// is built (at init for the package's own), so that no request of any
// interface gets one.
func TestNoRuleNamedPan(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("newRuleSet took a field named pan")
		}
	}()
	newRuleSet([]rule[*message.Card]{{names: []string{"pan"}}})
}
