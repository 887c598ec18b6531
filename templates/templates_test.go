package templates

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// parseSet parses the embedded templates or stops the test.
func parseSet(t *testing.T) *Set {
	t.Helper()
	s, err := Parse()
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// render renders one page and parses it the way a browser without
// JavaScript would, so that <noscript> content is markup, not text.
func render(t *testing.T, name string, view any) (*goquery.Document, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := parseSet(t).Render(&buf, name, view); err != nil {
		t.Fatalf("Render(%q): %v", name, err)
	}
	raw := buf.String()
	node, err := html.ParseWithOptions(strings.NewReader(raw), html.ParseOptionEnableScripting(false))
	if err != nil {
		t.Fatalf("parse rendered %q: %v", name, err)
	}
	return goquery.NewDocumentFromNode(node), raw
}

// attr returns the named attribute of the first element of sel, failing
// the test when the selection is empty or the attribute is absent.
func attr(t *testing.T, sel *goquery.Selection, name string) string {
	t.Helper()
	if sel.Length() == 0 {
		t.Fatalf("no element for attribute %q", name)
	}
	v, ok := sel.Attr(name)
	if !ok {
		t.Fatalf("attribute %q missing", name)
	}
	return v
}

func challengeView() ChallengePage {
	return ChallengePage{
		Nonce:          "n0nce",
		FormAction:     "https://sandbox.example/acs/challenge",
		State:          "MTcxMDQwMDAwMHxzaWduZWQ=",
		MerchantName:   "Sandbox Coffee",
		Amount:         "49.99",
		Currency:       "EUR",
		MaskedPAN:      "•••• 1091",
		Date:           "2025-03-14 10:22",
		Brand:          Brand{Program: "Visa Secure", Mark: "VISA", Style: "visa"},
		WindowSize:     3,
		Width:          500,
		Height:         600,
		Style:          otpView{PassingOTP: "1234"},
		Version:        "2.2.0",
		ExpiresMinutes: 10,
	}
}

// The styles' own parts of the challenge page as the templates read them
// (.Style): the engine's OTPView, SelectView and OOBView have these fields.
type (
	otpView struct {
		PassingOTP  string
		ResendsLeft int
	}
	selectView struct {
		Choices []string
		Multi   bool
		Stated  string
	}
	oobView      struct{ App string }
	passwordView struct{ Password string }
)

// views has one representative view per page.
var views = map[string]any{
	PageAutoSubmit: AutoSubmit{Nonce: "n0nce", Action: "https://merchant.example/3ds/notify", Fields: []Field{{"cres", "eyJhIjoiYiJ9"}, {"threeDSSessionData", "c2Vzc2lvbg"}}},
	PageChallenge:  challengeView(),
	PageResult:     Result{Nonce: "n0nce", Status: "Y", StatusText: "Authenticated", ECI: "05", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"},
	PageError:      ErrorPage{Nonce: "n0nce", EMVErrorCode: "301", EMVDescription: "Transaction ID Not Recognized", Message: "unknown transaction"},
	PageDone:       Done{Nonce: "n0nce"},
	PageBankApp:    BankApp{Nonce: "n0nce", FormAction: "https://sandbox.example/acs/app/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", MerchantName: "Shop", Amount: "10.00", Currency: "THB", MaskedPAN: "400000••••1091"},
}

func TestParseDefinesEveryPage(t *testing.T) {
	s := parseSet(t)
	for _, name := range pages {
		if s.tmpl.Lookup(name) == nil {
			t.Errorf("page %q not defined", name)
		}
	}
	if got, want := len(views), len(pages); got != want {
		t.Errorf("test views cover %d pages, want %d", got, want)
	}
}

func TestRenderFailsWithoutWriting(t *testing.T) {
	tests := []struct {
		name string
		page string
		view any
	}{
		{"unknown page", "nope", Done{}},
		{"shared fragment is no page", "base-css", Done{}},
		{"wrong view type", PageChallenge, Done{}},
		{"nil view", PageResult, nil},
	}
	s := parseSet(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := s.Render(&buf, tt.page, tt.view); err == nil {
				t.Fatalf("Render(%q) error = nil, want an error", tt.page)
			}
			if got := buf.Len(); got != 0 {
				t.Errorf("Render wrote %d bytes on failure, want 0", got)
			}
		})
	}
}

