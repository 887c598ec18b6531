package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// TestEveryStyleHasItsPage: every style a scenario may name has its
// page template, and the OpenAPI document's actions are the engine's.
func TestEveryStyleHasItsPage(t *testing.T) {
	t.Parallel()
	set, err := templates.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range scenarios.Styles() {
		if !set.HasStyle(st.UI) {
			t.Errorf("ui %s has no template %s", st.UI, templates.StyleTemplate(st.UI))
		}
	}
	served := newEnv(t).call(http.MethodGet, "/openapi.yaml", "", nil)
	doc := loadDocument(t, []byte(served.Raw))
	var got []string
	for _, v := range doc.Components.Schemas["CompleteRequest"].Value.Properties["action"].Value.Enum {
		got = append(got, v.(string))
	}
	if want := emulator.ChoiceActions(); !slices.Equal(got, want) {
		t.Errorf("CompleteRequest.action enum %v, want the engine's actions %v", got, want)
	}
	got = nil
	form := doc.Paths.Value("/acs/decision").Post.RequestBody.Value.Content["application/x-www-form-urlencoded"].Schema.Value
	for _, v := range form.Properties["action"].Value.Enum {
		got = append(got, v.(string))
	}
	if want := emulator.ChoiceActions(); !slices.Equal(got, want) {
		t.Errorf("/acs/decision action enum %v, want the engine's actions %v", got, want)
	}
}

// TestOTPResendOnThePage: the code entry offers "send a new code" while
// the scenario allows one; pressing it shows the page again with a note
// and no attempt used, the enquiry counts it, and the console's
// transaction page lists the codes sent.
func TestOTPResendOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card := "4000000000009995"
	if r := e.addScenarios("tok", "application/yaml", `scenarios:
  - id: one-resend
    match: {cardNumber: "`+card+`"}
    challenge: {resends: 1}
`); r.Status != http.StatusCreated && r.Status != http.StatusOK {
		t.Fatalf("add scenario: %d %s", r.Status, r.Raw)
	}
	c := e.startChallengeCard(card)
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	resend := hooks(t, page.Raw)
	if !slices.Contains(resend, "resend") || !slices.Contains(resend, "otp") {
		t.Fatalf("first page hooks %v: want otp and resend", resend)
	}
	page = e.press(page, scenarios.ActionResend, "")
	if page.Status != http.StatusOK || !strings.Contains(page.Raw, "A new code was sent") {
		t.Fatalf("after resend: %d %s", page.Status, page.Raw)
	}
	if slices.Contains(hooks(t, page.Raw), "resend") {
		t.Error("the page still offers a resend beyond the scenario's one")
	}
	final := e.press(page, scenarios.ActionOTP, "1234")
	if !strings.Contains(final.Raw, `name="cres"`) {
		t.Fatalf("the code after a resend does not end the challenge: %s", final.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
	if q.Str("transactionStatus") != "Y" || q.Str("interactionCounter") != "01" {
		t.Errorf("enquiry after a resend and a code (one authentication cycle): %s", q.Raw)
	}
}

// TestHeadlessResend: {"action":"resend"} answers 200 final false until
// the limit, then the error body; actions that do not fit are refused.
func TestHeadlessResend(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(nil)
	id := c.cr.ThreeDSServerTransID
	for i := 1; i <= scenarios.DefaultResends; i++ {
		r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "resend"})
		if r.Status != http.StatusOK || r.Body["final"] != false || r.Str("transStatus") != "C" || !strings.Contains(r.Str("message"), "new code") {
			t.Fatalf("resend %d: %d %s", i, r.Status, r.Raw)
		}
	}
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "resend"}), http.StatusConflict, "305")
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "otp"}), http.StatusBadRequest, "201")
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "approve-now"}), http.StatusBadRequest, "203")
	r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "otp", "otp": "1234"})
	if r.Status != http.StatusOK || r.Str("transStatus") != "Y" {
		t.Fatalf("the code after three resends: %d %s", r.Status, r.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
	if q.Str("interactionCounter") != "01" {
		t.Errorf("interactionCounter %q, want 01 (a code; the three resends are no authentication cycle)", q.Str("interactionCounter"))
	}
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "resend"}), http.StatusConflict, "305")
}

// hooks lists the data-action hooks of a page's controls.
func hooks(t *testing.T, page string) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	doc.Find("[data-action]").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-action", "")) })
	return out
}

