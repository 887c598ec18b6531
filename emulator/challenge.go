package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// ChallengeView is everything the challenge page shows: the transport
// renders it as it is.
type ChallengeView struct {
	ThreeDSServerTransID string
	ACSTransID           string
	MerchantName         string
	// Amount and Currency are the purchase's as the Requestor sent them;
	// empty for a non-payment authentication.
	Amount, Currency string
	// MaskedPAN shows only the card's BIN and last four digits.
	MaskedPAN string
	// Scheme is the card scheme, e.g. VISA.
	Scheme  string
	Version string
	// PurchaseDate is the purchase's date, or the transaction's creation
	// for a non-payment authentication; UTC.
	PurchaseDate time.Time
	// WindowSize is the challengeWindowSize, 1 to 5.
	WindowSize int
	// UI is the challenge's style (scenarios.Styles): its page and
	// actions.
	UI string
	// Language is the lookup's browserInfo.language as sent (empty when
	// absent): the page's texts follow it.
	Language string
	// Notice names the message of a page shown again (Notice*), so that
	// the page can say it in the cardholder's language; Message says it
	// in English.
	Notice string
	// AttemptsLeft counts the wrong codes (or answers) the cardholder may
	// still give.
	AttemptsLeft int
	// Style is the style's own part of the page (OTPView, SelectView,
	// OOBView, PasswordView…), which the transport hands as it is to the
	// style's template (challenge-<UI>) as .Style.
	Style any
	// Message says why the page is shown again ("Incorrect code. 2
	// attempts left."), also on a reload after a wrong code; empty the
	// first time.
	Message string
	// Step counts the answers the page took so far (every one: a wrong
	// code, a resend, a Continue): a page answered once is not answered
	// again; see Choice.Step.
	Step int
	// TrustPrompt offers "trust this merchant" (the scenario's
	// trustPrompt).
	TrustPrompt bool
	// ExpiresAt is when the challenge times out if nobody decides;
	// ExpiresIn how long that is from now, by its namespace's clock.
	ExpiresAt time.Time
	ExpiresIn time.Duration
}

// view is the challenge page of t, whose scenario's rules are ch, at now
// by its namespace's clock.
func (e *Engine) view(t state.Transaction, ch *scenarios.Challenge, message string, now time.Time) ChallengeView {
	date := t.CreatedAt.UTC()
	if d, err := time.Parse("2006-01-02 15:04:05", t.Challenge.PurchaseDate); err == nil {
		date = d
	}
	_, window := windows(ch, e.cfg)
	expires := t.Challenge.OpenedAt.Add(window)
	ui := ch.UI
	if ui == "" {
		ui = scenarios.UIOTP
	}
	v := ChallengeView{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ACSTransID:           t.ACSTransID,
		MerchantName:         t.Challenge.MerchantName,
		Amount:               t.Challenge.Amount,
		Currency:             t.Challenge.Currency,
		MaskedPAN:            t.MaskedPAN(),
		Scheme:               t.CardScheme,
		Version:              t.Version,
		PurchaseDate:         date,
		WindowSize:           t.Challenge.WindowSize,
		Language:             t.Challenge.Language,
		UI:                   ui,
		TrustPrompt:          ch.TrustPrompt && t.Version >= scenarios.Version220,
		Message:              message,
		Step:                 t.Challenge.Steps,
		ExpiresAt:            expires,
		ExpiresIn:            expires.Sub(now),
	}
	styleOf(ch.UI).show(&v, t, ch, now)
	showAttempts(&v, t, ui)
	return v
}

