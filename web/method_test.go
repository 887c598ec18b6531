package web_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// ddcBody is a device data collection request for card.
func ddcBody(card string) map[string]any {
	return map[string]any{
		"card":                         map[string]any{"cardNumber": card},
		"threeDSMethodNotificationURL": "https://merchant.example/3ds/method-notify",
		"externalReferenceId":          "order-42",
	}
}

func (e *env) ddc(token string, body any) result {
	e.t.Helper()
	return e.call(http.MethodPost, "/authentication/ddc", token, body)
}

// TestDDC checks the collection's answer for a card with a method, one
// without, and the flow through /acs/method and /acs/method/done to the
// lookup and the enquiry.
func TestDDC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.ddc("tok", ddcBody("4000000000009409"))
	if r.Status != http.StatusOK {
		t.Fatalf("ddc: %d %s", r.Status, r.Raw)
	}
	id := r.Str("threeDsServerTransId")
	if !canonicalUUID.MatchString(id) || r.Str("ddcId") != "ddc-"+id || r.Str("externalReferenceId") != "order-42" {
		t.Fatalf("ids: %s", r.Raw)
	}
	if r.Str("threeDSMethodUrl") != e.URL+"/acs/method" || r.Str("threeDSCompInd") != "" {
		t.Errorf("method URL %q, threeDSCompInd %q", r.Str("threeDSMethodUrl"), r.Str("threeDSCompInd"))
	}
	if r.Header.Get("X-Scenario-Id") != "visa-method-y" {
		t.Errorf("X-Scenario-Id %q", r.Header.Get("X-Scenario-Id"))
	}
	page := r.Str("threeDSMethodHtml")
	fields := formFields(page)
	if got := actionRe.FindStringSubmatch(page); got == nil || got[1] != e.URL+"/acs/method" || fields["threeDSMethodData"] != r.Str("threeDSMethodData") {
		t.Fatalf("threeDSMethodHtml does not post threeDSMethodData to the method URL:\n%s", page)
	}
	raw, err := base64.RawURLEncoding.DecodeString(fields["threeDSMethodData"])
	if err != nil || string(raw) != `{"threeDSServerTransID":"`+id+`","threeDSMethodNotificationURL":"https://merchant.example/3ds/method-notify"}` {
		t.Errorf("threeDSMethodData %s, %v", raw, err)
	}

	// The iframe posts it: the method page waits, then posts to done.
	m := e.form("/acs/method", url.Values{"threeDSMethodData": {fields["threeDSMethodData"]}})
	if m.Status != http.StatusOK || !strings.HasPrefix(m.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("method page: %d %s", m.Status, m.Raw)
	}
	if got := actionRe.FindStringSubmatch(m.Raw); got == nil || got[1] != e.URL+"/acs/method/done" {
		t.Fatalf("method page does not post to /acs/method/done:\n%s", m.Raw)
	}
	if !regexp.MustCompile(`setTimeout\(go,\s*1000\s*\)`).MatchString(m.Raw) {
		t.Errorf("the method page does not wait the scenario's 1s:\n%s", m.Raw)
	}
	if csp := m.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") {
		t.Errorf("the method page cannot be framed by the merchant: %s", csp)
	}
	e.Clock.Advance(time.Second)
	done := e.form("/acs/method/done", url.Values{"threeDSMethodData": {formFields(m.Raw)["threeDSMethodData"]}})
	if got := actionRe.FindStringSubmatch(done.Raw); done.Status != http.StatusOK || got == nil || got[1] != "https://merchant.example/3ds/method-notify" {
		t.Fatalf("done page does not post to the notification URL: %d\n%s", done.Status, done.Raw)
	}
	raw, _ = base64.RawURLEncoding.DecodeString(formFields(done.Raw)["threeDSMethodData"])
	if string(raw) != `{"threeDSServerTransID":"`+id+`"}` {
		t.Errorf("notification threeDSMethodData %s, want only the transaction id", raw)
	}

	l := e.lookup("tok", testkit.LookupBody(t, "4000000000009409", func(b map[string]any) {
		b["ddcId"], b["threeDSCompInd"] = "ddc-"+id, "Y"
	}))
	if l.Status != http.StatusOK || l.Str("threeDsServerTransId") != id || l.Str("status") != "Y" {
		t.Fatalf("lookup does not continue the collection: %s", l.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
	method, _ := q.Body["threeDSMethod"].(map[string]any)
	if q.Str("ddcId") != "ddc-"+id || q.Str("threeDSCompInd") != "Y" || method["available"] != true ||
		method["startedAt"] == nil || method["completedAt"] == nil || method["requestorCompInd"] != "Y" {
		t.Errorf("enquiry: %s", q.Raw)
	}

	// A card whose ACS has no method: no URL, no page, threeDSCompInd U.
	n := e.ddc("tok", ddcBody("4000000000009425"))
	if n.Status != http.StatusOK || n.Str("threeDSMethodUrl") != "" || n.Str("threeDSMethodHtml") != "" || n.Str("threeDSCompInd") != "U" {
		t.Errorf("no-method card: %s", n.Raw)
	}
}

// TestDDCRefuses checks the error bodies of the collection request.
func TestDDCRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	without := func(key string) map[string]any { b := ddcBody("4000000000009409"); delete(b, key); return b }
	with := func(key string, v any) map[string]any { b := ddcBody("4000000000009409"); b[key] = v; return b }
	tests := []struct {
		name   string
		token  string
		body   any
		status int
		emv    string
		detail string
	}{
		{"no token", "", ddcBody("4000000000009409"), 401, "", ""},
		{"not JSON", "tok", "card=4000000000009409", 400, "101", ""},
		{"no card", "tok", without("card"), 400, "201", "card"},
		{"no notification URL", "tok", without("threeDSMethodNotificationURL"), 400, "201", "threeDSMethodNotificationURL"},
		{"relative notification URL", "tok", with("threeDSMethodNotificationURL", "/notify"), 400, "203", "threeDSMethodNotificationURL"},
		{"notification URL too long", "tok", with("threeDSMethodNotificationURL", "https://m.example/"+strings.Repeat("a", 2048)), 400, "203", "threeDSMethodNotificationURL"},
		{"bad card number", "tok", with("card", map[string]any{"cardNumber": "4000-0000-0000-9409"}), 400, "203", "card.cardNumber"},
		{"reference too long", "tok", with("externalReferenceId", strings.Repeat("r", 51)), 400, "203", "externalReferenceId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.ddc(tt.token, tt.body)
			if tt.emv == "" {
				if r.Status != tt.status {
					t.Errorf("status %d, want %d: %s", r.Status, tt.status, r.Raw)
				}
				return
			}
			checkErrorBody(t, r, tt.status, tt.emv)
			if !strings.Contains(r.EMV("emvErrorDetail"), tt.detail) {
				t.Errorf("emvErrorDetail %q, want it to name %s", r.EMV("emvErrorDetail"), tt.detail)
			}
		})
	}
}

