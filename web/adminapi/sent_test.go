package adminapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
)

// TestSent reads fields of a request the sandbox kept.
func TestSent(t *testing.T) {
	tx := &adminapi.Transaction{Events: []adminapi.Event{
		{Type: "lookup", Request: json.RawMessage(`{"browserInfo":{"userAgent":"UA/1","javaEnabled":false},` +
			`"challengeWindowSize":3,"card":{"cardNumber":"400000******9003"},"items":[{"n":"a"},{"n":"b"}]}`)},
		{Type: "enquiry", Request: json.RawMessage(`{"externalReferenceId":"ORD-1"}`)},
	}}
	for _, tc := range []struct{ typ, path, want string }{
		{"lookup", "browserInfo.userAgent", "UA/1"},
		{"lookup", "browserInfo.javaEnabled", "false"},
		{"lookup", "challengeWindowSize", "3"},
		{"lookup", "card", `{"cardNumber":"400000******9003"}`},
		{"lookup", "items.1.n", "b"},
		{"enquiry", "externalReferenceId", "ORD-1"},
	} {
		if got, err := tx.Sent(tc.typ, tc.path); err != nil || got != tc.want {
			t.Errorf("Sent(%q, %q) = %q, %v; want %q", tc.typ, tc.path, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ typ, path, want string }{
		{"lookup", "browserInfo.nope", "browserInfo.nope: no such field"},
		{"lookup", "items.2.n", "items.2: no element"},
		{"lookup", "challengeWindowSize.x", "challengeWindowSize.x: not an object"},
		{"cres", "transStatus", "no cres event with a request"},
	} {
		if _, err := tx.Sent(tc.typ, tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sent(%q, %q): %v, want an error with %q", tc.typ, tc.path, err, tc.want)
		}
	}
	if ev := tx.Event("enquiry"); ev == nil || ev.Type != "enquiry" || tx.Event("cres") != nil {
		t.Errorf("Event: %+v", ev)
	}
}
