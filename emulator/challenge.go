package emulator

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// CReq is the browser challenge request (EMV 3DS), posted Base64Url-encoded
// by the cardholder's browser to the ACS.
type CReq struct {
	ThreeDSServerTransID string `json:"threeDSServerTransID"`
	ACSTransID           string `json:"acsTransID"`
	MessageType          string `json:"messageType"`
	MessageVersion       string `json:"messageVersion"`
	ChallengeWindowSize  string `json:"challengeWindowSize"`
}

// CRes is the final challenge response, posted Base64Url-encoded by the
// browser to the Requestor's notificationUrl.
type CRes struct {
	ThreeDSServerTransID   string `json:"threeDSServerTransID"`
	ACSTransID             string `json:"acsTransID"`
	MessageType            string `json:"messageType"`
	MessageVersion         string `json:"messageVersion"`
	ChallengeCompletionInd string `json:"challengeCompletionInd"`
	TransStatus            string `json:"transStatus"`
}

// EncodeMessage returns the unpadded Base64Url encoding of a message's JSON,
// as the browser flows carry CReq and CRes.
func EncodeMessage(m any) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode message: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// DecodeBase64 accepts padded or unpadded, URL-safe or standard Base64.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not Base64: %w", err)
	}
	return b, nil
}

// windowSizeCode renders challengeWindowSize as the two digits of the CReq.
func windowSizeCode(n int) string { return fmt.Sprintf("%02d", n) }

// challengeHTML renders the lookup's challengeHtml: a page that posts the
// initial CReq and the Requestor's session to the ACS by itself.
func (e *Engine) challengeHTML(t Transaction) (string, error) {
	creq, err := EncodeMessage(CReq{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ACSTransID:           t.ACSTransID,
		MessageType:          "CReq",
		MessageVersion:       t.Version,
		ChallengeWindowSize:  windowSizeCode(t.Challenge.WindowSize),
	})
	if err != nil {
		return "", err
	}
	fields := []FormField{{"creq", creq}}
	if t.Challenge.Session != "" {
		fields = append(fields, FormField{"threeDSSessionData", t.Challenge.Session})
	}
	return e.cfg.Pages.AutoSubmitPage(e.ACSURL(), fields)
}

// ChallengeView is what the challenge page shows.
type ChallengeView struct {
	Transaction Transaction
	ExpiresAt   time.Time
	// OTPHint tells the tester which code passes.
	OTPHint string
}

// DefaultOTP is the one-time password that passes every challenge whose
// scenario does not say otherwise.
const DefaultOTP = "1234"

// maxWrongOTPs is how many wrong codes end a challenge as N, reason 19
// (exceeds ACS maximum challenges).
const maxWrongOTPs = 3

// ParseCReq decodes the creq form field: Base64 (either alphabet, padded
// or not) of the CReq JSON. Its failures are *Error with EMV 203.
func ParseCReq(s string) (CReq, error) {
	if s == "" {
		return CReq{}, NewError(CodeMissingField, "201", "the form field creq is missing", "creq")
	}
	raw, err := DecodeBase64(s)
	if err != nil {
		return CReq{}, NewError(CodeInvalidField, "203", "creq is not Base64Url: "+err.Error(), "creq")
	}
	var c CReq
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return CReq{}, NewError(CodeInvalidField, "203", "creq is not a CReq JSON object: "+err.Error(), "creq")
	}
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"threeDSServerTransID", c.ThreeDSServerTransID},
		{"acsTransID", c.ACSTransID},
		{"messageType", c.MessageType},
		{"messageVersion", c.MessageVersion},
		{"challengeWindowSize", c.ChallengeWindowSize},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return CReq{}, NewError(CodeMissingField, "201", "the CReq lacks "+strings.Join(missing, ", "), strings.Join(missing, ","))
	}
	if c.MessageType != "CReq" {
		return CReq{}, NewError(CodeInvalidField, "203", fmt.Sprintf("messageType is %q, want CReq", c.MessageType), "messageType")
	}
	switch c.ChallengeWindowSize {
	case "01", "02", "03", "04", "05":
	default:
		return CReq{}, NewError(CodeInvalidField, "203", fmt.Sprintf("challengeWindowSize is %q, want 01 to 05", c.ChallengeWindowSize), "challengeWindowSize")
	}
	return c, nil
}