// TestOOBOnThePage: the oob page shows the banking app as a link and a
// QR code; Continue says "not approved yet" until the app's page
// approves; the page's watch reads the app's answer; Continue then ends
// the challenge, and the enquiry says out of band.
func TestOOBOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallengeCard(e.card("visa-challenge-oob"))
	id := c.cr.ThreeDSServerTransID
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	got := hooks(t, page.Raw)
	for _, want := range []string{"continue", "open-app", "pass", "fail", "cancel"} {
		if !slices.Contains(got, want) {
			t.Errorf("oob page hooks %v lack %s", got, want)
		}
	}
	if slices.Contains(got, "otp") || !strings.Contains(page.Raw, `<svg class="qr"`) {
		t.Errorf("the oob page shows a code field, or no QR code")
	}
	appURL := "/acs/app/" + id
	if !strings.Contains(page.Raw, `href="`+e.URL+appURL+`"`) {
		t.Fatalf("no link to %s on the page", appURL)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("the page's policy does not let its watch ask the sandbox: %s", csp)
	}
	page = e.press(page, scenarios.ActionContinue, "")
	if !strings.Contains(page.Raw, "Not approved yet") {
		t.Fatalf("continue before the app: %s", page.Raw)
	}
	status := e.call(http.MethodGet, appURL+"/status", "", nil)
	if status.Status != http.StatusOK || status.Str("answer") != "" || status.Body["final"] != false {
		t.Fatalf("status before the app: %d %s", status.Status, status.Raw)
	}
	app := e.call(http.MethodGet, appURL, "", nil)
	if app.Status != http.StatusOK || !slices.Equal(hooks(t, app.Raw), []string{"approve", "decline"}) {
		t.Fatalf("the banking app page: %d %s", app.Status, app.Raw)
	}
	approved := e.form(appURL, url.Values{"action": {"approve"}})
	if approved.Status != http.StatusOK || !strings.Contains(approved.Raw, "Approved") {
		t.Fatalf("approve in the app: %d %s", approved.Status, approved.Raw)
	}
	checkErrorPage(t, e.form(appURL, url.Values{"action": {"decline"}}), http.StatusConflict)
	if s := e.call(http.MethodGet, appURL+"/status", "", nil); s.Str("answer") != "approve" {
		t.Errorf("status after the app: %s", s.Raw)
	}
	final := e.press(page, scenarios.ActionContinue, "")
	if !strings.Contains(final.Raw, `name="cres"`) {
		t.Fatalf("continue after approval does not end the challenge: %s", final.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
	if q.Str("transactionStatus") != "Y" || q.Str("authenticationType") != "03" || q.Str("interactionCounter") != "01" {
		t.Errorf("enquiry (a Continue before the app is no authentication cycle): %s", q.Raw)
	}
}

// TestOOBHeadlessAndBadInput: approve and decline end the challenge;
// actions of another style, unknown actions and the app of another
// style are refused with the error body.
func TestOOBHeadlessAndBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct{ action, status string }{{"approve", "Y"}, {"decline", "N"}} {
		id := e.startChallengeCard(e.card("mastercard-challenge-oob")).cr.ThreeDSServerTransID
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "otp", "otp": "1234"}), http.StatusBadRequest, "203")
		r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": tt.action})
		if r.Status != http.StatusOK || r.Body["final"] != true || r.Str("transStatus") != tt.status {
			t.Fatalf("%s: %d %s", tt.action, r.Status, r.Raw)
		}
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "approve"}), http.StatusConflict, "305")
	}
	otp := e.startChallenge(nil).cr.ThreeDSServerTransID
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+otp, "tok", map[string]any{"action": "approve"}), http.StatusBadRequest, "203")
	checkErrorPage(t, e.call(http.MethodGet, "/acs/app/"+otp, "", nil), http.StatusConflict)
	checkErrorPage(t, e.call(http.MethodGet, "/acs/app/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "", nil), http.StatusNotFound)
}

// checkErrorPage checks that a browser page answered an error page.
func checkErrorPage(t *testing.T, r result, status int) {
	t.Helper()
	if r.Status != status || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("got %d %s, want an error page %d", r.Status, r.Header.Get("Content-Type"), status)
	}
}

