//go:build full

package e2e

import (
	"html"
	"net/http"
	"net/url"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestTrustOnlyAfterAuthentication: a challenge offering "trust this
// merchant" reports whiteListStatus Y only when the cardholder
// authenticated with the box ticked; a challenge that failed, was
// cancelled, ended after three wrong codes or timed out never does, on
// the challenge page and through the headless API.
func TestTrustOnlyAfterAuthentication(t *testing.T) {
	const visaTrust, mastercardTrust = "4000000000009342", "5200000000009347"
	p := startDefault(t)
	type step = url.Values
	// page answers the challenge page of a lookup in token's namespace
	// with each form in turn, the trust box ticked on each.
	page := func(forms ...step) func(t *testing.T, token string, ch testkit.Response) {
		return func(t *testing.T, _ string, ch testkit.Response) {
			_, body := postForm(t, p.URL+"/acs/challenge", url.Values{"creq": {creqOf(t, ch)}})
			for _, f := range forms {
				m := hiddenState.FindStringSubmatch(body)
				if m == nil {
					t.Fatalf("no challenge page to answer:\n%.400s", body)
				}
				form := url.Values{"state": {html.UnescapeString(m[1])}, "trust": {"Y"}}
				for k, v := range f {
					form[k] = v
				}
				var status int
				if status, body = postForm(t, p.URL+"/acs/decision", form); status != http.StatusOK {
					t.Fatalf("decision %v: HTTP %d\n%.400s", f, status, body)
				}
			}
		}
	}
	headless := func(bodies ...map[string]any) func(t *testing.T, token string, ch testkit.Response) {
		return func(t *testing.T, token string, ch testkit.Response) {
			for _, b := range bodies {
				b["trust"] = true
				if r := testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+ch.Str("threeDsServerTransId"), token, b); r.Status != http.StatusOK {
					t.Fatalf("headless %v: %d %s", b, r.Status, r.Raw)
				}
			}
		}
	}
	advance := func(by string) func(t *testing.T, token string) {
		return func(t *testing.T, token string) {
			if r := testkit.Call(t, http.MethodPost, p.URL+"/admin/clock", token, map[string]any{"advance": by}); r.Status != http.StatusOK {
				t.Fatalf("move the clock: %d %s", r.Status, r.Raw)
			}
		}
	}
	wrong := step{"action": {"otp"}, "otp": {"9999"}}
	wrongAPI := func() map[string]any { return map[string]any{"action": "otp", "otp": "9999"} }
	cases := []struct {
		name         string
		card         string
		answer       func(t *testing.T, token string, ch testkit.Response)
		later        func(t *testing.T, token string)
		status, list string
	}{
		{name: "page: the right code", card: visaTrust, answer: page(step{"action": {"otp"}, "otp": {"1234"}}), status: "Y", list: "Y"},
		{name: "page: fail", card: visaTrust, answer: page(step{"action": {"fail"}}), status: "N", list: "N"},
		{name: "page: cancel", card: mastercardTrust, answer: page(step{"action": {"cancel"}}), status: "N", list: "N"},
		{name: "page: three wrong codes", card: visaTrust, answer: page(wrong, wrong, wrong), status: "N", list: "N"},
		{name: "headless: pass", card: mastercardTrust, answer: headless(map[string]any{"action": "pass"}), status: "Y", list: "Y"},
		{name: "headless: fail", card: visaTrust, answer: headless(map[string]any{"action": "fail"}), status: "N", list: "N"},
		{name: "headless: cancel", card: visaTrust, answer: headless(map[string]any{"action": "cancel"}), status: "N", list: "N"},
		{name: "headless: three wrong codes", card: mastercardTrust, answer: headless(wrongAPI(), wrongAPI(), wrongAPI()), status: "N", list: "N"},
		{name: "timeout 04, the page shown", card: visaTrust, answer: page(), later: advance("16m"), status: "N", list: "N"},
		{name: "timeout 05, never opened", card: mastercardTrust, later: advance("11m"), status: "N", list: "U"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := testToken + "-trust-" + string(rune('a'+i)) // a clock of its own
			ch := testkit.Lookup(t, p.URL, token, testkit.LookupBody(t, tc.card, nil))
			if ch.Str("status") != "C" {
				t.Fatalf("lookup: %s", ch.Raw)
			}
			if tc.answer != nil {
				tc.answer(t, token, ch)
			}
			if tc.later != nil {
				tc.later(t, token)
			}
			q := testkit.Enquiry(t, p.URL, token, ch.Str("threeDsServerTransId"))
			if q.Str("transactionStatus") != tc.status || q.Str("whiteListStatus") != tc.list || q.Str("whiteListStatusSource") != "03" {
				t.Errorf("enquiry %s; want transactionStatus %s, whiteListStatus %s, source 03", q.Raw, tc.status, tc.list)
			}
		})
	}
}
