package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestAppCReqOnAnotherReplica: two engines share a Redis store and the
// app key; each CReq of one exchange goes to either, and the counters
// and the decision hold across them.
func TestAppCReqOnAnotherReplica(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	store, err := redisstore.NewStore(c, redisstore.Options{IndexKey: []byte("the tests' reference index key, 32+ bytes"), MaxAge: time.Hour, Timeout: testkit.Patience})
	if err != nil {
		t.Fatal(err)
	}
	appKey := bytes.Repeat([]byte{7}, 32)
	shared := func(cfg *emulator.Config) { cfg.AppKey = appKey }
	f := newFixture(t, shared)
	a, err := emulator.New(f.config(shared), store)
	if err != nil {
		t.Fatal(err)
	}
	b, err := emulator.New(f.config(shared), store)
	if err != nil {
		t.Fatal(err)
	}
	f.Engine, f.shared = a, store
	s := f.appChallenge("visa-challenge", "01", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	s.acsEngine = b
	s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "9876"}), "N")
	if s.screen == nil || !s.screen.WrongAnswer || s.screen.View.AttemptsLeft != 2 {
		t.Errorf("after a wrong code on the other replica: %+v", s.screen)
	}
	s.acsEngine = a
	s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "1234"}), "Y")
	if got := f.enquiry(s.id); got.TransactionStatus != "Y" || got.InteractionCounter != "02" {
		t.Errorf("enquiry %s, interactionCounter %s; want Y, 02", got.TransactionStatus, got.InteractionCounter)
	}
}

// TestAppHTMLChallenge: acsUiType 05 carries a page whose form posts to
// HTTPS://EMV3DS/challenge; its fields come back as
// challengeHTMLDataEntry.
func TestAppHTMLChallenge(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge", "05", jose.A128CBCHS256)
	if out := s.mustCRes(s.creq(nil), "N"); out["acsUiType"] != "05" {
		t.Fatalf("first CRes %v", out)
	}
	s.mustCRes(s.creq(map[string]any{"challengeHTMLDataEntry": "action=resend"}), "N")
	if out := s.mustCRes(s.creq(map[string]any{"challengeHTMLDataEntry": "entry=1234"}), "Y"); out["transStatus"] != "Y" {
		t.Errorf("final %v", out)
	}
}

