package web_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// appSDK plays an app's 3DS SDK over HTTP against the sandbox's acsURL.
type appSDK struct {
	e                   *env
	key                 []byte
	id, acs, sdkTransID string
	version             string
	counter             int
}

// sealAppKey seals an exchange key as the engine does under the app key
// it derives from the seed when none is given (emulator/keyseal.go): the
// app lookup is not in these tests yet, so they make its transactions.
func sealAppKey(t *testing.T, seed uint64, key []byte, acsTransID string) string {
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seed)
	appKey, err := hkdf.Key(sha256.New, s[:], nil, "threeds-sandbox app key from seed", 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(appKey)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return string(aead.Seal(nonce, nonce, key, []byte(acsTransID)))
}

// newAppEnv is an env with a journal whose store the test reaches.
func newAppEnv(t *testing.T) (*env, *state.Store) {
	t.Helper()
	var store state.Store
	e := newEnv(t, withJournal, func(o *envOptions) { o.state = func(p *stateParts) { store = p.Store } })
	return e, &store
}

// appChallenge looks card up in language lang and turns its challenge
// into an app-channel one of acsUiType ui, as the app lookup leaves it.
func appChallenge(t *testing.T, e *env, store state.Store, card, ui, lang string) *appSDK {
	t.Helper()
	r := e.lookup("tok", testkit.LookupBody(t, card, func(m map[string]any) {
		if bi, ok := m["browserInfo"].(map[string]any); ok {
			bi["language"] = lang
		}
	}))
	if r.Str("status") != "C" {
		t.Fatalf("lookup %s: %s", card, r.Raw)
	}
	sdkPriv, _ := ecdh.P256().GenerateKey(rand.Reader)
	acsPriv, _ := ecdh.P256().GenerateKey(rand.Reader)
	key, err := jose.DeriveKey(acsPriv, sdkPriv.PublicKey(), "3DS_LOA_SDK_STIN_020100_00142")
	if err != nil {
		t.Fatal(err)
	}
	s := &appSDK{e: e, key: key, id: r.Str("threeDsServerTransId"), acs: r.Str("acsTransId"), sdkTransID: "0f9e8d7c-6b5a-4c3d-8e1f-a0b1c2d3e4f5", version: r.Str("version")}
	sealed := sealAppKey(t, 7, key, s.acs)
	if _, err := store.Update(context.Background(), s.id, func(tx *state.Transaction) error {
		tx.Channel = state.ChannelApp
		tx.App = state.AppState{SDKTransID: s.sdkTransID, SDKReferenceNumber: "3DS_LOA_SDK_STIN_020100_00142", SealedKey: sealed, UIType: ui, Interface: "01", MaxTimeout: 5}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// post sends the next CReq with entries and returns the decrypted CRes.
func (s *appSDK) post(t *testing.T, entries map[string]any) map[string]any {
	t.Helper()
	m := map[string]any{"threeDSServerTransID": s.id, "acsTransID": s.acs, "sdkTransID": s.sdkTransID,
		"messageType": "CReq", "messageVersion": s.version, "sdkCounterStoA": fmt.Sprintf("%03d", s.counter)}
	for k, v := range entries {
		m[k] = v
	}
	plain, _ := json.Marshal(m)
	body, err := jose.EncryptDirect(plain, s.key, jose.A128CBCHS256, s.acs, jose.SDKToACS, uint8(s.counter))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.e.URL+"/acs/sdk", "application/jose; charset=UTF-8", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/jose; charset=UTF-8" {
		t.Fatalf("CReq %03d: %d %s %s", s.counter, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	jwe, err := jose.ParseJWE(raw)
	if err != nil {
		t.Fatal(err)
	}
	plain, err = jwe.DecryptDirect(s.key, jose.ACSToSDK)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(plain, &out); err != nil {
		t.Fatal(err)
	}
	s.counter++
	return out
}

// TestAppCResPerUIType: each UI type's first CRes has every member the
// SDKs need (reference section 5), in the cardholder's language, with
// images that are served.
func TestAppCResPerUIType(t *testing.T) {
	t.Parallel()
	e, store := newAppEnv(t)
	common := []string{"challengeInfoHeader", "challengeInfoText", "whyInfoLabel", "whyInfoText", "expandInfoLabel", "expandInfoText", "challengeAddInfo", "issuerImage", "psImage"}
	tests := []struct {
		scenario, ui string
		want         []string
	}{
		{"visa-challenge", "01", []string{"challengeInfoLabel", "submitAuthenticationLabel", "resendInformationLabel"}},
		{"visa-challenge-password", "01", []string{"challengeInfoLabel", "submitAuthenticationLabel"}},
		{"visa-challenge-select", "02", []string{"challengeInfoLabel", "submitAuthenticationLabel", "challengeSelectInfo"}},
		{"visa-challenge-multiselect", "03", []string{"challengeInfoLabel", "submitAuthenticationLabel", "challengeSelectInfo"}},
		{"visa-challenge-oob", "04", []string{"oobContinueLabel", "oobAppURL", "oobAppLabel"}},
		{"visa-challenge-trust", "01", []string{"whitelistingInfoText"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			s := appChallenge(t, e, *store, e.card(tt.scenario), tt.ui, "th-TH")
			out := s.post(t, nil)
			if out["acsUiType"] != tt.ui || out["challengeCompletionInd"] != "N" || out["acsCounterAtoS"] != "000" {
				t.Errorf("CRes %v", out)
			}
			for _, k := range append(common, tt.want...) {
				if v, ok := out[k]; !ok || v == "" {
					t.Errorf("CRes lacks %s: %v", k, out)
				}
			}
			if out["challengeInfoHeader"] != "ยืนยันการซื้อของคุณ" {
				t.Errorf("challengeInfoHeader %v, want the Thai text", out["challengeInfoHeader"])
			}
			img := out["psImage"].(map[string]any)["medium"].(string)
			resp, err := http.Get(img)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
				t.Errorf("psImage %s: %d", img, resp.StatusCode)
			}
		})
	}
}

// TestAppExchangeOverHTTP: an otp challenge in German through a wrong
// code, a resend and the right code; the enquiry says Y and the journal
// keeps each CReq and CRes decrypted, a protocol trace.
func TestAppExchangeOverHTTP(t *testing.T) {
	t.Parallel()
	e, store := newAppEnv(t)
	s := appChallenge(t, e, *store, e.card("visa-challenge"), "01", "de-DE")
	s.post(t, nil)
	wrong := s.post(t, map[string]any{"challengeDataEntry": "9876"})
	if wrong["challengeInfoTextIndicator"] != "Y" || wrong["challengeInfoText"] != "Falscher Code. Noch 2 Versuche." {
		t.Errorf("after a wrong code: %v", wrong)
	}
	s.post(t, map[string]any{"resendChallenge": "Y"})
	final := s.post(t, map[string]any{"challengeDataEntry": "1234"})
	if final["transStatus"] != "Y" || final["challengeCompletionInd"] != "Y" || final["acsCounterAtoS"] != "003" {
		t.Errorf("final CRes %v", final)
	}
	if r := e.enquiry("tok", map[string]any{"threeDsServerTransId": s.id}); r.Str("transactionStatus") != "Y" {
		t.Errorf("enquiry %s", r.Raw)
	}
	tx, err := (*store).Get(context.Background(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	entry, ok, err := e.Journal.Get(context.Background(), tx.Namespace, s.id)
	if err != nil || !ok {
		t.Fatalf("journal: %v %v", ok, err)
	}
	var trace int
	for _, ev := range entry.Events {
		if bytes.Contains(ev.Request, []byte(`"sdkCounterStoA"`)) && bytes.Contains(ev.Response, []byte(`"acsCounterAtoS"`)) {
			trace++
		}
	}
	if trace != 4 {
		t.Errorf("the journal traces %d CReq/CRes pairs, want 4", trace)
	}
}

// TestAppHTMLOverHTTP: acsUiType 05's acsHTML is a page whose form posts
// to HTTPS://EMV3DS/challenge; its fields pass the challenge.
func TestAppHTMLOverHTTP(t *testing.T) {
	t.Parallel()
	e, store := newAppEnv(t)
	s := appChallenge(t, e, *store, e.card("visa-challenge-select"), "05", "en")
	out := s.post(t, nil)
	// docs/app-channel.md: an HTML CRes has acsHTML alone, the page
	// showing the texts; EMV's native fields do not apply.
	for k := range out {
		switch k {
		case "threeDSServerTransID", "acsTransID", "sdkTransID", "messageType", "messageVersion",
			"acsCounterAtoS", "challengeCompletionInd", "acsUiType", "acsHTML":
		default:
			t.Errorf("the HTML CRes has %s", k)
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(fmt.Sprint(out["acsHTML"]))
	if err != nil {
		t.Fatalf("acsHTML is not base64url: %v", err)
	}
	page := string(raw)
	for _, want := range []string{`action="HTTPS://EMV3DS/challenge"`, `name="choice"`, `name="action" value="cancel"`} {
		if !strings.Contains(page, want) {
			t.Errorf("acsHTML lacks %s:\n%s", want, page)
		}
	}
	final := s.post(t, map[string]any{"challengeHTMLDataEntry": "action=cancel"})
	if final["transStatus"] != "N" || final["challengeCompletionInd"] != "Y" {
		t.Errorf("final %v", final)
	}
}

// TestConsoleShowsTheAppTrace: the console's transaction page shows each
// CReq and CRes of an app exchange decrypted, open, as a protocol trace.
func TestConsoleShowsTheAppTrace(t *testing.T) {
	t.Parallel()
	var store state.Store
	c := newConsoleEnv(t, consoleOptions{state: func(p *stateParts) { store = p.Store }})
	e := &env{t: t, URL: c.URL, Server: c.Server}
	s := appChallenge(t, e, store, c.Challenge, "01", "en")
	s.post(t, nil)
	s.post(t, map[string]any{"challengeDataEntry": "1234"})
	b := c.browser()
	b.login("tok")
	p := b.get("/console/transactions/" + s.id)
	for _, kind := range []string{"creq", "cres"} {
		ev := p.Doc.Find(`li[data-kind=` + kind + `] details[open]`)
		if ev.Length() == 0 || !strings.Contains(ev.Find("summary").Text(), "CReq and CRes, decrypted") {
			t.Errorf("%s event: no open CReq/CRes trace:\n%s", kind, p.Raw)
			continue
		}
		if req := ev.Find("pre.request").Text(); !strings.Contains(req, "sdkCounterStoA") {
			t.Errorf("%s event's CReq: %s", kind, req)
		}
		if resp := ev.Find("pre.response").Text(); !strings.Contains(resp, "acsCounterAtoS") {
			t.Errorf("%s event's CRes: %s", kind, resp)
		}
	}
}
