package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// selectCard is the default Visa card whose challenge asks a question
// with one right choice (visa-challenge-select).
const selectCard = "4000000000009326"

// htmlCard is the default Visa card whose app challenge is an HTML page
// (acsUiType 05).
const htmlCard = "4000000000009607"

// demoAppAnswer is what the app view's endpoints answer.
type demoAppAnswer struct {
	Status   int             `json:"status"`
	Request  map[string]any  `json:"request"`
	Response map[string]any  `json:"response"`
	SDK      string          `json:"sdk"`
	CReq     map[string]any  `json:"creq"`
	CRes     map[string]any  `json:"cres"`
	Erro     json.RawMessage `json:"erro"`
}

// demoApp posts body to the app view's endpoint path and reads its answer.
func demoApp(t *testing.T, b *browser, path string, body any) demoAppAnswer {
	t.Helper()
	p := b.postJSON(path, body, nil)
	var a demoAppAnswer
	if err := json.Unmarshal([]byte(p.Raw), &a); p.Status != http.StatusOK || err != nil {
		t.Fatalf("POST %s: %d %s", path, p.Status, p.Raw)
	}
	return a
}

// demoAppLookup is the app view's lookup of card in locale.
func demoAppLookup(t *testing.T, b *browser, card, locale string) demoAppAnswer {
	t.Helper()
	lookup := testkit.LookupBody(t, card, func(m map[string]any) {
		for _, k := range []string{"ddcId", "threeDSCompInd", "browserInfo", "notificationUrl", "challengeWindowSize"} {
			delete(m, k)
		}
		m["deviceChannel"] = 1
		m["sdkMaxTimeout"] = "05"
		m["deviceRenderOptions"] = map[string]any{"sdkInterface": "03", "sdkUiType": []string{"01", "02", "03", "04", "05"}}
	})
	return demoApp(t, b, "/console/demo/app/lookup", map[string]any{"lookup": lookup, "locale": locale})
}

// TestConsoleDemoApp: the app view's server sends the app lookup with
// the SDK's fields and each CReq encrypted to /acs/sdk, and hands back
// each CRes decrypted, in the device's language, to the final one; the
// enquiry then tells the outcome.
func TestConsoleDemoApp(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	tests := []struct {
		name, card, locale, entry, ui, header string
		wantStatus                            string
	}{
		{"otp passes", e.Challenge, "en-US", "1234", "01", "Confirm your purchase", "Y"},
		{"otp in Thai fails with the failing code", e.Challenge, "th-TH", "0000", "01", "", "N"},
		{"select passes with the right key", selectCard, "en-US", "", "02", "Confirm your purchase", "Y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.browser()
			b.login("app-team")
			lk := demoAppLookup(t, b, tt.card, tt.locale)
			if lk.Status != http.StatusOK || lk.Response["status"] != "C" || lk.SDK == "" {
				t.Fatalf("app lookup: %d %v (sdk %q)", lk.Status, lk.Response, lk.SDK)
			}
			for _, k := range []string{"sdkAppId", "sdkTransId", "sdkReferenceNumber", "sdkEphemPubKey", "sdkEncData"} {
				if lk.Request[k] == nil {
					t.Errorf("the request sent lacks %s: %v", k, lk.Request)
				}
			}
			first := demoApp(t, b, "/console/demo/app/creq", map[string]any{"sdk": lk.SDK, "entry": map[string]any{}})
			c := first.CRes
			if c["acsUiType"] != tt.ui || c["challengeCompletionInd"] != "N" || c["acsCounterAtoS"] != "000" || first.CReq["sdkCounterStoA"] != "000" {
				t.Fatalf("first CRes %v after CReq %v", c, first.CReq)
			}
			if tt.header != "" && !strings.Contains(c["challengeInfoHeader"].(string), tt.header) {
				t.Errorf("challengeInfoHeader %q, want %q in it", c["challengeInfoHeader"], tt.header)
			}
			if tt.locale == "th-TH" && !strings.ContainsFunc(c["challengeInfoHeader"].(string), func(r rune) bool { return r >= 0x0E00 && r <= 0x0E7F }) {
				t.Errorf("challengeInfoHeader %q is not Thai", c["challengeInfoHeader"])
			}
			entry := tt.entry
			if tt.ui == "02" {
				entry = keyOf(t, c, "Chiang Mai")
			}
			final := demoApp(t, b, "/console/demo/app/creq", map[string]any{"sdk": first.SDK, "entry": map[string]any{"challengeDataEntry": entry, "acsTransID": "not taken"}})
			if tt.wantStatus == "N" && final.CRes["challengeCompletionInd"] == "N" { // a wrong code: two more tries
				for range 2 {
					final = demoApp(t, b, "/console/demo/app/creq", map[string]any{"sdk": final.SDK, "entry": map[string]any{"challengeDataEntry": entry}})
				}
			}
			if final.CRes["challengeCompletionInd"] != "Y" || final.CRes["transStatus"] != tt.wantStatus || final.CReq["acsTransID"] == "not taken" {
				t.Fatalf("final CRes %v after CReq %v", final.CRes, final.CReq)
			}
			id := lk.Response["threeDsServerTransId"].(string)
			if r := e.api("/enquiry/", "app-team", map[string]string{"threeDsServerTransId": id}); r["transactionStatus"] != tt.wantStatus {
				t.Errorf("enquiry: %v", r)
			}
		})
	}
}

