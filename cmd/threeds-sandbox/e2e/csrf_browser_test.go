//go:build full

package e2e

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestBrowserLoginCSRFRefused: in a real Chromium, another site's page
// that posts the console's login form with the attacker's token does not
// log the visitor in: over plain http to a host that is not localhost
// (where Chromium sends no Sec-Fetch-Site, only an Origin) and to
// localhost (where it sends Sec-Fetch-Site: cross-site), the sandbox
// answers 403 with a page that says why, and the visitor has no session.
// The console's own login form, at the same names, still logs in.
func TestBrowserLoginCSRFRefused(t *testing.T) {
	p := startDefault(t)
	_, port, _ := strings.Cut(p.Addr, ":")
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.Query().Get("target")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><title>A page elsewhere</title>
<form id="f" method="post" action="%s/console/login"><input name="token" value="e2e-attacker-token"></form>
<script>document.getElementById("f").submit()</script>`, html.EscapeString(target))
	}))
	t.Cleanup(evil.Close)
	_, evilPort, _ := strings.Cut(strings.TrimPrefix(evil.URL, "http://"), ":")
	browser := testkit.Browser(t,
		chromedp.Flag("host-resolver-rules", "MAP sandbox.test 127.0.0.1, MAP evil.test 127.0.0.1"),
		chromedp.WindowSize(1024, 720),
	)
	for _, sandbox := range []string{"http://sandbox.test:" + port, "http://localhost:" + port} {
		t.Run(sandbox, func(t *testing.T) {
			// Not newTab: the refusal's 403 is an error in the browser's
			// console, and expected here.
			tabCtx, cancelTab := chromedp.NewContext(browser)
			ctx, cancel := context.WithTimeout(tabCtx, 60*time.Second)
			t.Cleanup(func() { cancel(); cancelTab() })
			tb := &tab{t: t, ctx: ctx}
			tb.do("open the page elsewhere", chromedp.Navigate("http://evil.test:"+evilPort+"/?target="+sandbox))
			if got := tb.text("h1"); !strings.Contains(got, "another site") {
				t.Errorf("after another site's login post the page says %q, want the refusal", got)
			}
			if got := tb.text("main"); !strings.Contains(got, "log you in") {
				t.Errorf("the refusal does not say why: %q", got)
			}
			tb.do("open the transactions", chromedp.Navigate(sandbox+"/console/transactions"))
			if got := evalIn[string](tb, `location.pathname`); got != "/console/login" {
				t.Errorf("after the refused post the console shows %s, want the login page: a session was opened", got)
			}
			tb.typeText("#token", "e2e-own-token")
			tb.click(`main form[action$="/console/login"] button[type=submit]`)
			tb.waitVisible("#tx-body")
			if got := evalIn[string](tb, `location.pathname`); got != "/console/transactions" {
				t.Errorf("the console's own login form leads to %s, want the transactions", got)
			}
		})
	}
}
