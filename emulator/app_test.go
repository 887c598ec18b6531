package emulator_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// newSDK is testkit's SDK.
var newSDK = testkit.NewSDK

type appSDK = testkit.SDK

// appCall is the app lookup of card as s makes it, encrypted to the
// directory server ds (its id), changed by change, and the body it
// decodes.
func (f *fixture) appCall(s *appSDK, card, ds string, change func(*message.LookupRequest)) (message.LookupRequest, []byte) {
	f.t.Helper()
	server, ok := f.Directory().ForID(ds)
	if !ok {
		f.t.Fatalf("no directory server %s", ds)
	}
	body, err := json.Marshal(s.AppBody(f.t, card, server.EncryptionKey, server.ID, nil))
	if err != nil {
		f.t.Fatal(err)
	}
	req, _, err := wire.DecodeApp(body)
	if err != nil {
		f.t.Fatalf("decode the app lookup: %v", err)
	}
	if change != nil {
		change(&req)
	}
	return req, body
}

// appLookup runs an app lookup of card from s, encrypted to ds.
func (f *fixture) appLookup(s *appSDK, card, ds string, change func(*message.LookupRequest)) (message.LookupResponse, error) {
	f.t.Helper()
	req, body := f.appCall(s, card, ds, change)
	return f.Lookup(context.Background(), ns, req, emulator.APICall{Body: body, KnownMembers: true})
}

// signedContent checks acsSignedContent against the roots of directory
// server ds and returns its payload.
func (f *fixture) signedContent(resp message.LookupResponse, ds string) (payload struct {
	ACSURL         string          `json:"acsURL"`
	ACSEphemPubKey jose.JWK        `json:"acsEphemPubKey"`
	SDKEphemPubKey json.RawMessage `json:"sdkEphemPubKey"`
}) {
	f.t.Helper()
	server, _ := f.Directory().ForID(ds)
	roots := x509.NewCertPool()
	for _, r := range server.Roots {
		roots.AddCert(r)
	}
	jws, err := jose.ParseJWS([]byte(resp.ACSSignedContent))
	if err != nil {
		f.t.Fatalf("acsSignedContent: %v", err)
	}
	if jws.Header.Alg != "ES256" || len(jws.Header.X5C) == 0 {
		f.t.Errorf("header %+v: want ES256 with x5c", jws.Header)
	}
	if _, err := jws.Verify(roots, f.clock.Now()); err != nil {
		f.t.Fatalf("acsSignedContent does not verify against %s's roots: %v", ds, err)
	}
	if err := json.Unmarshal(jws.Payload, &payload); err != nil {
		f.t.Fatal(err)
	}
	return payload
}

