//go:build full

package e2e

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestEveryPageAccessible runs axe-core (vendored, see
// templates/testdata/axe) in headless Chromium on every page the built
// binary serves to a person, as the binary serves it (its
// Content-Security-Policy, its scripts): the front door, the console's
// login, cards, journal, a transaction, an unknown one and the demo
// checkout, every page of /docs/, the error pages, and the cardholder
// pages of every challenge style, the banking app and the result. No
// violation of any impact is allowed, in a desktop window or on a
// phone's screen, where more of the pages scroll. Every page of the docs
// is drawn by one template and stylesheet: on the phone, the index and
// the three pages with the most to scroll sideways (tables and code) are
// checked, every other page in the desktop window.
// TestCardholderPagesAccessible (templates) tries the cardholder pages
// in every language at the challenge window sizes where its findings can
// differ.
func TestEveryPageAccessible(t *testing.T) {
	p := startDefault(t)
	axe := testkit.AxeSource(t)
	for _, vp := range []struct {
		name          string
		width, height int64
		allDocs       bool
	}{{"desktop", 1024, 720, true}, {"phone", 390, 844, false}} {
		t.Run(vp.name, func(t *testing.T) {
			// A browser of its own (its own console session), and a tab
			// whose console is not read: the error pages answer 404, and
			// a browser asks for /favicon.ico, which it logs as errors.
			// The other browser tests read the console of the pages.
			tabCtx, cancel := chromedp.NewContext(newBrowser(t))
			t.Cleanup(cancel)
			ctx, cancel := context.WithTimeout(tabCtx, 10*time.Minute)
			t.Cleanup(cancel)
			tb := &tab{t: t, ctx: ctx}
			tb.do("size the window", chromedp.EmulateViewport(vp.width, vp.height))
			if err := testkit.InjectAxe(tb.ctx, axe); err != nil {
				t.Fatalf("inject axe-core: %v", err)
			}
			docs := func(string) bool { return true }
			var widest []string
			if !vp.allDocs {
				widest = widestDocs(t, 3)
				docs = func(u string) bool {
					return slices.Contains(widest, strings.TrimSuffix(path.Base(u), ".md"))
				}
			}
			if checked := crawlAccessible(t, tb, p, docs); widest != nil && checked != len(widest) {
				t.Errorf("%d pages of the docs checked, want %v", checked, widest)
			}
		})
	}
}

// widestDocs names the n pages of docs/ (without .md) with the most
// lines of tables and code blocks: those with the most to scroll
// sideways on a narrow screen.
func widestDocs(t *testing.T, n int) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(files) < n {
		t.Fatalf("docs/*.md: %d pages, %v", len(files), err)
	}
	wide := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code := false
		for line := range strings.Lines(string(b)) {
			fence := strings.HasPrefix(line, "```")
			code = code != fence
			if code || strings.HasPrefix(line, "|") {
				wide[f]++
			}
		}
	}
	slices.SortStableFunc(files, func(a, b string) int { return wide[b] - wide[a] })
	names := make([]string, n)
	for i, f := range files[:n] {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".md")
	}
	return names
}

