package emulator

import (
	"context"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds how a challenge moves by itself: an automatic decision
// or a timeout falls due by its namespace's clock and is applied when the
// transaction is next read (the enquiry, a challenge step, the admin
// API), so nobody needs to come back for it to count.

// settle brings a stored challenge up to the present: an automatic
// decision or a timeout that fell due since is applied and stored, so the
// enquiry reports it even if nobody came back.
func (e *Engine) settle(ctx context.Context, t state.Transaction) (state.Transaction, error) {
	if t.Phase == state.PhaseFinal {
		return t, nil
	}
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return state.Transaction{}, err
	}
	return e.settleWith(ctx, t, challengeRules(sc))
}

// settleWith is settle with the transaction's challenge rules known.
func (e *Engine) settleWith(ctx context.Context, t state.Transaction, ch *scenarios.Challenge) (state.Transaction, error) {
	t, _, _, err := e.settleAt(ctx, t, ch)
	return t, err
}

// settleAt is settleWith that also tells whether it changed t (and
// recorded the event), and the namespace's now it settled t at.
func (e *Engine) settleAt(ctx context.Context, t state.Transaction, ch *scenarios.Challenge) (state.Transaction, bool, time.Time, error) {
	now, err := e.clock(ctx, t.Namespace)
	if err != nil {
		return state.Transaction{}, false, now, err
	}
	if t.Phase == state.PhaseFinal {
		return t, false, now, nil
	}
	probe := t
	if !settleLocked(&probe, now, ch, e.cfg) {
		return t, false, now, nil
	}
	changed := false
	settled, err := e.store.Update(ctx, t.ThreeDSServerTransID, func(t *state.Transaction) error {
		changed = settleLocked(t, now, ch, e.cfg)
		return nil
	})
	if err == nil && changed {
		kind := state.EventTimeout
		if strings.HasPrefix(settled.Challenge.Decision, "auto-") {
			kind = state.EventAuto
		}
		e.transactionEvent(ctx, settled, kind, settled.Challenge.Decision)
		e.scheduleCallback(ctx, settled, ch)
	}
	return settled, changed, now, err
}

// windows are the challenge windows of the rules ch: its own, or the
// server's (cfg): how long the first CReq may take, and how long an
// opened challenge waits for a decision.
func windows(ch *scenarios.Challenge, cfg Config) (firstCReq, challenge time.Duration) {
	firstCReq, challenge = cfg.FirstCReqTimeout, cfg.ChallengeTimeout
	if ch.FirstCReqTimeout > 0 {
		firstCReq = ch.FirstCReqTimeout
	}
	if ch.ChallengeTimeout > 0 {
		challenge = ch.ChallengeTimeout
	}
	return firstCReq, challenge
}

// settleLocked applies a due automatic decision (by the rules ch) or a
// timeout (by the windows of ch, or of cfg) to t and tells whether it
// changed anything.
func settleLocked(t *state.Transaction, now time.Time, ch *scenarios.Challenge, cfg Config) bool {
	if t.Phase == state.PhaseFinal {
		return false
	}
	if ch.Auto != "" && !now.Before(t.CreatedAt.Add(ch.AutoAfter)) {
		o := ch.Pass
		switch ch.Auto {
		case scenarios.AutoFail:
			o = ch.Fail
		case scenarios.AutoCancel:
			o = ch.Cancel
		}
		t.Challenge.Decision = "auto-" + ch.Auto
		t.Challenge.DecidedAt = t.CreatedAt.Add(ch.AutoAfter)
		finish(t, o.Status, o.Reason, o.ECI, o.ChallengeCancel)
		settleTrust(t, ch, false)
		return true
	}
	firstCReq, challenge := windows(ch, cfg)
	switch t.Phase {
	case state.PhaseChallengePending:
		if now.Sub(t.CreatedAt) > firstCReq {
			t.Challenge.Decision = "timeout-first-creq"
			t.Challenge.DecidedAt = t.CreatedAt.Add(firstCReq)
			finish(t, "N", "14", "", "05")
			settleTrust(t, ch, false)
			return true
		}
	case state.PhaseChallengeOpened:
		if now.Sub(t.Challenge.OpenedAt) > challenge {
			t.Challenge.Decision = "timeout-challenge"
			t.Challenge.DecidedAt = t.Challenge.OpenedAt.Add(challenge)
			finish(t, "N", "14", "", "04")
			settleTrust(t, ch, false)
			return true
		}
	}
	return false
}

// dueIn is how long from now (the namespace's) until settleLocked would
// change the pending challenge t by itself; false when it never will (t
// is final, or not a challenge).
func dueIn(t state.Transaction, now time.Time, ch *scenarios.Challenge, cfg Config) (time.Duration, bool) {
	var at time.Time
	firstCReq, challenge := windows(ch, cfg)
	switch t.Phase {
	case state.PhaseChallengePending:
		at = t.CreatedAt.Add(firstCReq)
	case state.PhaseChallengeOpened:
		at = t.Challenge.OpenedAt.Add(challenge)
	default:
		return 0, false
	}
	// A timeout falls due just after its window, an automatic decision
	// at its time.
	at = at.Add(time.Nanosecond)
	if ch.Auto != "" {
		if auto := t.CreatedAt.Add(ch.AutoAfter); auto.Before(at) {
			at = auto
		}
	}
	return max(at.Sub(now), 0), true
}
