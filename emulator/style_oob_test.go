package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestOOB: Continue before the app answers shows the page again and uses
// no attempt; the app's answer (its page, or the scenario by itself)
// decides what Continue ends with; headless approve and decline end the
// challenge at once; otp does not fit.
func TestOOB(t *testing.T) {
	ctx := context.Background()
	continueChoice := emulator.Choice{Action: scenarios.ActionContinue}
	tests := []struct {
		name, card string
		answer     string // the app's answer on its page, "" for none
		wait       time.Duration
		status     string
	}{
		{"app approves", "4000000000009300", scenarios.AppApprove, 0, "Y"},
		{"app declines", "4000000000009300", scenarios.AppDecline, 0, "N"},
		{"app declines by itself", "4000000000009318", "", 3 * time.Second, "N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			resp := f.lookup(tt.card, nil)
			id := resp.ThreeDSServerTransID
			if v := f.open(resp); v.UI != scenarios.UIOOB || v.Style.(emulator.OOBView).App != "" {
				t.Fatalf("page: ui %q app %q", v.UI, v.Style)
			}
			d, err := f.CompleteChallenge(ctx, ns, id, continueChoice)
			if err != nil || d.Final || !strings.Contains(d.View.Message, "Not approved yet") {
				t.Fatalf("continue before the app: %+v, %v", d, err)
			}
			if tt.answer != "" {
				st, err := f.AnswerApp(ctx, strings.ToUpper(id), tt.answer)
				if err != nil || st.Answer != tt.answer || st.Final {
					t.Fatalf("the app's answer: %+v, %v", st, err)
				}
				if _, err := f.AnswerApp(ctx, id, scenarios.AppApprove); emvCode(err) != "305" {
					t.Errorf("a second answer of the app: %v, want 305", err)
				}
			}
			f.clock.Advance(tt.wait)
			if st, err := f.AppChallenge(ctx, id); err != nil || st.Answer == "" {
				t.Fatalf("the app's state: %+v, %v", st, err)
			}
			d, err = f.CompleteChallenge(ctx, ns, id, continueChoice)
			if err != nil || !d.Final || d.TransStatus != tt.status {
				t.Fatalf("continue after the app: %+v, %v", d, err)
			}
			q := f.enquiry(id)
			if q.TransactionStatus != tt.status || q.AuthenticationType != "03" || q.InteractionCounter != "01" {
				t.Errorf("enquiry: status %s, authenticationType %s, interactionCounter %s; want %s, 03, 01 (the Continue before the app none)",
					q.TransactionStatus, q.AuthenticationType, q.InteractionCounter, tt.status)
			}
			if _, err := f.AnswerApp(ctx, id, scenarios.AppApprove); emvCode(err) != "305" {
				t.Errorf("the app on a finished transaction: %v, want 305", err)
			}
		})
	}
}

// TestOOBHeadless: approve ends Y, decline N; actions of another style
// are refused and change nothing; approve on a finished challenge is 305.
func TestOOBHeadless(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for _, tt := range []struct{ action, status string }{{scenarios.ActionApprove, "Y"}, {scenarios.ActionDecline, "N"}} {
		id := f.lookup("5200000000009305", nil).ThreeDSServerTransID
		for _, bad := range []emulator.Choice{{Action: scenarios.ActionOTP, OTP: "1234"}, {Action: scenarios.ActionResend}} {
			_, err := f.CompleteChallenge(ctx, ns, id, bad)
			if e, ok := emulator.AsError(err); !ok || e.EMVCode != "203" || !strings.Contains(e.Message, "ui is oob") {
				t.Errorf("%s on oob: %v, want 203 saying the ui", bad.Action, err)
			}
		}
		d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: tt.action})
		if err != nil || !d.Final || d.TransStatus != tt.status {
			t.Fatalf("%s: %+v, %v", tt.action, d, err)
		}
		if q := f.enquiry(id); q.InteractionCounter != "01" || q.AuthenticationType != "03" {
			t.Errorf("%s: interactionCounter %s (the refused actions count none), authenticationType %s", tt.action, q.InteractionCounter, q.AuthenticationType)
		}
		if _, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionApprove}); emvCode(err) != "305" {
			t.Errorf("approve on a finished transaction: %v, want 305", err)
		}
	}
	otp := f.lookup(challengeCard, nil).ThreeDSServerTransID
	if _, err := f.CompleteChallenge(ctx, ns, otp, emulator.Choice{Action: scenarios.ActionApprove}); emvCode(err) != "203" {
		t.Errorf("approve on an otp challenge: %v, want 203", err)
	}
	if _, err := f.AnswerApp(ctx, otp, scenarios.AppApprove); emvCode(err) != "305" {
		t.Errorf("the app of an otp challenge: %v, want 305", err)
	}
	if _, err := f.AnswerApp(ctx, otp, "maybe"); emvCode(err) != "203" {
		t.Errorf("an app answer that is neither: %v, want 203", err)
	}
}

// TestOOBTimesOut: an oob challenge nobody continues times out as an otp
// one does (N, 14, challengeCancel 04), even when the app approved.
func TestOOBTimesOut(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup("4000000000009300", nil)
	f.open(resp)
	if _, err := f.AnswerApp(context.Background(), resp.ThreeDSServerTransID, scenarios.AppApprove); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(16 * time.Minute)
	if q := f.enquiry(resp.ThreeDSServerTransID); q.TransactionStatus != "N" || q.StatusReason != "14" || q.ChallengeCancel != "04" {
		t.Errorf("after the challenge window: %s %s %s, want N 14 04", q.TransactionStatus, q.StatusReason, q.ChallengeCancel)
	}
	if _, err := f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: scenarios.ActionContinue}); emvCode(err) != "305" {
		t.Errorf("continue after the timeout: %v, want 305", err)
	}
}
