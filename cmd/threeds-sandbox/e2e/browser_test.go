//go:build full

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// screenshotDir receives the pictures of the docs when UPDATE_SCREENSHOTS=1.
const screenshotDir = "../../../docs/img"

// runBrowser is the one headless Chromium of the test run, started by the
// first test that needs it and stopped by TestMain: each browser test
// has a browser context of its own in it (see newBrowser).
var runBrowser struct {
	once sync.Once
	ctx  context.Context
	stop context.CancelFunc
	dir  string
	err  error
}

// sharedBrowser returns the run's browser, starting it the first time.
// The merchant (127.0.0.1) and the emulator (localhost) are two sites,
// as in production. Keeping the challenge iframe in the page's process
// lets the queries and the console of the page reach into it; the
// same-origin rules of the web stay as they are.
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	testkit.NeedChromium(t)
	runBrowser.once.Do(func() {
		if runBrowser.dir, runBrowser.err = os.MkdirTemp("", "threeds-sandbox-e2e-chromium-"); runBrowser.err != nil {
			return
		}
		runBrowser.ctx, runBrowser.stop, runBrowser.err = testkit.StartBrowser(runBrowser.dir,
			chromedp.Flag("disable-features", "Translate,SitePerProcess,IsolateOrigins"),
			chromedp.Flag("disable-site-isolation-trials", true),
			chromedp.WindowSize(1024, 720),
			// Tabs share two renderer processes, one per core, as on a
			// small device: a tab of its own process each costs a
			// process start (about a second of CPU here) and the
			// pages behave the same.
			chromedp.Flag("renderer-process-limit", "2"),
		)
	})
	if runBrowser.err != nil {
		t.Fatal(runBrowser.err)
	}
	return runBrowser.ctx
}

// stopBrowser stops the run's browser, if a test started it.
func stopBrowser() {
	if runBrowser.stop != nil {
		runBrowser.stop()
	}
	if runBrowser.dir != "" {
		os.RemoveAll(runBrowser.dir)
	}
}

// newBrowser opens for the subtests of t a browser context of their own
// in the run's browser: cookies and storage apart from the other tests',
// which run beside them. Its tabs (newTab) open in that context.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return testkit.BrowserContext(t, sharedBrowser(t))
}

// notification is what the browser posted to the merchant's notificationUrl.
type notification struct {
	CRes    string
	Session string
	HasSess bool
}

// merchant is a small shop on its own origin: a checkout page that frames
// the challengeHtml of a lookup, sized by the challenge window size, and
// the notificationUrl that receives the final CRes.
type merchant struct {
	URL      string
	pages    *checkouts[checkout]
	notified chan notification
}

// checkout is what the merchant's page needs from the lookup.
type checkout struct {
	ChallengeHTML string `json:"challengeHtml"`
	WindowSize    int    `json:"challengeWindowSize"`
}

