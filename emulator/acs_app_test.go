package emulator_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// sdk plays an app's 3DS SDK against the engine's ACS.
type sdk struct {
	f *fixture
	// acsEngine answers the CReqs: the fixture's engine, or another sharing
	// its store.
	acsEngine *emulator.Engine
	key       []byte
	enc       string
	id, acs   string
	sdkTrans  string
	version   string
	counter   int
	// screen is the last interim screen the ACS answered.
	screen *emulator.AppScreen
}

// appChallenge makes the challenge of the scenario id an app-channel
// one, as the app lookup leaves it: the exchange key agreed with a test
// SDK's ephemeral key and sealed by the engine, UI type ui.
func (f *fixture) appChallenge(scenario, ui, enc string) *sdk {
	f.t.Helper()
	resp := f.lookup(f.card(scenario), nil)
	if resp.Status != "C" {
		f.t.Fatalf("lookup %s: status %s, want C", scenario, resp.Status)
	}
	sdkPriv, _ := ecdh.P256().GenerateKey(rand.Reader)
	acsPriv, _ := ecdh.P256().GenerateKey(rand.Reader)
	const ref = "3DS_LOA_SDK_STIN_020200_00961"
	key, err := jose.DeriveKey(acsPriv, sdkPriv.PublicKey(), ref)
	if err != nil {
		f.t.Fatal(err)
	}
	sealed, err := f.SealAppKey(key, resp.ACSTransID)
	if err != nil {
		f.t.Fatal(err)
	}
	s := &sdk{f: f, acsEngine: f.Engine, key: key, enc: enc, id: resp.ThreeDSServerTransID, acs: resp.ACSTransID, sdkTrans: "6f0a4a3e-2b1c-4c5d-9e8f-0a1b2c3d4e5f", version: resp.Version}
	var store state.Store = f.store
	if f.shared != nil {
		store = f.shared
	}
	_, err = store.Update(context.Background(), s.id, func(t *state.Transaction) error {
		t.Channel = state.ChannelApp
		t.App = state.AppState{SDKTransID: s.sdkTrans, SDKReferenceNumber: ref, SealedKey: sealed, UIType: ui, Interface: "01", MaxTimeout: 5}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// creq is the next CReq with the entries extra.
func (s *sdk) creq(extra map[string]any) map[string]any {
	m := map[string]any{"threeDSServerTransID": s.id, "acsTransID": s.acs, "sdkTransID": s.sdkTrans,
		"messageType": "CReq", "messageVersion": s.version, "sdkCounterStoA": fmt.Sprintf("%03d", s.counter)}
	maps.Copy(m, extra)
	return m
}

// post encrypts m as the SDK does and posts it; it returns the decrypted
// CRes, or the Erro, as a map, and whether it was a CRes. A CRes
// advances the SDK's counter.
func (s *sdk) post(m map[string]any) (map[string]any, bool) {
	s.f.t.Helper()
	plain, _ := json.Marshal(m)
	body, err := jose.EncryptDirect(plain, s.key, s.enc, s.acs, jose.SDKToACS, uint8(s.counter))
	if err != nil {
		s.f.t.Fatal(err)
	}
	return s.postRaw(body)
}

func (s *sdk) postRaw(body []byte) (map[string]any, bool) {
	s.f.t.Helper()
	ctx := context.Background()
	x := s.acsEngine.AppCReq(ctx, body)
	s.screen = x.Screen
	if x.Screen != nil {
		x = s.acsEngine.SealCRes(ctx, x, message.AppCRes{ChallengeInfoHeader: "h"})
	}
	out := map[string]any{}
	if x.ContentType == emulator.ContentTypeJSON {
		if err := json.Unmarshal(x.Body, &out); err != nil {
			s.f.t.Fatalf("Erro %q: %v", x.Body, err)
		}
		return out, false
	}
	jwe, err := jose.ParseJWE(x.Body)
	if err != nil {
		s.f.t.Fatalf("CRes %q: %v", x.Body, err)
	}
	if jwe.Header.Kid != s.acs || jwe.Header.Enc != s.enc {
		s.f.t.Errorf("CRes header %+v: want kid %s, enc %s", jwe.Header, s.acs, s.enc)
	}
	plain, err := jwe.DecryptDirect(s.key, jose.ACSToSDK)
	if err != nil {
		s.f.t.Fatal(err)
	}
	if err := json.Unmarshal(plain, &out); err != nil {
		s.f.t.Fatal(err)
	}
	if got, want := out["acsCounterAtoS"], fmt.Sprintf("%03d", s.counter); got != want {
		s.f.t.Errorf("acsCounterAtoS = %v, want %s", got, want)
	}
	s.counter++
	return out, true
}

// mustCRes posts m and wants a CRes with challengeCompletionInd done.
func (s *sdk) mustCRes(m map[string]any, done string) map[string]any {
	s.f.t.Helper()
	out, ok := s.post(m)
	if !ok {
		s.f.t.Fatalf("CReq %v: Erro %v", m, out)
	}
	if out["challengeCompletionInd"] != done {
		s.f.t.Fatalf("CRes %v: challengeCompletionInd, want %s", out, done)
	}
	return out
}

// finalKeys are the only members Android takes in a final CRes.
var finalKeys = map[string]bool{"threeDSServerTransID": true, "acsCounterAtoS": true, "acsTransID": true, "challengeCompletionInd": true,
	"messageExtension": true, "messageType": true, "messageVersion": true, "sdkTransID": true, "transStatus": true}

// TestAppChallengeUITypes drives every style through pass, fail (three
// wrong answers, or the app declining), cancel and the SDK's own cancel,
// with both encs, and asks the enquiry after each.
func TestAppChallengeUITypes(t *testing.T) {
	type run struct {
		name    string
		entries []map[string]any // after the first CReq; the last ends it
		status  string           // the enquiry's
		reason  string
		cancel  string
	}
	wrong := map[string]any{"challengeDataEntry": "9876"}
	cancel := []map[string]any{{"challengeCancel": "01"}}
	tests := []struct {
		scenario, ui string
		runs         []run
	}{
		{"visa-challenge", "01", []run{
			{"pass", []map[string]any{{"challengeDataEntry": "1234"}}, "Y", "", ""},
			{"resend then pass", []map[string]any{{"resendChallenge": "Y"}, {"challengeDataEntry": "1234"}}, "Y", "", ""},
			{"three wrong", []map[string]any{wrong, {"challengeNoEntry": "Y"}, wrong}, "N", "19", ""},
			{"cancel", cancel, "N", "01", "01"},
			{"sdk timeout", []map[string]any{{"challengeCancel": "08"}}, "N", "14", "08"},
		}},
		{"visa-challenge-password", "01", []run{
			{"pass", []map[string]any{{"challengeDataEntry": "Tr0ub4dor!"}}, "Y", "", ""},
			{"three wrong", []map[string]any{wrong, wrong, wrong}, "N", "19", ""},
			{"cancel", cancel, "N", "01", "01"},
		}},
		{"visa-challenge-oob", "04", []run{
			{"not yet, then cancel", []map[string]any{{"oobContinue": true}, {"challengeCancel": "06"}}, "N", "01", "06"},
		}},
		{"visa-challenge-select", "02", []run{
			{"cancel", cancel, "N", "01", "01"},
			{"three wrong", []map[string]any{{"challengeNoEntry": "Y"}, {"challengeNoEntry": "Y"}, {"challengeNoEntry": "Y"}}, "N", "19", ""},
		}},
		{"visa-challenge-multiselect", "03", []run{
			{"cancel", cancel, "N", "01", "01"},
		}},
	}
	for _, tt := range tests {
		for _, r := range tt.runs {
			for _, enc := range []string{jose.A128CBCHS256, jose.A128GCM} {
				t.Run(tt.scenario+"/"+r.name+"/"+enc, func(t *testing.T) {
					f := newFixture(t)
					s := f.appChallenge(tt.scenario, tt.ui, enc)
					first := s.mustCRes(s.creq(nil), "N")
					if first["acsUiType"] != tt.ui {
						t.Errorf("acsUiType = %v, want %s", first["acsUiType"], tt.ui)
					}
					for i, e := range r.entries {
						done := "N"
						if i == len(r.entries)-1 {
							done = "Y"
						}
						out := s.mustCRes(s.creq(e), done)
						if done == "Y" {
							for k := range out {
								if !finalKeys[k] {
									t.Errorf("final CRes has %s, which Android refuses", k)
								}
							}
							want := r.status
							if want != "Y" {
								want = "N"
							}
							if out["transStatus"] != want {
								t.Errorf("transStatus = %v, want %s", out["transStatus"], want)
							}
						}
					}
					enq := f.enquiry(s.id)
					if enq.TransactionStatus != r.status || enq.StatusReason != r.reason || enq.ChallengeCancel != r.cancel {
						t.Errorf("enquiry %s/%s/%s, want %s/%s/%s", enq.TransactionStatus, enq.StatusReason, enq.ChallengeCancel, r.status, r.reason, r.cancel)
					}
					if out, ok := s.post(s.creq(map[string]any{"challengeDataEntry": "1234"})); ok || out["errorCode"] != "305" {
						t.Errorf("a CReq after the end: %v, want Erro 305", out)
					}
				})
			}
		}
	}
}

// TestAppSelectPasses answers a question by the key of
// challengeSelectInfo (from 1, in the screen's order) of its answer.
func TestAppSelectPasses(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge-select", "02", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	q, ok := s.screen.View.Style.(emulator.SelectView)
	if !ok || len(q.Answers) != 1 {
		t.Fatalf("screen %+v: want a question with one answer", s.screen)
	}
	key := slices.Index(q.Choices, q.Answers[0]) + 1
	if out := s.mustCRes(s.creq(map[string]any{"challengeDataEntry": fmt.Sprint(key)}), "Y"); out["transStatus"] != "Y" {
		t.Fatalf("key %d of %v: %v", key, q.Choices, out)
	}
	s = f.appChallenge("visa-challenge-multiselect", "03", jose.A128CBCHS256)
	s.mustCRes(s.creq(nil), "N")
	q = s.screen.View.Style.(emulator.SelectView)
	var keys []string
	for _, a := range q.Answers {
		keys = append(keys, fmt.Sprint(slices.Index(q.Choices, a)+1))
	}
	if out := s.mustCRes(s.creq(map[string]any{"challengeDataEntry": strings.Join(keys, ",")}), "Y"); out["transStatus"] != "Y" {
		t.Fatalf("keys %v of %v: %v", keys, q.Choices, out)
	}
}

// TestAppCReqErro: each CReq the ACS cannot take gets its Erro, and
// leaves the transaction as it was: the next good CReq still counts 000.
func TestAppCReqErro(t *testing.T) {
	tests := []struct {
		name string
		body func(s *sdk) []byte
		code string
	}{
		{"not a JWE", func(*sdk) []byte { return []byte("hello") }, "101"},
		{"alg", func(s *sdk) []byte { return withHeader(s, `{"alg":"A128KW","enc":"A128GCM","kid":"`+s.acs+`"}`) }, "203"},
		{"enc", func(s *sdk) []byte { return withHeader(s, `{"alg":"dir","enc":"A256CBC-HS512","kid":"`+s.acs+`"}`) }, "203"},
		{"unknown kid", func(s *sdk) []byte {
			b, _ := jose.EncryptDirect([]byte("{}"), s.key, s.enc, "8d0c5f84-7d3e-4b2c-9a1b-2c3d4e5f6a7b", jose.SDKToACS, 0)
			return b
		}, "301"},
		{"wrong key", func(s *sdk) []byte {
			b, _ := jose.EncryptDirect([]byte("{}"), make([]byte, 32), s.enc, s.acs, jose.SDKToACS, 0)
			return b
		}, "302"},
		{"not an object", func(s *sdk) []byte { return s.seal([]byte(`[1]`)) }, "101"},
		{"missing counter", func(s *sdk) []byte { m := s.creq(nil); delete(m, "sdkCounterStoA"); return s.sealJSON(m) }, "201"},
		{"bad counter", func(s *sdk) []byte { return s.sealJSON(s.creq(map[string]any{"sdkCounterStoA": "0"})) }, "203"},
		{"bad cancel", func(s *sdk) []byte { return s.sealJSON(s.creq(map[string]any{"challengeCancel": "04"})) }, "203"},
		{"two entries", func(s *sdk) []byte {
			return s.sealJSON(s.creq(map[string]any{"challengeDataEntry": "1", "resendChallenge": "Y"}))
		}, "203"},
		{"messageType", func(s *sdk) []byte { return s.sealJSON(s.creq(map[string]any{"messageType": "CRes"})) }, "101"},
		{"messageVersion", func(s *sdk) []byte { return s.sealJSON(s.creq(map[string]any{"messageVersion": "2.1.0"})) }, "102"},
		{"sdkTransID", func(s *sdk) []byte {
			return s.sealJSON(s.creq(map[string]any{"sdkTransID": "11111111-2222-4333-8444-555555555555"}))
		}, "301"},
		{"jump", func(s *sdk) []byte { return s.sealJSON(s.creq(map[string]any{"sdkCounterStoA": "001"})) }, "302"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.appChallenge("visa-challenge", "01", jose.A128CBCHS256)
			before, _ := f.store.Get(context.Background(), s.id)
			out, ok := s.postRaw(tt.body(s))
			if ok || out["errorCode"] != tt.code || out["messageType"] != "Erro" || out["errorComponent"] != "A" {
				t.Fatalf("answer %v, want Erro %s", out, tt.code)
			}
			after, _ := f.store.Get(context.Background(), s.id)
			if after.App != before.App || after.Phase != before.Phase {
				t.Errorf("the Erro changed the transaction: %+v -> %+v", before.App, after.App)
			}
			s.mustCRes(s.creq(nil), "N")
		})
	}
}

func withHeader(s *sdk, header string) []byte {
	b, _ := jose.EncryptDirect([]byte("{}"), s.key, s.enc, s.acs, jose.SDKToACS, 0)
	parts := strings.SplitN(string(b), ".", 2)
	return []byte(b64(header) + "." + parts[1])
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func (s *sdk) seal(plain []byte) []byte {
	b, _ := jose.EncryptDirect(plain, s.key, s.enc, s.acs, jose.SDKToACS, uint8(s.counter))
	return b
}

func (s *sdk) sealJSON(m map[string]any) []byte {
	plain, _ := json.Marshal(m)
	return s.seal(plain)
}

// TestAppReplay: a CReq sent again (a replay) is refused with 302 and
// changes nothing; the exchange goes on.
func TestAppReplay(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge", "01", jose.A128GCM)
	first := s.creq(nil)
	s.mustCRes(first, "N")
	s.counter--
	if out, ok := s.post(first); ok || out["errorCode"] != "302" || out["errorDetail"] != "sdkCounterStoA" {
		t.Fatalf("replay: %v, want Erro 302 on sdkCounterStoA", out)
	}
	s.counter++
	s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "1234"}), "Y")
	if got := f.enquiry(s.id).TransactionStatus; got != "Y" {
		t.Errorf("status %s, want Y", got)
	}
}

