//go:build full

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// catalogueCard returns the card number of a default scenario by id, from
// GET /scenarios.
func catalogueCard(t *testing.T, p *program, id string) string {
	t.Helper()
	r := testkit.Call(t, http.MethodGet, p.URL+"/scenarios", "", nil)
	list, _ := r.Body["scenarios"].([]any)
	for _, s := range list {
		m, _ := s.(map[string]any)
		if m["id"] == id {
			if n, _ := m["cardNumber"].(string); n != "" {
				return n
			}
		}
	}
	t.Fatalf("GET /scenarios has no card for scenario %s", id)
	return ""
}

// demoPurchase runs the demo checkout in tb with card: Pay, then act
// (nil for a frictionless card) on the challenge in the iframe. It waits
// for the result, checks it, and returns the threeDSServerTransID.
func demoPurchase(t *testing.T, tb *tab, base, card string, act func(*tab), wantStatus, wantECI string) string {
	t.Helper()
	tb.do("open the demo checkout", chromedp.Navigate(base+"/console/demo?card="+card))
	if got := evalIn[string](tb, `document.getElementById("card").value`); got != card {
		t.Fatalf("demo card = %q, want %q", got, card)
	}
	tb.click("#pay")
	if act != nil {
		tb.frame = true
		act(tb)
		tb.frame = false
	}
	evalIn[bool](tb, `document.body.getAttribute("data-result") !== null`)
	if got := evalIn[string](tb, `document.body.getAttribute("data-result")`); got != wantStatus {
		t.Errorf("demo result = %q, want %q (%s)", got, wantStatus, tb.text("#result"))
	}
	if got := tb.text("#result dd.eci"); got != wantECI {
		t.Errorf("demo ECI = %q, want %q", got, wantECI)
	}
	if got := tb.text("#result dd.cavv"); len(got) != 28 {
		t.Errorf("demo authentication value = %q, want 28 characters", got)
	}
	if got, want := tb.text("#decision"), "Authorise the payment with ECI "+wantECI; !strings.HasPrefix(got, want) {
		t.Errorf("merchant decision = %q, want it to start with %q", got, want)
	}
	return tb.text("#result dd.trans-id")
}

// TestBrowserConsole drives the console in a real headless Chromium: the
// journal page is open and live while the demo checkout, in another tab
// of the same session, completes a frictionless and a challenge purchase;
// both transactions appear on the journal page without a reload.
func TestBrowserConsole(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	frictionless := catalogueCard(t, p, "visa-frictionless-y")
	challenge := catalogueCard(t, p, "visa-challenge")

	journal := newTab(t, browser)
	journal.do("open the login page", chromedp.Navigate(p.URL+"/console/login"))
	journal.typeText("#token", "browser-console")
	journal.click("form button[type=submit]")
	journal.waitVisible("#tx-body")
	evalIn[bool](journal, `document.getElementById("live").getAttribute("data-state") === "live"`)
	if got := journal.text("#tx-body"); !strings.Contains(got, "No transactions yet") {
		t.Errorf("journal of a fresh token: %q, want it empty", got)
	}

	demo := newTab(t, browser)
	var ids []string
	t.Run("frictionless purchase", func(t *testing.T) {
		id := demoPurchase(t, demo, p.URL, frictionless, nil, "Y", "05")
		if got, want := demo.attr(`#steps li[data-step="challenge"]`, "data-state"), "skipped"; got != want {
			t.Errorf("challenge step = %q, want %q", got, want)
		}
		ids = append(ids, id)
	})
	t.Run("challenge purchase", func(t *testing.T) {
		id := demoPurchase(t, demo, p.URL, challenge, func(tb *tab) {
			tb.click("[data-action=pass]")
		}, "Y", "05")
		for _, step := range []string{"method", "lookup", "challenge", "notification", "enquiry"} {
			if got := demo.attr(`#steps li[data-step="`+step+`"]`, "data-state"); got != "done" {
				t.Errorf("step %s = %q, want done", step, got)
			}
		}
		if got := demo.text("#enquiry-json"); !strings.Contains(got, `"transactionStatus": "Y"`) {
			t.Errorf("enquiry response shown lacks the status:\n%s", got)
		}
		ids = append(ids, id)
	})
	t.Run("the journal shows both, live", func(t *testing.T) {
		for _, id := range ids {
			journal.waitVisible(`tr[data-id="` + id + `"]`)
		}
		if got := evalIn[int](journal, `document.querySelectorAll("#tx-body tr[data-id]").length`); got != 2 {
			t.Errorf("journal rows = %d, want 2", got)
		}
		if len(ids) == 2 {
			if got := journal.attr("#tx-body tr[data-id]", "data-id"); got != ids[1] {
				t.Errorf("first row = %s, want the newest transaction %s", got, ids[1])
			}
			// The live page replaces its rows when the journal changes, which
			// can fall between finding the link and clicking it: the page
			// clicks it in one step.
			evalIn[bool](journal, `(function(){var a=document.querySelector('tr[data-id="`+ids[1]+`"] a.tx');if(!a){return false;}a.click();return true;})()`)
			journal.waitVisible(`li.event[data-kind="cres"]`)
			for _, kind := range []string{"ddc", "method", "lookup", "creq", "decision", "cres", "enquiry"} {
				journal.waitVisible(`li.event[data-kind="` + kind + `"]`)
			}
		}
	})
	t.Run("the cards page exposes the card numbers", func(t *testing.T) {
		cards := newTab(t, browser)
		cards.do("open the cards page", chromedp.Navigate(p.URL+"/console/"))
		sel := `code.pan[data-card="` + challenge + `"]`
		if got := cards.attr(sel, "data-card"); got != challenge {
			t.Errorf("data-card = %q, want %q", got, challenge)
		}
		cards.click(`button.copy[data-card="` + challenge + `"]`)
		feedback := evalIn[string](cards, `document.querySelector('button.copy[data-card="`+challenge+`"]').nextElementSibling.textContent || null`)
		t.Logf("copy button feedback: %q (clipboard: %q)", feedback, cards.attr("body", "data-copied"))
		cards.typeText("#q", "mastercard")
		if got := evalIn[int](cards, `document.querySelectorAll("tr[data-search]:not([hidden])").length`); got == 0 {
			t.Errorf("filter mastercard hides every row")
		}
		if got := evalIn[bool](cards, `document.querySelector('tr:not([hidden]) code.pan[data-card="`+challenge+`"]') === null`); !got {
			t.Errorf("filter mastercard still shows the Visa card")
		}
	})
}

