package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// addScenarios posts a scenario document to the admin API.
func (e *env) addScenarios(token, contentType, doc string) result {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/admin/scenarios", strings.NewReader(doc))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	return e.do(req)
}

func TestAdminScenarios(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card := "4111111111111111"
	doc := `scenarios:
  - id: my-decline
    description: declined for my test only
    match: {cardNumber: "4111111111111111"}
    frictionless: {status: N, reason: "05"}
`
	if r := e.lookup("alice", testkit.LookupBody(t, card, nil)); r.Str("status") != "Y" {
		t.Fatalf("before: the fallback should answer Y: %s", r.Raw)
	}
	add := e.addScenarios("alice", "application/yaml", doc)
	if add.Status != http.StatusCreated || !strings.Contains(add.Raw, `"my-decline"`) {
		t.Fatalf("add: %d %s", add.Status, add.Raw)
	}
	if r := e.lookup("alice", testkit.LookupBody(t, card, nil)); r.Str("status") != "N" || r.Str("statusReason") != "05" {
		t.Errorf("alice's runtime scenario not applied: %s", r.Raw)
	}
	if r := e.lookup("bob", testkit.LookupBody(t, card, nil)); r.Str("status") != "Y" {
		t.Errorf("alice's scenario leaked to bob: %s", r.Raw)
	}
	if r := e.call(http.MethodGet, "/admin/scenarios", "alice", nil); !strings.Contains(r.Raw, "my-decline") {
		t.Errorf("list: %s", r.Raw)
	}
	if r := e.call(http.MethodGet, "/admin/scenarios", "bob", nil); strings.Contains(r.Raw, "my-decline") {
		t.Errorf("bob lists alice's scenario: %s", r.Raw)
	}
	checkErrorBody(t, e.addScenarios("alice", "application/yaml", doc), http.StatusConflict, "204")
	jsonDoc := `{"scenarios":[{"id":"json-one","match":{"cardNumber":"4111111111111129"},"frictionless":{"status":"A"}}]}`
	if r := e.addScenarios("alice", "application/json", jsonDoc); r.Status != http.StatusCreated {
		t.Errorf("JSON document: %d %s", r.Status, r.Raw)
	}
	// X-Scenario forces a scenario for any card, the namespace's own first.
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/authentication/brw", strings.NewReader(mustJSON(t, testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer alice")
	req.Header.Set("X-Scenario", "json-one")
	if r := e.do(req); r.Str("status") != "A" {
		t.Errorf("X-Scenario: %s", r.Raw)
	}
	req.Header.Set("X-Scenario", "no-such-scenario")
	r := e.do(req)
	checkErrorBody(t, r, http.StatusBadRequest, "203")
	if r.Str("errorCode") != "SC01" {
		t.Errorf("unknown X-Scenario: %s", r.Raw)
	}
	if d := e.call(http.MethodDelete, "/admin/scenarios/my-decline", "bob", nil); d.Status != http.StatusNotFound {
		t.Errorf("bob deleted alice's scenario: %d", d.Status)
	}
	if d := e.call(http.MethodDelete, "/admin/scenarios/my-decline", "alice", nil); d.Status != http.StatusNoContent {
		t.Errorf("delete: %d %s", d.Status, d.Raw)
	}
	if r := e.lookup("alice", testkit.LookupBody(t, card, nil)); r.Str("status") != "Y" {
		t.Errorf("deleted scenario still applied: %s", r.Raw)
	}
	if d := e.call(http.MethodDelete, "/admin/scenarios", "alice", nil); d.Status != http.StatusOK || d.Body["deleted"] != float64(1) {
		t.Errorf("reset: %d %s", d.Status, d.Raw)
	}
}

func TestAdminErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, contentType, doc string
		status                 int
		emv, code              string
	}{
		{"wrong content type", "text/plain", `scenarios: []`, 415, "101", "MS02"},
		{"unknown key", "application/yaml", "scenarios:\n  - id: x\n    match: {cardNumber: \"4111111111111111\"}\n    frictionless: {status: Y}\n    colour: red\n", 400, "203", "AD03"},
		{"fallback refused", "application/yaml", "fallback: x\nscenarios:\n  - id: x\n    frictionless: {status: Y}\n", 400, "203", "AD03"},
		{"not YAML", "application/json", `{"scenarios":`, 400, "203", "AD03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.addScenarios("tok", tt.contentType, tt.doc)
			checkErrorBody(t, r, tt.status, tt.emv)
			if r.Str("errorCode") != tt.code {
				t.Errorf("errorCode = %s, want %s: %s", r.Str("errorCode"), tt.code, r.Raw)
			}
		})
	}
	if r := e.call(http.MethodGet, "/admin/scenarios", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("admin without a token: %d", r.Status)
	}
}

// TestFaultInjection adds a scenario per fault kind and step through the
// admin API and checks what the client sees.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := `scenarios:
  - id: lookup-emv
    match: {cardNumber: "4111110000000013"}
    steps: {lookup: {fault: {kind: emvError, emvErrorCode: "403", component: A}}}
    frictionless: {status: Y}
  - id: lookup-http
    match: {cardNumber: "4111110000000021"}
    steps: {lookup: {fault: {kind: httpError, httpStatus: 502}}}
    frictionless: {status: Y}
  - id: lookup-drop
    match: {cardNumber: "4111110000000039"}
    steps: {lookup: {fault: {kind: drop}}}
    frictionless: {status: Y}
  - id: lookup-malformed
    match: {cardNumber: "4111110000000047"}
    steps: {lookup: {fault: {kind: malformed}}}
    frictionless: {status: Y}
  - id: enquiry-emv
    match: {cardNumber: "4111110000000054"}
    steps: {enquiry: {fault: {kind: emvError, emvErrorCode: "402"}}}
    frictionless: {status: Y}
  - id: challenge-http
    match: {cardNumber: "4111110000000062"}
    steps: {challenge: {fault: {kind: httpError, httpStatus: 500}}}
    challenge: {}
  - id: slow-lookup
    match: {cardNumber: "4111110000000070"}
    delay: {min: 150ms, max: 250ms}
    frictionless: {status: Y}
