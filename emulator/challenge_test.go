package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// challengeCard asks for a challenge: 1234 passes, 0000 fails, any
// other code is wrong (three end it).
const challengeCard = "4000000000009102"

// TestTransactionIDsInAnyCase: the hosted URL, the headless API, a CReq
// and a CRes name a transaction in any case, as the enquiry does.
func TestTransactionIDsInAnyCase(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()

	hosted := f.lookup(challengeCard, nil)
	if v, err := f.OpenHostedChallenge(ctx, strings.ToUpper(hosted.ThreeDSServerTransID)); err != nil || v.ThreeDSServerTransID != hosted.ThreeDSServerTransID {
		t.Errorf("hosted challenge by the upper-case id: %+v, %v", v, err)
	}

	headless := f.lookup(challengeCard, nil)
	d, err := f.CompleteChallenge(ctx, ns, strings.ToUpper(headless.ThreeDSServerTransID), emulator.Choice{Action: "pass"})
	if err != nil || d.TransStatus != "Y" || d.Delivery.CRes.ThreeDSServerTransID != headless.ThreeDSServerTransID {
		t.Errorf("headless challenge by the upper-case id: %+v, %v", d, err)
	}

	creqOf := f.lookup(challengeCard, nil)
	creq, err := message.ParseCReq(creqOf.Challenge.CReq)
	if err != nil {
		t.Fatal(err)
	}
	creq.ThreeDSServerTransID, creq.ACSTransID = strings.ToUpper(creq.ThreeDSServerTransID), strings.ToUpper(creq.ACSTransID)
	raw, err := message.EncodeMessage(creq)
	if err != nil {
		t.Fatal(err)
	}
	upper, err := message.ParseCReq(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.OpenChallenge(ctx, upper); err != nil {
		t.Errorf("a CReq with upper-case ids: %v", err)
	}
	cres, err := message.EncodeMessage(message.CRes{ThreeDSServerTransID: strings.ToUpper(d.Delivery.CRes.ThreeDSServerTransID),
		ACSTransID: strings.ToUpper(d.Delivery.CRes.ACSTransID), MessageType: "CRes", TransStatus: "Y"})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := message.ParseCRes(cres)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.Notification(ctx, parsed); err != nil || res.Status != "Y" {
		t.Errorf("a CRes with upper-case ids: %+v, %v", res, err)
	}
}

// TestAnsweredPageRefused: the page shown before a wrong code is refused
// when posted again (305), as a page whose decision was final is, and
// spends no attempt; the page shown after it is answered.
func TestAnsweredPageRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	resp := f.lookup(challengeCard, nil)
	first := f.open(resp)
	id, acs := resp.ThreeDSServerTransID, first.ACSTransID
	step := func(v emulator.ChallengeView) *int { n := v.Step; return &n }

	d, err := f.Decide(ctx, id, acs, emulator.Choice{Action: "otp", OTP: "9999", Step: step(first)})
	if err != nil || d.Final || d.View.AttemptsLeft != 2 {
		t.Fatalf("a wrong code: %+v, %v", d, err)
	}
	_, err = f.Decide(ctx, id, acs, emulator.Choice{Action: "otp", OTP: "1234", Step: step(first)})
	if e, ok := emulator.AsError(err); !ok || e.EMVCode != "305" || e.Detail != "state" {
		t.Fatalf("the first page posted again: %v, want 305 on state", err)
	}
	if got := f.enquiry(id); got.TransactionStatus != "C" {
		t.Errorf("after the refused replay: status %s, want C", got.TransactionStatus)
	}
	second := d.View
	if d, err := f.Decide(ctx, id, acs, emulator.Choice{Action: "otp", OTP: "9999", Step: step(second)}); err != nil || d.View.AttemptsLeft != 1 {
		t.Errorf("the replay spent an attempt, or the page after the wrong code is refused: %+v, %v", d.View, err)
	}
}

