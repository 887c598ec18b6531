package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
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
	checkRulesOverHTTP(t, e, "/authentication/3ri", base, wiretest.ThreeRIRules())
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

// TestDefaultScenariosThreeRI sends every default test card through a 3RI
// lookup and an enquiry: each answers what the catalogue (GET /scenarios)
// promises for 3RI, its frictionless result, a challenge card's threeRI
// result, an error card's error.
func TestDefaultScenariosThreeRI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cat := e.call(http.MethodGet, "/scenarios", "", nil)
	promised := map[string]map[string]any{}
	for _, it := range cat.Body["scenarios"].([]any) {
		m := it.(map[string]any)
		if r, ok := m["threeRI"].(map[string]any); ok {
			promised[m["id"].(string)] = r
		}
	}
	priorOf := map[string]string{}
	for status, id := range map[string]string{"Y": "visa-frictionless-y", "A": "visa-frictionless-a", "N": "visa-frictionless-n"} {
		priorOf[status] = e.lookup("tok", testkit.LookupBody(t, e.card(id), nil)).Str("acsTransId")
	}
	priorOf[scenarios.PriorNone] = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	checked := 0
	for _, sc := range e.Cat.All() {
		if sc.Match.CardNumber == "" || sc.Delay > 0 || !sc.AnswersChannel(scenarios.Channel3RI) {
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			ref := "3ri-" + sc.ID
			body := testkit.ThreeRIBody(t, sc.Match.CardNumber, func(m map[string]any) {
				m["externalReferenceId"] = ref
				if v := sc.Match.MessageVersion; v != "" {
					m["messageVersion"] = v
				}
				if n := sc.Match.CardholderName; n != "" {
					m["card"].(map[string]any)["cardholderName"] = n
				}
				if c := sc.Match.ChallengeInd; c != 0 {
					m["threeDsRequestorChallengeInd"] = c
				}
				if inds := sc.When[scenarios.WhenThreeRIInd]; len(inds) > 0 {
					m["threeRIInd"] = inds[0]
				}
				if st := sc.When[scenarios.WhenPriorStatus]; len(st) > 0 {
					prior, ok := priorOf[st[0]]
					if !ok {
						t.Fatalf("no prior of status %s to send", st[0])
					}
					m["threeDsRequestorPriorAuthenticationInfo"] = map[string]any{"threeDsReqPriorRef": prior}
				}
			})
			r := e.threeRI("tok", body)
			if sc.Error != nil {
				checkErrorBody(t, r, sc.Error.HTTPStatus, sc.Error.EMVErrorCode)
				return
			}
			want, ok := promised[sc.ID]
			if !ok {
				t.Fatalf("the catalogue promises nothing on 3RI for %s", sc.ID)
			}
			if r.Status != http.StatusOK || r.Header.Get("X-Scenario-Id") != sc.ID {
				t.Fatalf("HTTP %d by %s: %s", r.Status, r.Header.Get("X-Scenario-Id"), r.Raw)
			}
			for k, v := range map[string]any{"status": want["status"], "statusReason": want["statusReason"], "eci": want["eci"]} {
				if v == nil {
					v = ""
				}
				if got := r.Str(k); got != v {
					t.Errorf("%s = %q, the catalogue promises %q", k, got, v)
				}
			}
			if r.Str("hostedChallengeUrl") != "" || r.Str("challengeHtml") != "" {
				t.Errorf("a 3RI answer with a challenge: %s", r.Raw)
			}
			q := e.enquiry("tok", map[string]any{"externalReferenceId": ref})
			if q.Status != http.StatusOK || q.Str("transactionStatus") != r.Str("status") || q.Str("eci") != r.Str("eci") ||
				q.Str("acsTransactionId") != r.Str("acsTransId") || q.Str("authenticationValue") != r.Str("authenticationValue") {
				t.Errorf("enquiry %s differs from the lookup %s", q.Raw, r.Raw)
			}
			if _, ok := q.Body["interactionCounter"]; ok {
				t.Errorf("a 3RI enquiry counts interactions: %s", q.Raw)
			}
		})
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d default cards checked on 3RI", checked)
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

