package emulator

import (
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// passwordStyle is a static password (ui password, EMV authenticationType
// 01): the cardholder types the password set up with the bank, sent as
// challengeDataEntry. Nothing is sent to a phone; a wrong password uses an
// attempt as a wrong code does.
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

func (passwordStyle) answer(t *state.Transaction, ch *scenarios.Challenge, c Choice, _ time.Time) (styleStep, error) {
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(c.Entry)), []byte(passwordOf(ch))) == 1 {
		return styleStep{final: true, outcome: ch.Pass}, nil
	}
	t.Challenge.WrongOTPs++
	if t.Challenge.WrongOTPs < maxWrongOTPs {
		msg := wrongPassword(t.Challenge.WrongOTPs)
		return styleStep{message: msg, notice: NoticeWrongCode, kind: state.EventAttempt, detail: msg}, nil
	}
	return styleStep{final: true, outcome: scenarios.Outcome{Status: "N", Reason: "19"}}, nil
}

func (passwordStyle) show(v *ChallengeView, t state.Transaction, ch *scenarios.Challenge, _ time.Time) {
	pw := passwordOf(ch)
	v.Style = PasswordView{Password: pw, Hint: "Sandbox: password " + pw + " passes"}
	v.AttemptsLeft = max(maxWrongOTPs-t.Challenge.WrongOTPs, 0)
	if v.Message == "" && t.Challenge.WrongOTPs > 0 { // a reload after a wrong password
		v.Message, v.Notice = wrongPassword(t.Challenge.WrongOTPs), NoticeWrongCode
	}
}

// passwordOf is the password that passes ch: its scenario's, or the
// default for rules made in code.
func passwordOf(ch *scenarios.Challenge) string {
	if r, ok := ch.Own.(scenarios.PasswordRules); ok {
		return r.Password
	}
	return scenarios.DefaultPassword
}

// wrongPassword is the page's message after wrong passwords.
func wrongPassword(wrong int) string {
	left := maxWrongOTPs - wrong
	return fmt.Sprintf("Incorrect password. %d attempt%s left.", left, plural(left))
}
