package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// TestLookupRulesOverHTTP sends every row of the spec's validation table
// (one per rule of sections 2.2-2.12) to POST /authentication/brw and
// checks the error body: HTTP 400, the row's EMV code, its field in
// emvErrorDetail and in problems.
func TestLookupRulesOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	checkRulesOverHTTP(t, e, "/authentication/brw", testkit.LookupJSON(), wiretest.LookupRules())
}

// checkRulesOverHTTP applies each row to base, sends it to path and
// checks the error body: HTTP 400, the row's EMV code, its field in
// emvErrorDetail and alone in problems.
func checkRulesOverHTTP(t *testing.T, e *env, path string, base []byte, rows []wiretest.Case) {
	for _, tt := range rows {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			r := e.call(http.MethodPost, path, "tok", body)
			checkErrorBody(t, r, http.StatusBadRequest, tt.EMVCode)
			if got := r.EMV("emvErrorDetail"); got != tt.Field {
				t.Errorf("emvErrorDetail = %q, want %q", got, tt.Field)
			}
			problems, _ := r.Body["problems"].([]any)
			if len(problems) != 1 || problems[0].(map[string]any)["field"] != tt.Field {
				t.Errorf("problems = %v, want one on %s", problems, tt.Field)
			}
		})
	}
}

// TestDecoderReasonsOverHTTP: the decoder's reasons reach the client
// whole: a hint at the spelling of a missing field, the object beyond a
// bound, and the version refused before any other problem.
func TestDecoderReasonsOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.enquiry("tok", map[string]string{"threeDSServerTransID": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"})
	checkErrorBody(t, r, http.StatusBadRequest, "201")
	if !strings.Contains(r.Raw, "did you mean threeDsServerTransId") {
		t.Errorf("no spelling hint: %s", r.Raw)
	}
	many := testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) {
		for i := range 300 {
			m[fmt.Sprintf("extra%03d", i)] = i
		}
	})
	r = e.lookup("tok", many)
	checkErrorBody(t, r, http.StatusBadRequest, "101")
	if r.Str("errorCode") != "MS01" || r.EMV("emvErrorDetail") != "body" {
		t.Errorf("300 members: %s", r.Raw)
	}
	r = e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) {
		m["messageVersion"] = "2.3.0"
		delete(m, "ddcId")
	}))
	checkErrorBody(t, r, http.StatusBadRequest, "102")
	if !strings.Contains(r.Raw, `"field":"ddcId"`) {
		t.Errorf("the other problems are not listed: %s", r.Raw)
	}
}
