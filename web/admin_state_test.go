package web_test

import (
	"net/http"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestAdminResetState: DELETE /admin/state starts a token clean in one
// call: no transactions (by id, by reference, in the listing), the clock
// at real time, no runtime scenarios, no callback registration; another
// token keeps all of its own.
func TestAdminResetState(t *testing.T) {
	e := newEnv(t, func(o *envOptions) { o.journal, o.callbacks = true, true })
	const doc = "scenarios:\n  - id: mine\n    match: {cardNumber: \"4000000000009003\"}\n    frictionless: {status: R, reason: \"11\"}\n"
	ids := map[string]string{}
	for _, tok := range []string{"tok", "other"} {
		ids[tok] = e.lookup(tok, testkit.LookupBody(t, e.card("visa-challenge"), nil)).Str("threeDsServerTransId")
		if r := e.addScenarios(tok, "application/yaml", doc); r.Status != http.StatusCreated {
			t.Fatalf("%s: add a scenario: %d %s", tok, r.Status, r.Raw)
		}
		if r := e.call(http.MethodPost, "/admin/clock", tok, map[string]any{"advance": "1h"}); r.Status != http.StatusOK {
			t.Fatalf("%s: advance: %d %s", tok, r.Status, r.Raw)
		}
		if r := e.call(http.MethodPut, "/admin/callback", tok, map[string]any{"url": "http://127.0.0.1:9/results"}); r.Status != http.StatusOK {
			t.Fatalf("%s: register: %d %s", tok, r.Status, r.Raw)
		}
	}

	if r := e.call(http.MethodDelete, "/admin/state", "tok", nil); r.Status != http.StatusNoContent {
		t.Fatalf("reset: %d %s", r.Status, r.Raw)
	}
	for tok, kept := range map[string]bool{"tok": false, "other": true} {
		want := map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[kept]
		if r := e.enquiry(tok, map[string]any{"threeDsServerTransId": ids[tok]}); r.Status != want {
			t.Errorf("%s: enquiry by id: %d, want %d", tok, r.Status, want)
		}
		if r := e.enquiry(tok, map[string]any{"externalReferenceId": "ORD-20240611-000123"}); r.Status != want {
			t.Errorf("%s: enquiry by reference: %d, want %d", tok, r.Status, want)
		}
		if l := e.listTransactions(tok, ""); (len(l.Transactions) == 1) != kept {
			t.Errorf("%s: listing %v", tok, l.ids())
		}
		if c := e.call(http.MethodGet, "/admin/clock", tok, nil); (c.Str("offset") == "1h0m0s") != kept {
			t.Errorf("%s: clock %s", tok, c.Raw)
		}
		if r := e.call(http.MethodGet, "/admin/scenarios", tok, nil); (len(r.Body["scenarios"].([]any)) == 1) != kept {
			t.Errorf("%s: runtime scenarios %s", tok, r.Raw)
		}
		if r := e.call(http.MethodGet, "/admin/callback", tok, nil); (r.Str("source") == "registered") != kept {
			t.Errorf("%s: callback %s", tok, r.Raw)
		}
	}
	if r := e.lookup("tok", testkit.LookupBody(t, "4000000000009003", nil)); r.Str("status") != "Y" {
		t.Errorf("after the reset the default scenario answers: %s", r.Raw)
	}
	checkErrorBody(t, e.call(http.MethodDelete, "/admin/state?keep=clock", "tok", nil), http.StatusBadRequest, "203")
	if r := e.call(http.MethodDelete, "/admin/state", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s", r.Status, r.Raw)
	}
}