// TestOTPWithoutCode: action otp without a code is a 201 naming otp, and
// no attempt: three wrong codes still end the challenge, not two.
func TestOTPWithoutCode(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.lookup(challengeCard, nil).ThreeDSServerTransID
	for _, otp := range []string{"", "  "} {
		_, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: "otp", OTP: otp})
		if e, ok := emulator.AsError(err); !ok || e.EMVCode != "201" || e.Code != emv.CodeMissingField || e.Detail != "otp" {
			t.Errorf("otp %q: %v, want 201 naming otp", otp, err)
		}
	}
	for i := 1; i <= 3; i++ {
		d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: "otp", OTP: "9999"})
		if err != nil || d.Final != (i == 3) {
			t.Fatalf("wrong code %d: final %v, %v", i, d.Final, err)
		}
	}
}

// TestReloadShowsAttemptsLeft: the challenge page opened again after a
// wrong code says how many attempts are left.
func TestReloadShowsAttemptsLeft(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup(challengeCard, nil)
	if v := f.open(resp); v.Message != "" || v.AttemptsLeft != 3 {
		t.Errorf("first page: message %q, %d left", v.Message, v.AttemptsLeft)
	}
	if _, err := f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: "otp", OTP: "9999"}); err != nil {
		t.Fatal(err)
	}
	if v := f.open(resp); !strings.Contains(v.Message, "2 attempts left") || v.AttemptsLeft != 2 {
		t.Errorf("reloaded page: message %q, %d left; want 2 attempts left", v.Message, v.AttemptsLeft)
	}
	hosted, err := f.OpenHostedChallenge(context.Background(), resp.ThreeDSServerTransID)
	if err != nil || !strings.Contains(hosted.Message, "2 attempts left") {
		t.Errorf("hosted page: %q, %v", hosted.Message, err)
	}
}

// TestEnquiryByCollectionReference: an enquiry by the reference of a
// collection whose lookup carries another reference says so, and names
// the lookup's id and reference; one without a lookup says that.
func TestEnquiryByCollectionReference(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const card = "4000000000009417" // its ACS has a 3DS Method
	c := f.collect(card)
	byRef := message.EnquiryRequest{ExternalReferenceID: "order-ddc"}
	_, err := f.Enquiry(ctx, ns, byRef, emulator.APICall{})
	if emvCode(err) != "301" || !strings.Contains(err.Error(), "without a lookup yet") {
		t.Errorf("before the lookup: %v, want 301 without a lookup yet", err)
	}
	resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID, r.ExternalReferenceID = c.DDCID, "order-lookup" })
	_, err = f.Enquiry(ctx, ns, byRef, emulator.APICall{})
	if emvCode(err) != "301" || strings.Contains(err.Error(), "without a lookup") ||
		!strings.Contains(err.Error(), `"order-lookup"`) || !strings.Contains(err.Error(), resp.ThreeDSServerTransID) {
		t.Errorf("after a lookup with another reference: %v, want 301 naming the lookup's id and reference", err)
	}
	if got, err := f.Enquiry(ctx, ns, message.EnquiryRequest{ExternalReferenceID: "order-lookup"}, emulator.APICall{}); err != nil ||
		got.ThreeDSServerTransID != resp.ThreeDSServerTransID {
		t.Errorf("by the lookup's reference: %+v, %v", got, err)
	}
}

// TestDecoupledNotSupported: a lookup asking for decoupled authentication
// (requestFeatures 3, and 4, its bit value) is answered as without it:
// the interface does not support decoupled authentication, and an ACS
// that does not offer it ignores the request (never status D).
func TestDecoupledNotSupported(t *testing.T) {
	f := newFixture(t)
	for _, card := range []string{"4000000000009003", challengeCard, f.card("visa-frictionless-n")} {
		plain := f.lookup(card, nil)
		for _, feature := range []int{3, 4} {
			got := f.lookup(card, func(r *message.LookupRequest) { r.RequestFeatures, r.ThreeDSRequestorDecMaxTime = feature, 30 })
			if got.Status != plain.Status || got.StatusReason != plain.StatusReason || got.AuthenticationType != plain.AuthenticationType ||
				got.ECI != plain.ECI || got.WhiteListStatus != "" {
				t.Errorf("card %s, requestFeatures %d: %+v, want the answer without it: %+v", card, feature, got, plain)
			}
		}
	}
}