func TestEveryPageIsSelfContained(t *testing.T) {
	for name, view := range views {
		t.Run(name, func(t *testing.T) {
			doc, raw := render(t, name, view)
			if !strings.HasPrefix(raw, "<!DOCTYPE html>") {
				t.Errorf("page does not start with a doctype: %.40q", raw)
			}
			if got := doc.Find("html").AttrOr("lang", ""); got != "en" {
				t.Errorf("html lang = %q, want %q", got, "en")
			}
			if got := doc.Find("style").Length(); got != 1 {
				t.Errorf("style elements = %d, want 1", got)
			}
			if got := doc.Find("link, img, iframe, [src], [style], [onload], [onclick]").Length(); got != 0 {
				t.Errorf("elements with external assets or inline style/handlers = %d, want 0", got)
			}
			if strings.Contains(raw, "ZgotmplZ") {
				t.Errorf("page contains the html/template sanitiser marker ZgotmplZ")
			}
		})
	}
}

func TestNonceOnEveryStyleAndScript(t *testing.T) {
	for name, view := range views {
		t.Run(name, func(t *testing.T) {
			doc, _ := render(t, name, view)
			doc.Find("style, script").Each(func(_ int, s *goquery.Selection) {
				if got, want := s.AttrOr("nonce", ""), "n0nce"; got != want {
					t.Errorf("<%s> nonce = %q, want %q", goquery.NodeName(s), got, want)
				}
			})
		})
	}
}

func TestEmptyNonceLeavesAttributeOut(t *testing.T) {
	view := AutoSubmit{Action: "https://acs.example/creq", Fields: []Field{{"creq", "eyJ"}}}
	doc, raw := render(t, PageAutoSubmit, view)
	for _, sel := range []string{"style", "script"} {
		el := doc.Find(sel)
		if el.Length() != 1 {
			t.Fatalf("%s elements = %d, want 1", sel, el.Length())
		}
		if _, ok := el.Attr("nonce"); ok {
			t.Errorf("<%s> has a nonce attribute, want none", sel)
		}
	}
	if strings.Contains(raw, "nonce") {
		t.Errorf("page mentions nonce with an empty Nonce")
	}
}

func TestNonceIsEscaped(t *testing.T) {
	doc, raw := render(t, PageDone, Done{Nonce: `x"><script>alert(1)</script>`})
	if got := doc.Find("script").Length(); got != 0 {
		t.Errorf("script elements = %d, want 0", got)
	}
	if got, want := doc.Find("style").AttrOr("nonce", ""), `x"><script>alert(1)</script>`; got != want {
		t.Errorf("style nonce = %q, want %q", got, want)
	}
	if strings.Contains(raw, "<script>alert") {
		t.Errorf("raw page contains the injected tag")
	}
}

func TestAutoSubmit(t *testing.T) {
	view := AutoSubmit{
		Nonce:   "n0nce",
		Action:  "https://acs.example/challenge?x=1&y=2",
		Fields:  []Field{{"creq", "eyJtZXNzYWdlVHlwZSI6IkNSZXEifQ"}, {"threeDSSessionData", `"><img src=x onerror=alert(1)>`}},
		Title:   "Redirecting to your bank",
		Message: "Please wait.",
	}
	doc, _ := render(t, PageAutoSubmit, view)

	form := doc.Find("form")
	if got := form.Length(); got != 1 {
		t.Fatalf("forms = %d, want 1", got)
	}
	for name, want := range map[string]string{
		"method":  "post",
		"action":  view.Action,
		"enctype": "application/x-www-form-urlencoded",
		"id":      "threeds-autosubmit",
	} {
		if got := attr(t, form, name); got != want {
			t.Errorf("form %s = %q, want %q", name, got, want)
		}
	}

	inputs := form.Find(`input[type="hidden"]`)
	if got, want := inputs.Length(), len(view.Fields); got != want {
		t.Fatalf("hidden inputs = %d, want %d", got, want)
	}
	inputs.Each(func(i int, in *goquery.Selection) {
		if got, want := attr(t, in, "name"), view.Fields[i].Name; got != want {
			t.Errorf("input %d name = %q, want %q", i, got, want)
		}
		if got, want := attr(t, in, "value"), view.Fields[i].Value; got != want {
			t.Errorf("input %d value = %q, want %q", i, got, want)
		}
	})
	if got := doc.Find("img").Length(); got != 0 {
		t.Errorf("img elements = %d, want 0 (field value must stay a value)", got)
	}

	button := form.Find(`noscript button[type="submit"]`)
	if got := button.Length(); got != 1 {
		t.Fatalf("noscript submit buttons = %d, want 1", got)
	}
	if got, want := strings.TrimSpace(button.Text()), "Continue"; got != want {
		t.Errorf("noscript button text = %q, want %q", got, want)
	}
	if got, want := doc.Find("title").Text(), view.Title; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got := doc.Find("script").Text(); !strings.Contains(got, `getElementById("threeds-autosubmit")`) || !strings.Contains(got, "submit") {
		t.Errorf("script does not submit the form: %q", got)
	}
}