// TestSelectOnThePage: the question's choices are radio buttons (select)
// or checkboxes (multiselect) with data-action hooks; the form posts the
// picked ones as choice fields; a wrong one shows the page again.
func TestSelectOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		card, input string
		answers     []string
	}{
		{"visa-challenge-select", "radio", []string{"Chiang Mai"}},
		{"mastercard-challenge-multiselect", "checkbox", []string{"Sandbox Coffee", "Demo Books"}},
	} {
		t.Run(tt.card, func(t *testing.T) {
			c := e.startChallengeCard(e.card(tt.card))
			page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.Raw))
			if err != nil {
				t.Fatal(err)
			}
			var choices []string
			doc.Find(`input[name=choice][data-action=choice][type=` + tt.input + `]`).Each(func(_ int, s *goquery.Selection) {
				choices = append(choices, s.AttrOr("value", ""))
			})
			for _, a := range tt.answers {
				if !slices.Contains(choices, a) {
					t.Fatalf("choices %v lack %s", choices, a)
				}
			}
			if doc.Find("[data-action=select]").Length() != 1 {
				t.Error("no select button")
			}
			var wrong string
			for _, ch := range choices {
				if !slices.Contains(tt.answers, ch) {
					wrong = ch
				}
			}
			again := e.answer(page, url.Values{"action": {"select"}, "choice": {wrong}})
			if !strings.Contains(again.Raw, "2 attempts left") {
				t.Fatalf("a wrong choice: %s", again.Raw)
			}
			final := e.answer(again, url.Values{"action": {"select"}, "choice": tt.answers})
			if !strings.Contains(final.Raw, `name="cres"`) {
				t.Fatalf("the right choices do not end the challenge: %s", final.Raw)
			}
			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
			if q.Str("transactionStatus") != "Y" || q.Str("authenticationType") != "01" || q.Str("interactionCounter") != "02" {
				t.Errorf("enquiry: %s", q.Raw)
			}
		})
	}
}

// TestSelectHeadless: {"action":"select","choices":[...]} answers; none,
// unknown ones, or two on a select are refused and use no attempt.
func TestSelectHeadless(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.startChallengeCard(e.card("visa-challenge-select")).cr.ThreeDSServerTransID
	path := "/challenge/" + id
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "select"}), http.StatusBadRequest, "201")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "select", "choices": []string{}}), http.StatusBadRequest, "201")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "select", "choices": []string{"Atlantis"}}), http.StatusBadRequest, "203")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "select", "choices": []string{"Chiang Mai", "Atlantis"}}), http.StatusBadRequest, "203")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", `{"action":"select","choices":"Chiang Mai"}`), http.StatusBadRequest, "101")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "resend"}), http.StatusBadRequest, "203")
	r := e.call(http.MethodPost, path, "tok", map[string]any{"action": "select", "choices": []string{"Chiang Mai"}})
	if r.Status != http.StatusOK || r.Body["final"] != true || r.Str("transStatus") != "Y" {
		t.Fatalf("the right choice: %d %s", r.Status, r.Raw)
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id}); q.Str("interactionCounter") != "01" {
		t.Errorf("the refused answers counted: %s", q.Raw)
	}
}

// TestTrustPrompt: a scenario's trustPrompt puts "trust this merchant"
// on the page; the enquiry then carries whiteListStatus Y when it was
// ticked, N when not, with whiteListStatusSource 03 (the ACS).
func TestTrustPrompt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		trust bool
		want  string
	}{{true, "Y"}, {false, "N"}} {
		c := e.startChallengeCard(e.card("visa-challenge-trust"))
		page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
		if !slices.Contains(hooks(t, page.Raw), "trust") {
			t.Fatalf("no trust hook on the page: %v", hooks(t, page.Raw))
		}
		form := url.Values{"action": {"otp"}, "otp": {"1234"}}
		if tt.trust {
			form.Set("trust", "Y")
		}
		if final := e.answer(page, form); !strings.Contains(final.Raw, `name="cres"`) {
			t.Fatalf("the code does not end the challenge: %s", final.Raw)
		}
		q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
		if q.Str("whiteListStatus") != tt.want || q.Str("whiteListStatusSource") != "03" {
			t.Errorf("trust %v: enquiry %s", tt.trust, q.Raw)
		}
	}
	id := e.startChallengeCard(e.card("mastercard-challenge-trust")).cr.ThreeDSServerTransID
	if r := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "pass", "trust": true}); r.Status != http.StatusOK {
		t.Fatalf("headless with trust: %d %s", r.Status, r.Raw)
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id}); q.Str("whiteListStatus") != "Y" || q.Str("whiteListStatusSource") != "03" {
		t.Errorf("headless trust: %s", q.Raw)
	}
	plain := e.startChallenge(nil)
	if slices.Contains(hooks(t, e.form("/acs/challenge", url.Values{"creq": {plain.creq}}).Raw), "trust") {
		t.Error("a scenario without trustPrompt offers trust")
	}
	old := e.startChallengeOf(e.card("visa-challenge-trust"), func(m map[string]any) { m["messageVersion"] = "2.1.0" })
	if slices.Contains(hooks(t, e.form("/acs/challenge", url.Values{"creq": {old.creq}}).Raw), "trust") {
		t.Error("a 2.1.0 challenge offers trust")
	}
}

