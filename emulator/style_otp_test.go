package emulator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// resendCard is a challenge whose scenario allows one new code.
const resendCard = "4000000000009995"

// withScenarios adds the YAML scenarios to the fixture's catalogue.
func withScenarios(t *testing.T, yaml string) func(*emulator.Config) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "styles.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := scenarios.Load(scenarios.LoadOptions{Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	return func(c *emulator.Config) { c.Catalogue = func() *scenarios.Catalogue { return cat } }
}

// TestOTPResend: a new code is neither an attempt nor an authentication
// cycle, an event that names the code, and refused beyond the scenario's
// limit (305, no change); the enquiry's interactionCounter counts the
// code alone.
func TestOTPResend(t *testing.T) {
	f := newFixture(t, withScenarios(t, `scenarios:
  - id: one-resend
    match: {cardNumber: "`+resendCard+`"}
    challenge: {resends: 1}
`))
	ctx := context.Background()
	resp := f.lookup(resendCard, nil)
	id := resp.ThreeDSServerTransID
	if v := f.open(resp); v.Style.(emulator.OTPView).ResendsLeft != 1 || v.UI != scenarios.UIOTP {
		t.Fatalf("first page: %d resends left, ui %q; want 1, otp", v.Style.(emulator.OTPView).ResendsLeft, v.UI)
	}
	d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionResend})
	if err != nil || d.Final || d.TransStatus != "C" || d.View.Style.(emulator.OTPView).ResendsLeft != 0 || d.View.AttemptsLeft != 3 ||
		!strings.Contains(d.View.Message, "new code") {
		t.Fatalf("resend: %+v, %v", d, err)
	}
	_, err = f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionResend})
	if e, ok := emulator.AsError(err); !ok || e.EMVCode != "305" || !strings.Contains(e.Message, "at most 1") {
		t.Fatalf("a resend beyond the limit: %v, want 305 saying at most 1", err)
	}
	d, err = f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234"})
	if err != nil || !d.Final || d.TransStatus != "Y" {
		t.Fatalf("the code after a resend: %+v, %v", d, err)
	}
	if got := f.enquiry(id); got.InteractionCounter != "01" {
		t.Errorf("interactionCounter %q, want 01 (one code; neither resend)", got.InteractionCounter)
	}
	if got := f.events.kinds(id); !strings.Contains(got, "creq,code-sent,code-sent,decision") {
		t.Errorf("events %s: want the first code and the resend as code-sent", got)
	}
}

// TestOTPResendDefaultLimit: a scenario that says nothing allows three
// new codes.
func TestOTPResendDefaultLimit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.lookup(challengeCard, nil).ThreeDSServerTransID
	for i := 1; i <= scenarios.DefaultResends; i++ {
		if d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionResend}); err != nil || d.Final {
			t.Fatalf("resend %d: %+v, %v", i, d, err)
		}
	}
	if _, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionResend}); emvCode(err) != "305" {
		t.Errorf("resend %d: %v, want 305", scenarios.DefaultResends+1, err)
	}
}

// TestActionsThatDoNotFit: an action no style knows, or one a finished
// challenge cannot take, is refused with the error body's codes, and
// uses no attempt.
func TestActionsThatDoNotFit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.lookup(challengeCard, nil).ThreeDSServerTransID
	acts := emulator.ChoiceActions()
	every := strings.Join(acts[:len(acts)-1], ", ") + " or " + acts[len(acts)-1]
	tests := []struct {
		name, action, want string
	}{
		{"unknown", "approve-all", "want " + every},
		{"empty", "", "want pass, fail, cancel"},
		{"case matters", "PASS", `action "PASS"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: tt.action})
			if e, ok := emulator.AsError(err); !ok || e.EMVCode != "203" || e.Detail != "action" || !strings.Contains(e.Message, tt.want) {
				t.Errorf("got %v, want 203 on action containing %q", err, tt.want)
			}
		})
	}
	for i := 1; i <= 3; i++ { // still three attempts
		if d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionOTP, OTP: "9999"}); err != nil || d.Final != (i == 3) {
			t.Fatalf("wrong code %d: %+v, %v", i, d, err)
		}
	}
	if _, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionResend}); emvCode(err) != "305" {
		t.Errorf("resend on a finished challenge: %v, want 305", err)
	}
}

// TestChoiceActionsStatedOnce: every style's actions are choice actions,
// the common ones first, with no repeat.
func TestChoiceActionsStatedOnce(t *testing.T) {
	acts := emulator.ChoiceActions()
	if strings.Join(acts[:3], ",") != "pass,fail,cancel" {
		t.Errorf("actions %v: want pass, fail, cancel first", acts)
	}
	seen := map[string]bool{}
	for _, a := range acts {
		if seen[a] || !emulator.IsChoiceAction(a) {
			t.Errorf("action %q repeated or not a choice", a)
		}
		seen[a] = true
	}
	for _, a := range []string{"auto-pass", "timeout-challenge", ""} {
		if emulator.IsChoiceAction(a) {
			t.Errorf("%q is a choice action", a)
		}
	}
}