// TestAppLookupChallenge: a challenge card answers C with the SDK's
// transaction id, the rendering, and acsSignedContent signed under the
// directory server's roots, whose keys agree on the exchange key the
// transaction keeps sealed.
func TestAppLookupChallenge(t *testing.T) {
	f := newFixture(t)
	s := newSDK(t)
	resp, err := f.appLookup(s, f.card("visa-challenge"), "A000000003", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "C" || resp.SDKTransID != wiretest.SDKTransID || resp.Challenge != nil || resp.HostedChallengeURL != "" ||
		resp.ACSRenderingType == nil || *resp.ACSRenderingType != (message.RenderingType{Interface: "01", UITemplate: "01"}) {
		t.Fatalf("answer %+v, rendering %+v", resp, resp.ACSRenderingType)
	}
	p := f.signedContent(resp, "A000000003")
	if p.ACSURL != "https://sandbox.example/3ds/acs/sdk" {
		t.Errorf("acsURL = %s", p.ACSURL)
	}
	sdkKey, err := jose.ParseJWK(p.SDKEphemPubKey)
	if err != nil || sdkKey != jose.ECPublicJWK(s.Key.PublicKey()) {
		t.Errorf("sdkEphemPubKey echoed %s (%v)", p.SDKEphemPubKey, err)
	}
	acsPub, err := p.ACSEphemPubKey.ECPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	want, err := jose.DeriveKey(s.Key, acsPub, wiretest.SDKRef)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := f.store.Get(context.Background(), resp.ThreeDSServerTransID)
	if err != nil {
		t.Fatal(err)
	}
	a := tx.App
	if tx.Channel != state.ChannelApp || a.SDKTransID != wiretest.SDKTransID || a.SDKAppID != wiretest.SDKAppID || a.SDKReferenceNumber != wiretest.SDKRef ||
		a.Counter != 0 || a.Enc != "" || a.UIType != "01" || a.Interface != "01" || a.MaxTimeout != 5 ||
		a.Device != (state.DeviceInfo{Platform: "Android", Model: "Pixel 8", OSName: "Android", OSVersion: "15", Locale: "en-US", TimeZone: "Europe/Paris"}) {
		t.Errorf("app state %+v", a)
	}
	if strings.Contains(a.SealedKey, string(want)) {
		t.Error("the store holds the exchange key in clear")
	}
	got, err := f.ExchangeKey(context.Background(), ns, resp.ACSTransID)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("the sealed exchange key opens to %x (%v), the SDK derives %x", got, err, want)
	}
	if enq := f.enquiry(resp.ThreeDSServerTransID); enq.TransactionStatus != "C" {
		t.Errorf("enquiry: %s, want C", enq.TransactionStatus)
	}
	// A fresh ACS key per challenge.
	again, err := f.appLookup(s, f.card("visa-challenge"), "A000000003", nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := f.signedContent(again, "A000000003"); q.ACSEphemPubKey == p.ACSEphemPubKey {
		t.Error("two challenges share the ACS's ephemeral key")
	}
}

// TestAppRendering: each style's UI type, appInterface html, and what an
// SDK that cannot render the challenge gets.
func TestAppRendering(t *testing.T) {
	f := newFixture(t)
	native := func(types ...string) func(*message.LookupRequest) {
		return func(r *message.LookupRequest) {
			r.App.RenderOptions = message.DeviceRenderOptions{Interface: "01", UITypes: types}
		}
	}
	both := func(types ...string) func(*message.LookupRequest) {
		return func(r *message.LookupRequest) {
			r.App.RenderOptions = message.DeviceRenderOptions{Interface: "03", UITypes: types}
		}
	}
	tests := []struct {
		name, scenario string
		change         func(*message.LookupRequest)
		status, reason string
		iface, ui      string
	}{
		{"otp", "visa-challenge", nil, "C", "", "01", "01"},
		{"password", "mastercard-challenge-password", nil, "C", "", "01", "01"},
		{"select", "visa-challenge-select", nil, "C", "", "01", "02"},
		{"multiselect", "visa-challenge-multiselect", nil, "C", "", "01", "03"},
		{"oob", "visa-challenge-oob", nil, "C", "", "01", "04"},
		{"appInterface html", "visa-app-html", nil, "C", "", "02", "05"},
		{"select to an SDK of text and HTML: HTML", "visa-challenge-select", both("01", "05"), "C", "", "02", "05"},
		{"oob to a native SDK without OOB: N 03", "visa-challenge-oob", native("01", "02", "03", "05"), "N", "03", "", ""},
		{"html to a native-only SDK: N 03", "visa-app-html", native("01", "02", "03", "04", "05"), "N", "03", "", ""},
		{"otp to an SDK of text", "visa-challenge", native("01"), "C", "", "01", "01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.appLookup(newSDK(t), f.card(tt.scenario), "A000000003", tt.change)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.status || resp.StatusReason != tt.reason {
				t.Fatalf("got %s %q, want %s %q", resp.Status, resp.StatusReason, tt.status, tt.reason)
			}
			if tt.iface == "" {
				if resp.ACSRenderingType != nil || resp.ACSSignedContent != "" || resp.ECI == "" {
					t.Errorf("an N answer with a challenge's members: %+v", resp)
				}
				return
			}
			if rt := resp.ACSRenderingType; rt == nil || rt.Interface != tt.iface || rt.UITemplate != tt.ui {
				t.Errorf("rendering %+v, want %s/%s", rt, tt.iface, tt.ui)
			}
		})
	}
}