// OpenChallenge checks an initial CReq against its transaction and opens
// the challenge: the first CReq starts the challenge window; a repeated
// CReq of an open challenge (a reload) shows the page again.
func (e *Engine) OpenChallenge(ctx context.Context, c CReq) (ChallengeView, error) {
	t, err := e.get(ctx, c.ThreeDSServerTransID)
	if err != nil {
		return ChallengeView{}, err
	}
	if c.ACSTransID != t.ACSTransID {
		return ChallengeView{}, NewError(CodeTransactionState, "305",
			fmt.Sprintf("acsTransID %s does not belong to transaction %s", c.ACSTransID, c.ThreeDSServerTransID), "acsTransID")
	}
	if c.MessageVersion != t.Version {
		return ChallengeView{}, NewError(CodeInvalidField, "203",
			fmt.Sprintf("messageVersion %s differs from the transaction's %s", c.MessageVersion, t.Version), "messageVersion")
	}
	size := int(c.ChallengeWindowSize[1] - '0')
	return e.open(ctx, t.ThreeDSServerTransID, size)
}

// OpenHostedChallenge opens the challenge of a transaction reached through
// its hostedChallengeUrl, with the window size of the lookup.
func (e *Engine) OpenHostedChallenge(ctx context.Context, threeDSServerTransID string) (ChallengeView, error) {
	t, err := e.get(ctx, threeDSServerTransID)
	if err != nil {
		return ChallengeView{}, err
	}
	return e.open(ctx, t.ThreeDSServerTransID, t.Challenge.WindowSize)
}

func (e *Engine) open(ctx context.Context, id string, size int) (ChallengeView, error) {
	if err := e.challengeStep(ctx, id); err != nil {
		return ChallengeView{}, err
	}
	now := e.now()
	t, err := e.store.Update(ctx, id, func(t *Transaction) error {
		e.settleLocked(t, now)
		switch t.Phase {
		case PhaseFinal:
			return completedError(t)
		case PhaseChallengePending:
			t.Phase = PhaseChallengeOpened
			t.Challenge.OpenedAt = now
		}
		t.Challenge.WindowSize = size
		return nil
	})
	if err != nil {
		return ChallengeView{}, e.stateFailure(err, id)
	}
	e.observe(t, EventCReq, fmt.Sprintf("challenge page shown, window size %d", size))
	return ChallengeView{
		Transaction: t,
		ExpiresAt:   t.Challenge.OpenedAt.Add(e.cfg.ChallengeTimeout),
		OTPHint:     e.OTPHint(t),
	}, nil
}

// completedError is the 305 answer to a challenge step on a finished
// transaction.
func completedError(t *Transaction) *Error {
	how := "completed"
	if t.StatusReason == "14" {
		how = "timed out"
	}
	return NewError(CodeTransactionState, "305",
		fmt.Sprintf("transaction %s has already %s with status %s; its result cannot change", t.ThreeDSServerTransID, how, t.Status),
		"threeDSServerTransID")
}