// keyOf is the key of challengeSelectInfo whose label is label.
func keyOf(t *testing.T, cres map[string]any, label string) string {
	t.Helper()
	list, _ := cres["challengeSelectInfo"].([]any)
	for _, o := range list {
		for k, v := range o.(map[string]any) {
			if v == label {
				return k
			}
		}
	}
	t.Fatalf("no %q in challengeSelectInfo %v", label, list)
	return ""
}

// TestConsoleDemoAppRefusals: the app view's endpoints take only the
// console's own pages, a state they gave to the same namespace, and
// answer the API's error body; a frictionless card gives no SDK state.
func TestConsoleDemoAppRefusals(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	a, other := e.browser(), e.browser()
	a.login("team-a")
	other.login("team-b")
	if f := demoAppLookup(t, a, e.Frictionless, "en-US"); f.Status != http.StatusOK || f.Response["status"] != "Y" || f.SDK != "" {
		t.Errorf("frictionless app lookup: %d %v sdk %q", f.Status, f.Response, f.SDK)
	}
	lk := demoAppLookup(t, a, e.Challenge, "en-US")
	tests := []struct {
		name       string
		b          *browser
		path       string
		body       any
		header     map[string]string
		status     int
		errorCode  string
		detailPart string
	}{
		{"another namespace's state", other, "/console/demo/app/creq", map[string]any{"sdk": lk.SDK}, nil, http.StatusBadRequest, "", "sdk"},
		{"a forged state", a, "/console/demo/app/creq", map[string]any{"sdk": "x" + lk.SDK}, nil, http.StatusBadRequest, "", "sdk"},
		{"not JSON", a, "/console/demo/app/creq", "[", nil, http.StatusBadRequest, "", "sdk"},
		{"a lookup without its body", a, "/console/demo/app/lookup", map[string]any{"locale": "en"}, nil, http.StatusBadRequest, "", "lookup"},
		{"cross-site", a, "/console/demo/app/lookup", map[string]any{"lookup": map[string]any{}}, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "AU04", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.b.postJSON(tt.path, tt.body, tt.header)
			if p.Status != tt.status || !strings.Contains(p.Raw, `"errorCode":"`+tt.errorCode) || !strings.Contains(p.Raw, tt.detailPart) {
				t.Errorf("%d %s, want %d naming %q", p.Status, p.Raw, tt.status, tt.detailPart)
			}
		})
	}
	// A bad lookup is the API's own answer, relayed.
	bad := demoApp(t, a, "/console/demo/app/lookup", map[string]any{"lookup": map[string]any{"deviceChannel": 1}})
	if emvErr, _ := bad.Response["emvError"].(map[string]any); bad.Status != http.StatusBadRequest || emvErr["emvErrorCode"] != "201" {
		t.Errorf("bad app lookup: %d %v", bad.Status, bad.Response)
	}
}
