package emulator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// oobStyle is out of band (ui oob): the page asks the cardholder to
// approve in the banking app, then to continue (EMV oobContinue). The
// app answers on its own page (Engine.AnswerApp), by itself when the
// scenario says (autoAfter, app), or through the headless API, whose
// approve and decline end the challenge at once.
type oobStyle struct{}

func (oobStyle) actions() []string {
	return []string{scenarios.ActionContinue, scenarios.ActionApprove, scenarios.ActionDecline}
}

func (oobStyle) check(Choice) error { return nil }

func (oobStyle) opened(*scenarios.Challenge) (state.EventKind, string) {
	return state.EventApp, "approval requested in the cardholder's banking app"
}

func (oobStyle) answer(t *state.Transaction, ch *scenarios.Challenge, c Choice, now time.Time) (styleStep, error) {
	switch c.Action {
	case scenarios.ActionApprove:
		t.Challenge.App = scenarios.AppApprove
		return styleStep{final: true, outcome: ch.Pass}, nil
	case scenarios.ActionDecline:
		t.Challenge.App = scenarios.AppDecline
		return styleStep{final: true, outcome: ch.Fail}, nil
	}
	switch appAnswer(t, ch, now) { // continue
	case scenarios.AppApprove:
		return styleStep{final: true, outcome: ch.Pass}, nil
	case scenarios.AppDecline:
		return styleStep{final: true, outcome: ch.Fail}, nil
	}
	const msg = "Not approved yet. Approve the purchase in your banking app, then continue."
	return styleStep{message: msg, notice: NoticeNotApproved, kind: state.EventContinue, detail: "continue pressed before the banking app answered"}, nil
}

// OOBView is out of band's part of the page (ChallengeView.Style).
type OOBView struct {
	// App is the bank app's answer so far: approve, decline, or "" while
	// it has not answered.
	App string
}

func (oobStyle) show(v *ChallengeView, t state.Transaction, ch *scenarios.Challenge, now time.Time) {
	v.Style = OOBView{App: appAnswer(&t, ch, now)}
}

// appAnswer is the bank app's answer to the oob challenge t at now: its
// own, or the scenario's once autoAfter has passed; "" while none.
func appAnswer(t *state.Transaction, ch *scenarios.Challenge, now time.Time) string {
	if t.Challenge.App != "" {
		return t.Challenge.App
	}
	if ch.Auto == "" && ch.AutoAfter > 0 && !now.Before(t.CreatedAt.Add(ch.AutoAfter)) {
		return ch.App
	}
	return ""
}

// AppState is what the bank app page and the challenge page's watch
// know of an oob challenge.
type AppState struct {
	ThreeDSServerTransID string
	MerchantName         string
	Amount, Currency     string
	MaskedPAN            string
	Scheme               string
	// Language is the lookup's browserInfo.language: the app's page
	// follows it.
	Language string
	// Answer is the app's answer: approve, decline, or "" while none.
	Answer string
	// Final tells that the transaction has ended (Status is its status).
	Final  bool
	Status string
}

// AppChallenge is the bank app's view of the oob challenge of a
// transaction, reached by its id alone (the link and QR code the
// challenge page shows); any other transaction answers 301 or 305.
func (e *Engine) AppChallenge(ctx context.Context, id string) (AppState, error) {
	t, err := e.stored(ctx, strings.ToLower(id))
	if err != nil {
		return AppState{}, err
	}
	ch, now, err := e.oobAt(ctx, t)
	if err != nil {
		return AppState{}, err
	}
	return appStateOf(t, ch, now), nil
}

func appStateOf(t state.Transaction, ch *scenarios.Challenge, now time.Time) AppState {
	return AppState{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		MerchantName:         t.Challenge.MerchantName,
		Amount:               t.Challenge.Amount,
		Currency:             t.Challenge.Currency,
		MaskedPAN:            t.MaskedPAN(),
		Scheme:               t.CardScheme,
		Language:             t.Challenge.Language,
		Answer:               appAnswer(&t, ch, now),
		Final:                t.Phase == state.PhaseFinal,
		Status:               t.Status,
	}
}

// AnswerApp records the bank app's answer (approve or decline) to the oob
// challenge of transaction id: the challenge page's Continue then ends
// it. An app answers once; a finished transaction answers 305.
func (e *Engine) AnswerApp(ctx context.Context, id, answer string) (AppState, error) {
	if answer != scenarios.AppApprove && answer != scenarios.AppDecline {
		return AppState{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("action %q: want approve or decline", answer), "action")
	}
	id = strings.ToLower(id)
	t, err := e.store.Get(ctx, id)
	if err != nil {
		return AppState{}, e.stateFailure(err, id)
	}
	ch, now, err := e.oobAt(ctx, t)
	if err != nil {
		return AppState{}, err
	}
	t, err = e.store.Update(ctx, id, func(t *state.Transaction) error {
		settleLocked(t, now, ch, e.cfg)
		if t.Phase == state.PhaseFinal {
			return completedError(t)
		}
		if a := appAnswer(t, ch, now); a != "" {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
				fmt.Sprintf("the banking app has already answered %s for transaction %s; continue on the challenge page", a, id), "action")
		}
		t.Challenge.App = answer
		return nil
	})
	if err != nil {
		return AppState{}, e.stateFailure(err, id)
	}
	e.transactionEvent(ctx, t, state.EventApp, "the banking app answered "+answer)
	return appStateOf(t, ch, now), nil
}

// oobAt returns the challenge rules of t, refused with 305 unless they
// are out of band, and the present by its namespace's clock.
func (e *Engine) oobAt(ctx context.Context, t state.Transaction) (*scenarios.Challenge, time.Time, error) {
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return nil, time.Time{}, err
	}
	ch := challengeRules(sc)
	if ch.UI != scenarios.UIOOB {
		return nil, time.Time{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			"transaction "+t.ThreeDSServerTransID+" has no out-of-band challenge: no banking app answers for it", "threeDsServerTransId")
	}
	now, err := e.clock(ctx, t.Namespace)
	return ch, now, err
}
