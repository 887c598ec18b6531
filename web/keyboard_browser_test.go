package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// activeJS names the focused element: its tag, a colon and its
// data-action or id, e.g. "button:pass" or "input:otp".
const activeJS = `(function(e){return e ? e.tagName.toLowerCase() + ":" + (e.getAttribute("data-action") || e.id) : "";})(document.activeElement)`

// TestChallengeWithKeyboardOnly completes today's challenge in real
// Chromium with key events alone, at the smallest window (250×400), in
// Thai: Tab to a control, Space or Enter to press it, digits to type the
// code. The lookup has no notificationUrl, so the result page shows the
// outcome.
func TestChallengeWithKeyboardOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	browser := testkit.Browser(t)
	tests := []struct {
		name   string
		keys   func(t *testing.T, ctx context.Context)
		status string
	}{
		{"Tab to Pass, Space", func(t *testing.T, ctx context.Context) {
			tabTo(t, ctx, "button:pass")
			press(t, ctx, " ")
		}, "Y"},
		{"Tab to Cancel, Enter", func(t *testing.T, ctx context.Context) {
			tabTo(t, ctx, "button:cancel")
			press(t, ctx, kb.Enter)
		}, "N"},
		{"a wrong code, then the right one, each with Enter", func(t *testing.T, ctx context.Context) {
			tabTo(t, ctx, "input:otp")
			press(t, ctx, "9999"+kb.Enter)
			waitFor(t, ctx, `document.getElementById("otp-message") ? "shown" : ""`)
			tabTo(t, ctx, "input:otp")
			press(t, ctx, "1234"+kb.Enter)
		}, "Y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.lookup("tok", testkit.LookupBody(t, e.card("visa-challenge"), func(m map[string]any) {
				delete(m, "notificationUrl")
				m["challengeWindowSize"] = 1
				m["browserInfo"].(map[string]any)["language"] = "th-TH"
			}))
			hosted := r.Str("hostedChallengeUrl")
			if r.Str("status") != "C" || hosted == "" {
				t.Fatalf("lookup: %s", r.Raw)
			}
			tab, cancelTab := chromedp.NewContext(browser)
			defer cancelTab()
			ctx, cancel := context.WithTimeout(tab, time.Minute)
			defer cancel()
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(250, 400), chromedp.Navigate(hosted), chromedp.WaitReady(chromedp.CSS("#otp"))); err != nil {
				t.Fatalf("open %s: %v", hosted, err)
			}
			tt.keys(t, ctx)
			got := waitFor(t, ctx, `document.querySelector("dd.status") ? document.documentElement.lang + " " + document.querySelector("dd.status").textContent : ""`)
			if want := "th " + tt.status; !strings.HasPrefix(got, want) {
				t.Errorf("result page says %q, want %q…", got, want)
			}
		})
	}
}

// tabTo presses Tab until the element named by want (see activeJS) has
// the focus, at most 20 times, and checks that the focus is drawn.
func tabTo(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	var seen []string
	for range 20 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatalf("Tab: %v", err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](activeJS))
		if err != nil {
			t.Fatalf("read the focus: %v", err)
		}
		if got == want {
			// A keyboard user sees where the focus is.
			outline, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle`))
			if err != nil || outline == "none" || outline == "" {
				t.Errorf("%s has the focus but no visible outline (outline-style %q, %v)", want, outline, err)
			}
			return
		}
		seen = append(seen, got)
	}
	t.Fatalf("Tab never reached %q; the focus went %v", want, seen)
}

// waitFor evaluates expr until it gives a string other than "", across
// the page loads that a form post causes, and returns it.
func waitFor(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	var last error
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err == nil && got != "" {
			return got
		}
		last = err
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v (last: %v)", expr, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// press sends keys as key events.
func press(t *testing.T, ctx context.Context, keys string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(keys)); err != nil {
		t.Fatalf("keys %q: %v", keys, err)
	}
}