// TestAppTrustPrompt: the trust answer counts only when the challenge
// authenticates.
func TestAppTrustPrompt(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge-trust", "01", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "1234", "whitelistingDataEntry": "Y"}), "Y")
	if got := f.enquiry(s.id); got.WhiteListStatus != "Y" || got.WhiteListStatusSource != "03" {
		t.Errorf("whiteListStatus %s/%s, want Y/03", got.WhiteListStatus, got.WhiteListStatusSource)
	}
	s = f.appChallenge("visa-challenge-trust", "01", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	s.mustCRes(s.creq(map[string]any{"challengeCancel": "01", "whitelistingDataEntry": "Y"}), "Y")
	if got := f.enquiry(s.id); got.WhiteListStatus != "N" {
		t.Errorf("cancelled: whiteListStatus %s, want N", got.WhiteListStatus)
	}
}

// TestAppHeadless: the headless API finishes an app challenge without an
// SDK; the SDK's next CReq then learns that it ended (305).
func TestAppHeadless(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge-oob", "04", jose.A128GCM)
	s.mustCRes(s.creq(nil), "N")
	if _, err := f.CompleteChallenge(context.Background(), ns, s.id, emulator.Choice{Action: scenarios.ActionApprove}); err != nil {
		t.Fatal(err)
	}
	if out, ok := s.post(s.creq(map[string]any{"oobContinue": "Y"})); ok || out["errorCode"] != "305" {
		t.Errorf("CReq after the headless end: %v, want Erro 305", out)
	}
	if got := f.enquiry(s.id).TransactionStatus; got != "Y" {
		t.Errorf("status %s, want Y", got)
	}
}

// TestAppFaultCRes: wrongCounter and emptyWhyInfo change only the first
// CRes; slowReply holds it in a delay slot (a short deadline cuts it).
func TestAppFaultCRes(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-app-fault-wrong-counter", "01", jose.A128GCM)
	x := f.AppCReq(context.Background(), s.sealJSON(s.creq(nil)))
	x = f.SealCRes(context.Background(), x, emulatorCRes())
	if got := decrypt(t, s, x.Body)["acsCounterAtoS"]; got != "001" {
		t.Errorf("wrongCounter: acsCounterAtoS %v, want 001", got)
	}
	s = f.appChallenge("visa-app-fault-empty-why-info", "01", jose.A128GCM)
	x = f.AppCReq(context.Background(), s.sealJSON(s.creq(nil)))
	x = f.SealCRes(context.Background(), x, emulatorCRes())
	if got, ok := decrypt(t, s, x.Body)["whyInfoText"]; !ok || got != "" {
		t.Errorf("emptyWhyInfo: whyInfoText %v", got)
	}
	s = f.appChallenge("visa-app-fault-slow-reply", "01", jose.A128GCM)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	x = f.AppCReq(ctx, s.sealJSON(s.creq(nil)))
	var erro map[string]any
	if err := json.Unmarshal(x.Body, &erro); err != nil || erro["errorCode"] != "403" {
		t.Errorf("slowReply cut short: %q, want Erro 403", x.Body)
	}
}

func emulatorCRes() (c message.AppCRes) {
	why := "why"
	c.ChallengeInfoHeader, c.WhyInfoText = "h", &why
	return c
}

func decrypt(t *testing.T, s *sdk, body []byte) map[string]any {
	t.Helper()
	jwe, err := jose.ParseJWE(body)
	if err != nil {
		t.Fatalf("%q: %v", body, err)
	}
	plain, err := jwe.DecryptDirect(s.key, jose.ACSToSDK)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	_ = json.Unmarshal(plain, &out)
	return out
}

// TestAppOOBPasses: the banking app approves at oobAppURL's page, and the
// SDK's oobContinue (Android's JSON true) ends the challenge Y.
func TestAppOOBPasses(t *testing.T) {
	f := newFixture(t)
	s := f.appChallenge("visa-challenge-oob", "04", jose.A128CBCHS256)
	s.mustCRes(s.creq(nil), "N")
	if s.screen == nil || s.screen.OOBAppURL != f.URLs().App(s.id) {
		t.Fatalf("screen %+v: want the banking app's page", s.screen)
	}
	if _, err := f.AnswerApp(context.Background(), s.id, scenarios.AppApprove); err != nil {
		t.Fatal(err)
	}
	if out := s.mustCRes(s.creq(map[string]any{"oobContinue": true}), "Y"); out["transStatus"] != "Y" {
		t.Errorf("final %v", out)
	}
	if got := f.enquiry(s.id); got.TransactionStatus != "Y" || got.InteractionCounter != "01" {
		t.Errorf("enquiry %s, interactionCounter %s", got.TransactionStatus, got.InteractionCounter)
	}
}

// TestAppWhatCounts pins what docs/app-channel.md says the app channel
// counts: a new code and a Continue (or challengeNoEntry) before the
// banking app answered use no attempt and no interaction, a new code past
// the limit is an Erro 305 that changes nothing, and a code the scenario
// names as failing ends the challenge at once.
func TestAppWhatCounts(t *testing.T) {
	t.Run("new codes, then one past the limit", func(t *testing.T) {
		f := newFixture(t)
		s := f.appChallenge("visa-challenge", "01", jose.A128GCM)
		s.mustCRes(s.creq(nil), "N")
		for range 3 {
			s.mustCRes(s.creq(map[string]any{"resendChallenge": "Y"}), "N")
			if s.screen.WrongAnswer {
				t.Error("a new code is a wrong answer")
			}
		}
		if out, ok := s.post(s.creq(map[string]any{"resendChallenge": "Y"})); ok || out["errorCode"] != "305" || out["errorDetail"] != "resendChallenge" {
			t.Fatalf("a fourth new code: %v, want Erro 305 on resendChallenge", out)
		}
		s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "1234"}), "Y") // the counter the Erro left
		if got := f.enquiry(s.id); got.TransactionStatus != "Y" || got.InteractionCounter != "01" {
			t.Errorf("enquiry %s, interactionCounter %s; want Y, 01", got.TransactionStatus, got.InteractionCounter)
		}
	})
	t.Run("a failing code ends at once", func(t *testing.T) {
		f := newFixture(t)
		s := f.appChallenge("visa-challenge", "01", jose.A128CBCHS256)
		s.mustCRes(s.creq(nil), "N")
		if out := s.mustCRes(s.creq(map[string]any{"challengeDataEntry": "0000"}), "Y"); out["transStatus"] != "N" {
			t.Errorf("final %v, want N", out)
		}
		if got := f.enquiry(s.id); got.StatusReason != "01" || got.InteractionCounter != "01" {
			t.Errorf("enquiry reason %s, interactionCounter %s; want 01, 01", got.StatusReason, got.InteractionCounter)
		}
	})
	t.Run("out of band: early Continue and no entry", func(t *testing.T) {
		f := newFixture(t)
		s := f.appChallenge("visa-challenge-oob", "04", jose.A128CBCHS256)
		s.mustCRes(s.creq(nil), "N")
		for _, early := range []map[string]any{{"oobContinue": true}, {"challengeNoEntry": "Y"}, {"oobContinue": "Y"}} {
			s.mustCRes(s.creq(early), "N")
			if s.screen.WrongAnswer {
				t.Errorf("%v before the banking app answered is a wrong answer", early)
			}
		}
		if _, err := f.AnswerApp(context.Background(), s.id, scenarios.AppApprove); err != nil {
			t.Fatal(err)
		}
		s.mustCRes(s.creq(map[string]any{"oobContinue": true}), "Y")
		if got := f.enquiry(s.id); got.TransactionStatus != "Y" || got.InteractionCounter != "01" {
			t.Errorf("enquiry %s, interactionCounter %s; want Y, 01", got.TransactionStatus, got.InteractionCounter)
		}
	})
}