// passingOTP is the first OTP of the scenario that yields Y, or the default.
func (e *Engine) passingOTP(t Transaction) string {
	ch := e.challengeOf(t)
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

// Choice is what the cardholder (or a headless client) decided.
type Choice struct {
	// Action is pass, fail, cancel or otp.
	Action string
	// OTP is the code typed, for Action otp.
	OTP string
}

// Decision is the result of a challenge step.
type Decision struct {
	// Final is false when the cardholder may try again (a wrong OTP).
	Final bool
	// Message explains a non-final step ("Incorrect code, 2 attempts left").
	Message     string
	Transaction Transaction
	// CRes is the final CRes, and Encoded its Base64Url form, when Final.
	CRes    CRes
	Encoded string
}

// ChallengeTimeout is how long an opened challenge waits for a decision.
func (e *Engine) ChallengeTimeout() time.Duration { return e.cfg.ChallengeTimeout }

// OTPHint tells the tester which code passes the challenge of t.
func (e *Engine) OTPHint(t Transaction) string { return "Sandbox: code " + e.passingOTP(t) + " passes" }

// Decide applies the cardholder's choice to an opened challenge. A
// decision is accepted once: a finished transaction answers 305.
func (e *Engine) Decide(ctx context.Context, id, acsTransID string, c Choice) (Decision, error) {
	return e.decide(ctx, id, c, func(t *Transaction) error {
		if t.ACSTransID != acsTransID {
			return NewError(CodeTransactionState, "305", "acsTransID "+acsTransID+" does not belong to transaction "+id, "acsTransID")
		}
		if t.Phase == PhaseChallengePending {
			return NewError(CodeTransactionState, "305", "the challenge of transaction "+id+" was never opened", "threeDSServerTransID")
		}
		return nil
	})
}

// CompleteChallenge is the headless path: it decides the pending or opened
// challenge of a transaction of namespace ns, as the page would.
func (e *Engine) CompleteChallenge(ctx context.Context, ns, id string, c Choice) (Decision, error) {
	return e.decide(ctx, id, c, func(t *Transaction) error {
		if t.Namespace != ns {
			return ErrNotFound
		}
		return nil
	})
}

func (e *Engine) decide(ctx context.Context, id string, c Choice, check func(*Transaction) error) (Decision, error) {
	switch c.Action {
	case "pass", "fail", "cancel", "otp":
	default:
		return Decision{}, NewError(CodeInvalidField, "203", fmt.Sprintf("action %q: want pass, fail, cancel or otp", c.Action), "action")
	}
	if err := e.challengeStep(ctx, id); err != nil {
		return Decision{}, err
	}
	now := e.now()
	var d Decision
	t, err := e.store.Update(ctx, id, func(t *Transaction) error {
		if err := check(t); err != nil {
			return err
		}
		e.settleLocked(t, now)
		if t.Phase == PhaseFinal {
			return completedError(t)
		}
		if t.Challenge.OpenedAt.IsZero() {
			t.Challenge.OpenedAt = now
		}
		t.Phase = PhaseChallengeOpened
		t.Challenge.Interactions++
		ch := e.challengeOf(*t)
		var o scenarios.Outcome
		switch c.Action {
		case "pass":
			o = ch.Pass
		case "fail":
			o = ch.Fail
		case "cancel":
			o = ch.Cancel
		case "otp":
			var ok bool
			if o, ok = lookupOTP(ch, c.OTP); !ok {
				t.Challenge.WrongOTPs++
				if t.Challenge.WrongOTPs < maxWrongOTPs {
					left := maxWrongOTPs - t.Challenge.WrongOTPs
					d.Message = fmt.Sprintf("Incorrect code. %d attempt%s left.", left, plural(left))
					return nil
				}
				o = scenarios.Outcome{Status: "N", Reason: "19"}
			}
		}
		t.Challenge.Decision = c.Action
		t.Challenge.DecidedAt = now
		e.finish(t, o.Status, o.Reason, o.ECI, o.ChallengeCancel)
		d.Final = true
		return nil
	})
	if err != nil {
		return Decision{}, e.stateFailure(err, id)
	}
	d.Transaction = t
	if !d.Final {
		e.observe(t, EventAttempt, d.Message)
	} else {
		e.observe(t, EventDecision, describeChoice(c, t))
	}
	if d.Final {
		d.CRes = finalCRes(t)
		if d.Encoded, err = EncodeMessage(d.CRes); err != nil {
			return Decision{}, err
		}
	}
	return d, nil
}

// describeChoice tells a decision in words for the journal.
func describeChoice(c Choice, t Transaction) string {
	s := c.Action
	if c.Action == "otp" {
		s = "one-time code " + c.OTP
	}
	s += " -> " + t.Status
	if t.StatusReason != "" {
		s += ", reason " + t.StatusReason
	}
	if t.ChallengeCancel != "" {
		s += ", challengeCancel " + t.ChallengeCancel
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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

// finalCRes is the CRes a finished challenge sends to the notificationUrl.
// A final CRes carries only Y or N.
func finalCRes(t Transaction) CRes {
	st := t.Status
	if st != "Y" {
		st = "N"
	}
	return CRes{
		ThreeDSServerTransID:   t.ThreeDSServerTransID,
		ACSTransID:             t.ACSTransID,
		MessageType:            "CRes",
		MessageVersion:         t.Version,
		ChallengeCompletionInd: "Y",
		TransStatus:            st,
	}
}

// defaultChallenge holds the reference's outcomes for a challenge whose
// scenario cannot be found any more (removed by a reload).
var defaultChallenge = scenarios.Challenge{
	Pass:   scenarios.Outcome{Status: "Y"},
	Fail:   scenarios.Outcome{Status: "N", Reason: "01"},
	Cancel: scenarios.Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"},
}

// challengeOf returns the challenge rules of t's scenario.
func (e *Engine) challengeOf(t Transaction) *scenarios.Challenge {
	if sc, ok := e.scenarioByID(t.Namespace, t.ScenarioID); ok && sc.Challenge != nil {
		return sc.Challenge
	}
	return &defaultChallenge
}

// challengeStep applies the challenge-step delay and fault of the
// transaction's scenario.
func (e *Engine) challengeStep(ctx context.Context, id string) error {
	t, err := e.store.Get(ctx, id)
	if err != nil {
		return nil // the step itself reports the unknown transaction
	}
	if sc, ok := e.scenarioByID(t.Namespace, t.ScenarioID); ok {
		return e.applyStep(ctx, sc, StepChallenge)
	}
	return nil
}

// get returns a transaction by id, settled to the present.
func (e *Engine) get(ctx context.Context, id string) (Transaction, error) {
	t, err := e.store.Get(ctx, id)
	if err != nil {
		return Transaction{}, e.stateFailure(err, id)
	}
	return e.settle(ctx, t)
}

func (e *Engine) stateFailure(err error, id string) error {
	if errors.Is(err, ErrNotFound) {
		return NewError(CodeUnknownTransaction, "301", "no transaction with threeDSServerTransID "+id, "threeDSServerTransID")
	}
	if _, ok := AsError(err); ok {
		return err
	}
	return fmt.Errorf("transaction %s: %w", id, err)
}

// settle brings a stored challenge up to the present: an automatic
// decision or a timeout that fell due since is applied and stored, so the
// enquiry reports it even if nobody came back.
func (e *Engine) settle(ctx context.Context, t Transaction) (Transaction, error) {
	if t.Phase == PhaseFinal {
		return t, nil
	}
	now := e.now()
	probe := t
	if !e.settleLocked(&probe, now) {
		return t, nil
	}
	settled, err := e.store.Update(ctx, t.ThreeDSServerTransID, func(t *Transaction) error {
		e.settleLocked(t, now)
		return nil
	})
	if err == nil && settled.Phase == PhaseFinal {
		kind := EventTimeout
		if strings.HasPrefix(settled.Challenge.Decision, "auto-") {
			kind = EventAuto
		}
		e.observe(settled, kind, settled.Challenge.Decision)
	}
	return settled, err
}

// settleLocked applies a due automatic decision or timeout to t and tells
// whether it changed anything.
func (e *Engine) settleLocked(t *Transaction, now time.Time) bool {
	if t.Phase == PhaseFinal {
		return false
	}
	ch := e.challengeOf(*t)
	if ch.Auto != "" && !now.Before(t.CreatedAt.Add(ch.AutoAfter)) {
		o := ch.Pass
		switch ch.Auto {
		case "fail":
			o = ch.Fail
		case "cancel":
			o = ch.Cancel
		}
		t.Challenge.Decision = "auto-" + ch.Auto
		t.Challenge.DecidedAt = t.CreatedAt.Add(ch.AutoAfter)
		e.finish(t, o.Status, o.Reason, o.ECI, o.ChallengeCancel)
		return true
	}
	switch t.Phase {
	case PhaseChallengePending:
		if now.Sub(t.CreatedAt) > e.cfg.FirstCReqTimeout {
			t.Challenge.Decision = "timeout-first-creq"
			t.Challenge.DecidedAt = t.CreatedAt.Add(e.cfg.FirstCReqTimeout)
			e.finish(t, "N", "14", "", "05")
			return true
		}
	case PhaseChallengeOpened:
		if now.Sub(t.Challenge.OpenedAt) > e.cfg.ChallengeTimeout {
			t.Challenge.Decision = "timeout-challenge"
			t.Challenge.DecidedAt = t.Challenge.OpenedAt.Add(e.cfg.ChallengeTimeout)
			e.finish(t, "N", "14", "", "04")
			return true
		}
	}
	return false
}

// Transaction returns a stored transaction by its threeDSServerTransID,
// settled to the present, whatever its namespace (for the result page the
// browser reaches with the CRes).
func (e *Engine) Transaction(ctx context.Context, id string) (Transaction, error) {
	return e.get(ctx, id)
}
