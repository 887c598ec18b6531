package emulator

import (
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// The trust list (EMV whiteListStatus) after a challenge that offered
// "trust this merchant": a merchant is trusted only by a cardholder who
// authenticated. Every end of such a challenge, decided by the
// cardholder (the page, the headless API), by the scenario (auto) or by
// the clock (a timeout), goes through settleTrust, the one place that
// says what it reports.

// Trust-list statuses (whiteListStatus) and the source the ACS reports
// them with (whiteListStatusSource).
const (
	trustListed    = "Y" // trusted by the cardholder
	trustNotListed = "N" // not trusted
	trustUnknown   = "U" // unknown: the cardholder was never asked
	trustSourceACS = "03"
)

// settleTrust sets the trust-list status of t, a challenge just finished
// (its status final), when its rules ch offer the trust prompt (2.2.0
// only); trusted is the cardholder's tick, false where nobody answered.
// Y needs both the tick and an authenticated cardholder (status Y); a
// prompt that was shown (the challenge opened) and did not end in Y is
// N, however the box was left; a prompt never shown (the first CReq
// never came, or an automatic decision before it) is U. A challenge
// without the prompt keeps what its lookup reported.
func settleTrust(t *state.Transaction, ch *scenarios.Challenge, trusted bool) {
	if !ch.TrustPrompt || t.Version < scenarios.Version220 {
		return
	}
	status := trustNotListed
	switch {
	case t.Challenge.OpenedAt.IsZero():
		status = trustUnknown
	case t.Status == "Y" && trusted:
		status = trustListed
	}
	t.WhiteListStatus, t.WhiteListStatusSrc = status, trustSourceACS
}
