//go:build full

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// noOverflow fails the test when the page of tb scrolls sideways: the
// document is wider than the window.
func noOverflow(t *testing.T, tb *tab, page string) {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if err != nil {
		t.Fatalf("%s: measure the page: %v", page, err)
	}
	if len(v) != 2 || v[0] > v[1] {
		wide, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("body *")).filter(function(e){var s=getComputedStyle(e);return e.scrollWidth>e.clientWidth+1&&s.overflowX==="visible"&&e.children.length===0;}).slice(0,5).map(function(e){return e.tagName+"."+e.className+"#"+e.id+" "+e.scrollWidth+">"+e.clientWidth;})`))
		t.Errorf("%s scrolls sideways: scrollWidth %d > clientWidth %d; widest: %v", page, v[0], v[1], wide)
	}
}

// TestBrowserFirstTenMinutes walks the way a new user takes, in a real
// Chromium, on a desktop and a phone-sized window: the front door, the
// console, the demo checkout with a challenge passed, failed and
// cancelled, and the transaction page, none of which may scroll sideways.
func TestBrowserFirstTenMinutes(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	challenge := catalogueCard(t, p, "visa-challenge")
	for _, size := range []struct{ w, h int64 }{{1280, 900}, {375, 740}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			tb := newTab(t, browser)
			tb.do("size the window", chromedp.EmulateViewport(size.w, size.h))

			tb.do("open the front door", chromedp.Navigate(p.URL+"/"))
			if got := tb.text("h1"); got != "3-D Secure sandbox" {
				t.Errorf("front door h1 = %q", got)
			}
			tb.waitVisible(`details.pack[data-pack="defaults"] code.num`)
			noOverflow(t, tb, "the front door")

			tb.click(`#links a[href$="/console/"]`)
			tb.waitVisible("#outcome")
			if got := tb.text("h1"); got != "Test cards" {
				t.Errorf("console h1 = %q", got)
			}
			noOverflow(t, tb, "the test cards")

			tb.do("open the login page", chromedp.Navigate(p.URL+"/console/login"))
			tb.typeText("#token", fmt.Sprintf("first-minutes-%d", size.w))
			tb.click(`main form[action$="/console/login"] button[type=submit]`)
			tb.waitVisible("#tx-body")

			tb.do("open the demo checkout", chromedp.Navigate(p.URL+"/console/"))
			tb.click(`.nav a[href$="/console/demo"]`)
			tb.waitVisible("#pay")
			noOverflow(t, tb, "the demo checkout")

			var lastID string
			for _, tt := range []struct{ action, status, headline string }{
				{"pass", "Y", emv.StatusText["Y"]},
				{"fail", "N", emv.StatusText["N"]},
				{"cancel", "N", "Cancelled by the cardholder (challengeCancel 01)"},
			} {
				t.Run(tt.action, func(t *testing.T) {
					tb.do("choose the challenge card", chromedp.SetValue(chromedp.CSS("#card"), challenge, tb.scope()...))
					tb.click("#pay")
					tb.frame = true
					tb.waitVisible("[data-action=" + tt.action + "]")
					tb.frame = false
					noOverflow(t, tb, "the demo with the challenge open")
					if w := evalIn[float64](tb, `document.getElementById("challenge").getBoundingClientRect().width`); w < 250 {
						t.Errorf("the challenge iframe is %.0f px wide, squeezed below its smallest window size", w)
					}
					tb.frame = true
					tb.click("[data-action=" + tt.action + "]")
					tb.frame = false
					evalIn[bool](tb, `document.body.getAttribute("data-result") !== null`)
					if got := evalIn[string](tb, `document.body.getAttribute("data-result")`); got != tt.status {
						t.Errorf("result = %q, want %q", got, tt.status)
					}
					if got := tb.text("#result-text"); got != tt.headline {
						t.Errorf("headline = %q, want %q", got, tt.headline)
					}
					noOverflow(t, tb, "the demo's result")
					lastID = tb.text("#result dd.trans-id")
					evalIn[bool](tb, `(document.body.removeAttribute("data-result"), true)`)
				})
			}

			tb.click("#journal-link")
			tb.waitVisible(`li.event[data-kind="enquiry"]`)
			if got := tb.text("h1 .trans-id"); got != lastID {
				t.Errorf("transaction page of %q, want %q", got, lastID)
			}
			if got := evalIn[string](tb, `document.getElementById("status").parentElement.textContent`); !strings.Contains(got, "Cancelled by the cardholder (challengeCancel 01)") {
				t.Errorf("the cancelled transaction's status reads %q", got)
			}
			if got := tb.text(`li.event[data-kind="lookup"] pre.response`); !strings.Contains(got, "characters of HTML>") {
				t.Errorf("the lookup response does not abbreviate challengeHtml:\n%.300s", got)
			}
			if got := evalIn[string](tb, `document.querySelector('li.event[data-kind="lookup"] details.show-all summary').textContent`); !strings.HasPrefix(got, "Show all") {
				t.Errorf("show-all toggle = %q", got)
			}
			noOverflow(t, tb, "the transaction page")

			tb.do("open the transactions", chromedp.Navigate(p.URL+"/console/transactions"))
			tb.waitVisible(`#tx-body tr[data-id="` + lastID + `"]`)
			if h := evalIn[float64](tb, `document.querySelector('#tx-body a.tx').getBoundingClientRect().height`); h > 30 {
				t.Errorf("the transaction id link is %.1f px high: it wraps", h)
			}
			noOverflow(t, tb, "the transactions")
		})
	}

	t.Run("window size 05 has a way back", func(t *testing.T) {
		tb := newTab(t, browser)
		tb.do("size the window", chromedp.EmulateViewport(375, 740))
		tb.do("open the demo checkout", chromedp.Navigate(p.URL+"/console/demo?card="+challenge))
		tb.do("choose full screen", chromedp.SetValue(chromedp.CSS("#window-size"), "5", tb.scope()...))
		tb.click("#pay")
		if got := tb.text("#back-to-checkout"); got != "Back to the checkout" {
			t.Errorf("button = %q", got)
		}
		tb.click("#back-to-checkout")
		evalIn[bool](tb, `!document.getElementById("challenge") && !document.getElementById("pay").disabled`)
		noOverflow(t, tb, "the demo after leaving the challenge")
	})
}