// TestCatalogueShowsStyles: GET /scenarios shows every challenge's ui,
// authenticationType and what passes, and the default packs have a plain
// 2.2.0 card of every style for Visa and Mastercard.
func TestCatalogueShowsStyles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var cat struct {
		Scenarios []struct {
			ID, CardScheme, Flow, Version, UI, AuthenticationType, Auto string
			OTPs, Answers                                               []string
			TrustPrompt                                                 bool
		}
	}
	r := e.call(http.MethodGet, "/scenarios", "", nil)
	if err := json.Unmarshal([]byte(r.Raw), &cat); err != nil || len(cat.Scenarios) == 0 {
		t.Fatalf("%v: %.200s", err, r.Raw)
	}
	plain := map[string]bool{}
	for _, c := range cat.Scenarios {
		if c.Flow != "challenge" {
			continue
		}
		if c.UI == "" || c.AuthenticationType == "" {
			t.Errorf("%s: ui %q, authenticationType %q", c.ID, c.UI, c.AuthenticationType)
		}
		if c.ID == "visa-challenge" && !slices.Equal(c.OTPs, []string{"1234"}) {
			t.Errorf("%s: otps %v, want the code that passes", c.ID, c.OTPs)
		}
		if c.ID == "visa-challenge-multiselect" && !slices.Equal(c.Answers, []string{"Sandbox Coffee", "Demo Books"}) {
			t.Errorf("%s: answers %v", c.ID, c.Answers)
		}
		if c.Version == "2.2.0" && c.Auto == "" && !c.TrustPrompt {
			plain[c.CardScheme+" "+c.UI] = true
		}
	}
	for _, scheme := range []string{"VISA", "MASTERCARD"} {
		for _, st := range scenarios.Styles() {
			if !plain[scheme+" "+st.UI] {
				t.Errorf("no plain 2.2.0 %s card of ui %s", scheme, st.UI)
			}
		}
	}
}

// TestPasswordOnThePage: the static password page posts its field as
// entry with action password; a wrong password shows the page again with
// an attempt used, the scenario's password ends it Y, authenticationType
// 01 (static).
func TestPasswordOnThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallengeCard(e.card("visa-challenge-password"))
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.Raw))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Find(`input[name=entry][type=password]`).Length() != 1 || doc.Find("[data-action=password]").Length() != 1 ||
		!strings.Contains(doc.Find("#password-hint").Text(), "Tr0ub4dor!") {
		t.Fatalf("no password field, button or hint: %s", page.Raw)
	}
	again := e.answer(page, url.Values{"action": {"password"}, "entry": {"tr0ub4dor!"}})
	if !strings.Contains(again.Raw, "Incorrect password. 2 attempts left.") {
		t.Fatalf("a wrong password: %s", again.Raw)
	}
	final := e.answer(again, url.Values{"action": {"password"}, "entry": {"Tr0ub4dor!"}})
	if !strings.Contains(final.Raw, `name="cres"`) {
		t.Fatalf("the password does not end the challenge: %s", final.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
	if q.Str("transactionStatus") != "Y" || q.Str("authenticationType") != "01" || q.Str("interactionCounter") != "02" {
		t.Errorf("enquiry: %s", q.Raw)
	}
}

// TestPasswordHeadless: the headless API answers a password challenge by
// {"action":"password","entry":...}; no entry, another style's action or
// an entry on a code entry's otp are refused and use nothing up.
func TestPasswordHeadless(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.startChallengeCard(e.card("mastercard-challenge-password")).cr.ThreeDSServerTransID
	path := "/challenge/" + id
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "password"}), http.StatusBadRequest, "201")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", map[string]any{"action": "otp", "otp": "1234"}), http.StatusBadRequest, "203")
	checkErrorBody(t, e.call(http.MethodPost, path, "tok", `{"action":"password","entry":7}`), http.StatusBadRequest, "101")
	r := e.call(http.MethodPost, path, "tok", map[string]any{"action": "password", "entry": "Tr0ub4dor!"})
	if r.Status != http.StatusOK || r.Body["final"] != true || r.Str("transStatus") != "Y" {
		t.Fatalf("the password: %d %s", r.Status, r.Raw)
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id}); q.Str("interactionCounter") != "01" || q.Str("authenticationType") != "01" {
		t.Errorf("the refused answers counted: %s", q.Raw)
	}
	other := e.startChallengeCard(e.card("visa-challenge")).cr.ThreeDSServerTransID
	checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+other, "tok", map[string]any{"action": "password", "entry": "Tr0ub4dor!"}), http.StatusBadRequest, "203")
}