func TestAutoSubmitDefaultTitle(t *testing.T) {
	doc, _ := render(t, PageAutoSubmit, AutoSubmit{Action: "https://acs.example/"})
	if got, want := doc.Find("h1").Text(), "Processing"; got != want {
		t.Errorf("h1 = %q, want %q", got, want)
	}
}

func TestUnsafeFormActionIsNeutralised(t *testing.T) {
	tests := []struct {
		page string
		view any
	}{
		{PageAutoSubmit, AutoSubmit{Action: "javascript:alert(1)"}},
		{PageChallenge, ChallengePage{FormAction: "javascript:alert(1)", WindowSize: 3, Style: otpView{}}},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			doc, _ := render(t, tt.page, tt.view)
			if got := attr(t, doc.Find("form"), "action"); strings.HasPrefix(got, "javascript:") {
				t.Errorf("form action = %q, want it neutralised", got)
			}
		})
	}
}

func TestChallengeForm(t *testing.T) {
	view := challengeView()
	doc, _ := render(t, PageChallenge, view)

	form := doc.Find("form")
	if got := form.Length(); got != 1 {
		t.Fatalf("forms = %d, want 1", got)
	}
	if got, want := attr(t, form, "method"), "post"; got != want {
		t.Errorf("form method = %q, want %q", got, want)
	}
	if got, want := attr(t, form, "action"), view.FormAction; got != want {
		t.Errorf("form action = %q, want %q", got, want)
	}

	state := form.Find(`input[type="hidden"][name="state"]`)
	if got := state.Length(); got != 1 {
		t.Fatalf("hidden state inputs = %d, want 1", got)
	}
	if got, want := attr(t, state, "value"), view.State; got != want {
		t.Errorf("state value = %q, want %q", got, want)
	}

	otp := form.Find(`input[name="otp"]`)
	if got := otp.Length(); got != 1 {
		t.Fatalf("otp inputs = %d, want 1", got)
	}
	for name, want := range map[string]string{"inputmode": "numeric", "autocomplete": "one-time-code", "type": "text", "id": "otp"} {
		if got := attr(t, otp, name); got != want {
			t.Errorf("otp %s = %q, want %q", name, got, want)
		}
	}
	if got, want := doc.Find(`label[for="otp"]`).Length(), 1; got != want {
		t.Errorf("labels for otp = %d, want %d", got, want)
	}

	buttons := []struct {
		action, text string
		noValidate   bool
	}{
		{"otp", "Submit", false},
		{"pass", "Pass", true},
		{"fail", "Fail", true},
		{"cancel", "Cancel", true},
	}
	all := form.Find("button")
	if got, want := all.Length(), len(buttons); got != want {
		t.Errorf("buttons in form = %d, want %d", got, want)
	}
	for i, b := range buttons {
		t.Run(b.action, func(t *testing.T) {
			btn := form.Find(`button[data-action="` + b.action + `"]`)
			if got := btn.Length(); got != 1 {
				t.Fatalf("buttons = %d, want 1", got)
			}
			for name, want := range map[string]string{"type": "submit", "name": "action", "value": b.action} {
				if got := attr(t, btn, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if got := strings.TrimSpace(btn.Text()); got != b.text {
				t.Errorf("text = %q, want %q", got, b.text)
			}
			if _, got := btn.Attr("formnovalidate"); got != b.noValidate {
				t.Errorf("formnovalidate = %t, want %t", got, b.noValidate)
			}
			// Enter in the code field presses the first submit button: Submit.
			if got := all.Eq(i).AttrOr("data-action", ""); got != b.action {
				t.Errorf("button %d is %q, want %q", i, got, b.action)
			}
		})
	}
}

func TestChallengeContent(t *testing.T) {
	view := challengeView()
	doc, _ := render(t, PageChallenge, view)

	checks := []struct {
		selector, want string
	}{
		{".sandbox", "Test ACS — no real bank involved"},
		{"dd.merchant", view.MerchantName},
		{"dd.amount", "49.99 EUR"},
		{"dd.pan", view.MaskedPAN},
		{"dd.date", view.Date},
		{"#otp-hint", "Sandbox: code 1234 passes"},
		{".program", "Visa Secure"},
	}
	for _, c := range checks {
		if got := strings.TrimSpace(doc.Find(c.selector).Text()); got != c.want {
			t.Errorf("%s text = %q, want %q", c.selector, got, c.want)
		}
	}
	foot := doc.Find("footer").Text()
	for _, want := range []string{"Expires in 10 minutes", "3DS 2.2.0 · 500×600"} {
		if !strings.Contains(foot, want) {
			t.Errorf("footer %q does not contain %q", foot, want)
		}
	}
	if got := doc.Find(`[role="alert"]`).Length(); got != 0 {
		t.Errorf("alerts without a Message = %d, want 0", got)
	}
}

func TestChallengeMessage(t *testing.T) {
	view := challengeView()
	view.Message = "Incorrect code, try again"
	doc, _ := render(t, PageChallenge, view)
	if got := strings.TrimSpace(doc.Find(`[role="alert"]`).Text()); got != view.Message {
		t.Errorf("alert = %q, want %q", got, view.Message)
	}
	if got, want := doc.Find("#otp").AttrOr("aria-invalid", ""), "true"; got != want {
		t.Errorf("otp aria-invalid = %q, want %q", got, want)
	}
}

func TestChallengeOptionalRowsLeftOut(t *testing.T) {
	doc, _ := render(t, PageChallenge, ChallengePage{FormAction: "/acs", State: "s", WindowSize: 5, Style: otpView{}})
	if got := doc.Find("dl div").Length(); got != 0 {
		t.Errorf("summary rows = %d, want 0", got)
	}
	if got := doc.Find("#otp-hint").Length(); got != 0 {
		t.Errorf("hints = %d, want 0", got)
	}
	if got, want := doc.Find(".window").Text(), "full screen"; got != want {
		t.Errorf("window = %q, want %q", got, want)
	}
}

func TestChallengeWindowSize(t *testing.T) {
	for _, size := range []string{"1", "2", "3", "4", "5"} {
		t.Run(size, func(t *testing.T) {
			view := challengeView()
			view.WindowSize = int(size[0] - '0')
			doc, _ := render(t, PageChallenge, view)
			if got := attr(t, doc.Find("body"), "data-window-size"); got != size {
				t.Errorf("body data-window-size = %q, want %q", got, size)
			}
			if got := doc.Find("style").Text(); !strings.Contains(got, `[data-window-size="`+size+`"]`) {
				t.Errorf("stylesheet has no rule for window size %s", size)
			}
		})
	}
}

func TestChallengeBrand(t *testing.T) {
	tests := []struct {
		brand Brand
		class string
	}{
		{Brand{Program: "Visa Secure", Mark: "VISA", Style: "visa"}, "scheme-visa"},
		{Brand{Program: "Mastercard Identity Check", Style: "mastercard"}, "scheme-mastercard"},
		{Brand{Program: "3-D Secure", Mark: "3DS", Style: "generic"}, "scheme-generic"},
		{Brand{Program: `" onmouseover="x`, Mark: "<b>", Style: "generic"}, "scheme-generic"},
	}
	for _, tt := range tests {
		t.Run(tt.brand.Program, func(t *testing.T) {
			view := challengeView()
			view.Brand = tt.brand
			doc, _ := render(t, PageChallenge, view)
			if got := doc.Find(".program").Text(); got != tt.brand.Program {
				t.Errorf("program = %q, want %q", got, tt.brand.Program)
			}
			if got := doc.Find(".acs." + tt.class).Length(); got != 1 {
				t.Errorf(".acs.%s elements = %d, want 1", tt.class, got)
			}
			if got := doc.Find("title").Text(); !strings.Contains(got, tt.brand.Program) {
				t.Errorf("title %q does not name %q", got, tt.brand.Program)
			}
			if got, want := doc.Find(".mark i").Length(), map[bool]int{true: 2, false: 0}[tt.brand.Style == "mastercard"]; got != want {
				t.Errorf("circles in the mark = %d, want %d", got, want)
			}
		})
	}
}

func TestChallengeEscapesHostileInput(t *testing.T) {
	hostile := []string{
		`<script>alert(1)</script>`,
		`"><img src=x onerror=alert(1)>`,
		`</style><script>alert(1)</script>`,
	}
	for _, h := range hostile {
		t.Run(h, func(t *testing.T) {
			view := challengeView()
			view.MerchantName = h
			view.MaskedPAN = h
			view.Message = h
			view.Style = otpView{PassingOTP: h}
			view.State = h
			doc, raw := render(t, PageChallenge, view)
			if strings.Contains(raw, h) {
				t.Errorf("raw page contains the hostile text unescaped")
			}
			if got := doc.Find("img").Length(); got != 0 {
				t.Errorf("img elements = %d, want 0", got)
			}
			if got := doc.Find("script").Length(); got != 1 {
				t.Errorf("script elements = %d, want 1 (the page's own)", got)
			}
			if got := doc.Find("style").Length(); got != 1 {
				t.Errorf("style elements = %d, want 1", got)
			}
			for _, sel := range []string{"dd.merchant", "dd.pan", `[role="alert"]`} {
				if got := strings.TrimSpace(doc.Find(sel).Text()); got != h {
					t.Errorf("%s text = %q, want %q", sel, got, h)
				}
			}
			if got, want := strings.TrimSpace(doc.Find("#otp-hint").Text()), "Sandbox: code "+h+" passes"; got != want {
				t.Errorf("#otp-hint text = %q, want %q", got, want)
			}
			if got := doc.Find(`input[name="state"]`).AttrOr("value", ""); got != h {
				t.Errorf("state value = %q, want %q", got, h)
			}
		})
	}
}

func TestResultBadge(t *testing.T) {
	tests := []struct {
		status, class string
	}{
		{"Y", "badge-ok"},
		{"N", "badge-fail"},
		{"U", "badge-warn"},
		{"A", "badge-warn"},
		{"R", "badge-warn"},
		{"", "badge-warn"},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			doc, _ := render(t, PageResult, Result{Status: tt.status, StatusText: "text"})
			badge := doc.Find("#status")
			if !badge.HasClass(tt.class) {
				t.Errorf("badge class = %q, want %q", badge.AttrOr("class", ""), tt.class)
			}
			if got := badge.Find("b").Text(); got != tt.status {
				t.Errorf("badge letter = %q, want %q", got, tt.status)
			}
		})
	}
}

