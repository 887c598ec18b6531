package web_test

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// appLookup posts body to the app lookup, at path (default
// /authentication/app).
func (e *env) appLookup(token string, body any, path ...string) result {
	e.t.Helper()
	p := "/authentication/app"
	if len(path) > 0 {
		p = path[0]
	}
	return e.call(http.MethodPost, p, token, body)
}

// appBody is the app lookup of card by s, encrypted to directory server
// ds.
func (e *env) appBody(s *testkit.SDK, card, ds string, mutate func(map[string]any)) map[string]any {
	e.t.Helper()
	server, ok := e.Engine.Directory().ForID(ds)
	if !ok {
		e.t.Fatalf("no directory server %s", ds)
	}
	return s.AppBody(e.t, card, server.EncryptionKey, server.ID, mutate)
}

// TestAppRulesOverHTTP sends every row of the app lookup's validation
// table (the shared rows and its own) to POST /authentication/app.
func TestAppRulesOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base, err := wiretest.AppBase(testkit.LookupJSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range wiretest.AppRules() {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			r := e.appLookup("tok", json.RawMessage(body))
			checkErrorBody(t, r, http.StatusBadRequest, tt.EMVCode)
			if got := r.EMV("emvErrorDetail"); got != tt.Field {
				t.Errorf("emvErrorDetail = %q, want %q", got, tt.Field)
			}
		})
	}
}

// TestAppLookupOverHTTP: the app lookup's answers and refusals as a
// merchant's backend sees them.
func TestAppLookupOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := testkit.NewSDK(t)
	challenge := e.card("visa-challenge")

	for _, path := range []string{"/authentication/app", "/authentication/app/"} {
		r := e.appLookup("tok", e.appBody(s, challenge, "A000000003", nil), path)
		if r.Status != http.StatusOK || r.Str("status") != "C" || r.Str("sdkTransId") != wiretest.SDKTransID || r.Str("acsSignedContent") == "" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		for _, absent := range []string{"challengeHtml", "hostedChallengeUrl", "eci", "authenticationValue"} {
			if _, ok := r.Body[absent]; ok {
				t.Errorf("%s: the answer has %s: %s", path, absent, r.Raw)
			}
		}
		rt, _ := r.Body["acsRenderingType"].(map[string]any)
		if rt["acsInterface"] != "01" || rt["acsUiTemplate"] != "01" {
			t.Errorf("acsRenderingType = %v", r.Body["acsRenderingType"])
		}
		if r.Header.Get("X-Scenario-Id") != "visa-challenge" {
			t.Errorf("X-Scenario-Id = %q", r.Header.Get("X-Scenario-Id"))
		}
		// The JWS verifies against the published roots of the server.
		jws, err := jose.ParseJWS([]byte(r.Str("acsSignedContent")))
		if err != nil {
			t.Fatal(err)
		}
		server, _ := e.Engine.Directory().ForID("A000000003")
		roots := x509.NewCertPool()
		for _, c := range server.Roots {
			roots.AddCert(c)
		}
		if _, err := jws.Verify(roots, e.Clock.Now()); err != nil {
			t.Errorf("acsSignedContent: %v", err)
		}
		var p struct{ ACSURL string }
		if err := json.Unmarshal(jws.Payload, &p); err != nil || p.ACSURL != e.URL+"/acs/sdk" {
			t.Errorf("acsURL %q (%v), want %s/acs/sdk", p.ACSURL, err, e.URL)
		}
		if q := enquiryOf(e, r); q.Str("transactionStatus") != "C" || q.Str("sdkTransId") != wiretest.SDKTransID {
			t.Errorf("enquiry: %s", q.Raw)
		}
	}

	r := e.appLookup("tok", e.appBody(s, e.card("visa-frictionless-y"), "A000000003", nil))
	if r.Status != http.StatusOK || r.Str("status") != "Y" || r.Str("eci") != "05" || r.Str("sdkTransId") != wiretest.SDKTransID {
		t.Errorf("frictionless: %s", r.Raw)
	}
	if _, ok := r.Body["acsSignedContent"]; ok {
		t.Errorf("frictionless with acsSignedContent: %s", r.Raw)
	}

	r = e.appLookup("tok", e.appBody(s, challenge, "A000000003", func(m map[string]any) {
		enc := m["sdkEncData"].(string)
		i := strings.LastIndexByte(enc, '.') + 1
		flip := "A"
		if enc[i] == 'A' {
			flip = "B"
		}
		m["sdkEncData"] = enc[:i] + flip + enc[i+1:]
	}))
	checkErrorBody(t, r, http.StatusBadRequest, "302")
	if r.Str("errorCode") != "SD01" || r.EMV("emvErrorComponent") != "D" || r.EMV("emvErrorDetail") != "sdkEncData" {
		t.Errorf("altered sdkEncData: %s", r.Raw)
	}

	r = e.lookup("tok", testkit.LookupBody(t, challenge, func(m map[string]any) { m["deviceChannel"] = 1 }))
	checkErrorBody(t, r, http.StatusBadRequest, "203")
	if r.Str("errorCode") != "CH01" || !strings.Contains(r.Str("error"), "/authentication/app") {
		t.Errorf("deviceChannel 1 on the browser path: %s", r.Raw)
	}
	r = e.appLookup("tok", testkit.LookupBody(t, challenge, nil))
	if r.Status != http.StatusBadRequest || r.EMV("emvErrorCode") != "201" || !strings.Contains(r.Raw, "deviceChannel 2 (browser) is served on /authentication/brw") {
		t.Errorf("a browser body on the app path: %s", r.Raw)
	}
	if r := e.appLookup("", e.appBody(s, challenge, "A000000003", nil)); r.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %d", r.Status)
	}
	req := testkit.Request(t, http.MethodPost, e.URL+"/authentication/app", "tok", map[string]any{})
	req.Header.Set("Content-Type", "text/plain")
	if r := e.do(req); r.Status != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d", r.Status)
	}
}