`
	if r := e.addScenarios("tok", "application/yaml", doc); r.Status != http.StatusCreated {
		t.Fatalf("add: %d %s", r.Status, r.Raw)
	}
	lookup := func(card string) result { return e.lookup("tok", testkit.LookupBody(t, card, nil)) }

	checkErrorBody(t, lookup("4111110000000013"), http.StatusServiceUnavailable, "403")
	checkErrorBody(t, lookup("4111110000000021"), http.StatusBadGateway, "404")
	if _, _, err := e.rawLookup(mustJSON(t, testkit.LookupBody(t, "4111110000000039", nil)), nil); err == nil {
		t.Error("drop fault: the connection answered")
	}
	if resp, raw, err := e.rawLookup(mustJSON(t, testkit.LookupBody(t, "4111110000000047", nil)), nil); err != nil || resp.StatusCode != 200 || strings.HasSuffix(string(raw), "}") {
		t.Errorf("malformed fault: %v %s", err, raw)
	}

	ok := lookup("4111110000000054")
	if ok.Str("status") != "Y" {
		t.Fatalf("enquiry-fault card lookup: %s", ok.Raw)
	}
	checkErrorBody(t, e.enquiry("tok", map[string]any{"threeDsServerTransId": ok.Str("threeDsServerTransId")}), http.StatusGatewayTimeout, "402")

	c := lookup("4111110000000062")
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+c.Str("threeDsServerTransId"), "tok", map[string]any{"action": "pass"}), http.StatusInternalServerError, "404")
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.Str("threeDsServerTransId")}); q.Str("transactionStatus") != "C" {
		t.Errorf("a faulted challenge step changed the transaction: %s", q.Raw)
	}

	start := time.Now()
	if r := lookup("4111110000000070"); r.Str("status") != "Y" {
		t.Errorf("slow lookup: %s", r.Raw)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("random delay of 150-250ms took %s", d)
	}
}

// TestDelayedRequestsAreBounded: with every delay slot taken, a further
// delayed request fails at once with 503 SY03 instead of piling up. Two
// requests for the one slot go together: one holds it for its 5s delay
// and then answers Y, the other is refused before that one answers.
func TestDelayedRequestsAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.maxDelay = 1 })
	doc := `scenarios:
  - id: slow
    match: {cardNumber: "4111110000000070"}
    delay: 5s
    frictionless: {status: Y}
`
	if r := e.addScenarios("tok", "application/yaml", doc); r.Status != http.StatusCreated {
		t.Fatalf("add: %s", r.Raw)
	}
	answers := make(chan result, 2)
	for range 2 {
		go func() { answers <- e.lookup("tok", testkit.LookupBody(t, "4111110000000070", nil)) }()
	}
	r, held := <-answers, <-answers
	checkErrorBody(t, r, http.StatusServiceUnavailable, "403")
	if r.Str("errorCode") != "SY03" {
		t.Errorf("the delayed request refused, answered first: %s", r.Raw)
	}
	if held.Str("status") != "Y" {
		t.Errorf("the delayed request holding the slot: %s", held.Raw)
	}
}

// TestAdminScenariosBoundedInBytes: a token's runtime scenarios are
// bounded in bytes, not only in count, and a description in length, each
// refused with a clear error body (descriptions of 60 KiB once took a
// process to hundreds of megabytes).
func TestAdminScenariosBoundedInBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("d", 1025)
	r := e.addScenarios("bytes", "application/yaml", "scenarios:\n  - id: wordy\n    description: "+long+"\n    match: {cardPrefix: \"41\"}\n    challenge: {}\n")
	checkErrorBody(t, r, http.StatusBadRequest, "203")
	if r.Str("errorCode") != "AD03" || !strings.Contains(r.Raw, "at most 1024") {
		t.Errorf("a long description: %s", r.Raw)
	}
	// Scenarios of about 1.1 KB each (as the sandbox keeps them) fill the
	// 1 MiB budget before the count bound of 1000.
	filler := strings.Repeat("x", 1000)
	refused := 0
	for i := 0; i < 1100 && refused == 0; i++ {
		doc := fmt.Sprintf("scenarios:\n  - id: s%04d\n    description: %s\n    match: {cardPrefix: \"4%05d\"}\n    challenge: {}\n", i, filler, i)
		switch r := e.addScenarios("bytes", "application/yaml", doc); r.Status {
		case http.StatusCreated:
		case http.StatusRequestEntityTooLarge:
			checkErrorBody(t, r, http.StatusRequestEntityTooLarge, "103")
			if r.Str("errorCode") != "AD14" || r.EMV("emvErrorDetail") == "" || !strings.Contains(r.Str("error"), "bytes") {
				t.Errorf("over the byte bound: %s", r.Raw)
			}
			refused = i
		default:
			t.Fatalf("add %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if refused < 900 || refused > 1050 {
		t.Errorf("refused at scenario %d, want about 1 MiB / 1 KiB = 1000", refused)
	}
	// Another token has a budget of its own.
	if r := e.addScenarios("other", "application/yaml", "scenarios:\n  - id: a\n    match: {cardPrefix: \"41\"}\n    challenge: {}\n"); r.Status != http.StatusCreated {
		t.Errorf("another token: %d %s", r.Status, r.Raw)
	}
}
