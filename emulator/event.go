package emulator

import (
	"context"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// summaryOf is the summary of a stored transaction.
func summaryOf(t state.Transaction) state.Summary {
	return state.Summary{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ExternalReferenceID:  t.ExternalReferenceID,
		ScenarioID:           t.ScenarioID,
		MaskedPAN:            t.MaskedPAN(),
		CardBIN:              t.CardBIN,
		CardScheme:           t.CardScheme,
		Version:              t.Version,
		Status:               t.Status,
		StatusReason:         t.StatusReason,
		ECI:                  t.ECI,
		ChallengeCancel:      t.ChallengeCancel,
		Channel:              t.Channel,
		MerchantName:         t.Challenge.MerchantName,
		Amount:               t.Challenge.Amount,
		Currency:             t.Challenge.Currency,
	}
}

// lookupSummary adds what only the lookup request knows.
func lookupSummary(t state.Transaction, req message.LookupRequest) state.Summary {
	s := summaryOf(t)
	s.CardholderName = req.Card.CardholderName
	s.MerchantName = req.MerchantName
	s.ThreeRIInd = req.ThreeRIInd
	if p := req.Purchase; p != nil {
		s.Amount, s.Currency = p.Amount, p.CurrencyCode
	}
	return s
}

// StoredSummary is the summary of a stored transaction as the console
// and the automation API show it, masked as every event's is.
func StoredSummary(t state.Transaction) state.Summary { return summaryOf(t).Masked() }

// emit hands an event to the sink, when there is one, with its summary
// and detail masked, at the namespace's now unless ev has its time. The summary's strings may share the request's
// memory: the sink copies what it keeps.
func (e *Engine) emit(ctx context.Context, ev state.Event) {
	if e.cfg.Events == nil {
		return
	}
	if ev.Time.IsZero() { // a lookup gives its transaction's creation, read from the same clock
		ev.Time = e.clockOr(ctx, ev.Namespace)
	}
	ev.Transaction = ev.Transaction.Masked()
	ev.Detail = redact.Text(ev.Detail)
	e.cfg.Events.Record(ctx, ev)
}

// transactionEvent is the event kind of a transaction with a detail.
func (e *Engine) transactionEvent(ctx context.Context, t state.Transaction, kind state.EventKind, detail string) {
	e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: kind, Detail: detail, Transaction: summaryOf(t)})
}

// redactBody is the copy of a request body an event keeps.
func (e *Engine) redactBody(body []byte) []byte {
	if e.cfg.Events == nil || body == nil {
		return nil
	}
	return redact.JSON(body, redact.Limits{})
}

// redactLookup is the copy of a lookup's body its event keeps. A body
// whose every member is a field of the lookup (call.KnownMembers) has
// none named pan, as the lookup has no such field: the redaction need not
// look for one (redact.Limits.NoPAN).
func (e *Engine) redactLookup(call APICall) []byte {
	if e.cfg.Events == nil || call.Body == nil {
		return nil
	}
	return redact.JSON(call.Body, redact.Limits{NoPAN: call.KnownMembers})
}

// redactAppLookup is redactLookup for an app lookup: its body is always
// compacted, so that sdkEncData, longer than a value is kept, is cut.
// Whole, the journal's copy would give away the device information it
// encrypts to anyone holding the directory server's key, and the
// embedded test keys are public.
func (e *Engine) redactAppLookup(call APICall) []byte {
	if e.cfg.Events == nil || call.Body == nil {
		return nil
	}
	return redact.JSON(call.Body, redact.Limits{NoPAN: call.KnownMembers, MaxAsSent: -1})
}

// withNote adds a call's note to an event's detail.
func withNote(detail, note string) string {
	if note == "" {
		return detail
	}
	if detail == "" {
		return note
	}
	return detail + "; " + note
}

// describeChoice tells a decision in words for the journal.
func describeChoice(c Choice, t state.Transaction) string {
	s := c.Action
	switch c.Action {
	case scenarios.ActionOTP:
		s = "one-time code " + c.OTP
	case scenarios.ActionSelect:
		s = "chose " + strings.Join(c.Choices, ", ")
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
