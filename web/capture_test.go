package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

const shopCallback = "https://shop.example/3ds/ddc-callback"

// ddcJWT is the JWT a merchant's server makes for a capture: Cardinal
// Cruise's claims, issued now on the sandbox's clock, HS256 with key.
func (e *env) ddcJWT(iss, key, jti string) string {
	e.t.Helper()
	tok, err := jws.Sign([]byte(key), "", map[string]any{
		"jti": jti, "iat": e.Clock.Now().Unix(), "iss": iss, "OrgUnitId": "org-1",
		"Payload": map[string]any{"OrderDetails": map[string]any{"OrderNumber": "42"}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// capture posts the capture form as the merchant's hidden iframe does.
func (e *env) capture(bin, ddcID, jwt string) result {
	e.t.Helper()
	return e.form("/V2/ddcCollect", url.Values{"bin": {bin}, "callbackUrl": {shopCallback}, "ddcId": {ddcID}, "jwt": {jwt}})
}

// runCaptureMethod plays the browser in the capture page's nested
// iframe: the 3DS Method, its notification, after took on the clock.
func (e *env) runCaptureMethod(page result, took time.Duration) {
	e.t.Helper()
	fields := formFields(page.Raw)
	m := e.form("/acs/method", url.Values{"threeDSMethodData": {fields["threeDSMethodData"]}})
	if m.Status != http.StatusOK {
		e.t.Fatalf("method page: HTTP %d %s", m.Status, m.Raw)
	}
	e.Clock.Advance(took)
	done := e.form("/acs/method/done", url.Values{"threeDSMethodData": {formFields(m.Raw)["threeDSMethodData"]}})
	if got := actionRe.FindStringSubmatch(done.Raw); got == nil || got[1] != e.URL+"/V2/ddcCollect/method-notification" {
		e.t.Fatalf("the method notifies %v, want the 3DS server's own notification URL", got)
	}
	n := e.form("/V2/ddcCollect/method-notification", url.Values{"threeDSMethodData": {formFields(done.Raw)["threeDSMethodData"]}})
	if n.Status != http.StatusOK || !strings.Contains(n.Raw, `type:"threeds-ddc-method"`) {
		e.t.Fatalf("notification page: HTTP %d %s", n.Status, n.Raw)
	}
}

// TestCaptureForm runs the browser's capture form page by page: a
// merchant's JWT, the 3DS Method in the nested iframe, the capture's end
// posting the outcome to callbackUrl and the profile.completed message,
// then the lookup under --strict-ddc continuing the capture.
func TestCaptureForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.merchants, o.strictDDC, o.journal = shopID+":"+shopSecret, true, true
	})
	tok := e.token(shopID, shopSecret)
	const ddcID = "6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10"
	page := e.capture("4000000000009409", ddcID, e.ddcJWT(shopID, shopSecret, "jti-1"))
	if page.Status != http.StatusOK || !strings.Contains(page.Raw, "threeds-method-form") {
		t.Fatalf("capture: HTTP %d %s", page.Status, page.Raw)
	}
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors *") || !strings.Contains(csp, "frame-src 'self' "+e.URL) {
		t.Errorf("CSP %q", csp)
	}
	if got := actionRe.FindStringSubmatch(page.Raw); got == nil || got[1] != e.URL+"/acs/method" {
		t.Errorf("the method form posts to %v", got)
	}
	e.runCaptureMethod(page, time.Second)
	end := e.form("/V2/ddcCollect/complete", url.Values{"state": {formFields(page.Raw)["state"]}})
	fields := formFields(end.Raw)
	if end.Status != http.StatusOK || fields["status"] != "completed" || fields["threeDSCompInd"] != "Y" || fields["ddcId"] != ddcID {
		t.Fatalf("end: HTTP %d fields %v\n%s", end.Status, fields, end.Raw)
	}
	if got := actionRe.FindStringSubmatch(end.Raw); got == nil || got[1] != shopCallback {
		t.Errorf("the outcome is posted to %v, want callbackUrl", got)
	}
	msg := profileOf(t, end.Raw)
	if msg.MessageType != "profile.completed" || msg.Payload.ActionCode != "SUCCESS" || msg.Payload.SessionId != ddcID ||
		!msg.Status || msg.CompInd != "Y" || !strings.Contains(end.Raw, `"https://shop.example"`) {
		t.Errorf("no profile.completed message for the callback's origin: %+v\n%s", msg, end.Raw)
	}
	lookup := e.lookup(tok, testkit.LookupBody(t, "4000000000009409", func(m map[string]any) { m["ddcId"] = ddcID; delete(m, "threeDSCompInd") }))
	if lookup.Status != http.StatusOK || lookup.Str("threeDsServerTransId") != fields["threeDsServerTransId"] {
		t.Fatalf("lookup continuing the capture: HTTP %d %s", lookup.Status, lookup.Raw)
	}
	enq := e.enquiry(tok, map[string]any{"threeDsServerTransId": lookup.Str("threeDsServerTransId")})
	if enq.Str("threeDSCompInd") != "Y" || enq.Str("ddcId") != ddcID {
		t.Errorf("enquiry %s", enq.Raw)
	}
	if again := e.capture("4000000000009409", ddcID, e.ddcJWT(shopID, shopSecret, "jti-2")); !strings.Contains(again.Raw, `value="DC03"`) || again.Status != http.StatusOK {
		t.Errorf("a ddcId in use: HTTP %d", again.Status)
	}
	if forged := e.form("/V2/ddcCollect/complete", url.Values{"state": {"forged"}}); forged.Status != http.StatusBadRequest {
		t.Errorf("forged state: HTTP %d", forged.Status)
	}
}