// TestMethodErrorPages checks every error page of /acs/method and
// /acs/method/done: an HTML page with a fitting status naming the EMV code.
func TestMethodErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.ddc("tok", ddcBody("4000000000009409"))
	id := c.Str("threeDsServerTransId")
	none := e.ddc("tok", ddcBody("4000000000009425")).Str("threeDsServerTransId")
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	enc := message.EncodeMethodData
	tests := []struct {
		name, path, data string
		status           int
		emv, says        string
	}{
		{"missing data", "/acs/method", "", 400, "201", "threeDSMethodData is missing"},
		{"bad Base64", "/acs/method", "%%%not-base64%%%", 400, "203", "not Base64Url"},
		{"bad JSON", "/acs/method", b64("{threeDSServerTransID}"), 400, "203", "not a JSON object"},
		{"no transaction id", "/acs/method", b64(`{"threeDSMethodNotificationURL":"https://m.example/n"}`), 400, "201", "no threeDSServerTransID"},
		{"unknown transaction", "/acs/method", enc(message.MethodData{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", NotificationURL: "https://m.example/n"}), 404, "301", "no device data collection"},
		{"missing notification URL", "/acs/method", enc(message.MethodData{ThreeDSServerTransID: id}), 400, "201", "no threeDSMethodNotificationURL"},
		{"bad notification URL", "/acs/method", enc(message.MethodData{ThreeDSServerTransID: id, NotificationURL: "ftp://m.example/n"}), 400, "203", "not an absolute http or https URL"},
		{"ACS without a method", "/acs/method", enc(message.MethodData{ThreeDSServerTransID: none, NotificationURL: "https://m.example/n"}), 409, "305", "has no 3DS Method"},
		{"done before the start", "/acs/method/done", enc(message.MethodData{ThreeDSServerTransID: id}), 409, "305", "never started"},
		{"done of an unknown transaction", "/acs/method/done", enc(message.MethodData{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}), 404, "301", "no device data collection"},
		{"done without data", "/acs/method/done", "", 400, "201", "threeDSMethodData is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.form(tt.path, url.Values{"threeDSMethodData": {tt.data}})
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Raw)
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Errorf("Content-Type %q, want an HTML page", r.Header.Get("Content-Type"))
			}
			if !strings.Contains(r.Raw, tt.emv) || !strings.Contains(r.Raw, tt.says) {
				t.Errorf("page does not name EMV %s and say %q:\n%s", tt.emv, tt.says, r.Raw)
			}
		})
	}
	// A GET is not the method URL's way in.
	req, _ := http.NewRequest(http.MethodGet, e.URL+"/acs/method", nil)
	req.Header.Set("Accept", "text/html")
	if r := e.do(req); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET /acs/method: %d", r.Status)
	}
}

