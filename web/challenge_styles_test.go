package web_test

import (
	"net/http"
	"net/url"
	"os"
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
	set, err := templates.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range scenarios.Styles() {
		if !set.HasStyle(st.UI) {
			t.Errorf("ui %s has no template %s", st.UI, templates.StyleTemplate(st.UI))
		}
	}
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := loadDocument(t, src)
	var got []string
	for _, v := range doc.Components.Schemas["CompleteRequest"].Value.Properties["action"].Value.Enum {
		got = append(got, v.(string))
	}
	if want := emulator.ChoiceActions(); !slices.Equal(got, want) {
		t.Errorf("CompleteRequest.action enum %v, want the engine's actions %v", got, want)
	}
}

// TestOTPResendOnThePage: the code entry offers "send a new code" while
// the scenario allows one; pressing it shows the page again with a note
// and no attempt used, the enquiry counts it, and the console's
// transaction page lists the codes sent.
func TestOTPResendOnThePage(t *testing.T) {
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
	if q.Str("transactionStatus") != "Y" || q.Str("interactionCounter") != "02" {
		t.Errorf("enquiry after a resend and a code: %s", q.Raw)
	}
}

// TestHeadlessResend: {"action":"resend"} answers 200 final false until
// the limit, then the error body; actions that do not fit are refused.
func TestHeadlessResend(t *testing.T) {
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
	if q.Str("interactionCounter") != "04" {
		t.Errorf("interactionCounter %q, want 04 (three resends and a code)", q.Str("interactionCounter"))
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