var checkoutPage = template.Must(template.New("checkout").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Example Shop: checkout</title>
<style>
body{margin:0;padding:16px;font:15px system-ui,sans-serif;background:#f4f6f9}
#challenge{display:block;border:0;outline:1px solid #8a96a3;background:#fff}
#challenge.full{position:fixed;inset:0;width:100vw;height:100vh;outline:0}
</style>
</head>
<body>
<h1>Example Shop: confirm your payment</h1>
<iframe id="challenge" title="3-D Secure challenge"></iframe>
<script>
(function(){
var checkout = {{.}};
var sizes = {1:[250,400], 2:[390,400], 3:[500,600], 4:[600,400]};
var f = document.getElementById("challenge");
var px = sizes[checkout.challengeWindowSize];
if (px) { f.width = px[0]; f.height = px[1]; } else { f.className = "full"; }
f.srcdoc = checkout.challengeHtml;
})();
</script>
</body>
</html>
`))

func newMerchant(t *testing.T) *merchant {
	t.Helper()
	m := &merchant{pages: newCheckouts[checkout](checkoutPage), notified: make(chan notification, 8)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /checkout/{id}", m.pages.serve)
	mux.HandleFunc("POST /notify", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, has := r.PostForm["threeDSSessionData"]
		m.notified <- notification{CRes: r.PostForm.Get("cres"), Session: r.PostForm.Get("threeDSSessionData"), HasSess: has}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Thanks</title></head>`+
			`<body><p id="notified">Payment authenticated, thank you.</p></body></html>`)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

// add registers a checkout page and returns its URL.
func (m *merchant) add(c checkout) string { return m.URL + m.pages.add("", c) }

// wait returns the next notification the browser posted.
func (m *merchant) wait(t *testing.T, ctx context.Context) notification {
	t.Helper()
	select {
	case n := <-m.notified:
		return n
	case <-ctx.Done():
		t.Fatalf("the merchant's notificationUrl received nothing: %v", ctx.Err())
		return notification{}
	}
}

// tab is one browser tab with a deadline, its console, and where its
// queries run: in the document of the merchant's challenge iframe or in
// the top document.
type tab struct {
	t     *testing.T
	ctx   context.Context
	frame bool

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// tabPatience bounds what a tab does in all: far beyond what a purchase
// takes on a busy machine, it only ends a test whose page hangs.
const tabPatience = 3 * time.Minute

// newTab opens a tab of the browser for the rest of t, focused as if in
// front (tests drive tabs side by side), collects its console, and at
// cleanup fails t on any console error or uncaught exception (a blocked
// script or style shows there).
func newTab(t *testing.T, browser context.Context) *tab {
	t.Helper()
	tabCtx, cancelTab := chromedp.NewContext(browser)
	tb := &tab{t: t}
	messages := chromedp.Console(tabCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.console = append(tb.console, m)
			tb.mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(tabCtx, tabPatience)
	tb.ctx = ctx
	t.Cleanup(func() {
		// Give the last messages of the page time to arrive.
		_ = chromedp.Do(tabCtx, chromedp.Sleep(100*time.Millisecond))
		cancel()
		cancelTab()
		<-done
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, m := range tb.console {
			switch {
			case m.IsException(), m.Type == chromedp.ConsoleError:
				t.Errorf("browser console: %s (%s:%d:%d)", m, m.URL, m.Line+1, m.Column+1)
			case m.Type == chromedp.ConsoleWarning:
				t.Logf("browser console: %s (%s:%d)", m, m.URL, m.Line+1)
			}
		}
	})
	if err := chromedp.Do(ctx, testkit.Focused()); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tb
}

// do runs actions in the tab.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// queryEvery is how often a query asks the page again until its element
// is there: often enough to add no wait worth the name, seldom enough
// that tabs waiting side by side leave the browser the CPU for their
// pages (chromedp asks every 5 ms).
const queryEvery = 50 * time.Millisecond

// scope is the query options of the tab: how often a query asks, and in
// the challenge iframe's current document, or the top document.
func (tb *tab) scope() []chromedp.QueryOption {
	tb.t.Helper()
	if !tb.frame {
		return []chromedp.QueryOption{chromedp.RetryInterval(queryEvery)}
	}
	nodes, err := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSS("iframe#challenge"), chromedp.RetryInterval(queryEvery)))
	if err != nil || len(nodes) == 0 {
		tb.t.Fatalf("find the challenge iframe: %v", err)
	}
	return []chromedp.QueryOption{chromedp.FromNode(nodes[0]), chromedp.RetryInterval(queryEvery)}
}

// waitVisible waits until sel is visible. The iframe's document changes
// with every form post, so each try looks the frame up again.
func (tb *tab) waitVisible(sel string) {
	tb.t.Helper()
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, 500*time.Millisecond)
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel), tb.scope()...))
		cancel()
		if err == nil {
			return
		}
		if tb.ctx.Err() != nil {
			tb.t.Fatalf("wait for %s to be visible: %v", sel, err)
		}
	}
}

func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.waitVisible(sel)
	tb.do("click "+sel, chromedp.Click(chromedp.CSS(sel), tb.scope()...))
}

func (tb *tab) typeText(sel, text string) {
	tb.t.Helper()
	tb.waitVisible(sel)
	tb.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text, tb.scope()...))
}

