package emulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestInteractionCounter: the enquiry's interactionCounter counts the
// authentication cycles the cardholder attempted (EMV), each answer the
// ACS judged, right or wrong; a resend, a Continue before the banking
// app answered and a cancel count none. Every challenge that opened or
// ended reports it, "00" after a timeout or a cancel; a frictionless
// transaction and a challenge not yet opened report none.
func TestInteractionCounter(t *testing.T) {
	ctx := context.Background()
	timeouts := func(c *emulator.Config) { c.FirstCReqTimeout, c.ChallengeTimeout = 30*time.Second, 10*time.Minute }
	tests := []struct {
		name  string
		card  string
		steps func(f *fixture, id string)
		want  string
	}{
		{"frictionless", "4000000000009003", nil, ""},
		{"challenge not opened yet", challengeCard, func(*fixture, string) {}, ""},
		{"opened, then timed out", challengeCard, func(f *fixture, id string) {
			f.openID(id)
			f.clock.Advance(11 * time.Minute)
		}, "00"},
		{"never opened, timed out", challengeCard, func(f *fixture, id string) { f.clock.Advance(time.Minute) }, "00"},
		{"a wrong code, then timed out", challengeCard, func(f *fixture, id string) {
			f.decide(id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "9999"})
			f.clock.Advance(11 * time.Minute)
		}, "01"},
		{"cancel", challengeCard, func(f *fixture, id string) { f.decide(id, emulator.Choice{Action: scenarios.ActionCancel}) }, "00"},
		{"two resends, a wrong code, the right one", challengeCard, func(f *fixture, id string) {
			f.decide(id, emulator.Choice{Action: scenarios.ActionResend})
			f.decide(id, emulator.Choice{Action: scenarios.ActionResend})
			f.decide(id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "9999"})
			f.decide(id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234"})
		}, "02"},
		{"oob: two Continues before the app, one after", "4000000000009300", func(f *fixture, id string) {
			f.decide(id, emulator.Choice{Action: scenarios.ActionContinue})
			f.decide(id, emulator.Choice{Action: scenarios.ActionContinue})
			if _, err := f.AnswerApp(ctx, id, scenarios.AppApprove); err != nil {
				t.Fatal(err)
			}
			f.decide(id, emulator.Choice{Action: scenarios.ActionContinue})
		}, "01"},
		{"a wrong password, then pass", "4000000000009359", func(f *fixture, id string) {
			f.decide(id, emulator.Choice{Action: scenarios.ActionPassword, Entry: "hunter2"})
			f.decide(id, emulator.Choice{Action: scenarios.ActionPass})
		}, "02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, timeouts)
			id := f.lookup(tt.card, nil).ThreeDSServerTransID
			if tt.steps != nil {
				tt.steps(f, id)
			}
			if got := f.enquiry(id).InteractionCounter; got != tt.want {
				t.Errorf("interactionCounter %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPageStepsCountEveryAnswer: the page answered before a resend is
// refused as answered, though a resend is no authentication cycle.
func TestPageStepsCountEveryAnswer(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	resp := f.lookup(challengeCard, nil)
	v := f.open(resp)
	first := v.Step
	d, err := f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: scenarios.ActionResend, Step: &first})
	if err != nil || d.Final || d.View.Step == first {
		t.Fatalf("resend: %+v, %v; want the page shown again with a new step", d.View, err)
	}
	_, err = f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234", Step: &first})
	if emvCode(err) != "305" {
		t.Errorf("the page before the resend answered again: %v, want 305", err)
	}
	next := d.View.Step
	if d, err = f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234", Step: &next}); err != nil || !d.Final {
		t.Fatalf("the page after the resend: %+v, %v", d, err)
	}
	if got := f.enquiry(resp.ThreeDSServerTransID).InteractionCounter; got != "01" {
		t.Errorf("interactionCounter %q, want 01", got)
	}
}

// openID opens the challenge of transaction id through its hosted URL.
func (f *fixture) openID(id string) {
	f.t.Helper()
	if _, err := f.OpenHostedChallenge(context.Background(), id); err != nil {
		f.t.Fatalf("open %s: %v", id, err)
	}
}

// decide answers the challenge of transaction id headlessly.
func (f *fixture) decide(id string, c emulator.Choice) emulator.Decision {
	f.t.Helper()
	d, err := f.CompleteChallenge(context.Background(), ns, id, c)
	if err != nil {
		f.t.Fatalf("%s: %v", c.Action, err)
	}
	return d
}
