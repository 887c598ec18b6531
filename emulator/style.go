package emulator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// challengeStyle is the engine's part of a challenge style (the scenario
// key ui): the actions it answers besides the common pass, fail and
// cancel, how it decides them, and what its page shows. A style's
// scenario keys live in scenarios.Styles, its page in
// templates/html/challenge-<ui>.tmpl; docs/architecture.md says where.
type challengeStyle interface {
	// actions lists the style's own actions.
	actions() []string
	// check refuses a choice that cannot be an answer (a missing code),
	// before anything is read or used up.
	check(c Choice) error
	// answer decides the style's own action c on the open challenge t,
	// inside its atomic update: a step that ends the challenge with an
	// outcome, one that shows the page again, or a wrong entry, which
	// the attempt rules decide (attempts.go). An error changes nothing.
	answer(t *state.Transaction, ch *scenarios.Challenge, c Choice, now time.Time) (styleStep, error)
	// opened is the event that records what the style did when its
	// page first opened (an otp style sends a code); kind "" for none.
	opened(ch *scenarios.Challenge) (kind state.EventKind, detail string)
	// show fills the style's part of the page of t at now; the attempts
	// left are the attempt rules' (showAttempts).
	show(v *ChallengeView, t state.Transaction, ch *scenarios.Challenge, now time.Time)
}

// styleStep is what a style's action did.
type styleStep struct {
	// final ends the challenge with outcome.
	final   bool
	outcome scenarios.Outcome
	// message is shown on the page shown again (notice names it), and
	// kind with detail is the event that records the step, when not final.
	message string
	notice  string
	kind    state.EventKind
	detail  string
	// wrong tells that the action was a wrong entry, which the attempt
	// rules turn into a step (wrongEntry); entry names it for the
	// journal, as the style's row of entryRows says.
	wrong bool
	entry string
}

// The notices of a challenge page shown again (ChallengeView.Notice).
const (
	NoticeWrongCode   = "wrong-code"   // a wrong code or answer; AttemptsLeft remain
	NoticeCodeSent    = "code-sent"    // a new code was sent (ui otp)
	NoticeNotApproved = "not-approved" // Continue before the banking app answered (ui oob)
)

// styleOf returns the engine's part of the style ui; the default for ""
// (rules made in code, such as the reference's).
func styleOf(ui string) challengeStyle {
	switch ui {
	case scenarios.UIOOB:
		return oobStyle{}
	case scenarios.UISelect:
		return selectStyle{}
	case scenarios.UIMultiSelect:
		return selectStyle{multi: true}
	case scenarios.UIPassword:
		return passwordStyle{}
	default: // scenarios.UIOTP: the parser knows no other value
		return otpStyle{}
	}
}

// ChoiceActions lists every action of every style, the common ones
// first: what a cardholder or the headless API may answer a challenge by.
func ChoiceActions() []string {
	acts := scenarios.CommonActions()
	for _, s := range scenarios.Styles() {
		for _, a := range styleOf(s.UI).actions() {
			if !slices.Contains(acts, a) {
				acts = append(acts, a)
			}
		}
	}
	return acts
}

// IsChoiceAction tells whether action is one a cardholder (or the
// headless API) decided a challenge by, as ChallengeState.Decision
// records it; automatic decisions and timeouts are not.
func IsChoiceAction(action string) bool {
	return slices.Contains(ChoiceActions(), action)
}

// fitStyle refuses an action that no style answers, or that the style of
// ch does not, with a message that lists what it does answer.
func fitStyle(action string, ch *scenarios.Challenge) (challengeStyle, error) {
	st := styleOf(ch.UI)
	own := append(scenarios.CommonActions(), st.actions()...)
	if slices.Contains(own, action) {
		return st, nil
	}
	ui := ch.UI
	if ui == "" {
		ui = scenarios.UIOTP
	}
	if slices.Contains(ChoiceActions(), action) {
		return nil, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("action %q does not fit this challenge, whose ui is %s: want %s; nothing was used up", action, ui, orList(own)), "action")
	}
	return nil, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("action %q: want %s", action, orList(ChoiceActions())), "action")
}

// orList writes a list as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
