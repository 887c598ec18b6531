package web_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// TestLookupRulesOverHTTP sends every row of the spec's validation table
// (one per rule of sections 2.2-2.12) to POST /authentication/brw and
// checks the error body: HTTP 400, the row's EMV code, its field in
// emvErrorDetail and in problems.
func TestLookupRulesOverHTTP(t *testing.T) {
	e := newEnv(t)
	base, err := os.ReadFile("../emulator/wire/testdata/lookup.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range wiretest.LookupRules() {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			r := e.lookup("tok", body)
			checkErrorBody(t, r, http.StatusBadRequest, tt.EMVCode)
			if got := r.emv("emvErrorDetail"); got != tt.Field {
				t.Errorf("emvErrorDetail = %q, want %q", got, tt.Field)
			}
			problems, _ := r.Body["problems"].([]any)
			if len(problems) != 1 || problems[0].(map[string]any)["field"] != tt.Field {
				t.Errorf("problems = %v, want one on %s", problems, tt.Field)
			}
		})
	}
}