func (tb *tab) text(sel string) string {
	tb.t.Helper()
	tb.waitVisible(sel)
	s, err := chromedp.Run(tb.ctx, chromedp.Text(chromedp.CSS(sel), tb.scope()...))
	if err != nil {
		tb.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (tb *tab) attr(sel, name string) string {
	tb.t.Helper()
	tb.waitVisible(sel)
	v, err := chromedp.Run(tb.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name, tb.scope()...))
	if err != nil {
		tb.t.Fatalf("attribute %s of %s: %v", name, sel, err)
	}
	return v.Value
}

// evalIn evaluates a JavaScript expression in the current document (of
// the iframe when the tab queries the iframe) until its value is
// truthy, within the tab's patience, and returns that value.
func evalIn[T any](tb *tab, expr string) T {
	tb.t.Helper()
	var opts []chromedp.PollOption
	if tb.frame {
		nodes, err := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSS("iframe#challenge"), chromedp.RetryInterval(queryEvery)))
		if err != nil || len(nodes) == 0 {
			tb.t.Fatalf("find the challenge iframe: %v", err)
		}
		opts = append(opts, chromedp.WithPollingInFrame(nodes[0]))
	}
	v, err := chromedp.Run(tb.ctx, chromedp.Poll[T](expr, append(opts, chromedp.WithPollingTimeout(0), chromedp.WithPollingInterval(queryEvery))...))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// screenshot saves a PNG for the docs when UPDATE_SCREENSHOTS=1: of the
