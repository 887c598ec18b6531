package testkit

import (
	"encoding/json"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
)

// LookupJSON returns the valid lookup request of package examples.
func LookupJSON() []byte { return examples.Lookup() }

// LookupBody returns the example lookup request as a map, with
// card.cardNumber set to card (when not empty) and then changed by mutate
// (when not nil), for a test to send as JSON.
func LookupBody(tb testing.TB, card string, mutate func(m map[string]any)) map[string]any {
	tb.Helper()
	return body(tb, examples.Lookup(), card, mutate)
}

// ThreeRIBody returns the example 3RI lookup request (POST
// {base}/authentication/3ri) as a map, as LookupBody does the browser's.
func ThreeRIBody(tb testing.TB, card string, mutate func(m map[string]any)) map[string]any {
	tb.Helper()
	return body(tb, examples.ThreeRI(), card, mutate)
}

// body decodes the example request sample, sets its card to card (when
// not empty) and changes it with mutate (when not nil).
func body(tb testing.TB, sample []byte, card string, mutate func(m map[string]any)) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(sample, &m); err != nil {
		tb.Fatalf("the example request does not decode: %v", err)
	}
	if card != "" {
		m["card"].(map[string]any)["cardNumber"] = card
	}
	if mutate != nil {
		mutate(m)
	}
	return m
}
