package emulator

import (
	"crypto/subtle"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// passwordStyle is a static password (ui password, EMV authenticationType
// 01): the cardholder types the password set up with the bank, sent as
// challengeDataEntry. Nothing is sent to a phone; a wrong password uses an
// attempt as a wrong code does (attempts.go).
type passwordStyle struct{}

// PasswordView is the static password's part of the page
// (ChallengeView.Style).
type PasswordView struct {
	// Password is the one that passes, which Hint tells the tester.
	Password, Hint string
}

func (passwordStyle) actions() []string { return []string{scenarios.ActionPassword} }

func (passwordStyle) check(c Choice) error {
	if c.Action == scenarios.ActionPassword && strings.TrimSpace(c.Entry) == "" {
		return emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "action password needs the password typed, in entry; nothing was used up", "entry")
	}
	return nil
}

func (passwordStyle) opened(*scenarios.Challenge) (state.EventKind, string) { return "", "" }

func (passwordStyle) answer(_ *state.Transaction, ch *scenarios.Challenge, c Choice, _ time.Time) (styleStep, error) {
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(c.Entry)), []byte(passwordOf(ch))) == 1 {
		return styleStep{final: true, outcome: ch.Pass}, nil
	}
	return styleStep{wrong: true}, nil
}

func (passwordStyle) show(v *ChallengeView, _ state.Transaction, ch *scenarios.Challenge, _ time.Time) {
	pw := passwordOf(ch)
	v.Style = PasswordView{Password: pw, Hint: "Sandbox: password " + pw + " passes"}
}

// passwordOf is the password that passes ch: its scenario's, or the
// default for rules made in code.
func passwordOf(ch *scenarios.Challenge) string {
	if r, ok := ch.Own.(scenarios.PasswordRules); ok {
		return r.Password
	}
	return scenarios.DefaultPassword
}
