//go:build full

package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// methodShop is a merchant that runs the device data collection before the
// lookup, as a real browser integration does: its checkout page loads the
// collection's threeDSMethodHtml in a hidden iframe, waits for the method's
// notification (or 10 seconds), then asks its own server for the lookup
// with the ddcId and threeDSCompInd, and frames the challenge.
type methodShop struct {
	URL string
	// sandbox is where the shop's server sends the lookup.
	sandbox string

	pages    *checkouts[methodCheckout]
	method   chan string // threeDSMethodData of each method notification
	notified chan notification
}

// methodCheckout is a checkout page: the card and its collection.
type methodCheckout struct {
	Card       string
	DDCID      string
	MethodHTML string
}

var methodCheckoutPage = template.Must(template.New("checkout").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Example Shop: checkout with the 3DS Method</title>
<style>
body{margin:0;padding:16px;font:15px system-ui,sans-serif}
#challenge{display:block;border:0;width:500px;height:600px}
</style>
</head>
<body>
<h1>Example Shop</h1>
<p>threeDSCompInd: <b id="compind"></b>; status: <b id="status"></b></p>
<iframe id="method" title="3DS Method" hidden></iframe>
<iframe id="challenge" title="3-D Secure challenge"></iframe>
<script>
(function(){
var checkout = {{.}};
var sent = false;
function lookup(compInd) {
  if (sent) { return; }
  sent = true;
  document.getElementById("compind").textContent = compInd;
  fetch("/lookup?card=" + checkout.Card + "&ddcId=" + encodeURIComponent(checkout.DDCID) + "&compInd=" + compInd, {method: "POST"})
    .then(function(r) { return r.json(); })
    .then(function(r) {
      document.getElementById("status").textContent = r.status;
      if (r.status === "C") { document.getElementById("challenge").srcdoc = r.challengeHtml; }
    });
}
window.addEventListener("message", function(e) {
  if (e.origin === location.origin && e.data === "3ds-method-done") { lookup("Y"); }
});
if (checkout.MethodHTML) {
  document.getElementById("method").srcdoc = checkout.MethodHTML;
  setTimeout(function() { lookup("N"); }, 10000);
} else {
  lookup("U");
}
})();
</script>
</body>
</html>
`))

func newMethodShop(t *testing.T, sandbox string) *methodShop {
	t.Helper()
	s := &methodShop{sandbox: sandbox, pages: newCheckouts[methodCheckout](methodCheckoutPage),
		method: make(chan string, 8), notified: make(chan notification, 8)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /checkout/{id}", s.pages.serve)
	// The threeDSMethodNotificationURL: the hidden iframe lands here and
	// tells the checkout page, its parent.
	mux.HandleFunc("POST /method-notify", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.method <- r.PostForm.Get("threeDSMethodData")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>method done</title></head>`+
			`<body><script>parent.postMessage("3ds-method-done", location.origin);</script></body></html>`)
	})
	// The shop's server sends the lookup, as the 3DS Requestor.
	mux.HandleFunc("POST /lookup", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		body := testkit.LookupBody(t, q.Get("card"), func(m map[string]any) {
			m["ddcId"], m["threeDSCompInd"] = q.Get("ddcId"), q.Get("compInd")
			m["notificationUrl"] = s.URL + "/notify"
			m["challengeWindowSize"] = 3
		})
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, s.sandbox+"/authentication/brw", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
	mux.HandleFunc("POST /notify", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, has := r.PostForm["threeDSSessionData"]
		s.notified <- notification{CRes: r.PostForm.Get("cres"), Session: r.PostForm.Get("threeDSSessionData"), HasSess: has}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Thanks</title></head>`+
			`<body><p id="notified">Payment authenticated, thank you.</p></body></html>`)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// collect makes the device data collection of card and registers a
// checkout page for it; it returns the page's URL and the collection.
func (s *methodShop) collect(t *testing.T, p *program, card string) (string, testkit.Response) {
	t.Helper()
	r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/ddc", testToken, map[string]any{
		"card":                         map[string]any{"cardNumber": card},
		"threeDSMethodNotificationURL": s.URL + "/method-notify",
	})
	if r.Status != http.StatusOK {
		t.Fatalf("ddc: HTTP %d\n%s", r.Status, r.Raw)
	}
	page := s.pages.add(r.Str("threeDsServerTransId"), methodCheckout{Card: card, DDCID: r.Str("ddcId"), MethodHTML: r.Str("threeDSMethodHtml")})
	return s.URL + page, r
}

// TestBrowserMethod runs the 3DS Method in a real headless Chromium: the
// merchant's page loads threeDSMethodHtml in a hidden iframe, the
// emulator's method page collects and notifies the merchant's
// threeDSMethodNotificationURL, and the page then sends the lookup with
// the ddcId and does the challenge.
func TestBrowserMethod(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t, "--tokens", testToken)
	shop := newMethodShop(t, p.URL)

	t.Run("method notifies, then lookup and challenge", func(t *testing.T) {
		tb := newTab(t, browser)
		page, c := shop.collect(t, p, challengeCard)
		if c.Str("threeDSMethodUrl") != p.URL+"/acs/method" || c.Str("threeDSMethodHtml") == "" {
			t.Fatalf("collection without a method: %s", c.Raw)
		}
		tb.do("open the checkout", chromedp.Navigate(page))
		var data string
		select {
		case data = <-shop.method:
		case <-tb.ctx.Done():
			t.Fatal("the 3DS Method never notified the merchant")
		}
		raw, err := base64.RawURLEncoding.DecodeString(data)
		if want := `{"threeDSServerTransID":"` + c.Str("threeDsServerTransId") + `"}`; err != nil || string(raw) != want {
			t.Errorf("notification threeDSMethodData = %s (%v), want %s", raw, err, want)
		}
		if got := tb.text("#compind"); got != "Y" {
			t.Errorf("the page sent threeDSCompInd %q, want Y", got)
		}
		tb.frame = true
		tb.click("[data-action=pass]")
		n := shop.notifiedCRes(t, tb)
		cres, _ := base64.RawURLEncoding.DecodeString(n.CRes)
		if !strings.Contains(string(cres), `"transStatus":"Y"`) || !strings.Contains(string(cres), c.Str("threeDsServerTransId")) {
			t.Errorf("final CRes %s", cres)
		}
		e := p.enquiry(t, c.Str("threeDsServerTransId"))
		m, _ := e.Body["threeDSMethod"].(map[string]any)
		if e.Str("ddcId") != c.Str("ddcId") || e.Str("threeDSCompInd") != "Y" || m["startedAt"] == nil || m["completedAt"] == nil {
			t.Errorf("enquiry lacks the method's timeline: %s", e.Raw)
		}
	})

	t.Run("a method taking 1s: frictionless Y", func(t *testing.T) {
		tb := newTab(t, browser)
		page, c := shop.collect(t, p, "4000000000009409")
		start := time.Now()
		tb.do("open the checkout", chromedp.Navigate(page))
		select {
		case <-shop.method:
		case <-tb.ctx.Done():
			t.Fatal("the 3DS Method never notified the merchant")
		}
		if took := time.Since(start); took < time.Second {
			t.Errorf("the method notified after %s, before its 1s of collecting", took)
		}
		tb.waitVisible("#status")
		evalIn[bool](tb, `document.getElementById("status").textContent === "Y"`)
		if e := p.enquiry(t, c.Str("threeDsServerTransId")); e.Str("transactionStatus") != "Y" || e.Str("threeDSCompInd") != "Y" {
			t.Errorf("enquiry: %s", e.Raw)
		}
	})

	t.Run("a method beyond 10s: the page sends N and is challenged", func(t *testing.T) {
		tb := newTab(t, browser)
		page, c := shop.collect(t, p, "4000000000009433") // its method takes 12s
		tb.do("open the checkout", chromedp.Navigate(page))
		tb.frame = true
		tb.click("[data-action=pass]") // the lookup after 10s answered C
		shop.notifiedCRes(t, tb)
		tb.frame = false
		if got := tb.text("#compind"); got != "N" {
			t.Errorf("the page sent threeDSCompInd %q, want N", got)
		}
		e := p.enquiry(t, c.Str("threeDsServerTransId"))
		if e.Str("threeDSCompInd") != "N" || e.Str("transactionStatus") != "Y" {
			t.Errorf("enquiry: %s", e.Raw)
		}
		select { // the method still completes, after the lookup
		case <-shop.method:
		case <-tb.ctx.Done():
			t.Fatal("the slow 3DS Method never notified the merchant")
		}
		e = p.enquiry(t, c.Str("threeDsServerTransId"))
		if m, _ := e.Body["threeDSMethod"].(map[string]any); m["completedAt"] == nil || e.Str("threeDSCompInd") != "N" {
			t.Errorf("enquiry after the late completion: %s", e.Raw)
		}
	})

	t.Run("no method: threeDSCompInd U without an iframe", func(t *testing.T) {
		tb := newTab(t, browser)
		page, c := shop.collect(t, p, "4000000000009425")
		if c.Str("threeDSMethodHtml") != "" || c.Str("threeDSCompInd") != "U" {
			t.Fatalf("collection: %s", c.Raw)
		}
		tb.do("open the checkout", chromedp.Navigate(page))
		evalIn[bool](tb, `document.getElementById("status").textContent === "Y" && document.getElementById("compind").textContent === "U"`)
	})
}

// notifiedCRes waits for the final CRes the challenge posted to the shop.
func (s *methodShop) notifiedCRes(t *testing.T, tb *tab) notification {
	t.Helper()
	select {
	case n := <-s.notified:
		return n
	case <-tb.ctx.Done():
		t.Fatalf("the merchant's notificationUrl received nothing: %v", tb.ctx.Err())
		return notification{}
	}
}
