package templates

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// windowSizes are the challengeWindowSize values and the viewport each is
// tried in: the iframe sizes of the protocol, and a desktop window for 05
// (full page).
var windowSizes = []struct {
	size          int
	width, height int64
}{
	{1, 250, 400},
	{2, 390, 400},
	{3, 500, 600},
	{4, 600, 400},
	{5, 1280, 800},
}

// cardholderPage is one page a cardholder may see, with the view it is
// rendered from in a language at a challengeWindowSize. A new page or a
// new style's page is one more line of cardholderPages.
type cardholderPage struct {
	name string
	page string // a Page constant
	view func(lang Lang, size int) any
}

// sink is the path the test server answers 204 to: where the autosubmit
// pages post, so that the browser stays on them.
const sink = "/sink"

// cardholderPages are the pages the accessibility, size and language
// tests run on, each in every language at every window size.
var cardholderPages = []cardholderPage{
	{"challenge", PageChallenge, func(l Lang, size int) any { return challengeAt(l, size, func(*ChallengePage) {}) }},
	{"challenge-wrong-code", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) { v.WrongCode, v.AttemptsLeft = true, 2 })
	}},
	{"challenge-long-texts", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.MerchantName = "Internationale Versandbuchhandlung Großhandelsgesellschaft mbH & Co. KG"
			v.Amount, v.Currency = "1234567.89", "THB"
			v.Brand = Brand{Program: "Mastercard Identity Check", Style: "mastercard"}
			v.Style, v.ExpiresMinutes = otpView{PassingOTP: "12345678", ResendsLeft: 3}, 1
		})
	}},
	{"challenge-no-purchase", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.MerchantName, v.Amount, v.Date, v.Style, v.ExpiresMinutes = "", "", "", otpView{}, 0
			v.Brand = Brand{Program: "3-D Secure", Mark: "3DS", Style: "generic"}
		})
	}},
	{"challenge-otp-resent-trust", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.Notice, v.Style, v.TrustPrompt = "code-sent", otpView{PassingOTP: "1234", ResendsLeft: 2}, true
		})
	}},
	{"challenge-oob", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.AppURL, v.AppQR = "oob", oobView{}, sink+"/app", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21" role="img" aria-label="QR"><rect width="21" height="21" fill="#fff"/></svg>`
		})
	}},
	{"challenge-oob-not-yet", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.AppURL, v.Notice = "oob", oobView{}, sink+"/app", "not-approved"
		})
	}},
	{"challenge-select-wrong", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.Notice, v.WrongCode, v.AttemptsLeft = "select", selectView{Choices: []string{"Lyon", "Porto", "Chiang Mai", "Bremerhaven-Geestemünde"}, Stated: "Porto"}, "wrong-code", true, 2
		})
	}},
	{"challenge-password-wrong", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style, v.Notice, v.WrongCode, v.AttemptsLeft = "password", passwordView{Password: "Tr0ub4dor!"}, "wrong-code", true, 2
		})
	}},
	{"challenge-multiselect", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) {
			v.UI, v.Style = "multiselect", selectView{Multi: true, Choices: []string{"Corner Bakery", "Bookshop", "Garden Centre", "Cycle Repairs", "Café", "Pharmacy"}, Stated: "Bookshop; Café"}
		})
	}},
	{"bank-app", PageBankApp, func(l Lang, _ int) any {
		return BankApp{Lang: l, Nonce: "n0nce", FormAction: sink, MerchantName: "Sandbox Coffee", Amount: "49.99", Currency: "EUR", MaskedPAN: "•••• 1091"}
	}},
	{"bank-app-approved", PageBankApp, func(l Lang, _ int) any {
		return BankApp{Lang: l, Nonce: "n0nce", FormAction: sink, MerchantName: "Sandbox Coffee", Answer: "approve"}
	}},
	{"submit-creq", PageAutoSubmit, func(l Lang, _ int) any {
		return AutoSubmit{Lang: l, Nonce: "n0nce", Purpose: SubmitCReq, Action: sink, DelayMS: 60_000, Fields: []Field{{"creq", "eyJhIjoiYiJ9"}}}
	}},
	{"submit-cres", PageAutoSubmit, func(l Lang, _ int) any {
		return AutoSubmit{Lang: l, Nonce: "n0nce", Purpose: SubmitCRes, Action: sink, DelayMS: 60_000, Fields: []Field{{"cres", "eyJhIjoiYiJ9"}}}
	}},
	{"result", PageResult, func(l Lang, _ int) any {
		return Result{Lang: l, Nonce: "n0nce", Status: "N", StatusText: "Not authenticated", StatusReason: "01", ReasonText: "Card authentication failed",
			ChallengeCancel: "01", CancelText: "Cardholder selected Cancel", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
			ExternalReferenceID: "ORD-20240611-000123-with-a-long-reference-without-spaces", NextStep: "Do not authorise",
			CRes: "{\n  \"threeDSServerTransID\": \"8a880dc0-d2d2-4067-bcb1-b08d1690b26e\",\n  \"transStatus\": \"N\"\n}"}
	}},
	{"result-y", PageResult, func(l Lang, _ int) any {
		return Result{Lang: l, Nonce: "n0nce", Status: "Y", StatusText: "Authenticated", ECI: "05", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}
	}},
	{"error", PageError, func(l Lang, _ int) any {
		return ErrorPage{Lang: l, Nonce: "n0nce", Kind: ErrorChallenge, EMVErrorCode: "305", EMVDescription: "Transaction Data Not Valid",
			Message: "the challenge of transaction 8a880dc0-d2d2-4067-bcb1-b08d1690b26e is finished", Detail: "threeDSServerTransID", HTTPStatus: 409}
	}},
	{"done", PageDone, func(l Lang, _ int) any { return Done{Lang: l, Nonce: "n0nce"} }},
}

