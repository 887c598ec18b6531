//go:build full

package templates

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

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
// cardholder page, in every language, at the challengeWindowSizes where
// its findings can differ (see sweptAt): no violation of any impact is
// allowed. At 250×400 nothing may scroll sideways. Every page sets
// <html lang> to its language. The pages of the running binary, console
// and docs among them, are checked by TestEveryPageAccessible
// (cmd/threeds-sandbox/e2e).
func TestCardholderPagesAccessible(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := parseSet(t)
	axe := testkit.AxeSource(t)
	srv := pageServer(t, s)
	browser := testkit.Browser(t)
	checkThaiFont(t)

	// The pages go to one tab per core, each with axe-core injected once
	// (it runs in every document the tab loads).
	type pageAt struct {
		p    cardholderPage
		lang Lang
		w    int // index in windowSizes
	}
	work := make(chan pageAt)
	go func() {
		defer close(work)
		for w := range windowSizes { // a tab's viewport changes seldom
			for _, p := range cardholderPages {
				for _, lang := range s.Languages() {
					if sweptAt(lang, w) {
						work <- pageAt{p, lang, w}
					}
				}
			}
		}
	}()
	var tabs sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		tabs.Go(func() {
			tab, cancelTab := chromedp.NewContext(browser)
			defer cancelTab()
			ctx, cancel := context.WithTimeout(tab, 10*time.Minute)
			defer cancel()
			if err := testkit.InjectAxe(ctx, axe); err != nil {
				t.Errorf("inject axe-core: %v", err)
				return
			}
			viewport := -1
			for at := range work {
				if at.w != viewport {
					w := windowSizes[at.w]
					if err := chromedp.Do(ctx, chromedp.EmulateViewport(w.width, w.height)); err != nil {
						t.Errorf("viewport %d×%d: %v", w.width, w.height, err)
						for range work {
						}
						return
					}
					viewport = at.w
				}
				err := checkPage(t, ctx, srv.URL, at.p, at.lang, windowSizes[at.w])
				if err != nil {
					t.Error(err)
					for range work { // the others are not checked: say so once
					}
					return
				}
			}
		})
	}
	tabs.Wait()
}

// sweptAt tells whether the sweep checks the pages in lang at
// windowSizes[w]. What depends on the layout (the size of targets, what
// scrolls, what overlaps) is checked in English at every size; what
// depends on the words (their contrast, their length, the names of
// controls) in every language at the narrowest size, where long words
// break the layout first. A page load with axe-core is most of the
// sweep's time: with three languages, 126 pages instead of 270.
func sweptAt(lang Lang, w int) bool {
	return lang == Fallback || w == 0
}

// checkPage loads page p in lang in the tab of ctx, whose viewport is
// that of window size w, runs
// axe-core and measures it: a violation of any impact, a wrong
// <html lang>, a viewport of the wrong width or a page scrolling
// sideways at 250 px fails t. It returns the error that kept the page
// from being checked.
func checkPage(t *testing.T, ctx context.Context, base string, p cardholderPage, lang Lang, w windowSize) error {
	name := fmt.Sprintf("%s/%s/%d", lang, p.name, w.size)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/page/"+name),
		chromedp.WaitReady(chromedp.CSS("body")),
	); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	violations, err := testkit.RunAxe(ctx)
	if err != nil {
		return fmt.Errorf("%s: run axe-core: %w", name, err)
	}
	m, err := chromedp.Run(ctx, chromedp.Evaluate[pageMeasure](measureJS))
	if err != nil {
		return fmt.Errorf("%s: measure: %w", name, err)
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
	return nil
}