// OpenChallenge checks an initial CReq against its transaction and opens
// the challenge: the first CReq starts the challenge window; a repeated
// CReq of an open challenge (a reload) shows the page again, with the
// attempts left after a wrong code.
func (e *Engine) OpenChallenge(ctx context.Context, c message.CReq) (ChallengeView, error) {
	t, err := e.stored(ctx, c.ThreeDSServerTransID)
	if err != nil {
		return ChallengeView{}, err
	}
	if c.ACSTransID != t.ACSTransID {
		return ChallengeView{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			fmt.Sprintf("acsTransID %s does not belong to transaction %s", c.ACSTransID, c.ThreeDSServerTransID), "acsTransID")
	}
	if c.MessageVersion != t.Version {
		return ChallengeView{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("messageVersion %s differs from the transaction's %s", c.MessageVersion, t.Version), "messageVersion")
	}
	return e.open(ctx, t, int(c.ChallengeWindowSize[1]-'0'))
}

// OpenHostedChallenge opens the challenge of a transaction reached through
// its hostedChallengeUrl, with the window size of the lookup. The id is
// read in any case.
func (e *Engine) OpenHostedChallenge(ctx context.Context, threeDSServerTransID string) (ChallengeView, error) {
	t, err := e.stored(ctx, strings.ToLower(threeDSServerTransID))
	if err != nil {
		return ChallengeView{}, err
	}
	return e.open(ctx, t, t.Challenge.WindowSize)
}

// open opens the challenge of the stored transaction t in a window of size.
func (e *Engine) open(ctx context.Context, t state.Transaction, size int) (ChallengeView, error) {
	ch, err := e.challengeStep(ctx, t, viaBrowser)
	if err != nil {
		return ChallengeView{}, err
	}
	now, err := e.clock(ctx, t.Namespace)
	if err != nil {
		return ChallengeView{}, err
	}
	id := t.ThreeDSServerTransID
	var first bool
	t, err = e.store.Update(ctx, id, func(t *state.Transaction) error {
		first = false // fn may run again after a conflicting write
		settleLocked(t, now, ch, e.cfg)
		if t.Phase == state.PhaseFinal {
			return completedError(t)
		}
		first = openLocked(t, now)
		t.Challenge.WindowSize = size
		return nil
	})
	if err != nil {
		return ChallengeView{}, e.stateFailure(err, id)
	}
	e.transactionEvent(ctx, t, state.EventCReq, fmt.Sprintf("challenge page shown, window size %d", size))
	if kind, detail := styleOf(ch.UI).opened(ch); first && kind != "" {
		e.transactionEvent(ctx, t, kind, detail)
	}
	return e.view(t, ch, "", now), nil
}

// openLocked opens the pending challenge t at now, inside its atomic
// update, and tells whether it did (the first CReq); an opened one stays
// as it is.
func openLocked(t *state.Transaction, now time.Time) bool {
	if t.Phase != state.PhaseChallengePending {
		return false
	}
	t.Phase = state.PhaseChallengeOpened
	t.Challenge.OpenedAt = now
	return true
}

// completedError is the 305 answer to a challenge step on a finished
// transaction.
func completedError(t *state.Transaction) *emv.Error {
	if t.Channel == state.Channel3RI {
		return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			fmt.Sprintf("transaction %s is a 3RI transaction, answered at its lookup with status %s: it has no cardholder and no challenge", t.ThreeDSServerTransID, t.Status),
			"threeDsServerTransId")
	}
	how := "completed"
	if t.StatusReason == "14" {
		how = "timed out"
	}
	return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
		fmt.Sprintf("transaction %s has already %s with status %s; its result cannot change", t.ThreeDSServerTransID, how, t.Status),
		"threeDsServerTransId")
}