// TestAppFrictionless: a frictionless card answers as on the browser
// path, with the SDK's transaction id.
func TestAppFrictionless(t *testing.T) {
	f := newFixture(t)
	resp, err := f.appLookup(newSDK(t), f.card("visa-frictionless-y"), "A000000003", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "Y" || resp.ECI != "05" || resp.AuthenticationValue == "" || resp.SDKTransID != wiretest.SDKTransID ||
		resp.ACSSignedContent != "" || resp.ACSRenderingType != nil {
		t.Errorf("answer %+v", resp)
	}
}

// TestAppDevice: the locale chooses the challenge's language, the
// platform the scenario, and the lookup's event keeps the device
// information with personal data masked.
func TestAppDevice(t *testing.T) {
	f := newFixture(t)
	s := newSDK(t)
	s.Device["C005"] = "th_TH"
	card := f.card("visa-app-android-challenge")
	resp, err := f.appLookup(s, card, "A000000003", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "C" || resp.ScenarioID != "visa-app-android-challenge" {
		t.Fatalf("Android: %s by %s, want a challenge", resp.Status, resp.ScenarioID)
	}
	tx, err := f.store.Get(context.Background(), resp.ThreeDSServerTransID)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Challenge.Language != "th-TH" {
		t.Errorf("language %q, want th-TH from C005", tx.Challenge.Language)
	}
	ev := f.events.last(resp.ThreeDSServerTransID)
	detail := ev.Detail
	if !strings.Contains(string(ev.Request), `"sdkEncData":"eyJ`) || !strings.Contains(string(ev.Request), "bytes)") {
		t.Errorf("the event's copy of the request keeps sdkEncData whole, which the public test key decrypts: %s", ev.Request)
	}
	for _, want := range []string{`"C001":"Android"`, `"C002":"Pixel 8"`, `"C009":"(masked)"`, `"C010":"(masked)"`, `"A001":"(masked)"`, "A000000003", "acsUiType 01"} {
		if !strings.Contains(detail, want) {
			t.Errorf("event detail %q lacks %s", detail, want)
		}
	}
	for _, personal := range []string{"Jane's Pixel", "192.0.2.7", "356938035643809"} {
		if strings.Contains(detail, personal) {
			t.Errorf("event detail %q keeps %s", detail, personal)
		}
	}
	s.Device["C001"] = "iOS"
	if resp, err = f.appLookup(s, card, "A000000003", nil); err != nil || resp.Status != "Y" {
		t.Errorf("iOS: %+v, %v; want Y", resp.Status, err)
	}
	// The browser channel has no platform.
	if resp := f.lookup(card, nil); resp.Status != "Y" {
		t.Errorf("browser: %s, want Y", resp.Status)
	}
}

// TestAppDirectoryServers: the key the device information is encrypted
// to picks the directory server, whose roots then sign: by kid, else
// the card's scheme, else F055545342; the EC test server too.
func TestAppDirectoryServers(t *testing.T) {
	f := newFixture(t)
	card := f.card("visa-challenge")
	for _, ds := range []string{"A000000003", "F055545342", "F155545342", "A000000004"} {
		t.Run(ds, func(t *testing.T) {
			resp, err := f.appLookup(newSDK(t), card, ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			f.signedContent(resp, ds)
		})
	}
	for _, tt := range []struct{ name, card, ds string }{
		{"no kid: the card's scheme", card, "A000000003"},
		{"no kid, a scheme without a directory server: F055545342", "6799990100000000019", "F055545342"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSDK(t)
			s.NoKid = true
			resp, err := f.appLookup(s, tt.card, tt.ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status == "C" {
				f.signedContent(resp, tt.ds)
			}
		})
	}
}

// TestAppEncDataRefused: an sdkEncData that does not decrypt is refused
// with SD01, EMV 302, component D, naming sdkEncData and why; one that
// decrypts to something else than device information with 203.
func TestAppEncDataRefused(t *testing.T) {
	f := newFixture(t)
	card := f.card("visa-challenge")
	ec, _ := f.Directory().ForID("F155545342")
	header := b64url
	tests := []struct {
		name   string
		change func(*message.LookupRequest)
		code   string
		emv    string
		why    string
	}{
		{"an unknown key id", func(r *message.LookupRequest) {
			r.App.SDKEncData = header(`{"alg":"RSA-OAEP-256","enc":"A128CBC-HS256","kid":"nobody"}`) + ".a2V5.aXY.Y3Q.dGFn"
		}, "SD01", "302", `key id "nobody"`},
		{"a header that is not JSON", func(r *message.LookupRequest) {
			r.App.SDKEncData = "bm90IGpzb24.a2V5.aXY.Y3Q.dGFn"
		}, "SD01", "302", "not a compact JWE"},
		{"the tag altered", func(r *message.LookupRequest) {
			r.App.SDKEncData = flipTag(r.App.SDKEncData)
		}, "SD01", "302", "authentication tag"},
		{"an alg the key does not take", func(r *message.LookupRequest) {
			r.App.SDKEncData = header(`{"alg":"ECDH-ES","enc":"A128CBC-HS256","kid":"`+mustKid(t, f, "A000000003")+`"}`) + "..aXY.Y3Q.dGFn"
		}, "SD01", "302", "RSA-OAEP-256"},
		{"an enc not taken", func(r *message.LookupRequest) {
			r.App.SDKEncData = header(`{"alg":"RSA-OAEP-256","enc":"A192CBC-HS384","kid":"`+mustKid(t, f, "A000000003")+`"}`) + ".a2V5.aXY.Y3Q.dGFn"
		}, "SD01", "302", "A192CBC-HS384"},
		{"not device information", func(r *message.LookupRequest) {
			enc, err := jose.EncryptSDKEncData([]byte("[1,2]"), ec.EncryptionKey, ec.ID)
			if err != nil {
				t.Fatal(err)
			}
			r.App.SDKEncData = string(enc)
		}, "FD03", "203", "not the EMV device information"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.appLookup(newSDK(t), card, "A000000003", tt.change)
			e, ok := emulator.AsError(err)
			if !ok {
				t.Fatalf("err = %v, want an *emv.Error", err)
			}
			if string(e.Code) != tt.code || e.EMVCode != tt.emv || e.Detail != "sdkEncData" || !strings.Contains(e.Message, tt.why) {
				t.Errorf("got %s %s %q %q, want %s %s on sdkEncData saying %q", e.Code, e.EMVCode, e.Detail, e.Message, tt.code, tt.emv, tt.why)
			}
			if tt.code == "SD01" && e.Component != "D" {
				t.Errorf("component %s, want D", e.Component)
			}
		})
	}
}

// mustKid is the key id of directory server ds.
func mustKid(t *testing.T, f *fixture, ds string) string {
	t.Helper()
	server, ok := f.Directory().ForID(ds)
	if !ok {
		t.Fatalf("no directory server %s", ds)
	}
	return server.EncryptionKey.Kid
}

// b64url is s in base64url without padding.
func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// flipTag changes the first character of a compact JWE's tag: every
// bit of it is the tag's.
func flipTag(c string) string {
	i := strings.LastIndexByte(c, '.') + 1
	repl := byte('A')
	if c[i] == 'A' {
		repl = 'B'
	}
	return c[:i] + string(repl) + c[i+1:]
}

// TestAppRogueSignature: the fault card rogueSignature signs
// acsSignedContent with a chain the published roots do not anchor, which
// a conforming SDK refuses; the exchange key still opens, so an SDK that
// does not check is caught by the test that uses the card.
func TestAppRogueSignature(t *testing.T) {
	f := newFixture(t)
	resp, err := f.appLookup(newSDK(t), f.card("visa-app-fault-rogue-signature"), "A000000003", nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := jose.ParseJWS([]byte(resp.ACSSignedContent))
	if err != nil {
		t.Fatalf("acsSignedContent: %v", err)
	}
	for _, server := range f.Directory().Servers() {
		roots := x509.NewCertPool()
		for _, r := range server.Roots {
			roots.AddCert(r)
		}
		if _, err := jws.Verify(roots, f.clock.Now()); err == nil {
			t.Errorf("the rogue acsSignedContent verifies against %s's roots", server.ID)
		}
	}
	if _, err := f.ExchangeKey(context.Background(), ns, resp.ACSTransID); err != nil {
		t.Errorf("the exchange key: %v", err)
	}
}