// TestConsoleShowsThreeRI: the cards page says what each card answers on
// 3RI; the transactions list marks a 3RI transaction and its page names
// the channel and what the lookup was for.
func TestConsoleShowsThreeRI(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	p := b.get("/console/")
	for card, want := range map[string]string{e.Challenge: "U 21", e.Frictionless: "Y", "4000000000009516": "N 01"} {
		row := p.Doc.Find(`code.pan[data-card="` + card + `"]`).First().Closest("tr")
		if got := strings.TrimSpace(row.Find("td").Eq(5).Text()); got != want {
			t.Errorf("3RI column of %s = %q, want %q", card, got, want)
		}
	}

	answer := e.api("/authentication/3ri", "console-3ri", testkit.ThreeRIBody(t, e.Challenge, nil))
	id, _ := answer["threeDsServerTransId"].(string)
	browser := e.api("/authentication/brw", "console-3ri", testkit.LookupBody(t, e.Frictionless, nil))
	b.login("console-3ri")
	list := b.get("/console/transactions")
	if got := strings.TrimSpace(list.Doc.Find(`tr[data-id="` + id + `"] .channel`).Text()); got != "3RI" {
		t.Errorf("the list marks the 3RI transaction %q", got)
	}
	if got := list.Doc.Find(`tr[data-id="` + browser["threeDsServerTransId"].(string) + `"] .channel`).Length(); got != 0 {
		t.Errorf("the list marks a browser transaction")
	}
	page := b.get("/console/transactions/" + id)
	if got, want := strings.TrimSpace(page.Doc.Find("dd.channel").Text()), "3RI · threeRIInd 01, recurring transaction"; got != want {
		t.Errorf("channel = %q, want %q", got, want)
	}
	if got := page.Doc.Find("#status").Text(); got != "U" {
		t.Errorf("status = %q, want U", got)
	}
}

// TestThreeRIDocExamples: the 3RI page's request, sent after a browser
// authentication it names, answers what the page says (Y, ECI 05); its
// scenario file loads and answers as its comments say.
func TestThreeRIDocExamples(t *testing.T) {
	t.Parallel()
	var request, file string
	for _, f := range testkit.Fences(t, "../docs/3ri.md", "## What to send") {
		if f.Lang == "json" {
			request = f.Text
		}
	}
	for _, f := range testkit.Fences(t, "../docs/3ri.md", "## Scenarios for 3RI") {
		if f.Lang == "yaml" {
			file = f.Text
		}
	}
	if request == "" || file == "" {
		t.Fatal("the 3RI page has no request or scenario file")
	}
	path := t.TempDir() + "/3ri.yaml"
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *envOptions) { o.load = scenarios.LoadOptions{Paths: []string{path}} })
	first := e.lookup("tok", testkit.LookupBody(t, "4000000000009102", nil))
	if r := e.call(http.MethodPost, "/challenge/"+first.Str("threeDsServerTransId"), "tok", map[string]any{"action": "pass"}); r.Str("transStatus") != "Y" {
		t.Fatalf("the first charge's challenge: %s", r.Raw)
	}
	const placeholder = "<the acsTransId of the first, browser, authentication>"
	var body map[string]any
	if err := json.Unmarshal([]byte(strings.Replace(request, placeholder, first.Str("acsTransId"), 1)), &body); err != nil {
		t.Fatalf("the page's request: %v", err)
	}
	if r := e.threeRI("tok", body); r.Status != http.StatusOK || r.Str("status") != "Y" || r.Str("eci") != "05" {
		t.Errorf("the page's request: %d %s", r.Status, r.Raw)
	}

	const card = "4111111111111111"
	unknown := "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	tests := []struct {
		name, ind, prior, status, scenario string
	}{
		{"a renewal", "01", "", "Y", "sub-y"},
		{"an account check", "05", "", "N", "sub-account-check-n"},
		{"maintain card", "04", "", "N", "sub-account-check-n"},
		{"an expired reference", "01", unknown, "U", "sub-expired-reference"},
	}
	for _, tt := range tests {
		r := e.threeRI("tok", testkit.ThreeRIBody(t, card, func(m map[string]any) {
			m["threeRIInd"] = tt.ind
			if tt.prior != "" {
				m["threeDsRequestorPriorAuthenticationInfo"] = map[string]any{"threeDsReqPriorRef": tt.prior}
			}
		}))
		if r.Str("status") != tt.status || r.Header.Get("X-Scenario-Id") != tt.scenario {
			t.Errorf("%s: %s by %s, want %s by %s: %s", tt.name, r.Str("status"), r.Header.Get("X-Scenario-Id"), tt.status, tt.scenario, r.Raw)
		}
	}
	if r := e.lookup("tok", testkit.LookupBody(t, card, nil)); r.Str("status") != "C" {
		t.Errorf("the file's card on the browser: %s", r.Raw)
	}
}

// TestThreeRIHasNoChallengeOverHTTP: the hosted page and the headless
// challenge refuse a 3RI transaction with 409 (EMV 305), saying why.
func TestThreeRIHasNoChallengeOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.threeRI("tok", testkit.ThreeRIBody(t, e.card("visa-challenge"), nil)).Str("threeDsServerTransId")
	if h := e.call(http.MethodGet, "/acs/hosted/"+id, "", nil); h.Status != http.StatusConflict {
		t.Errorf("hosted page: HTTP %d", h.Status)
	}
	c := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "pass"})
	checkErrorBody(t, c, http.StatusConflict, "305")
	if !strings.Contains(c.Str("error"), "is a 3RI transaction") {
		t.Errorf("headless challenge: %s", c.Raw)
	}
}
