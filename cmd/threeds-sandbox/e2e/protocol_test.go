//go:build full

package e2e

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// creqUpper is the creq of a challengeHtml with its transaction ids in
// upper case.
func creqUpper(t *testing.T, challengeHTML string) string {
	t.Helper()
	m := hiddenCReq.FindStringSubmatch(challengeHTML)
	if m == nil {
		t.Fatalf("no creq in %s", challengeHTML)
	}
	raw, err := base64.RawURLEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"threeDSServerTransID", "acsTransID"} {
		c[k] = strings.ToUpper(c[k].(string))
	}
	raw, _ = json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// getPage fetches a browser page and returns its status and body.
func getPage(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestChallengeDeviations: the low deviations of the protocol audit, each
// against the built binary.
func TestChallengeDeviations(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	challenge := func() testkit.Response { return p.lookup(t, testkit.LookupBody(t, challengeCard, nil)) }

	t.Run("transaction ids in any case", func(t *testing.T) {
		hosted := challenge()
		id := hosted.Str("threeDsServerTransId")
		u := strings.Replace(hosted.Str("hostedChallengeUrl"), id, strings.ToUpper(id), 1)
		if status, page := getPage(t, u); status != http.StatusOK || hiddenState.FindStringSubmatch(page) == nil {
			t.Errorf("hosted URL with the upper-case id: HTTP %d\n%.300s", status, page)
		}
		headless := challenge()
		r := testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+strings.ToUpper(headless.Str("threeDsServerTransId")), testToken, map[string]any{"action": "pass"})
		if r.Status != http.StatusOK || r.Str("transStatus") != "Y" {
			t.Errorf("headless API with the upper-case id: %d %s", r.Status, r.Raw)
		}
		creq := challenge()
		if status, page := postForm(t, p.URL+"/acs/challenge", url.Values{"creq": {creqUpper(t, creq.Str("challengeHtml"))}}); status != http.StatusOK || hiddenState.FindStringSubmatch(page) == nil {
			t.Errorf("a CReq with upper-case ids: HTTP %d\n%.300s", status, page)
		}
		resp, err := consoleClient(t, p).Get(p.URL + "/console/transactions/" + strings.ToUpper(creq.Str("threeDsServerTransId")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the console's page of the upper-case id: HTTP %d", resp.StatusCode)
		}
	})

	t.Run("a page answered with a wrong code is refused again", func(t *testing.T) {
		ch := challenge()
		_, page := postForm(t, p.URL+"/acs/challenge", url.Values{"creq": {creqOf(t, ch)}})
		first := html.UnescapeString(hiddenState.FindStringSubmatch(page)[1])
		status, page := postForm(t, p.URL+"/acs/decision", url.Values{"state": {first}, "action": {"otp"}, "otp": {"9999"}})
		next := hiddenState.FindStringSubmatch(page)
		if status != http.StatusOK || next == nil || !strings.Contains(page, "2 attempts left") {
			t.Fatalf("a wrong code: HTTP %d\n%.300s", status, page)
		}
		status, page = postForm(t, p.URL+"/acs/decision", url.Values{"state": {first}, "action": {"otp"}, "otp": {"1234"}})
		if status != http.StatusConflict || !strings.Contains(page, "305") {
			t.Errorf("the first page posted again: HTTP %d, want 409 (EMV 305)\n%.300s", status, page)
		}
		if got := p.enquiry(t, ch.Str("threeDsServerTransId")); got.Str("transactionStatus") != "C" {
			t.Errorf("after the refused page: %s", got.Raw)
		}
		status, page = postForm(t, p.URL+"/acs/decision", url.Values{"state": {html.UnescapeString(next[1])}, "action": {"otp"}, "otp": {"1234"}})
		if status != http.StatusOK || hiddenCRes.FindStringSubmatch(page) == nil {
			t.Errorf("the page after the wrong code: HTTP %d\n%.300s", status, page)
		}
	})

	t.Run("otp without a code, and the attempts left on reload", func(t *testing.T) {
		ch := challenge()
		id := ch.Str("threeDsServerTransId")
		r := testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+id, testToken, map[string]any{"action": "otp"})
		if r.Status != http.StatusBadRequest || r.Str("errorCode") != "FD01" || r.EMV("emvErrorDetail") != "otp" {
			t.Errorf("otp without a code: %d %s, want 400 FD01 naming otp", r.Status, r.Raw)
		}
		if _, page := getPage(t, ch.Str("hostedChallengeUrl")); strings.Contains(page, "attempt") {
			t.Errorf("the code-less otp used up an attempt:\n%.400s", page)
		}
		testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+id, testToken, map[string]any{"action": "otp", "otp": "9999"})
		if _, page := getPage(t, ch.Str("hostedChallengeUrl")); !strings.Contains(page, "2 attempts left") {
			t.Errorf("the reloaded page does not show the attempts left:\n%.400s", page)
		}
	})

	t.Run("enquiry by a collection's reference", func(t *testing.T) {
		const card = "4000000000009417" // its ACS has a 3DS Method
		ddc := testkit.Call(t, http.MethodPost, p.URL+"/authentication/ddc", testToken, map[string]any{
			"card": map[string]any{"cardNumber": card}, "threeDSMethodNotificationURL": "https://shop.example/method",
			"externalReferenceId": "order-ddc-e2e",
		})
		if ddc.Status != http.StatusOK {
			t.Fatalf("ddc: %d %s", ddc.Status, ddc.Raw)
		}
		lookup := p.lookup(t, testkit.LookupBody(t, card, func(m map[string]any) {
			m["ddcId"], m["externalReferenceId"] = ddc.Str("ddcId"), "order-lookup-e2e"
		}))
		r := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", testToken, map[string]any{"externalReferenceId": "order-ddc-e2e"})
		if msg := r.Str("error"); r.Status != http.StatusNotFound || strings.Contains(msg, "without a lookup") ||
			!strings.Contains(msg, "order-lookup-e2e") || !strings.Contains(msg, lookup.Str("threeDsServerTransId")) {
			t.Errorf("enquiry by the collection's reference: %d %s, want 404 naming the lookup's id and reference", r.Status, r.Raw)
		}
	})

	t.Run("decoupled authentication asked for", func(t *testing.T) {
		for _, card := range []string{"4000000000009003", challengeCard} {
			plain := p.lookup(t, testkit.LookupBody(t, card, nil))
			for _, feature := range []int{3, 4} {
				got := p.lookup(t, testkit.LookupBody(t, card, func(m map[string]any) {
					m["requestFeatures"], m["threeDSRequestorDecMaxTime"] = feature, 30
				}))
				if got.Str("status") != plain.Str("status") || got.Str("status") == "D" || got.Str("eci") != plain.Str("eci") ||
					got.Str("authenticationType") != plain.Str("authenticationType") {
					t.Errorf("card %s with requestFeatures %d: %s, want as without: %s", card, feature, got.Raw, plain.Raw)
				}
			}
		}
	})
}