// challengeAt is the challenge page's view in lang at window size, changed
// by edit.
func challengeAt(lang Lang, size int, edit func(*ChallengePage)) ChallengePage {
	v := challengeView()
	v.Lang, v.WindowSize, v.FormAction = lang, size, sink
	v.Width, v.Height = 0, 0
	for _, w := range windowSizes {
		if w.size == size && size != 5 {
			v.Width, v.Height = int(w.width), int(w.height)
		}
	}
	edit(&v)
	return v
}

// pageServer serves /page/{lang}/{name}/{size} rendered from
// cardholderPages, with the Content-Security-Policy the emulator sends,
// and answers 204 at sink.
func pageServer(t *testing.T, s *Set) *httptest.Server {
	t.Helper()
	byName := map[string]cardholderPage{}
	for _, p := range cardholderPages {
		byName[p.name] = p
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/page/{lang}/{name}/{size}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := byName[r.PathValue("name")]
		size, err := strconv.Atoi(r.PathValue("size"))
		if !ok || err != nil {
			http.NotFound(w, r)
			return
		}
		var buf bytes.Buffer
		if err := s.Render(&buf, p.page, p.view(Lang(r.PathValue("lang")), size)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-n0nce'; script-src 'nonce-n0nce'; img-src data:; base-uri 'none'")
		_, _ = buf.WriteTo(w)
	})
	mux.HandleFunc(sink, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// checkThaiFont tells whether fontconfig, which Chromium draws with on
// Linux, has a Thai font: without one the Thai pages are empty boxes and
// their widths at 250 px mean little. Under CI (which installs
// fonts-thai-tlwg) a missing font fails the test; elsewhere it is logged.
func checkThaiFont(t *testing.T) {
	t.Helper()
	out, err := exec.Command("fc-list", ":lang=th", "family").Output()
	if err == nil && strings.TrimSpace(string(out)) != "" {
		return
	}
	if testkit.InCI() {
		t.Fatalf("no Thai font (fc-list :lang=th: %q, %v): .ci/run installs fonts-thai-tlwg", out, err)
	}
	t.Logf("no Thai font (fc-list :lang=th: %v): the Thai pages are measured with empty boxes; apt-get install fonts-thai-tlwg", err)
}

// pageMeasure is what the test reads of a page besides axe's findings.
type pageMeasure struct {
	Lang        string `json:"lang"`
	ScrollWidth int    `json:"scrollWidth"`
	ClientWidth int    `json:"clientWidth"`
	Wide        string `json:"wide"` // the first element wider than the viewport
}

const measureJS = `(function(){
var d=document.documentElement, wide="";
document.querySelectorAll("body *").forEach(function(e){
  if(!wide && e.getBoundingClientRect().right > d.clientWidth + 0.5){ wide = e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : ""); }
});
return {lang: d.lang, scrollWidth: Math.max(d.scrollWidth, document.body.scrollWidth), clientWidth: d.clientWidth, wide: wide};
})()`

// TestCardholderPagesAccessible runs axe-core in headless Chromium on every
// cardholder page, in every language, at every challengeWindowSize: no
// violation of any impact is allowed. At 250×400 nothing may scroll
// sideways. Every page sets <html lang> to its language. The pages of the
// running binary, console and docs among them, are checked by
// TestEveryPageAccessible (cmd/threeds-sandbox/e2e).
func TestCardholderPagesAccessible(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := parseSet(t)
	axe := testkit.AxeSource(t)
	srv := pageServer(t, s)
	browser := testkit.Browser(t)
	checkThaiFont(t)
	ctx, cancel := context.WithTimeout(browser, 10*time.Minute)
	defer cancel()
	// axe-core is sent once and runs in every document the tab loads.
	if err := testkit.InjectAxe(ctx, axe); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}

	for _, p := range cardholderPages {
		for _, lang := range s.Languages() {
			for _, w := range windowSizes {
				name := fmt.Sprintf("%s/%s/%d", lang, p.name, w.size)
				if err := chromedp.Do(ctx,
					chromedp.EmulateViewport(w.width, w.height),
					chromedp.Navigate(srv.URL+"/page/"+name),
					chromedp.WaitReady(chromedp.CSS("body")),
				); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				violations, err := testkit.RunAxe(ctx)
				if err != nil {
					t.Fatalf("%s: run axe-core: %v", name, err)
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[pageMeasure](measureJS))
				if err != nil {
					t.Fatalf("%s: measure: %v", name, err)
				}
				for _, v := range violations {
					t.Errorf("%s: %s", name, v)
				}
				if m.Lang != string(lang) {
					t.Errorf("%s: <html lang=%q>, want %q", name, m.Lang, lang)
				}
				if m.ClientWidth > int(w.width) || m.ClientWidth < int(w.width)-20 {
					t.Errorf("%s: the viewport is %d px wide, want %d (less a scroll bar)", name, m.ClientWidth, w.width)
				}
				if w.width == 250 && m.ScrollWidth > m.ClientWidth {
					t.Errorf("%s: scrolls sideways at 250 px: scrollWidth %d > clientWidth %d (first wide element: %s)", name, m.ScrollWidth, m.ClientWidth, m.Wide)
				}
			}
		}
	}
}