// TestOpenAPIAppLookup: the app lookup's requests and answers, challenge,
// frictionless, N for an SDK that renders nothing of the challenge, and
// refused, conform to the served OpenAPI document.
func TestOpenAPIAppLookup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := newContract(t, e)
	s := testkit.NewSDK(t)
	for _, tt := range []struct {
		name, scenario string
		mutate         func(map[string]any)
		status         int
	}{
		{"challenge", "visa-challenge", nil, http.StatusOK},
		{"html challenge, the key as a string", "visa-app-html", func(m map[string]any) {
			b, _ := json.Marshal(m["sdkEphemPubKey"])
			m["sdkEphemPubKey"] = string(b)
		}, http.StatusOK},
		{"frictionless", "visa-frictionless-y", nil, http.StatusOK},
		{"an SDK that renders no OOB", "visa-challenge-oob", func(m map[string]any) {
			m["deviceRenderOptions"] = map[string]any{"sdkInterface": "01", "sdkUiType": []string{"01"}}
		}, http.StatusOK},
		{"sdkEncData to an unknown key", "visa-challenge", func(m map[string]any) {
			m["sdkEncData"] = "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMTI4Q0JDLUhTMjU2Iiwia2lkIjoibm9ib2R5In0.a2V5.aXY.Y3Q.dGFn"
		}, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := *c
			c.t = t
			r := c.send(api(http.MethodPost, "/authentication/app", e.appBody(s, e.card(tt.scenario), "A000000003", tt.mutate)), true)
			if r.Status != tt.status {
				t.Errorf("status %d, want %d: %s", r.Status, tt.status, r.Raw)
			}
			if r.Status == http.StatusOK {
				q := c.send(api(http.MethodPost, "/enquiry/", map[string]string{"threeDsServerTransId": r.Str("threeDsServerTransId")}), true)
				if q.Str("sdkTransId") != wiretest.SDKTransID {
					t.Errorf("enquiry: %s", q.Raw)
				}
			}
		})
	}
}

// TestAppTransactionAfterTheLookup: an app challenge finished headlessly
// shows in the automation API as every lookup does, with its channel, the
// lookup event's device information masked, and ?wait=final's answer.
func TestAppTransactionAfterTheLookup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal = true })
	r := e.appLookup("tok", e.appBody(testkit.NewSDK(t), e.card("visa-challenge"), "A000000003", nil))
	id := r.Str("threeDsServerTransId")
	if r.Status != http.StatusOK || r.Str("status") != "C" {
		t.Fatalf("app lookup: %s", r.Raw)
	}
	if done := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]string{"action": "pass"}); done.Status != http.StatusOK {
		t.Fatalf("headless pass: %s", done.Raw)
	}
	w := e.call(http.MethodGet, "/admin/transactions/"+id+"?wait=final&timeout=5s", "tok", nil)
	if w.Status != http.StatusOK || w.Str("status") != "Y" || w.Str("channel") != "app" || w.Body["final"] != true {
		t.Fatalf("?wait=final: %s", w.Raw)
	}
	if !strings.Contains(w.Raw, `\"C009\":\"(masked)\"`) || strings.Contains(w.Raw, "Jane's Pixel") || !strings.Contains(w.Raw, "acsUiType 01") {
		t.Errorf("the lookup event's device information: %s", w.Raw)
	}
	list := e.call(http.MethodGet, "/admin/transactions", "tok", nil)
	if !strings.Contains(list.Raw, `"channel":"app"`) {
		t.Errorf("the listing does not name the channel: %s", list.Raw)
	}
	if q := e.enquiry("tok", map[string]string{"threeDsServerTransId": id}); q.Str("transactionStatus") != "Y" || q.Str("eci") != "05" ||
		q.Str("sdkTransId") != wiretest.SDKTransID {
		t.Errorf("enquiry: %s", q.Raw)
	}
}

// enquiryOf is the enquiry of the lookup answered r.
func enquiryOf(e *env, r result) result {
	e.t.Helper()
	return e.enquiry("tok", map[string]string{"threeDsServerTransId": r.Str("threeDsServerTransId")})
}