// Choice is what the cardholder (or a headless client) decided.
type Choice struct {
	// Action is one of scenarios' Action constants that fits the
	// challenge's style: pass, fail, cancel, or a style's own (otp,
	// resend).
	Action string
	// OTP is the code typed, for Action otp.
	OTP string
	// Entry is the text typed for a style's own text action other than
	// otp (EMV challengeDataEntry), such as a password.
	Entry string
	// Choices are the choices picked, for Action select.
	Choices []string
	// Trust is the cardholder's answer to "trust this merchant", when the
	// scenario's trustPrompt offers it: the final decision reports
	// whiteListStatus Y (source 03, the ACS) only when it is true and the
	// cardholder authenticated (see settleTrust).
	Trust bool
	// SessionData is the threeDSSessionData the browser posted with the
	// CReq, which the final CRes returns byte for byte (a real ACS has no
	// other copy); nil when there was no CReq (the hosted URL, the
	// headless API), and then the lookup's session is returned.
	SessionData *string
	// Step, when set, is the ChallengeView.Step of the page answered: a
	// page answered already (by a wrong code; a final decision ends the
	// transaction) is refused with 305, as a replayed answer. Nil (the
	// headless API) checks nothing.
	Step *int
	// NoEntry is the app channel's challengeNoEntry: the cardholder
	// answered nothing, a wrong entry for a style that reads one; Action
	// is then the style's entry action.
	NoEntry bool
	// CancelCode is the challengeCancel of an app's SDK that cancelled by
	// itself (06, 07 or 08), for Action cancel: N with that code instead
	// of the scenario's cancel outcome. "" (or 01) is the cardholder's.
	CancelCode string
	// app marks a choice of the app channel's CReq: its final CRes goes
	// back encrypted to the SDK (acs_app.go), not to a browser.
	app bool
}

// Decision is the result of a challenge step.
type Decision struct {
	// Final is false when the cardholder may try again (a wrong OTP).
	Final bool
	// View is the challenge page to show again, when not Final.
	View ChallengeView
	// TransStatus is the transaction's status after the step: C while the
	// challenge is open.
	TransStatus string
	// NotificationURL is the lookup's notificationUrl; empty when it had
	// none.
	NotificationURL string
	// Delivery is the final CRes and the form that carries it, when Final.
	Delivery message.CResDelivery
	// Language is the lookup's browserInfo.language as sent, for the page
	// that carries the CRes back.
	Language string
}

// Decide applies the cardholder's choice on the challenge page to an
// opened challenge. A decision is accepted once: a finished transaction
// answers 305.
func (e *Engine) Decide(ctx context.Context, id, acsTransID string, c Choice) (Decision, error) {
	return e.decide(ctx, id, c, viaBrowser, func(t *state.Transaction) error {
		if t.ACSTransID != acsTransID {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction, "acsTransID "+acsTransID+" does not belong to transaction "+id, "acsTransID")
		}
		if t.Phase == state.PhaseChallengePending {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction, "the challenge of transaction "+id+" was never opened", "threeDsServerTransId")
		}
		return nil
	})
}

// CompleteChallenge is the headless path: it decides the pending or opened
// challenge of a transaction of namespace ns, as the page would. The id
// is read in any case.
func (e *Engine) CompleteChallenge(ctx context.Context, ns, id string, c Choice) (Decision, error) {
	id = strings.ToLower(id)
	return e.decide(ctx, id, c, viaAPI, func(t *state.Transaction) error {
		if t.Namespace != ns {
			return state.ErrNotFound
		}
		return nil
	})
}

