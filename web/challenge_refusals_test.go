package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestHeadlessRefusalKeepsTheStatus: a refused headless step changes
// nothing, so its error body's status is the authentication's own (spec
// 2.16): C while the challenge is open; U once it is final (the 305
// names its result) and where the token reads no transaction.
func TestHeadlessRefusalKeepsTheStatus(t *testing.T) {
	e := newEnv(t)
	open := func() string { return e.startChallenge(nil).lookup.Str("threeDsServerTransId") }
	raw := func(id, body string) result {
		req, err := http.NewRequest(http.MethodPost, e.URL+"/challenge/"+id, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Content-Type", "application/json")
		return e.do(req)
	}
	finished := open()
	if r := e.call(http.MethodPost, "/challenge/"+finished, "tok", map[string]any{"action": "pass"}); r.Status != http.StatusOK {
		t.Fatalf("pass: %d %s", r.Status, r.Raw)
	}
	resends := open()
	for range 3 {
		e.call(http.MethodPost, "/challenge/"+resends, "tok", map[string]any{"action": "resend"})
	}
	tests := []struct {
		name           string
		send           func() result
		status         int
		emv, transStat string
	}{
		{"an action no style takes", func() result {
			return e.call(http.MethodPost, "/challenge/"+open(), "tok", map[string]any{"action": "approve-now"})
		}, 400, "203", "C"},
		{"otp without a code", func() result {
			return e.call(http.MethodPost, "/challenge/"+open(), "tok", map[string]any{"action": "otp"})
		}, 400, "201", "C"},
		{"a body that is not JSON", func() result { return raw(strings.ToUpper(open()), `{"action":`) }, 400, "101", "C"},
		{"a resend beyond the limit", func() result {
			return e.call(http.MethodPost, "/challenge/"+resends, "tok", map[string]any{"action": "resend"})
		}, 409, "305", "C"},
		{"a finished challenge", func() result {
			return e.call(http.MethodPost, "/challenge/"+finished, "tok", map[string]any{"action": "fail"})
		}, 409, "305", "U"},
		{"an unknown transaction", func() result {
			return e.call(http.MethodPost, "/challenge/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "tok", map[string]any{"action": "pass"})
		}, 404, "301", "U"},
		{"another token's transaction", func() result {
			return e.call(http.MethodPost, "/challenge/"+open(), "other", map[string]any{"action": "otp"})
		}, 404, "301", "U"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.send()
			checkErrorBody(t, r, tt.status, tt.emv)
			if got := r.Str("status"); got != tt.transStat {
				t.Errorf("error body status %q, want %q: %s", got, tt.transStat, r.Raw)
			}
		})
	}
}

// TestTrustField: the page's trust field takes Y (trusted) or N; any
// other value, or two, is refused with 400 naming trust, and uses
// nothing up: the same page then decides.
func TestTrustField(t *testing.T) {
	tests := []struct {
		name      string
		trust     []string
		refused   bool
		whiteList string
	}{
		{"ticked", []string{"Y"}, false, "Y"},
		{"not ticked", nil, false, "N"},
		{"N", []string{"N"}, false, "N"},
		{"yes", []string{"yes"}, true, ""},
		{"on", []string{"on"}, true, ""},
		{"empty", []string{""}, true, ""},
		{"twice", []string{"Y", "N"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			c := e.startChallengeCard(e.card("visa-challenge-trust"))
			page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
			fields := url.Values{"action": {"otp"}, "otp": {"1234"}}
			if tt.trust != nil {
				fields["trust"] = tt.trust
			}
			r := e.answer(page, fields)
			id := c.lookup.Str("threeDsServerTransId")
			if tt.refused {
				if r.Status != http.StatusBadRequest || !strings.Contains(r.Raw, "trust") || !strings.Contains(r.Raw, "203") {
					t.Fatalf("trust %q: HTTP %d, want 400 naming trust\n%.400s", tt.trust, r.Status, r.Raw)
				}
				if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id}); q.Str("transactionStatus") != "C" {
					t.Fatalf("after the refusal: %s", q.Raw)
				}
				r = e.answer(page, url.Values{"action": {"otp"}, "otp": {"1234"}, "trust": {"Y"}})
				tt.whiteList = "Y"
			}
			if r.Status != http.StatusOK {
				t.Fatalf("decision: HTTP %d\n%.400s", r.Status, r.Raw)
			}
			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
			if q.Str("transactionStatus") != "Y" || q.Str("whiteListStatus") != tt.whiteList {
				t.Errorf("enquiry %s, want Y and whiteListStatus %s", q.Raw, tt.whiteList)
			}
		})
	}
}

// TestSelectRefusesAChoicePickedTwice: select and multiselect answer a
// choice picked twice alike, 400 naming choices, using no attempt.
func TestSelectRefusesAChoicePickedTwice(t *testing.T) {
	e := newEnv(t)
	for card, choices := range map[string][]string{
		e.card("visa-challenge-select"):      {"Chiang Mai", "Chiang Mai"},
		e.card("visa-challenge-multiselect"): {"Sandbox Coffee", "Demo Books", "Demo Books"},
	} {
		id := e.startChallengeCard(card).lookup.Str("threeDsServerTransId")
		r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "select", "choices": choices})
		checkErrorBody(t, r, http.StatusBadRequest, "203")
		if r.EMV("emvErrorDetail") != "choices" || !strings.Contains(r.Str("error"), "picked twice") || r.Str("status") != "C" {
			t.Errorf("card %s, choices %q: %s", card, choices, r.Raw)
		}
		if r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "select", "choices": choices[:len(choices)-1]}); r.Str("transStatus") != "Y" {
			t.Errorf("card %s, then each choice once: %s", card, r.Raw)
		}
	}
}

// TestWrongEntryEventsNameTheEntry: the automation API names a wrong
// entry by what was entered: a code, a password, a choice.
func TestWrongEntryEventsNameTheEntry(t *testing.T) {
	e := newEnv(t, withJournal)
	tests := []struct {
		card  string
		wrong map[string]any
		want  string
	}{
		{e.card("visa-challenge"), map[string]any{"action": "otp", "otp": "9999"}, "otpAttempt"},
		{e.card("visa-challenge-password"), map[string]any{"action": "password", "entry": "hunter2"}, "passwordAttempt"},
		{e.card("visa-challenge-select"), map[string]any{"action": "select", "choices": []string{"Atlantis"}}, ""},
		{e.card("visa-challenge-multiselect"), map[string]any{"action": "select", "choices": []string{"Sandbox Coffee"}}, "choiceAttempt"},
	}
	for _, tt := range tests {
		id := e.lookup("tok", testkit.LookupBody(t, tt.card, nil)).Str("threeDsServerTransId")
		r := e.call(http.MethodPost, "/challenge/"+id, "tok", tt.wrong)
		if tt.want == "" { // not one of the choices: refused, no attempt
			checkErrorBody(t, r, http.StatusBadRequest, "203")
			continue
		}
		if r.Status != http.StatusOK {
			t.Fatalf("%v: %d %s", tt.wrong, r.Status, r.Raw)
		}
		var d struct {
			Events []struct{ Type, Detail string }
		}
		if err := json.Unmarshal([]byte(e.call(http.MethodGet, "/admin/transactions/"+id, "tok", nil).Raw), &d); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range d.Events {
			types = append(types, ev.Type)
		}
		if got := strings.Join(types, ","); !strings.Contains(got, ","+tt.want) || strings.Count(got, "Attempt") != 1 {
			t.Errorf("%v: events %s, want one %s", tt.wrong, got, tt.want)
		}
	}
}
