//go:build full

package e2e

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// styleCards are the cards of the default scenarios of each challenge
// style, by the scenario's id, as GET /scenarios lists them.
func styleCards(t *testing.T, p *program) (oob, password, question, multiSelect, trust string) {
	t.Helper()
	return catalogueCard(t, p, "visa-challenge-oob"), catalogueCard(t, p, "visa-challenge-password"),
		catalogueCard(t, p, "visa-challenge-select"), catalogueCard(t, p, "visa-challenge-multiselect"),
		catalogueCard(t, p, "visa-challenge-trust")
}

// TestChallengeRules: the challenge decides as an EMV 3-D Secure ACS
// would, against the built binary: interactionCounter counts the
// authentication cycles; a choice picked twice is refused on select and
// multiselect alike; a refused step leaves status C; any well-formed
// browser language is taken; the trust field takes Y or N; the journal
// names a wrong entry by what was entered.
func TestChallengeRules(t *testing.T) {
	p := startDefault(t)
	oobCard, passwordCard, selectCard, multiSelectCard, trustCard := styleCards(t, p)
	lookup := func(t *testing.T, card string, edit func(map[string]any)) string {
		t.Helper()
		r := p.lookup(t, testkit.LookupBody(t, card, edit))
		if r.Status != http.StatusOK || r.Str("status") != "C" {
			t.Fatalf("lookup %s: %d %s", card, r.Status, r.Raw)
		}
		return r.Str("threeDsServerTransId")
	}
	step := func(t *testing.T, id string, body map[string]any) testkit.Response {
		t.Helper()
		return testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+id, testToken, body)
	}
	counter := func(t *testing.T, id string) string {
		t.Helper()
		return p.enquiry(t, id).Str("interactionCounter")
	}

	t.Run("interactionCounter counts the authentication cycles", func(t *testing.T) {
		id := lookup(t, challengeCard, nil)
		for _, b := range []map[string]any{{"action": "resend"}, {"action": "resend"}, {"action": "otp", "otp": "9999"}, {"action": "otp", "otp": "1234"}} {
			if r := step(t, id, b); r.Status != http.StatusOK {
				t.Fatalf("%v: %d %s", b, r.Status, r.Raw)
			}
		}
		if got := counter(t, id); got != "02" {
			t.Errorf("two resends, a wrong code, the right one: interactionCounter %q, want 02", got)
		}
		oob := lookup(t, oobCard, nil)
		step(t, oob, map[string]any{"action": "continue"})
		step(t, oob, map[string]any{"action": "continue"})
		if r := step(t, oob, map[string]any{"action": "approve"}); r.Str("transStatus") != "Y" {
			t.Fatalf("approve: %s", r.Raw)
		}
		if got := counter(t, oob); got != "01" {
			t.Errorf("two Continues before the app, its approval: interactionCounter %q, want 01", got)
		}
	})

	t.Run("interactionCounter after a timeout once the page opened", func(t *testing.T) {
		clock := p.URL + "/admin/clock"
		id := lookup(t, challengeCard, nil)
		if status, _ := getPage(t, p.URL+"/acs/hosted/"+id); status != http.StatusOK {
			t.Fatalf("open the page: HTTP %d", status)
		}
		r := testkit.Call(t, http.MethodPost, clock, testToken, map[string]any{"advance": "16m"}) // past --challenge-timeout
		defer testkit.Call(t, http.MethodDelete, clock, testToken, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("advance: %d %s", r.Status, r.Raw)
		}
		q := p.enquiry(t, id)
		if q.Str("transactionStatus") != "N" || q.Str("challengeCancel") != "04" || q.Str("interactionCounter") != "00" {
			t.Errorf("timed out after the page opened: %s, want N, challengeCancel 04, interactionCounter 00", q.Raw)
		}
	})

	t.Run("a choice picked twice", func(t *testing.T) {
		for card, choices := range map[string][]string{
			selectCard:      {"Chiang Mai", "Chiang Mai"},
			multiSelectCard: {"Sandbox Coffee", "Demo Books", "Demo Books"},
		} {
			id := lookup(t, card, nil)
			r := step(t, id, map[string]any{"action": "select", "choices": choices})
			if r.Status != http.StatusBadRequest || r.EMV("emvErrorCode") != "203" || r.EMV("emvErrorDetail") != "choices" {
				t.Errorf("card %s, %q: %d %s, want 400, EMV 203 naming choices", card, choices, r.Status, r.Raw)
			}
		}
	})

	t.Run("a refused step leaves status C", func(t *testing.T) {
		id := lookup(t, challengeCard, nil)
		for _, b := range []map[string]any{{"action": "otp"}, {"action": "approve-now"}, {"action": "select", "choices": []string{"x"}}} {
			r := step(t, id, b)
			if r.Status < 400 || r.Str("status") != "C" {
				t.Errorf("%v: %d %s, want a refusal with status C", b, r.Status, r.Raw)
			}
		}
		if q := p.enquiry(t, id); q.Str("transactionStatus") != "C" {
			t.Errorf("after the refusals: %s", q.Raw)
		}
	})

	t.Run("a well-formed language of no catalogue", func(t *testing.T) {
		lookupIn := func(tag string) testkit.Response {
			return testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, challengeCard, func(m map[string]any) {
				m["browserInfo"].(map[string]any)["language"] = tag
			}))
		}
		for _, tag := range []string{"zz", "zz-ZZ", "x-klingo"} {
			r := lookupIn(tag)
			if r.Status != http.StatusOK {
				t.Errorf("language %q: %d %s", tag, r.Status, r.Raw)
				continue
			}
			if _, page := getPage(t, r.Str("hostedChallengeUrl")); !strings.Contains(page, `<html lang="en"`) {
				t.Errorf("language %q: the page is not in English:\n%.200s", tag, page)
			}
		}
		if r := lookupIn("en_GB"); r.Status != http.StatusBadRequest || r.EMV("emvErrorDetail") != "browserInfo.language" {
			t.Errorf("language en_GB: %d %s, want 400 naming browserInfo.language", r.Status, r.Raw)
		}
	})

	t.Run("the trust field", func(t *testing.T) {
		for _, tt := range []struct {
			trust, whiteList string
			status           int
		}{{"maybe", "", http.StatusBadRequest}, {"N", "N", http.StatusOK}, {"Y", "Y", http.StatusOK}} {
			r := p.lookup(t, testkit.LookupBody(t, trustCard, nil))
			_, page := postForm(t, p.URL+"/acs/challenge", url.Values{"creq": {creqOf(t, r)}})
			state := html.UnescapeString(hiddenState.FindStringSubmatch(page)[1])
			status, answer := postForm(t, p.URL+"/acs/decision", url.Values{"state": {state}, "action": {"otp"}, "otp": {"1234"}, "trust": {tt.trust}})
			if status != tt.status {
				t.Errorf("trust=%s: HTTP %d, want %d\n%.300s", tt.trust, status, tt.status, answer)
			}
			q := p.enquiry(t, r.Str("threeDsServerTransId"))
			if tt.whiteList == "" && q.Str("transactionStatus") != "C" || tt.whiteList != "" && q.Str("whiteListStatus") != tt.whiteList {
				t.Errorf("trust=%s: enquiry %s", tt.trust, q.Raw)
			}
		}
	})

	t.Run("wrong entries named by what was entered", func(t *testing.T) {
		for _, tt := range []struct {
			card  string
			wrong map[string]any
			want  string
		}{
			{challengeCard, map[string]any{"action": "otp", "otp": "9999"}, "otpAttempt"},
			{passwordCard, map[string]any{"action": "password", "entry": "hunter2"}, "passwordAttempt"},
			{multiSelectCard, map[string]any{"action": "select", "choices": []string{"Sandbox Coffee"}}, "choiceAttempt"},
		} {
			id := lookup(t, tt.card, nil)
			if r := step(t, id, tt.wrong); r.Status != http.StatusOK {
				t.Fatalf("%v: %d %s", tt.wrong, r.Status, r.Raw)
			}
			var tx struct{ Events []struct{ Type string } }
			r := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions/"+id, testToken, nil)
			if err := json.Unmarshal([]byte(r.Raw), &tx); err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, ev := range tx.Events {
				types = append(types, ev.Type)
			}
			if got := strings.Join(types, ","); !strings.Contains(got, tt.want) || strings.Count(got, "Attempt") != 1 {
				t.Errorf("card %s: events %s, want one %s", tt.card, got, tt.want)
			}
		}
	})
}