func TestResultContent(t *testing.T) {
	view := Result{
		Nonce:                "n0nce",
		Status:               "N",
		StatusText:           "Not authenticated",
		StatusReason:         "01",
		ReasonText:           "Card authentication failed",
		ChallengeCancel:      "01",
		CancelText:           "Cardholder selected Cancel",
		ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
		ExternalReferenceID:  `<script>alert(1)</script>`,
		NextStep:             "Do not authorise",
		CRes:                 "{\n  \"transStatus\": \"N\"\n}",
	}
	doc, raw := render(t, PageResult, view)
	checks := []struct {
		selector, want string
	}{
		{"dd.status", "N — Not authenticated"},
		{"dd.eci", "absent"},
		{"dd.reason", "01 — Card authentication failed"},
		{"dd.cancel", "01 — Cardholder selected Cancel"},
		{"code.trans-id", view.ThreeDSServerTransID},
		{"code.ext-ref", view.ExternalReferenceID},
		{".next", "Next step: Do not authorise"},
		{"pre.cres", view.CRes},
	}
	for _, c := range checks {
		if got := doc.Find(c.selector).Text(); got != c.want {
			t.Errorf("%s text = %q, want %q", c.selector, got, c.want)
		}
	}
	if got := doc.Find("script").Length(); got != 0 {
		t.Errorf("script elements = %d, want 0", got)
	}
	if strings.Contains(raw, view.ExternalReferenceID) {
		t.Errorf("raw page contains the hostile reference unescaped")
	}
}

