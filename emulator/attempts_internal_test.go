package emulator

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestAttemptRules: every row of the attempt rules is a style's, and a
// wrong entry of any of them uses an attempt, says in the row's words
// how many are left, and the third ends the challenge as N, reason 19.
func TestAttemptRules(t *testing.T) {
	for ui := range entryRows {
		if _, ok := scenarios.StyleOf(ui); !ok {
			t.Errorf("entryRows has a row for %q, which is no style", ui)
		}
	}
	for _, tc := range []struct {
		ui, entry, first, second string
		kind                     state.EventKind
	}{
		{"", "9999", "Incorrect code. 2 attempts left.", "Incorrect code. 1 attempt left.", state.EventAttempt},
		{scenarios.UIPassword, "nope", "Incorrect password. 2 attempts left.", "Incorrect password. 1 attempt left.", state.EventPasswordAttempt},
		{scenarios.UISelect, "Lyon", "wrong answer Lyon: That is not right. 2 attempts left.", "wrong answer Lyon: That is not right. 1 attempt left.", state.EventChoiceAttempt},
		{scenarios.UIMultiSelect, "Bookshop, Café", "wrong answer Bookshop, Café: That is not right. 2 attempts left.", "wrong answer Bookshop, Café: That is not right. 1 attempt left.", state.EventChoiceAttempt},
	} {
		var tx state.Transaction
		for i, want := range []string{tc.first, tc.second} {
			if step := wrongEntry(&tx, tc.ui, tc.entry); step.final || step.detail != want || step.notice != NoticeWrongCode || step.kind != tc.kind {
				t.Errorf("ui %q, wrong entry %d: %+v, want the detail %q and the event %s", tc.ui, i+1, step, want, tc.kind)
			}
		}
		var v ChallengeView
		if showAttempts(&v, tx, tc.ui); v.AttemptsLeft != 1 || v.Notice != NoticeWrongCode || v.Message == "" {
			t.Errorf("ui %q, the page reloaded after two wrong entries: %+v", tc.ui, v)
		}
		if step := wrongEntry(&tx, tc.ui, tc.entry); !step.final || step.outcome != exhausted() {
			t.Errorf("ui %q, third wrong entry: %+v, want the end as N, reason 19", tc.ui, step)
		}
	}
	var v ChallengeView
	if showAttempts(&v, state.Transaction{}, scenarios.UIOOB); v.AttemptsLeft != 0 || v.Message != "" {
		t.Errorf("oob reads no entry, yet its page shows attempts: %+v", v)
	}
}