// linksOutOfReach is a script that lists the rows of the transactions
// page whose link to the transaction a tap cannot reach: not shown, not
// wholly within the width of the window, or covered at its centre. It
// scrolls the page up and down only, as a thumb does; a table scrolled
// sideways does not count.
const linksOutOfReach = `(function(){
var out=[];
document.querySelectorAll("#tx-body tr[data-id]").forEach(function(tr){
var id=tr.getAttribute("data-id"),a=tr.querySelector("a.tx");
if(!a){out.push(id+": no link");return;}
var r=a.getBoundingClientRect();
if(r.width===0||r.height===0){out.push(id+": its link is not shown");return;}
if(r.left<0||r.right>window.innerWidth){out.push(id+": its link spans "+Math.round(r.left)+" to "+Math.round(r.right)+" px of a window "+window.innerWidth+" px wide");return;}
window.scrollBy(0,r.top+r.height/2-window.innerHeight/2);
r=a.getBoundingClientRect();
var el=document.elementFromPoint(r.left+r.width/2,r.top+r.height/2);
if(!el||!(el===a||a.contains(el))){out.push(id+": the centre of its link is covered by "+(el?el.tagName+"."+el.className:"nothing"));}
});
return out;})()`

// TestBrowserTransactionsKeepTheirLinks: on a phone and on a desktop, the
// link of every row of the transactions page is in view and a tap at its
// centre opens the transaction, without scrolling the table sideways.
func TestBrowserTransactionsKeepTheirLinks(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	const token = "narrow-screens"
	var ids []string
	for _, id := range []string{"visa-frictionless-y", "visa-challenge", "mastercard-frictionless-n"} {
		body := testkit.LookupBody(t, catalogueCard(t, p, id), func(m map[string]any) {
			m["merchantName"] = "A merchant with a rather long name"
			m["externalReferenceId"] = "order-2026-11-25-000042"
		})
		r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, body)
		if r.Status != http.StatusOK {
			t.Fatalf("lookup of %s: HTTP %d %s", id, r.Status, r.Raw)
		}
		ids = append(ids, r.Str("threeDsServerTransId"))
	}
	for _, size := range []struct{ w, h int64 }{{375, 812}, {768, 1024}, {1024, 720}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			tb := newTab(t, browser)
			tb.do("size the window", chromedp.EmulateViewport(size.w, size.h))
			tb.do("open the login page", chromedp.Navigate(p.URL+"/console/login"))
			tb.typeText("#token", token)
			tb.click(`main form[action$="/console/login"] button[type=submit]`)
			tb.waitVisible(`#tx-body tr[data-id="` + ids[0] + `"]`)
			if got := evalIn[int](tb, `document.querySelectorAll("#tx-body tr[data-id]").length`); got != len(ids) {
				t.Fatalf("%d rows, want %d", got, len(ids))
			}
			out, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](linksOutOfReach))
			if err != nil {
				t.Fatalf("measure the links: %v", err)
			}
			for _, problem := range out {
				t.Errorf("row %s", problem)
			}
			noOverflow(t, tb, "the transactions")
			if len(out) > 0 {
				return
			}
			// A tap where the link is, not a click that scrolls it into view.
			c, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]float64](`(function(){var a=document.querySelector('#tx-body tr[data-id="`+ids[1]+`"] a.tx');a.scrollIntoView({block:"center",inline:"nearest"});var r=a.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2,document.querySelector(".table-scroll").scrollLeft];})()`))
			if err != nil || len(c) != 3 {
				t.Fatalf("find the link: %v %v", c, err)
			}
			if c[2] != 0 {
				t.Errorf("the table scrolled %.0f px sideways to show the link", c[2])
			}
			tb.do("tap the link", chromedp.MouseClickXY(c[0], c[1]))
			if got := tb.text("h1 .trans-id"); got != ids[1] {
				t.Errorf("the tap opened transaction %q, want %q", got, ids[1])
			}
		})
	}
}