// TestAppTimeouts: the ACS's windows close the exchange by the
// namespace's clock, for every UI type: a late CReq answers 402.
func TestAppTimeouts(t *testing.T) {
	styles := map[string]string{"visa-challenge": "01", "visa-challenge-password": "01", "visa-challenge-select": "02",
		"visa-challenge-multiselect": "03", "visa-challenge-oob": "04"}
	for scenario, ui := range styles {
		for _, tt := range []struct {
			name   string
			opened bool
			cancel string
		}{{"first CReq", false, "05"}, {"challenge", true, "04"}} {
			t.Run(scenario+"/"+tt.name, func(t *testing.T) {
				f := newFixture(t)
				s := f.appChallenge(scenario, ui, jose.A128GCM)
				if tt.opened {
					s.mustCRes(s.creq(nil), "N")
				}
				f.clock.Advance(time.Hour)
				if out, ok := s.post(s.creq(nil)); ok || out["errorCode"] != "402" {
					t.Fatalf("late CReq: %v, want Erro 402", out)
				}
				enq := f.enquiry(s.id)
				if enq.TransactionStatus != "N" || enq.StatusReason != "14" || enq.ChallengeCancel != tt.cancel {
					t.Errorf("enquiry %s/%s/%s, want N/14/%s", enq.TransactionStatus, enq.StatusReason, enq.ChallengeCancel, tt.cancel)
				}
			})
		}
	}
}

