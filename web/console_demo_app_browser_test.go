package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestConsoleDemoAppInChromium runs the demo checkout's app view in real
// Chromium: an otp challenge and a select challenge, each drawn as the
// phone's native screen from the CRes, answered there, to the final CRes
// and the enquiry; axe-core finds nothing on the phone's screens. In CI
// a missing Chromium fails the test.
func TestConsoleDemoAppInChromium(t *testing.T) {
	t.Parallel()
	if testing.Short() && !testkit.InCI() {
		t.Skip("browser test (it runs under CI=true whatever -short says)")
	}
	browser := testkit.Browser(t)
	axe := testkit.AxeSource(t)
	e := newConsoleEnv(t, consoleOptions{})
	tests := []struct {
		name, card string
		answer     func(t *testing.T, ctx context.Context)
	}{
		{"otp", e.Challenge, func(t *testing.T, ctx context.Context) {
			if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#phone-entry"), "1234"), chromedp.Click(chromedp.CSS("#phone-submit"))); err != nil {
				t.Fatalf("type the code and submit: %v", err)
			}
		}},
		{"select", selectCard, func(t *testing.T, ctx context.Context) {
			id := waitFor(t, ctx, `(function(){var l=[...document.querySelectorAll("#phone-form label")].find(function(x){return x.textContent==="Chiang Mai";});return l?l.htmlFor:"";})()`)
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#"+id)), chromedp.Click(chromedp.CSS("#phone-submit"))); err != nil {
				t.Fatalf("choose Chiang Mai and submit: %v", err)
			}
		}},
		{"html", htmlCard, func(t *testing.T, ctx context.Context) {
			// The SDK's web view: the form's post to HTTPS://EMV3DS/challenge
			// is caught and sent as challengeHTMLDataEntry.
			waitFor(t, ctx, `(function(){var f=document.getElementById("phone-html");var d=f&&f.contentDocument;if(!d||!d.getElementById("entry")){return "";}
				d.getElementById("entry").value="1234";d.querySelector("form button:not([name])").click();return "sent";})()`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(testkit.BrowserContext(t, browser), 2*time.Minute)
			defer cancel()
			if err := testkit.InjectAxe(ctx, axe); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(e.URL+"/console/demo?channel=app&card="+tt.card),
				chromedp.WaitVisible(chromedp.CSS("#pay")), chromedp.Click(chromedp.CSS("#pay"))); err != nil {
				t.Fatalf("open the demo and pay: %v", err)
			}
			if got := waitFor(t, ctx, `document.querySelector("#phone-form") ? (document.querySelector("#phone h3") || {textContent: "no header"}).textContent : ""`); got != "Confirm your purchase" && tt.name != "html" {
				t.Errorf("the phone's header = %q", got)
			}
			native := []string{"img[alt]", "details summary", "#phone-hint", "#phone-cancel"}
			if tt.name == "html" {
				native = []string{"iframe#phone-html[sandbox=allow-same-origin][title]", "#phone-cancel"}
			}
			for _, sel := range native {
				if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#phone `+sel+`").length`)); err != nil || n == 0 {
					t.Errorf("the phone's screen has no %s (%v)", sel, err)
				}
			}
			checkAxe(t, ctx, "the phone's "+tt.name+" screen")
			tt.answer(t, ctx)
			if got := waitFor(t, ctx, `document.body.getAttribute("data-result") || ""`); got != "Y" {
				t.Errorf("the demo's result = %q, want Y (%s)", got, waitFor(t, ctx, `document.getElementById("result").textContent`))
			}
			final := waitFor(t, ctx, `document.querySelector("#phone .phone-final") ? document.querySelector("#phone .phone-final").textContent : ""`)
			enquiry := waitFor(t, ctx, `document.getElementById("enquiry-json").textContent`)
			if !strings.Contains(final, "transStatus Y") || !strings.Contains(enquiry, `"transactionStatus": "Y"`) || !strings.Contains(enquiry, `"eci": "05"`) {
				t.Errorf("final screen %q, enquiry %s", final, enquiry)
			}
			trace := waitFor(t, ctx, `document.getElementById("app-trace").textContent`)
			for _, want := range []string{"CReq 000", "CRes 000", "CReq 001", `"transStatus": "Y"`} {
				if !strings.Contains(trace, want) {
					t.Errorf("the exchange shown lacks %q", want)
				}
			}
			checkAxe(t, ctx, "the demo's app result")
		})
	}
}

// checkAxe runs axe-core on the tab's page and fails t on any violation.
func checkAxe(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	v, err := testkit.RunAxe(ctx)
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	for _, x := range v {
		t.Errorf("%s: %s", what, x)
	}
}
