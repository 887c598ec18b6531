package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// threeRI sends a 3RI lookup (POST /authentication/3ri).
func (e *env) threeRI(token string, body any) result {
	e.t.Helper()
	return e.call(http.MethodPost, "/authentication/3ri", token, body)
}

// TestThreeRIRulesOverHTTP sends every row of the 3RI lookup's validation
// table (the rules it shares with the browser lookup and its own) to POST
// /authentication/3ri: HTTP 400, the row's EMV code, its field in
// emvErrorDetail and in problems.
func TestThreeRIRulesOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base, err := wiretest.ThreeRIBase(testkit.LookupJSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range wiretest.ThreeRIRules() {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			r := e.threeRI("tok", body)
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

// TestThreeRIRoute: the 3RI lookup is served on its path and its
// trailing-slash twin; a lookup of one channel on the other's path is
// CH01, naming the right path, or among other problems one of them.
func TestThreeRIRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card := e.card("visa-frictionless-y")
	tests := []struct {
		name, path string
		body       map[string]any
		status     int
		errorCode  string
		emvCode    string
		says       string
	}{
		{"3RI", "/authentication/3ri", testkit.ThreeRIBody(t, card, nil), http.StatusOK, "", "", ""},
		{"3RI, trailing slash", "/authentication/3ri/", testkit.ThreeRIBody(t, card, nil), http.StatusOK, "", "", ""},
		{"browser on the 3RI path", "/authentication/3ri",
			testkit.ThreeRIBody(t, card, func(m map[string]any) { m["deviceChannel"] = 2 }),
			http.StatusBadRequest, "CH01", "203", "deviceChannel 2 (browser) is served on /authentication/brw"},
		{"3RI on the browser path", "/authentication/brw",
			testkit.LookupBody(t, card, func(m map[string]any) { m["deviceChannel"] = 3 }),
			http.StatusBadRequest, "CH01", "203", "deviceChannel 3 (3RI) is served on /authentication/3ri"},
		{"3RI body on the browser path", "/authentication/brw", testkit.ThreeRIBody(t, card, nil),
			http.StatusBadRequest, "FD01", "201", "deviceChannel 3 (3RI) is served on /authentication/3ri"},
		{"browser body on the 3RI path", "/authentication/3ri", testkit.LookupBody(t, card, nil),
			http.StatusBadRequest, "FD01", "201", "is not usable on the 3RI channel (interface section 2.2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(http.MethodPost, tt.path, "tok", tt.body)
			if tt.errorCode == "" {
				if r.Status != http.StatusOK || r.Str("status") != "Y" || r.Str("hostedChallengeUrl") != "" {
					t.Fatalf("HTTP %d: %s", r.Status, r.Raw)
				}
				if r.Header.Get("X-Scenario-Id") != "visa-frictionless-y" {
					t.Errorf("X-Scenario-Id = %q", r.Header.Get("X-Scenario-Id"))
				}
				return
			}
			checkErrorBody(t, r, tt.status, tt.emvCode)
			if r.Str("errorCode") != tt.errorCode || !strings.Contains(r.Raw, tt.says) {
				t.Errorf("want %s saying %q: %s", tt.errorCode, tt.says, r.Raw)
			}
		})
	}
}

// TestThreeRIPriorOverHTTP: a recurring 3RI lookup names a browser
// authentication by either of its ids; an unknown prior, another
// token's, and one not authenticated are refused with the error body.
func TestThreeRIPriorOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.tokens = []string{"tok", "other"} })
	y := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	n := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-n"), nil))
	if y.Status != http.StatusOK || n.Status != http.StatusOK {
		t.Fatalf("browser lookups: %s, %s", y.Raw, n.Raw)
	}
	card := e.card("visa-challenge")
	tests := []struct {
		name, token, ref string
		status           int
		emvCode, says    string
	}{
		{"by acsTransId", "tok", y.Str("acsTransId"), http.StatusOK, "", ""},
		{"by threeDsServerTransId", "tok", y.Str("threeDsServerTransId"), http.StatusOK, "", ""},
		{"unknown", "tok", "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", http.StatusNotFound, "301", "names no transaction of this token"},
		{"another token's", "other", y.Str("acsTransId"), http.StatusNotFound, "301", "names no transaction of this token"},
		{"not authenticated", "tok", n.Str("acsTransId"), http.StatusConflict, "305", "whose status N is no authentication"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.threeRI(tt.token, testkit.ThreeRIBody(t, card, func(m map[string]any) {
				m["threeDsRequestorPriorAuthenticationInfo"] = map[string]any{
					"threeDsReqPriorRef": tt.ref, "threeDsReqPriorAuthMethod": "01", "threeDsReqPriorAuthTimestamp": "202612060700"}
			}))
			if tt.emvCode == "" {
				// A challenge card answers its threeRI result, by default U 21.
				if r.Status != http.StatusOK || r.Str("status") != "U" || r.Str("statusReason") != "21" {
					t.Fatalf("HTTP %d: %s", r.Status, r.Raw)
				}
				return
			}
			checkErrorBody(t, r, tt.status, tt.emvCode)
			if r.EMV("emvErrorDetail") != "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef" || !strings.Contains(r.Raw, tt.says) {
				t.Errorf("want the prior's reference named, saying %q: %s", tt.says, r.Raw)
			}
		})
	}
}
