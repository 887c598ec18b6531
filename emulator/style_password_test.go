package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestPassword: a static password (ui password) states its password to
// the tester; the scenario's password passes, a wrong one uses an
// attempt, a missing one or another style's action uses none, and the
// enquiry says authenticationType 01 (static).
func TestPassword(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, yaml, password string
	}{
		{"default", `{ui: password}`, scenarios.DefaultPassword},
		{"scenario's", `{ui: password, password: "Tr0ub4dor!"}`, "Tr0ub4dor!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, withScenarios(t, `scenarios:
  - id: password
    match: {cardNumber: "4000000000009995"}
    challenge: `+tt.yaml+`
`))
			resp := f.lookup("4000000000009995", nil)
			id := resp.ThreeDSServerTransID
			page := f.open(resp)
			v, ok := page.Style.(emulator.PasswordView)
			if page.UI != scenarios.UIPassword || !ok || v.Password != tt.password || !strings.Contains(v.Hint, tt.password) || page.AttemptsLeft != 3 {
				t.Fatalf("page: %+v", page)
			}
			for _, c := range []struct {
				choice emulator.Choice
				code   string
			}{
				{emulator.Choice{Action: scenarios.ActionPassword, Entry: "  "}, "201"},
				{emulator.Choice{Action: scenarios.ActionOTP, OTP: "1234"}, "203"},
				{emulator.Choice{Action: "guess", Entry: tt.password}, "203"},
			} {
				if _, err := f.CompleteChallenge(ctx, ns, id, c.choice); emvCode(err) != c.code {
					t.Errorf("%+v: %v, want %s", c.choice, err, c.code)
				}
			}
			d, err := f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionPassword, Entry: strings.ToUpper(tt.password)})
			if err != nil || d.Final || d.View.AttemptsLeft != 2 || d.View.Notice != emulator.NoticeWrongCode || !strings.Contains(d.View.Message, "Incorrect password. 2 attempts left") {
				t.Fatalf("a wrong password: %+v, %v", d, err)
			}
			if again := f.open(resp); again.Notice != emulator.NoticeWrongCode || again.AttemptsLeft != 2 {
				t.Errorf("reload after a wrong password: notice %q, %d attempts left", again.Notice, again.AttemptsLeft)
			}
			d, err = f.CompleteChallenge(ctx, ns, id, emulator.Choice{Action: scenarios.ActionPassword, Entry: " " + tt.password + " "})
			if err != nil || !d.Final || d.TransStatus != "Y" {
				t.Fatalf("the password: %+v, %v", d, err)
			}
			if q := f.enquiry(id); q.AuthenticationType != "01" || q.InteractionCounter != "02" {
				t.Errorf("enquiry: authenticationType %s, interactionCounter %s; want 01, 02", q.AuthenticationType, q.InteractionCounter)
			}
		})
	}
}

// TestPasswordThreeWrong: three wrong passwords end N, reason 19.
func TestPasswordThreeWrong(t *testing.T) {
	f := newFixture(t, withScenarios(t, `scenarios:
  - id: password
    match: {cardNumber: "4000000000009995"}
    challenge: {ui: password}
`))
	resp := f.lookup("4000000000009995", nil)
	var d emulator.Decision
	for i := 0; i < 3; i++ {
		var err error
		if d, err = f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: scenarios.ActionPassword, Entry: "wrong"}); err != nil {
			t.Fatal(err)
		}
	}
	if q := f.enquiry(resp.ThreeDSServerTransID); !d.Final || q.TransactionStatus != "N" || q.StatusReason != "19" {
		t.Errorf("after three wrong passwords: final %v, %s %s", d.Final, q.TransactionStatus, q.StatusReason)
	}
}