// TestLookupStrictDDC checks --strict-ddc over HTTP: an unknown ddcId is
// 404/301, a reused one 409/305; without it both are accepted.
func TestLookupStrictDDC(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		e := newEnv(t, func(o *envOptions) { o.strictDDC = strict })
		c := e.ddc("tok", ddcBody("4000000000009409"))
		body := func(ddc string) map[string]any {
			return testkit.LookupBody(t, "4000000000009409", func(b map[string]any) { b["ddcId"] = ddc })
		}
		if r := e.lookup("tok", body(c.Str("ddcId"))); r.Status != http.StatusOK || r.Str("threeDsServerTransId") != c.Str("threeDsServerTransId") {
			t.Fatalf("strict=%v: first lookup %s", strict, r.Raw)
		}
		unknown, reused := e.lookup("tok", body("ddc-unknown")), e.lookup("tok", body(c.Str("ddcId")))
		if !strict {
			if unknown.Status != http.StatusOK || reused.Status != http.StatusOK || reused.Str("threeDsServerTransId") == c.Str("threeDsServerTransId") {
				t.Errorf("lenient: unknown %d, reused %s", unknown.Status, reused.Raw)
			}
			continue
		}
		checkErrorBody(t, unknown, http.StatusNotFound, "301")
		checkErrorBody(t, reused, http.StatusConflict, "305")
		if unknown.EMV("emvErrorDetail") != "ddcId" || reused.EMV("emvErrorDetail") != "ddcId" {
			t.Errorf("details %q %q, want ddcId", unknown.EMV("emvErrorDetail"), reused.EMV("emvErrorDetail"))
		}
	}
}

// TestLookupOtherCardDDC: a collection continues only its own card's
// lookup over HTTP; another card's is a new transaction, or 409/305
// under --strict-ddc.
func TestLookupOtherCardDDC(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		e := newEnv(t, func(o *envOptions) { o.strictDDC = strict })
		c := e.ddc("tok", ddcBody("4000000000009409"))
		other := e.lookup("tok", testkit.LookupBody(t, "4000000000009433", func(b map[string]any) { b["ddcId"] = c.Str("ddcId") }))
		if strict {
			checkErrorBody(t, other, http.StatusConflict, "305")
			if other.EMV("emvErrorDetail") != "card.cardNumber,ddcId" || !strings.Contains(other.Str("error"), "400000******9409") {
				t.Errorf("strict: %s", other.Raw)
			}
		} else if other.Status != http.StatusOK || other.Str("threeDsServerTransId") == c.Str("threeDsServerTransId") {
			t.Errorf("lenient: another card's lookup %s", other.Raw)
		}
		own := e.lookup("tok", testkit.LookupBody(t, "4000000000009409", func(b map[string]any) { b["ddcId"] = c.Str("ddcId") }))
		if own.Status != http.StatusOK || own.Str("threeDsServerTransId") != c.Str("threeDsServerTransId") {
			t.Errorf("strict=%v: the card's own lookup after it: %s", strict, own.Raw)
		}
	}
}

// TestLookupThreeDSCompInd checks the lookup's threeDSCompInd field.
func TestLookupThreeDSCompInd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.lookup("tok", testkit.LookupBody(t, "4000000000009433", func(b map[string]any) { b["threeDSCompInd"] = "X" }))
	checkErrorBody(t, r, http.StatusBadRequest, "203")
	if r.EMV("emvErrorDetail") != "threeDSCompInd" {
		t.Errorf("detail %q", r.EMV("emvErrorDetail"))
	}
	// Without a collection, the Requestor's value selects the scenario.
	for ind, want := range map[string]string{"N": "C", "Y": "Y", "U": "Y"} {
		r := e.lookup("tok", testkit.LookupBody(t, "4000000000009433", func(b map[string]any) { b["threeDSCompInd"] = ind }))
		if r.Str("status") != want {
			t.Errorf("threeDSCompInd %s: status %s, want %s", ind, r.Str("status"), want)
		}
	}
}