// crawlAccessible opens every page of TestEveryPageAccessible in tb (of
// the docs, those docs keeps) and fails t on any violation axe-core
// finds. It returns how many pages of the docs, besides the index, it
// checked.
func crawlAccessible(t *testing.T, tb *tab, p *program, docs func(url string) bool) (docsChecked int) {
	oobCard, passwordCard, selectCard, multiSelectCard, trustCard := styleCards(t, p)
	checked := 0
	check := func(name, u, ready string) {
		t.Helper()
		if u != "" {
			tb.do("open "+name, chromedp.Navigate(u))
		}
		tb.waitVisible(ready)
		violations, err := testkit.RunAxe(tb.ctx)
		if err != nil {
			t.Fatalf("%s: run axe-core: %v", name, err)
		}
		for _, v := range violations {
			t.Errorf("%s: %s", name, v)
		}
		checked++
	}

	check("404 page", p.URL+"/no-such-page", "main")
	check("ACS error page", p.URL+"/acs/hosted/00000000-0000-4000-8000-000000000000", "main")
	check("front door", p.URL+"/", "main")
	check("console login", p.URL+"/console/login", "#token")

	// Every page of the docs the index links to.
	check("docs index", p.URL+"/docs/", "main")
	links := evalIn[[]string](tb, `Array.from(new Set(Array.from(document.querySelectorAll("a[href]")).map(function(a){return a.href.split("#")[0];})))`)
	var pages []string
	for _, l := range links {
		if u, err := url.Parse(l); err == nil && strings.HasPrefix(u.Path, "/docs/") && u.Path != "/docs/" && !strings.Contains(u.Path, "/img/") && !slices.Contains(pages, l) {
			pages = append(pages, l)
		}
	}
	if len(pages) < 20 {
		t.Errorf("the docs index links to %d pages, want every page of docs/", len(pages))
	}
	for _, d := range pages {
		if docs(d) {
			check(d, d, "main")
			docsChecked++
		}
	}

	// The cardholder pages, one per style, with the result page.
	hosted := func(card string) string {
		r := p.lookup(t, testkit.LookupBody(t, card, func(m map[string]any) { delete(m, "notificationUrl") }))
		return r.Str("hostedChallengeUrl")
	}
	for _, card := range []string{passwordCard, selectCard, multiSelectCard, trustCard} {
		check("challenge page of card "+card, hosted(card), "form")
	}
	oob := hosted(oobCard)
	check("oob challenge page", oob, "form")
	id := oob[strings.LastIndex(oob, "/")+1:]
	check("banking app page", p.URL+"/acs/app/"+id, "main")
	check("otp challenge page", hosted(challengeCard), "#otp")
	tb.typeText("#otp", "9999")
	tb.click("[data-action=otp]")
	check("otp challenge page after a wrong code", "", "#otp-message")
	tb.typeText("#otp", "1234")
	tb.click("[data-action=otp]")
	check("result page", "", "dd.status")

	// The console, logged in.
	tb.do("open the login page", chromedp.Navigate(p.URL+"/console/login"))
	tb.typeText("#token", testToken)
	tb.click("form button[type=submit]")
	check("console journal", "", "#tx-body")
	check("console transaction", p.URL+"/console/transactions/"+id, "main")
	check("console unknown transaction", p.URL+"/console/transactions/00000000-0000-4000-8000-000000000000", "main")
	check("console cards", p.URL+"/console/cards", "main")
	check("demo checkout", p.URL+"/console/demo?card=4000000000009003", "#pay") // frictionless
	tb.click("#pay")
	tb.waitVisible("#result")
	check("demo checkout with its result", "", "#result")
	t.Logf("%d pages checked with axe-core", checked)
	return docsChecked
}

// TestLanguagesThaiRecipe runs the Thai recipe of docs/languages.md as
// written against the built binary and opens the URL it prints in
// Chromium: the challenge page is in Thai, the code 1234 passes, and the
// sandbox's own result page, in Thai too, ends the flow (no merchant's
// notificationUrl to reach). Then the demo checkout, with Thai chosen,
// shows the challenge page in Thai.
func TestLanguagesThaiRecipe(t *testing.T) {
	needTools(t, "bash", "curl", "jq")
	blocks := fences(t, "docs/languages.md", "## See it in Thai")
	if len(blocks) != 1 || blocks[0].lang != "sh" {
		t.Fatalf("the Thai recipe has %d blocks, want one sh block", len(blocks))
	}
	p := startDefault(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+blocks[0].text)
	cmd.Env = append(processEnv(), "SANDBOX="+p.URL)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the recipe: %v\n%s", err, out)
	}
	hosted := strings.TrimSpace(string(out))
	if !strings.HasPrefix(hosted, p.URL+"/acs/hosted/") {
		t.Fatalf("the recipe printed %q, want the hostedChallengeUrl", hosted)
	}

	tb := newTab(t, newBrowser(t))
	tb.do("open the printed URL", chromedp.Navigate(hosted))
	tb.waitVisible("#otp")
	if got := evalIn[string](tb, `document.documentElement.lang`); got != "th" {
		t.Errorf("the challenge page's lang = %q, want th", got)
	}
	tb.typeText("#otp", "1234")
	tb.click("[data-action=otp]")
	tb.waitVisible("dd.status")
	if got := evalIn[string](tb, `document.documentElement.lang + " " + document.querySelector("dd.status").textContent`); !strings.HasPrefix(got, "th Y") {
		t.Errorf("the result page says %q, want th and status Y", got)
	}
	if u := evalIn[string](tb, `location.href`); !strings.HasPrefix(u, p.URL) {
		t.Errorf("the flow ended on %s, not on the sandbox", u)
	}

	t.Run("the demo checkout in Thai", func(t *testing.T) {
		tb.do("open the demo in Thai", chromedp.Navigate(p.URL+"/console/demo?lang=th&card="+challengeCard))
		if got := evalIn[string](tb, `document.getElementById("language").value`); got != "th" {
			t.Fatalf("the demo's language = %q, want th", got)
		}
		tb.click("#pay")
		tb.frame = true
		tb.waitVisible("[data-action=pass]")
		if got := evalIn[string](tb, `document.documentElement.lang`); got != "th" {
			t.Errorf("the challenge page in the demo's iframe: lang %q, want th", got)
		}
		tb.click("[data-action=pass]")
		tb.frame = false
		if got := evalIn[string](tb, `document.body.getAttribute("data-result") || ""`); got != "Y" {
			t.Errorf("demo result %q, want Y", got)
		}
	})
}
