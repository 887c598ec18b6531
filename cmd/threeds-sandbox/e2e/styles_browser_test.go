package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserChallengeStyles completes each challenge style in a real
// headless Chromium, in the iframe of a merchant's checkout, and checks
// the enquiry: status, ECI, authenticationType, interactionCounter,
// challengeCancel, and whiteListStatus where the page asked. At window
// size 02 it takes the docs' picture of each style.
func TestBrowserChallengeStyles(t *testing.T) {
	browser := newBrowser(t)
	p := startDefault(t)
	shop := newMerchant(t)

	tests := []struct {
		name, card string
		windowSize int
		ready      string // a control of the style, visible once the page is
		picture    string
		act        func(*testing.T, *tab, challengeLookup)
		want       outcome
		authType   string
		counter    string
		whiteList  string
	}{
		{"otp resend", "4000000000009102", 3, "[data-action=resend]", "", func(t *testing.T, tb *tab, _ challengeLookup) {
			tb.click("[data-action=resend]")
			tb.waitVisible("#otp-message")
			if got := tb.text("#otp-message"); !strings.Contains(got, "new code") {
				t.Errorf("message after a resend = %q", got)
			}
			tb.typeText("input[name=otp]", "1234")
			tb.click("[data-action=otp]")
		}, outcome{"Y", "", ""}, "02", "02", ""},
		{"oob approved in the banking app", "4000000000009300", 2, "[data-action=continue]", "challenge-oob-390x400.png", func(t *testing.T, tb *tab, c challengeLookup) {
			tb.click("[data-action=continue]")
			tb.waitVisible("#oob-message")
			if got := tb.text("#oob-message"); !strings.Contains(got, "Not approved yet") {
				t.Errorf("continue before the app = %q", got)
			}
			// The app approves on another device; the page notices by itself.
			resp, err := http.PostForm(p.URL+"/acs/app/"+c.ServerTransID, url.Values{"action": {"approve"}})
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("approve in the app: HTTP %d", resp.StatusCode)
			}
		}, outcome{"Y", "", ""}, "03", "02", ""},
		{"select", "4000000000009326", 2, "[data-action=select]", "challenge-select-390x400.png", func(t *testing.T, tb *tab, _ challengeLookup) {
			tb.click(`input[name=choice][value="Chiang Mai"]`)
			tb.click("[data-action=select]")
		}, outcome{"Y", "", ""}, "01", "01", ""},
		{"multiselect, a wrong answer first", "4000000000009334", 2, "[data-action=select]", "challenge-multiselect-390x400.png", func(t *testing.T, tb *tab, _ challengeLookup) {
			tb.click(`input[name=choice][value="Sandbox Coffee"]`)
			tb.click("[data-action=select]")
			tb.waitVisible("#choice-message")
			tb.click(`input[name=choice][value="Sandbox Coffee"]`)
			tb.click(`input[name=choice][value="Demo Books"]`)
			tb.click("[data-action=select]")
		}, outcome{"Y", "", ""}, "01", "02", ""},
		{"trust this merchant", "4000000000009342", 4, "[data-action=trust]", "", func(t *testing.T, tb *tab, _ challengeLookup) {
			tb.click("[data-action=trust]")
			tb.typeText("input[name=otp]", "1234")
			tb.click("[data-action=otp]")
		}, outcome{"Y", "", ""}, "02", "01", "Y"},
		{"oob cancelled", "4000000000009300", 1, "[data-action=continue]", "", func(t *testing.T, tb *tab, _ challengeLookup) {
			tb.click("[data-action=cancel]")
		}, outcome{"N", "01", "01"}, "03", "01", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTab(t, browser, 30*time.Second)
			tb.frame = true
			c := lookupChallengeCard(t, p, tt.card, shop.URL+"/notify", "sess-"+strings.ReplaceAll(tt.name, " ", "-"), tt.windowSize)
			tb.do("open the checkout", chromedp.Navigate(shop.add(checkout{ChallengeHTML: c.HTML, WindowSize: tt.windowSize})))
			tb.waitVisible(tt.ready)
			px := windowPixels[tt.windowSize]
			if got := evalIn[int](tb, "document.documentElement.scrollWidth"); px[0] > 0 && got > px[0] {
				t.Errorf("the %s page in a %dx%d window scrolls sideways: scrollWidth %d", tt.name, px[0], px[1], got)
			}
			if tt.picture != "" {
				tb.screenshot(tt.picture, "iframe#challenge")
			}
			tt.act(t, tb, c)
			n := shop.wait(t, tb.ctx)
			tb.waitVisible("#notified")
			checkNotification(t, p, c, n, tt.want)
			e := p.enquiry(t, c.ServerTransID)
			for field, want := range map[string]string{
				"authenticationType": tt.authType, "interactionCounter": tt.counter, "whiteListStatus": tt.whiteList,
			} {
				if got := e.Str(field); got != want {
					t.Errorf("enquiry %s = %q, want %q", field, got, want)
				}
			}
			if tt.whiteList != "" && e.Str("whiteListStatusSource") != "03" {
				t.Errorf("enquiry whiteListStatusSource = %q, want 03", e.Str("whiteListStatusSource"))
			}
		})
	}
}
