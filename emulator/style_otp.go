package emulator

import (
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// DefaultOTP is the one-time password that passes every challenge whose
// scenario does not say otherwise.
const DefaultOTP = scenarios.DefaultOTP

// otpStyle is the code entry (ui otp): the cardholder types the one-time
// code "sent" to the phone, and may ask for a new one (EMV
// resendChallenge) as often as the scenario's resends allow.
type otpStyle struct{}

func (otpStyle) actions() []string { return []string{scenarios.ActionOTP, scenarios.ActionResend} }

func (otpStyle) check(c Choice) error {
	if c.Action == scenarios.ActionOTP && strings.TrimSpace(c.OTP) == "" {
		// No code is no attempt: nothing is used up.
		return emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "action otp needs the code typed, in otp", "otp")
	}
	return nil
}

func (otpStyle) answer(t *state.Transaction, ch *scenarios.Challenge, c Choice, _ time.Time) (styleStep, error) {
	if c.Action == scenarios.ActionResend {
		if t.Challenge.Resends >= ch.Resends {
			return styleStep{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
				fmt.Sprintf("no new code can be sent: this challenge sends at most %d (scenario key resends); nothing was used up", ch.Resends), "action")
		}
		t.Challenge.Resends++
		code := passingOTP(ch)
		return styleStep{message: "A new code was sent to your phone.", notice: NoticeCodeSent, kind: state.EventCodeSent,
			detail: fmt.Sprintf("new code %s sent to the cardholder's phone (resend %d of %d)", code, t.Challenge.Resends, ch.Resends)}, nil
	}
	if o, ok := lookupOTP(ch, c.OTP); ok {
		return styleStep{final: true, outcome: o}, nil
	}
	return styleStep{wrong: true}, nil
}

func (otpStyle) opened(ch *scenarios.Challenge) (state.EventKind, string) {
	return state.EventCodeSent, "code " + passingOTP(ch) + " sent to the cardholder's phone"
}

// OTPView is the code entry's part of the page (ChallengeView.Style).
type OTPView struct {
	// PassingOTP is the code that passes, which Hint tells the tester.
	PassingOTP, Hint string
	// ResendsLeft counts the new codes the cardholder may still ask for.
	ResendsLeft int
}

func (otpStyle) show(v *ChallengeView, t state.Transaction, ch *scenarios.Challenge, _ time.Time) {
	code := passingOTP(ch)
	v.Style = OTPView{PassingOTP: code, Hint: "Sandbox: code " + code + " passes", ResendsLeft: max(ch.Resends-t.Challenge.Resends, 0)}
}

// passingOTP is the first OTP of the rules that yields Y, or the default.
func passingOTP(ch *scenarios.Challenge) string {
	best := ""
	for otp, o := range ch.OTPs {
		if o.Status == "Y" && (best == "" || otp < best) {
			best = otp
		}
	}
	if best == "" {
		return DefaultOTP
	}
	return best
}

// lookupOTP finds the outcome of a typed code: the scenario's OTP map, or
// the default code that passes.
func lookupOTP(ch *scenarios.Challenge, otp string) (scenarios.Outcome, bool) {
	otp = strings.TrimSpace(otp)
	if len(ch.OTPs) > 0 {
		o, ok := ch.OTPs[otp]
		return o, ok
	}
	if otp == DefaultOTP {
		return ch.Pass, true
	}
	return scenarios.Outcome{}, false
}