// element sel, or of the viewport when sel is empty.
func (tb *tab) screenshot(name, sel string) {
	tb.t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	var png []byte
	var err error
	if sel == "" {
		png, err = chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	} else {
		png, err = chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	}
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(screenshotDir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("wrote %s", path)
}

// windowPixels are the challenge window sizes of the protocol.
var windowPixels = map[int][2]int{1: {250, 400}, 2: {390, 400}, 3: {500, 600}, 4: {600, 400}}

// challengeLookup is the lookup of a challenge card, answered status C.
type challengeLookup struct {
	ServerTransID string
	ACSTransID    string
	Version       string
	HTML          string
	HostedURL     string
	Session       string
}

// lookupChallenge sends a lookup of the challenge card with
// notificationUrl notify ("" for null), the session and the window size.
func lookupChallenge(t *testing.T, p *program, notify, session string, windowSize int) challengeLookup {
	t.Helper()
	return lookupChallengeCard(t, p, challengeCard, notify, session, windowSize)
}

// lookupChallengeCard is lookupChallenge with another challenge card.
func lookupChallengeCard(t *testing.T, p *program, card, notify, session string, windowSize int) challengeLookup {
	t.Helper()
	body := testkit.LookupBody(t, card, func(m map[string]any) {
		m["notificationUrl"] = notify
		if notify == "" {
			m["notificationUrl"] = nil
		}
		m["session"] = session
		m["challengeWindowSize"] = windowSize
	})
	r := p.lookup(t, body)
	if got, want := r.Str("status"), "C"; got != want {
		t.Fatalf("lookup status = %q, want %q\n%s", got, want, r.Raw)
	}
	c := challengeLookup{
		ServerTransID: r.Str("threeDsServerTransId"),
		ACSTransID:    r.Str("acsTransId"),
		Version:       r.Str("version"),
		HTML:          r.Str("challengeHtml"),
		HostedURL:     r.Str("hostedChallengeUrl"),
		Session:       session,
	}
	if c.HTML == "" || c.HostedURL == "" || c.ServerTransID == "" || c.ACSTransID == "" {
		t.Fatalf("lookup lacks challengeHtml, hostedChallengeUrl or ids:\n%s", r.Raw)
	}
	return c
}

// outcome is what a finished challenge must report.
type outcome struct {
	status, reason, cancel string
}

// checkNotification checks the final CRes and threeDSSessionData the
// browser posted to the merchant, then the enquiry of the transaction.
func checkNotification(t *testing.T, p *program, c challengeLookup, n notification, want outcome) {
	t.Helper()
	if !n.HasSess || n.Session != c.Session {
		t.Errorf("threeDSSessionData = %q (sent: %v), want %q unchanged", n.Session, n.HasSess, c.Session)
	}
	raw, err := base64.RawURLEncoding.DecodeString(n.CRes)
	if err != nil {
		t.Fatalf("cres %q is not unpadded Base64Url: %v", n.CRes, err)
	}
	var cres map[string]any
	if err := json.Unmarshal(raw, &cres); err != nil {
		t.Fatalf("cres is not JSON: %v\n%s", err, raw)
	}
	for field, want := range map[string]string{
		"threeDSServerTransID":   c.ServerTransID,
		"acsTransID":             c.ACSTransID,
		"messageType":            "CRes",
		"messageVersion":         c.Version,
		"challengeCompletionInd": "Y",
		"transStatus":            want.status,
	} {
		if got, _ := cres[field].(string); got != want {
			t.Errorf("CRes %s = %q, want %q\n%s", field, got, want, raw)
		}
	}
	checkEnquiry(t, p, c.ServerTransID, want)
}

// checkEnquiry checks the enquiry of a Visa transaction after its challenge.
func checkEnquiry(t *testing.T, p *program, id string, want outcome) {
	t.Helper()
	e := p.enquiry(t, id)
	wantECI, wantCAVVLen := "07", 0 // Visa: not authenticated
	if want.status == "Y" {
		wantECI, wantCAVVLen = "05", 28
	}
	if got := e.Str("transactionStatus"); got != want.status {
		t.Errorf("enquiry transactionStatus = %q, want %q", got, want.status)
	}
	if got := e.Str("eci"); got != wantECI {
		t.Errorf("enquiry eci = %q, want %q", got, wantECI)
	}
	if got := len(e.Str("authenticationValue")); got != wantCAVVLen {
		t.Errorf("enquiry authenticationValue %q: %d characters, want %d", e.Str("authenticationValue"), got, wantCAVVLen)
	}
	if got := e.Str("statusReason"); got != want.reason {
		t.Errorf("enquiry statusReason = %q, want %q", got, want.reason)
	}
	if got := e.Str("challengeCancel"); got != want.cancel {
		t.Errorf("enquiry challengeCancel = %q, want %q", got, want.cancel)
	}
	if t.Failed() {
		t.Logf("enquiry: %s", e.Raw)
	}
}

// TestBrowserChallenge drives the challenge flow in a real headless
// Chromium: a merchant page on another origin frames the lookup's
// challengeHtml, the tester's choice is made inside the iframe, and the
// browser posts the final CRes to the merchant.
func TestBrowserChallenge(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	shop := newMerchant(t)

	clickAction := func(action string) func(*tab) {
		return func(tb *tab) { tb.click("[data-action=" + action + "]") }
	}
	typeOTP := func(otp string) func(*tab) {
		return func(tb *tab) {
			tb.typeText("input[name=otp]", otp)
			tb.click("[data-action=otp]")
		}
	}
	tests := []struct {
		name       string
		windowSize int
		act        func(*tab)
		want       outcome
	}{
		{"pass", 3, clickAction("pass"), outcome{"Y", "", ""}},
		{"fail", 2, clickAction("fail"), outcome{"N", "01", ""}},
		{"cancel", 4, clickAction("cancel"), outcome{"N", "01", "01"}},
		{"otp", 1, typeOTP("1234"), outcome{"Y", "", ""}},
		{"wrong otp then the right one", 3, func(tb *tab) {
			typeOTP("9999")(tb)
			if got, want := tb.text("#otp-message"), "2 attempts left"; !strings.Contains(got, want) {
				t.Errorf("message after a wrong OTP = %q, want it to contain %q", got, want)
			}
			if got, want := tb.attr("input[name=otp]", "aria-invalid"), "true"; got != want {
				t.Errorf("OTP field aria-invalid = %q, want %q", got, want)
			}
			typeOTP("1234")(tb)
		}, outcome{"Y", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTab(t, browser)
			tb.frame = true
			session := "sess-" + strings.ReplaceAll(tt.name, " ", "-") + "+/=?&"
			c := lookupChallenge(t, p, shop.URL+"/notify", session, tt.windowSize)
			tb.do("open the checkout", chromedp.Navigate(shop.add(checkout{ChallengeHTML: c.HTML, WindowSize: tt.windowSize})))
			tb.waitVisible("[data-action=pass]")

			if got, want := tb.attr("body", "data-window-size"), strconv.Itoa(tt.windowSize); got != want {
				t.Errorf("challenge page data-window-size = %q, want %q", got, want)
			}
			px := windowPixels[tt.windowSize]
			if got := evalIn[int](tb, "window.innerWidth"); got != px[0] {
				t.Errorf("challenge iframe is %d pixels wide, want %d", got, px[0])
			}
			if got := evalIn[int](tb, "document.documentElement.scrollWidth"); got > px[0] {
				t.Errorf("challenge page in a %dx%d window: scrollWidth %d > %d, it scrolls horizontally", px[0], px[1], got, px[0])
			}
			if got := evalIn[int](tb, "document.documentElement.scrollHeight"); got > px[1] {
				t.Logf("challenge page in a %dx%d window: scrollHeight %d (scrolls vertically)", px[0], px[1], got)
			}
			if got, want := p.enquiry(t, c.ServerTransID).Str("transactionStatus"), "C"; got != want {
				t.Errorf("enquiry during the challenge: transactionStatus = %q, want %q", got, want)
			}
			if tt.windowSize == 2 {
				tb.screenshot("challenge-390x400.png", "iframe#challenge")
			}

			tt.act(tb)
			n := shop.wait(t, tb.ctx)
			tb.waitVisible("#notified")
			checkNotification(t, p, c, n, tt.want)
		})
	}

	t.Run("hosted challenge URL", func(t *testing.T) {
		tb := newTab(t, browser)
		c := lookupChallenge(t, p, shop.URL+"/notify", "hosted-session", 3)
		tb.do("open hostedChallengeUrl", chromedp.Navigate(c.HostedURL))
		tb.click("[data-action=pass]")
		n := shop.wait(t, tb.ctx)
		tb.waitVisible("#notified")
		checkNotification(t, p, c, n, outcome{"Y", "", ""})
	})

	t.Run("no notificationUrl ends on the result page", func(t *testing.T) {
		tb := newTab(t, browser)
		tb.frame = true
		c := lookupChallenge(t, p, "", "result-session", 5)
		tb.do("open the checkout", chromedp.Navigate(shop.add(checkout{ChallengeHTML: c.HTML, WindowSize: 5})))
		tb.waitVisible("[data-action=pass]")
		if got, want := tb.attr("body", "data-window-size"), "5"; got != want {
			t.Errorf("challenge page data-window-size = %q, want %q", got, want)
		}
		tb.do("size the viewport", chromedp.EmulateViewport(1024, 600))
		tb.screenshot("challenge-full.png", "")
		tb.click("[data-action=pass]")
		for sel, want := range map[string]string{
			"#status b": "Y",
			"dd.eci":    "05",
			".trans-id": c.ServerTransID,
		} {
			if got := tb.text(sel); got != want {
				t.Errorf("result page %s = %q, want %q", sel, got, want)
			}
		}
		// The page never shows the authentication value: only the
		// enquiry does (evalIn fails the test unless the check holds).
		evalIn[bool](tb, `document.querySelectorAll("dd.cavv").length === 0 && !document.body.textContent.includes("Authentication value")`)
		if got, want := tb.text("pre.cres"), `"transStatus": "Y"`; !strings.Contains(got, want) {
			t.Errorf("result page CRes lacks %s:\n%s", want, got)
		}
		tb.do("size the viewport", chromedp.EmulateViewport(1024, 860))
		tb.screenshot("result.png", "")
		checkEnquiry(t, p, c.ServerTransID, outcome{"Y", "", ""})
		select {
		case n := <-shop.notified:
			t.Errorf("the merchant received %+v, want nothing (notificationUrl was null)", n)
		default:
		}
	})
}