func TestResultOptionalRowsLeftOut(t *testing.T) {
	doc, _ := render(t, PageResult, Result{Status: "Y", ECI: "05"})
	// The authentication value is never a row: the page shows no CAVV.
	for _, sel := range []string{"dd.reason", "dd.cancel", "code.ext-ref", ".next", "pre.cres", "dd.cavv"} {
		if got := doc.Find(sel).Length(); got != 0 {
			t.Errorf("%s elements = %d, want 0", sel, got)
		}
	}
}

func TestErrorPage(t *testing.T) {
	tests := []struct {
		name              string
		view              ErrorPage
		title, emv        string
		detail, httpState string
	}{
		{
			name:      "EMV error",
			view:      ErrorPage{Title: "Challenge not found", EMVErrorCode: "301", EMVDescription: "Transaction ID Not Recognized", Message: "no challenge is waiting", Detail: "threeDSServerTransID", HTTPStatus: 404},
			title:     "Challenge not found",
			emv:       "Error 301 — Transaction ID Not Recognized: no challenge is waiting",
			detail:    "Detail: threeDSServerTransID",
			httpState: "HTTP status 404",
		},
		{
			name:  "message only",
			view:  ErrorPage{Message: "the page has expired"},
			title: "Something went wrong",
			emv:   "the page has expired",
		},
		{
			name:  "hostile message",
			view:  ErrorPage{EMVErrorCode: "302", EMVDescription: "Data Decryption Failure", Message: `"><img src=x onerror=alert(1)>`},
			title: "Something went wrong",
			emv:   `Error 302 — Data Decryption Failure: "><img src=x onerror=alert(1)>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, _ := render(t, PageError, tt.view)
			if got := doc.Find("h1").Text(); got != tt.title {
				t.Errorf("h1 = %q, want %q", got, tt.title)
			}
			if got := doc.Find("title").Text(); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
			if got := doc.Find(".emv").Text(); got != tt.emv {
				t.Errorf("emv text = %q, want %q", got, tt.emv)
			}
			if got := doc.Find(".detail").Text(); got != tt.detail {
				t.Errorf("detail = %q, want %q", got, tt.detail)
			}
			if got := doc.Find(".status").Text(); got != tt.httpState {
				t.Errorf("status = %q, want %q", got, tt.httpState)
			}
			if got := doc.Find("img").Length(); got != 0 {
				t.Errorf("img elements = %d, want 0", got)
			}
		})
	}
}

func TestDonePage(t *testing.T) {
	tests := []struct {
		message, want string
	}{
		{"", "You may close this window."},
		{"Authentication complete. You may close this window.", "Authentication complete. You may close this window."},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			doc, _ := render(t, PageDone, Done{Message: tt.message})
			if got := doc.Find(".message").Text(); got != tt.want {
				t.Errorf("message = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatusTone(t *testing.T) {
	tests := []struct{ status, want string }{
		{"Y", "ok"}, {"N", "fail"}, {"A", "warn"}, {"U", "warn"}, {"R", "warn"}, {"C", "warn"}, {"y", "warn"},
	}
	for _, tt := range tests {
		if got := statusTone(tt.status); got != tt.want {
			t.Errorf("statusTone(%q) = %q, want %q", tt.status, got, tt.want)
		}
	}
}
