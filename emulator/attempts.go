package emulator

import (
	"fmt"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// The attempts of the styles that read an entry: a one-time code, a
// password, the choices of a question. Their rules are one: a wrong
// entry uses an attempt, the last ends the challenge as N, reason 19, and
// the page says how many are left, after the wrong entry and on a reload.
// The styles differ in words only, one row each in entryRows. What a
// wrong entry does to the transaction (useAttempt) is decided apart from
// what is shown of it (entryRow), so that a page for the browser and a
// CRes for an app show the same decision.

// maxWrongOTPs is how many wrong entries end a challenge as N, reason 19
// (exceeds ACS maximum challenges).
const maxWrongOTPs = 3

// useAttempt decides a wrong entry on the open challenge t, inside its
// atomic update: it uses an attempt, and with none left ends the
// challenge with exhausted. It returns the attempts left.
func useAttempt(t *state.Transaction) int {
	t.Challenge.WrongOTPs++
	return attemptsLeft(*t)
}

// attemptsLeft counts the wrong entries the challenge t may still take.
func attemptsLeft(t state.Transaction) int { return max(maxWrongOTPs-t.Challenge.WrongOTPs, 0) }

// exhausted is the outcome of a challenge whose attempts are all used:
// N, reason 19 (exceeds ACS maximum challenges).
func exhausted() scenarios.Outcome { return scenarios.Outcome{Status: "N", Reason: "19"} }

// entryRow is what a style that reads an entry says of a wrong one.
type entryRow struct {
	// kind is the event of a wrong entry, named by what was entered.
	kind state.EventKind
	// wrong opens the message after a wrong entry: "Incorrect code."
	wrong string
	// named, when set, opens the event's detail with the entry itself
	// ("wrong answer Lyon: ..."); without it the detail is the message.
	named string
}

// entryRows are the styles that read an entry, by ui: a style answers a
// wrong entry with styleStep.wrong, and its row words it.
var entryRows = map[string]entryRow{
	scenarios.UIOTP:         {kind: state.EventAttempt, wrong: "Incorrect code."},
	scenarios.UIPassword:    {kind: state.EventPasswordAttempt, wrong: "Incorrect password."},
	scenarios.UISelect:      {kind: state.EventChoiceAttempt, wrong: "That is not right.", named: "wrong answer"},
	scenarios.UIMultiSelect: {kind: state.EventChoiceAttempt, wrong: "That is not right.", named: "wrong answer"},
}

// entryRowOf is the row of style ui ("" is otp) and whether it reads an
// entry.
func entryRowOf(ui string) (entryRow, bool) {
	if ui == "" {
		ui = scenarios.UIOTP
	}
	r, ok := entryRows[ui]
	return r, ok
}

// message is the page's message with left attempts left.
func (r entryRow) message(left int) string {
	return fmt.Sprintf("%s %d attempt%s left.", r.wrong, left, plural(left))
}

// wrongEntry is the step of a wrong entry on the open challenge t of
// style ui: the attempt it uses, then its words (entry names what was
// typed or picked, for a row that names it).
func wrongEntry(t *state.Transaction, ui, entry string) styleStep {
	left := useAttempt(t)
	if left == 0 {
		return styleStep{final: true, outcome: exhausted()}
	}
	r, _ := entryRowOf(ui)
	msg := r.message(left)
	detail := msg
	if r.named != "" {
		detail = r.named + " " + entry + ": " + msg
	}
	return styleStep{message: msg, notice: NoticeWrongCode, kind: r.kind, detail: detail}
}

// isCycle tells whether the action, decided as step (wrong: a wrong
// entry), was an authentication cycle the cardholder attempted, which
// EMV's interactionCounter counts: an answer the ACS judged, right or
// wrong (a code, a password, a choice, pass, fail, the banking app's
// answer). A step that judged nothing (a resend, a Continue before the
// banking app answered) and a cancel are none.
func isCycle(action string, step styleStep, wrong bool) bool {
	return action != scenarios.ActionCancel && (step.final || wrong)
}

// showAttempts puts on the page of t, of style ui, the attempts left
// and, on a reload after a wrong entry, its message. A style that reads
// no entry shows none.
func showAttempts(v *ChallengeView, t state.Transaction, ui string) {
	r, ok := entryRowOf(ui)
	if !ok {
		return
	}
	v.AttemptsLeft = attemptsLeft(t)
	if v.Message == "" && t.Challenge.WrongOTPs > 0 {
		v.Message, v.Notice = r.message(v.AttemptsLeft), NoticeWrongCode
	}
}