// TestCaptureTenSeconds: a method that does not notify within ten
// seconds ends the capture with threeDSCompInd N.
func TestCaptureTenSeconds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.merchants = shopID + ":" + shopSecret })
	page := e.capture("4000000000009417", "slow-1", e.ddcJWT(shopID, shopSecret, "jti-1"))
	e.runCaptureMethod(page, 12*time.Second)
	end := e.form("/V2/ddcCollect/complete", url.Values{"state": {formFields(page.Raw)["state"]}})
	if f := formFields(end.Raw); f["threeDSCompInd"] != "N" {
		t.Errorf("after 12s: %v", f)
	}
}

// TestCaptureRefused: a bad JWT, a replayed jti or a bad form never
// crashes: the outcome page (200, as a hidden iframe expects) posts the
// failure (status failed, errorCode) to callbackUrl and tells the parent
// window, and the journal says why.
func TestCaptureRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.merchants, o.journal = shopID+":"+shopSecret, true })
	good := e.ddcJWT(shopID, shopSecret, "used")
	e.capture("4000000000009425", "first", good)
	tests := []struct {
		name string
		form url.Values
		code string
	}{
		{"bad signature", url.Values{"bin": {"400000"}, "callbackUrl": {shopCallback}, "ddcId": {"d1"}, "jwt": {e.ddcJWT(shopID, "not-the-secret-at-all", "j1")}}, "DC01"},
		{"replayed jti", url.Values{"bin": {"400000"}, "callbackUrl": {shopCallback}, "ddcId": {"d2"}, "jwt": {good}}, "DC02"},
		{"unknown merchant", url.Values{"bin": {"400000"}, "callbackUrl": {shopCallback}, "ddcId": {"d3"}, "jwt": {e.ddcJWT("stranger", shopSecret, "j3")}}, "DC01"},
		{"no bin", url.Values{"callbackUrl": {shopCallback}, "ddcId": {"d4"}, "jwt": {e.ddcJWT(shopID, shopSecret, "j4")}}, "FD01"},
		{"ddcId too long", url.Values{"bin": {"400000"}, "callbackUrl": {shopCallback}, "ddcId": {strings.Repeat("d", 37)}, "jwt": {e.ddcJWT(shopID, shopSecret, "j5")}}, "FD03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.form("/V2/ddcCollect", tt.form)
			f := formFields(r.Raw)
			if r.Status != http.StatusOK || f["status"] != "failed" || f["errorCode"] != tt.code {
				t.Fatalf("HTTP %d fields %v, want the failed outcome %s", r.Status, f, tt.code)
			}
			if got := actionRe.FindStringSubmatch(r.Raw); got == nil || got[1] != shopCallback {
				t.Errorf("the failure is posted to %v, want callbackUrl", got)
			}
			if m := profileOf(t, r.Raw); m.Status || m.Payload.ActionCode != "ERROR" || m.ErrorCode != tt.code {
				t.Errorf("the parent window is not told of the failure: %+v", m)
			}
		})
	}
	// The journal of the merchant named by iss tells why.
	list, _ := e.Journal.List(context.Background(), auth.ClientNamespace(shopID), 0)
	reasons := ""
	for _, s := range list {
		entry, _, _ := e.Journal.Get(context.Background(), auth.ClientNamespace(shopID), s.ID)
		for _, ev := range entry.Events {
			reasons += ev.Detail + "\n"
		}
	}
	for _, want := range []string{"does not verify with the secret of merchant", "jti \"used\" was used before", "bin"} {
		if !strings.Contains(reasons, want) {
			t.Errorf("the journal does not say %q:\n%s", want, reasons)
		}
	}
	// No valid callbackUrl: the page only tells the parent window.
	r := e.form("/V2/ddcCollect", url.Values{"callbackUrl": {"javascript:alert(1)"}})
	if r.Status != http.StatusOK || strings.Contains(r.Raw, `<form id="threeds-ddc-callback"`) || profileOf(t, r.Raw).Payload.ActionCode != "ERROR" {
		t.Errorf("bad callbackUrl: HTTP %d\n%s", r.Status, r.Raw)
	}
}