func (e *Engine) decide(ctx context.Context, id string, c Choice, via apiCall, check func(*state.Transaction) error) (Decision, error) {
	if !IsChoiceAction(c.Action) {
		return Decision{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("action %q: want %s", c.Action, orList(ChoiceActions())), "action")
	}
	t, err := e.store.Get(ctx, id)
	if err != nil {
		return Decision{}, e.stateFailure(err, id)
	}
	if err := check(&t); err != nil {
		return Decision{}, e.stateFailure(err, id)
	}
	ch, err := e.challengeStep(ctx, t, via)
	if err != nil {
		return Decision{}, err
	}
	style, err := fitStyle(c.Action, ch)
	if err != nil {
		return Decision{}, err
	}
	if c.NoEntry {
		if _, reads := entryRowOf(ch.UI); !reads {
			return Decision{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "challengeNoEntry: this challenge reads no entry", "action")
		}
	} else if err := style.check(c); err != nil {
		return Decision{}, err
	}
	now, err := e.clock(ctx, t.Namespace)
	if err != nil {
		return Decision{}, err
	}
	var step styleStep
	var final bool
	t, err = e.store.Update(ctx, id, func(t *state.Transaction) error {
		step, final = styleStep{}, false // fn may run again after a conflicting write
		if err := check(t); err != nil {
			return err
		}
		settleLocked(t, now, ch, e.cfg)
		if t.Phase == state.PhaseFinal {
			return completedError(t)
		}
		if c.Step != nil && *c.Step != t.Challenge.Steps {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
				"this challenge page was answered already (a wrong code, a resend); answer on the page shown after it", "state")
		}
		if t.Challenge.OpenedAt.IsZero() {
			t.Challenge.OpenedAt = now
		}
		t.Phase = state.PhaseChallengeOpened
		t.Challenge.Steps++
		switch c.Action {
		case scenarios.ActionPass:
			step = styleStep{final: true, outcome: ch.Pass}
		case scenarios.ActionFail:
			step = styleStep{final: true, outcome: ch.Fail}
		case scenarios.ActionCancel:
			step = styleStep{final: true, outcome: cancelOutcome(ch, c.CancelCode)}
		default:
			if c.NoEntry {
				step = styleStep{wrong: true, entry: "no entry"}
				break
			}
			var err error
			if step, err = style.answer(t, ch, c, now); err != nil {
				return err
			}
		}
		wrong := step.wrong
		if wrong {
			step = wrongEntry(t, ch.UI, step.entry)
		}
		if isCycle(c.Action, step, wrong) {
			t.Challenge.Interactions++
		}
		if !step.final {
			return nil
		}
		o := step.outcome
		t.Challenge.Decision = c.Action
		t.Challenge.DecidedAt = now
		finish(t, o.Status, o.Reason, o.ECI, o.ChallengeCancel)
		settleTrust(t, ch, c.Trust)
		final = true
		return nil
	})
	if err != nil {
		return Decision{}, e.stateFailure(err, id)
	}
	d := Decision{Final: final, TransStatus: t.Status, NotificationURL: t.Challenge.NotificationURL, Language: t.Challenge.Language}
	if !final {
		e.transactionEvent(ctx, t, step.kind, step.detail)
		d.View = e.view(t, ch, step.message, now)
		if step.notice != "" {
			d.View.Notice = step.notice
		}
		return d, nil
	}
	e.transactionEvent(ctx, t, state.EventDecision, describeChoice(c, t))
	if c.app { // the final CRes goes back to the SDK, encrypted (acs_app.go)
		e.scheduleCallback(ctx, t, ch)
		return d, nil
	}
	if d.Delivery, err = e.delivery(t, c.SessionData); err != nil {
		return Decision{}, err
	}
	detail := "final CRes handed to the browser for " + d.Delivery.NotificationURL
	if via == viaAPI {
		detail = "final CRes returned by the headless challenge API"
	}
	cres := d.Delivery.CRes
	e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: state.EventCRes, Detail: detail, Transaction: summaryOf(t), CRes: &cres})
	e.scheduleCallback(ctx, t, ch)
	return d, nil
}

// delivery is the final CRes of a finished challenge and where it goes,
// with the session the browser posted (or the lookup's when nil).
func (e *Engine) delivery(t state.Transaction, posted *string) (message.CResDelivery, error) {
	d := message.CResDelivery{
		NotificationURL: t.Challenge.NotificationURL,
		CRes:            finalCRes(t),
		SessionData:     t.Challenge.Session,
	}
	if posted != nil {
		d.SessionData = *posted
	}
	if d.NotificationURL == "" {
		d.NotificationURL = e.urls.Notification()
	}
	var err error
	d.Encoded, err = message.EncodeMessage(d.CRes)
	return d, err
}

// Result is the final result of a challenged transaction as the
// emulator's own notification page shows it, when it receives the final
// CRes itself. It never holds the authentication value: that travels only
// in the enquiry's answer, to the Requestor that holds the token.
type Result struct {
	ThreeDSServerTransID string
	ExternalReferenceID  string
	Status               string
	StatusReason         string
	ECI                  string
	ChallengeCancel      string
	// Language is the lookup's browserInfo.language as sent.
	Language string
	// CRes is the final CRes the page received.
	CRes message.CRes
}