// TestAppEntryNotOfTheStyle: an entry the challenge's style does not
// take is an Erro 203 naming the member, and uses nothing up.
func TestAppEntryNotOfTheStyle(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge-select", "02", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	for entry, member := range map[string]string{"resendChallenge": "resendChallenge", "challengeDataEntry": "challengeDataEntry"} {
		value := any("Y")
		if entry == "challengeDataEntry" {
			value = "9" // no such key
		}
		if out, ok := s.post(s.creq(map[string]any{entry: value})); ok || out["errorCode"] != "203" || out["errorDetail"] != member {
			t.Errorf("%s: %v, want Erro 203 on %s", entry, out, member)
		}
	}
	s.mustCRes(s.creq(map[string]any{"challengeCancel": "01"}), "Y")
	if got := f.enquiry(s.id).InteractionCounter; got != "00" {
		t.Errorf("interactionCounter %s, want 00: the refused entries counted", got)
	}
}

// TestAppSDKErro: the SDK's Erro ends the challenge U, 07, 06 and the
// enquiry names it; an Erro for no transaction answers 301.
func TestAppSDKErro(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge", "01", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	erro := fmt.Sprintf(`{"messageType":"Erro","messageVersion":%q,"errorCode":"201","errorComponent":"C","errorDescription":"missing","errorDetail":"challengeInfoHeader","errorMessageType":"CRes","threeDSServerTransID":%q,"acsTransID":%q,"sdkTransID":%q}`, s.version, s.id, s.acs, s.sdkTrans)
	if x := f.AppSDKErro(context.Background(), []byte(erro)); len(x.Body) != 0 {
		t.Fatalf("answer %q, want none", x.Body)
	}
	enq := f.enquiry(s.id)
	if enq.TransactionStatus != "U" || enq.StatusReason != "07" || enq.ChallengeCancel != "06" || !strings.Contains(enq.ReasonDesc, "Erro 201") {
		t.Errorf("enquiry %s/%s/%s %q", enq.TransactionStatus, enq.StatusReason, enq.ChallengeCancel, enq.ReasonDesc)
	}
	unknown := strings.ReplaceAll(erro, s.acs, "8d0c5f84-7d3e-4b2c-9a1b-2c3d4e5f6a7b")
	x := f.AppSDKErro(context.Background(), []byte(unknown))
	var out map[string]any
	if err := json.Unmarshal(x.Body, &out); err != nil || out["errorCode"] != "301" {
		t.Errorf("Erro for no transaction: %q, want our Erro 301", x.Body)
	}
}

// TestAppFaults: the scenario's appFault shows in the CRes.
func TestAppFaults(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-app-fault-extra-final-key", "01", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	if out := s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "1234"}), "Y"); out["acsUiType"] != "01" {
		t.Errorf("extraFinalKey: final CRes %v has no acsUiType", out)
	}
	s = f.appChallenge("visa-app-fault-missing-field", "01", jose.A128GCM)
	if out := s.mustCRes(s.creq(nil), "N"); out["challengeInfoHeader"] != nil {
		t.Errorf("missingField: CRes has challengeInfoHeader")
	}
	s = f.appChallenge("visa-app-fault-erro", "01", jose.A128GCM)
	if out, ok := s.post(s.creq(nil)); ok || out["errorCode"] != "403" {
		t.Errorf("erro: %v, want Erro 403", out)
	}
	s = f.appChallenge("visa-app-fault-not-jwe", "01", jose.A128GCM)
	x := f.AppCReq(context.Background(), s.sealJSON(s.creq(nil)))
	if _, err := jose.ParseJWE(x.Body); err == nil || x.ContentType != emulator.ContentTypeJOSE {
		t.Errorf("notJWE: %q is a JWE", x.Body)
	}
}
