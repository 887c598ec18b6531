//go:build full

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Payloads that would run script if any page put them into its markup
// unescaped. Each fits its field's limits (merchantName 50 characters,
// cardholderName printable ASCII without angle brackets).
const (
	hostileMerchant   = `<img src=x onerror="window.__xss=1">`
	hostileCardholder = `" autofocus onfocus="window.__xss=1`
	hostileSession    = `"><script>window.__xss=1</script><img src=x onerror=window.__xss=1>`
	hostileQuery      = `?x="><script>window.__xss=1</script>`
)

// TestBrowserHostileInputDoesNotRun sends script payloads in merchantName,
// cardholderName, session and notificationUrl through a lookup, then opens
// every page that shows them in a real browser: the challenge page, the
// final CRes form (posted to the hostile notificationUrl), and the
// console's journal. None of the payloads runs: window.__xss stays unset,
// the browser logs no error (an injected element would also break the
// pages' Content-Security-Policy), and the values come back as text.
func TestBrowserHostileInputDoesNotRun(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	shop := newMerchant(t)
	const token = "hostile-input"
	body := testkit.LookupBody(t, challengeCard, func(m map[string]any) {
		m["merchantName"] = hostileMerchant
		m["card"].(map[string]any)["cardholderName"] = hostileCardholder
		m["session"] = hostileSession
		m["notificationUrl"] = shop.URL + "/notify" + hostileQuery
	})
	r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, body)
	if r.Str("status") != "C" {
		t.Fatalf("lookup with hostile fields: %d %s", r.Status, r.Raw)
	}
	id := r.Str("threeDsServerTransId")

	noScriptRan := func(tb *tab) {
		t.Helper()
		if got := evalIn[string](tb, `typeof window.__xss === "undefined" ? "clean" : "ran"`); got != "clean" {
			t.Errorf("a payload ran on %s", tb.url())
		}
	}

	challenge := newTab(t, browser)
	challenge.do("open the hosted challenge", chromedp.Navigate(r.Str("hostedChallengeUrl")))
	challenge.waitVisible("[data-action=pass]")
	noScriptRan(challenge)
	if got := evalIn[string](challenge, `document.body.innerText`); !strings.Contains(got, hostileMerchant) {
		t.Errorf("the challenge page does not show the merchant name as text:\n%s", got)
	}
	challenge.click("[data-action=pass]")
	n := shop.wait(t, challenge.ctx)
	if n.Session != hostileSession {
		t.Errorf("threeDSSessionData = %q, want it unchanged: %q", n.Session, hostileSession)
	}

	console := newTab(t, browser)
	console.do("open the login page", chromedp.Navigate(p.URL+"/console/login"))
	console.typeText("#token", token)
	console.click("form button[type=submit]")
	console.waitVisible(`tr[data-id="` + id + `"]`)
	noScriptRan(console)
	console.do("open the transaction", chromedp.Navigate(p.URL+"/console/transactions/"+id))
	console.waitVisible(`li.event[data-kind="lookup"]`)
	noScriptRan(console)
	text := evalIn[string](console, `document.body.innerText`)
	for _, want := range []string{hostileMerchant, hostileCardholder} {
		if !strings.Contains(text, want) {
			t.Errorf("the journal does not show %q as text", want)
		}
	}
}

// url is the address of the tab's current document.
func (tb *tab) url() string {
	u, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		return "?"
	}
	return u
}