// Notification is the result of the transaction a final CRes names, as
// the emulator, acting as its own Requestor, learns it. The CRes must be
// one this ACS could have issued: its acsTransID that of the transaction,
// and the transaction a finished challenge (a frictionless one never had
// a CRes). The transport checks that the CRes comes from the decision
// flow (the signed token it posts with it).
func (e *Engine) Notification(ctx context.Context, c message.CRes) (Result, error) {
	t, err := e.stored(ctx, c.ThreeDSServerTransID)
	if err != nil {
		return Result{}, err
	}
	switch {
	case c.ACSTransID != t.ACSTransID:
		return Result{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			"the CRes's acsTransID is not that of transaction "+t.ThreeDSServerTransID, "acsTransID")
	case t.Challenge.Decision == "":
		return Result{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			"transaction "+t.ThreeDSServerTransID+" had no challenge, so no CRes", "threeDsServerTransId")
	case t.Phase != state.PhaseFinal:
		return Result{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			"the challenge of transaction "+t.ThreeDSServerTransID+" is not finished", "threeDsServerTransId")
	}
	return Result{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ExternalReferenceID:  t.ExternalReferenceID,
		Status:               t.Status,
		StatusReason:         t.StatusReason,
		ECI:                  t.ECI,
		ChallengeCancel:      t.ChallengeCancel,
		Language:             t.Challenge.Language,
		CRes:                 c,
	}, nil
}

// defaultChallenge holds the reference's outcomes for a challenge whose
// scenario cannot be found any more (removed by a reload).
var defaultChallenge = scenarios.Challenge{
	UI:      scenarios.UIOTP,
	Resends: scenarios.DefaultResends,
	Pass:    scenarios.Outcome{Status: "Y"},
	Fail:    scenarios.Outcome{Status: "N", Reason: "01"},
	Cancel:  scenarios.Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"},
}

// challengeRules are the challenge rules of a transaction's scenario, or
// the reference's when it has none (any more).
func challengeRules(sc *scenarios.Scenario) *scenarios.Challenge {
	if sc != nil && sc.Challenge != nil {
		return sc.Challenge
	}
	return &defaultChallenge
}

// challengeStep finds the scenario of t, applies the delay and fault of
// its challenge step, and returns its challenge rules. A transaction's
// scenario never changes, so the rules are found before its atomic
// update, never inside it.
func (e *Engine) challengeStep(ctx context.Context, t state.Transaction, via apiCall) (*scenarios.Challenge, error) {
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return nil, err
	}
	if err := e.applyStep(ctx, sc, StepChallenge, via); err != nil {
		return nil, err
	}
	return challengeRules(sc), nil
}

// stored returns a transaction by id, settled to the present.
func (e *Engine) stored(ctx context.Context, id string) (state.Transaction, error) {
	t, err := e.store.Get(ctx, id)
	if err != nil {
		return state.Transaction{}, e.stateFailure(err, id)
	}
	return e.settle(ctx, t)
}

func (e *Engine) stateFailure(err error, id string) error {
	if errors.Is(err, state.ErrNotFound) {
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, "no transaction with threeDsServerTransId "+id+e.expiryHint(), "threeDsServerTransId")
	}
	if _, ok := AsError(err); ok {
		return err
	}
	return fmt.Errorf("transaction %s: %w", id, err)
}

// finalCRes is the CRes a finished challenge sends to the notificationUrl.
// A final CRes carries only Y or N.
func finalCRes(t state.Transaction) message.CRes {
	st := t.Status
	if st != "Y" {
		st = "N"
	}
	return message.CRes{
		ThreeDSServerTransID:   t.ThreeDSServerTransID,
		ACSTransID:             t.ACSTransID,
		MessageType:            "CRes",
		MessageVersion:         t.Version,
		ChallengeCompletionInd: "Y",
		TransStatus:            st,
	}
}
