//go:build full

package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// captureShop is a merchant that captures device data as the real
// service's checkout does: its server chooses the ddcId and signs the
// JWT with its API key; its page auto-submits the hidden form into a
// hidden iframe at the sandbox's /V2/ddcCollect, listens for the
// profile.completed message, and its callbackUrl receives the outcome.
type captureShop struct {
	URL     string
	sandbox string
	page    *template.Template // the checkout page, of a capturePage

	mu        sync.Mutex
	pages     map[string]capturePage
	callbacks chan url.Values
}

// capturePage is a checkout page's capture form.
type capturePage struct {
	Collect, Callback, Sandbox string
	Card, DDCID, JWT           string
}

// captureForm is the hidden iframe and form of a checkout page, as the
// real service's DDC page shows them.
const captureForm = `<iframe id="ddc" name="ddc-frame" title="Device data capture" hidden></iframe>
<form id="ddc-form" method="post" action="{{.Collect}}" target="ddc-frame" hidden>
<input type="hidden" name="bin" value="{{.Card}}">
<input type="hidden" name="callbackUrl" value="{{.Callback}}">
<input type="hidden" name="ddcId" value="{{.DDCID}}">
<input type="hidden" name="jwt" value="{{.JWT}}">
</form>
`

var capturePageTemplate = template.Must(template.New("capture").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Example Shop: device data capture</title>
</head>
<body>
<h1>Example Shop</h1>
<p>Device data: <b id="profile">capturing</b></p>
` + captureForm + `<script>
(function(){
var sandbox = {{.Sandbox}}, ddcId = {{.DDCID}};
window.addEventListener("message", function(e) {
  if (e.origin !== sandbox || typeof e.data !== "string") { return; }
  var m = JSON.parse(e.data); // as Cardinal Cruise's pages tell merchants
  if (m.MessageType !== "profile.completed" || m.Payload.SessionId !== ddcId) { return; }
  var p = document.getElementById("profile");
  p.setAttribute("data-status", String(m.Status));
  p.setAttribute("data-action-code", m.Payload.ActionCode);
  p.textContent = m.Status ? "completed, threeDSCompInd " + m.threeDSCompInd : "failed, " + m.errorCode;
});
document.getElementById("ddc-form").submit();
})();
</script>
</body>
</html>
`))

func newCaptureShop(t *testing.T, sandbox string) *captureShop {
	t.Helper()
	return newCaptureShopWith(t, sandbox, capturePageTemplate)
}

// newCaptureShopWith is a captureShop whose checkout page is page.
func newCaptureShopWith(t *testing.T, sandbox string, page *template.Template) *captureShop {
	t.Helper()
	s := &captureShop{sandbox: sandbox, page: page, pages: map[string]capturePage{}, callbacks: make(chan url.Values, 8)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /checkout/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		p, ok := s.pages[r.PathValue("id")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = s.page.Execute(w, p)
	})
	// The callbackUrl: the capture's iframe lands here with the outcome.
	mux.HandleFunc("POST /ddc-callback", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.callbacks <- r.PostForm
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>noted</title></head><body>noted</body></html>`)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// randomID is a UUID, as the shop's server makes its ddcIds and JWT ids.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// checkout makes a checkout page for card: a new ddcId and a JWT of
// merchant iss signed with key. It returns the page's URL and the ddcId.
func (s *captureShop) checkout(t *testing.T, card, iss, key string) (string, string) {
	t.Helper()
	ddcID := randomID()
	tok, err := jws.Sign([]byte(key), "", map[string]any{
		"jti": randomID(), "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "iss": iss,
		"OrgUnitId": "org-example-shop", "ReferenceId": ddcID,
		"Payload": map[string]any{"OrderDetails": map[string]any{"OrderNumber": "order-" + ddcID[:8], "Amount": "4999", "CurrencyCode": "978"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[ddcID] = capturePage{Collect: s.sandbox + "/V2/ddcCollect", Callback: s.URL + "/ddc-callback", Sandbox: origin(s.sandbox),
		Card: card, DDCID: ddcID, JWT: tok}
	return s.URL + "/checkout/" + ddcID, ddcID
}

// callback waits for the outcome posted to the callbackUrl.
func (s *captureShop) callback(t *testing.T, tb *tab) url.Values {
	t.Helper()
	select {
	case v := <-s.callbacks:
		return v
	case <-tb.ctx.Done():
		t.Fatal("the capture never notified the callbackUrl")
	}
	return nil
}

// origin is the scheme://host[:port] of u.
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// accessToken gets a token of the sandbox's token endpoint for client id.
func accessToken(t *testing.T, sandbox, id, secret string) string {
	t.Helper()
	resp, err := http.PostForm(sandbox+"/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	tok, _, _ := strings.Cut(strings.TrimPrefix(string(b), `{"access_token":"`), `"`)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(tok, "eyJ") {
		t.Fatalf("token: HTTP %d %s", resp.StatusCode, b)
	}
	return tok
}

// TestBrowserDeviceDataCapture runs the real service's device data
// capture in headless Chromium: a merchant's page (its own ddcId, its own
// HS256 JWT, a real hidden iframe) posts to /V2/ddcCollect, the 3DS
// Method runs, the callbackUrl and the page hear the outcome, and the
// merchant's lookup with that ddcId under --strict-ddc continues the
// capture with threeDSCompInd settled. A JWT with a bad signature
// delivers the error outcome the same ways.
func TestBrowserDeviceDataCapture(t *testing.T) {
	t.Parallel()
	const shopID, shopKey = "example-shop", "example-shop-api-key-0123456789"
	browser := newBrowser(t)
	p := startDefault(t, "--strict-ddc", "--merchants", shopID+":"+shopKey)
	shop := newCaptureShop(t, p.URL)
	token := accessToken(t, p.URL, shopID, shopKey)

	t.Run("the capture notifies, the lookup continues it", func(t *testing.T) {
		tb := newTab(t, browser)
		const card = "4000000000009409" // its 3DS Method completes in 1s
		page, ddcID := shop.checkout(t, card, shopID, shopKey)
		tb.do("open the checkout", chromedp.Navigate(page))
		cb := shop.callback(t, tb)
		if cb.Get("ddcId") != ddcID || cb.Get("status") != "completed" || cb.Get("threeDSCompInd") != "Y" || cb.Get("threeDsServerTransId") == "" {
			t.Fatalf("callback %v", cb)
		}
		tb.waitVisible(`#profile[data-status="true"]`)
		if got := tb.text("#profile"); got != "completed, threeDSCompInd Y" {
			t.Errorf("the page heard %q", got)
		}
		lookup := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, testkit.LookupBody(t, card, func(m map[string]any) {
			m["ddcId"] = ddcID
			delete(m, "threeDSCompInd")
		}))
		if lookup.Status != http.StatusOK || lookup.Str("threeDsServerTransId") != cb.Get("threeDsServerTransId") || lookup.Str("status") != "Y" {
			t.Fatalf("lookup: HTTP %d %s", lookup.Status, lookup.Raw)
		}
		enq := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", token, map[string]any{"threeDsServerTransId": lookup.Str("threeDsServerTransId")})
		method, _ := enq.Body["threeDSMethod"].(map[string]any)
		if enq.Str("threeDSCompInd") != "Y" || enq.Str("ddcId") != ddcID || method["completedAt"] == nil {
			t.Errorf("enquiry %s", enq.Raw)
		}
		// Another namespace cannot claim the merchant's capture.
		other := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, card, func(m map[string]any) { m["ddcId"] = ddcID }))
		if other.Status != http.StatusNotFound {
			t.Errorf("another token's lookup of the capture: HTTP %d", other.Status)
		}
	})

	// A clean start (DELETE /admin/transactions) leaves the capture
	// working: its 3DS Method runs, and the lookup continues it.
	t.Run("after a clean start", func(t *testing.T) {
		if r := testkit.Call(t, http.MethodDelete, p.URL+"/admin/transactions", token, nil); r.Status != http.StatusNoContent {
			t.Fatalf("DELETE /admin/transactions: HTTP %d %s", r.Status, r.Raw)
		}
		tb := newTab(t, browser)
		const card = "4000000000009409"
		page, ddcID := shop.checkout(t, card, shopID, shopKey)
		tb.do("open the checkout", chromedp.Navigate(page))
		cb := shop.callback(t, tb)
		if cb.Get("status") != "completed" || cb.Get("threeDSCompInd") != "Y" {
			t.Fatalf("callback after a clean start %v", cb)
		}
		tb.waitVisible(`#profile[data-status="true"]`)
		lookup := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, testkit.LookupBody(t, card, func(m map[string]any) {
			m["ddcId"] = ddcID
			delete(m, "threeDSCompInd")
		}))
		if lookup.Status != http.StatusOK || lookup.Str("threeDsServerTransId") != cb.Get("threeDsServerTransId") {
			t.Fatalf("lookup after a clean start: HTTP %d %s, want the capture's %s", lookup.Status, lookup.Raw, cb.Get("threeDsServerTransId"))
		}
	})

	t.Run("a bad signature delivers an error outcome", func(t *testing.T) {
		tb := newTab(t, browser)
		page, ddcID := shop.checkout(t, "4000000000009409", shopID, "not-the-api-key-of-the-shop")
		tb.do("open the checkout", chromedp.Navigate(page))
		cb := shop.callback(t, tb)
		if cb.Get("ddcId") != ddcID || cb.Get("status") != "failed" || cb.Get("errorCode") != "DC01" || cb.Get("emvErrorCode") != "303" ||
			!strings.Contains(cb.Get("error"), "signature") {
			t.Fatalf("callback %v", cb)
		}
		tb.waitVisible(`#profile[data-status="false"]`)
		if got := tb.text("#profile"); got != "failed, DC01" {
			t.Errorf("the page heard %q", got)
		}
		lookup := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, testkit.LookupBody(t, "4000000000009409", func(m map[string]any) { m["ddcId"] = ddcID }))
		if lookup.Status != http.StatusNotFound || lookup.Str("errorCode") != "TX01" {
			t.Errorf("lookup of a refused capture under --strict-ddc: HTTP %d %s", lookup.Status, lookup.Raw)
		}
	})
}