// TestCaptureOpenDefault: without merchant secrets any well-formed HS256
// JWT is accepted, flagged, and the first lookup naming the ddcId with a
// card of its BIN claims the capture, whatever its token.
func TestCaptureOpenDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal, o.strictDDC = true, true })
	page := e.capture("400000", "open-1", e.ddcJWT("my-api-id", "any key the merchant likes", "j1"))
	if page.Status != http.StatusOK {
		t.Fatalf("capture: HTTP %d %s", page.Status, page.Raw)
	}
	list, _ := e.Journal.List(context.Background(), auth.ClientNamespace("my-api-id"), 0)
	if len(list) != 1 {
		t.Fatalf("the merchant's namespace holds %d transactions, want the capture", len(list))
	}
	entry, _, _ := e.Journal.Get(context.Background(), auth.ClientNamespace("my-api-id"), list[0].ID)
	if !strings.Contains(entry.Events[0].Detail, "not verified") {
		t.Errorf("the unverified JWT is not flagged: %q", entry.Events[0].Detail)
	}
	lookup := e.lookup("team-token", testkit.LookupBody(t, "4000000000009409", func(m map[string]any) { m["ddcId"] = "open-1" }))
	if lookup.Status != http.StatusOK || lookup.Str("threeDsServerTransId") != list[0].ID {
		t.Fatalf("the first lookup did not claim the capture: HTTP %d %s", lookup.Status, lookup.Raw)
	}
	if r := e.lookup("other-token", testkit.LookupBody(t, "4000000000009409", func(m map[string]any) { m["ddcId"] = "open-1" })); r.Status != http.StatusNotFound {
		t.Errorf("a claimed capture, another token: HTTP %d, want 404 under --strict-ddc", r.Status)
	}
}

// token gets an access token of client id at the token endpoint.
func (e *env) token(id, secret string) string {
	e.t.Helper()
	r := e.form("/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	if r.Status != http.StatusOK {
		e.t.Fatalf("token: HTTP %d %s", r.Status, r.Raw)
	}
	return r.Str("access_token")
}

// postedMessage finds the string literal an outcome page posts to its
// parent window.
var postedMessage = regexp.MustCompile(`window\.parent\.postMessage\(("(?:[^"\\]|\\.)*"),`)

// profile is what the tests read of the profile.completed message.
type profile struct {
	MessageType string
	Payload     struct{ ActionCode, SessionId string }
	Status      bool
	StatusText  string `json:"status"` // else Status takes it too: encoding/json folds case
	CompInd     string `json:"threeDSCompInd"`
	ErrorCode   string `json:"errorCode"`
}

// profileOf is the message an outcome page posts to its parent window: a
// string (as Cruise's listeners JSON.parse it), parsed.
func profileOf(t *testing.T, raw string) profile {
	t.Helper()
	var text string
	var m profile
	lit := postedMessage.FindStringSubmatch(raw)
	if lit == nil || json.Unmarshal([]byte(lit[1]), &text) != nil || json.Unmarshal([]byte(text), &m) != nil {
		t.Fatalf("the page posts no JSON text to its parent:\n%s", raw)
	}
	return m
}
