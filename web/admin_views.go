package web

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
)

// What the automation API shows of the journal's and the store's
// transactions, in the types of web/adminapi.

// eventTypes name the engine's event kinds in the API.
var eventTypes = map[state.EventKind]string{
	state.EventDDC:             "collection",
	state.EventMethod:          "methodStart",
	state.EventMethodDone:      "methodCompletion",
	state.EventLookup:          "lookup",
	state.EventCReq:            "creq",
	state.EventAttempt:         "otpAttempt",
	state.EventPasswordAttempt: "passwordAttempt",
	state.EventChoiceAttempt:   "choiceAttempt",
	state.EventCodeSent:        "codeSent",
	state.EventApp:             "bankApp",
	state.EventContinue:        "oobContinue",
	state.EventDecision:        "decision",
	state.EventCRes:            "cres",
	state.EventEnquiry:         "enquiry",
	state.EventAuto:            "automaticDecision",
	state.EventTimeout:         "timeout",
	state.EventCallback:        "resultCallback",
}

// eventType names an event kind in the API: a kind it does not list
// keeps the engine's name.
func eventType(k state.EventKind) string {
	if t, ok := eventTypes[k]; ok {
		return t
	}
	return string(k)
}

// apiTime formats a time of the API: RFC 3339 in UTC with milliseconds.
func apiTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// rawJSON is a kept body as JSON, or as a JSON string when it is not
// JSON (never the case for what the engine keeps).
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}

// last4 is the last four digits of a masked card number; "" when it
// shows none.
func last4(masked string) string {
	if len(masked) < 4 || strings.ContainsRune(masked[len(masked)-4:], '*') {
		return ""
	}
	return masked[len(masked)-4:]
}

// finalStatus tells whether a journal's status is a final one: set, and
// not C (a challenge still open).
func finalStatus(status string) bool { return status != "" && status != "C" }

// summaryOf is the listing's view of a journal summary.
func summaryOf(s *journal.Summary) adminapi.TransactionSummary {
	return adminapi.TransactionSummary{
		ThreeDSServerTransID: s.ID, ExternalReferenceID: s.ExternalReferenceID, Status: s.Status, Final: finalStatus(s.Status),
		StatusReason: s.StatusReason, ChallengeCancel: s.ChallengeCancel, ECI: s.ECI, CardScheme: s.Scheme,
		CardBIN: s.CardBIN, CardLast4: last4(s.MaskedPAN), MaskedPAN: s.MaskedPAN, Channel: s.Channel.String(),
		ThreeRIInd: s.ThreeRIInd, ScenarioID: s.ScenarioID,
		Fallback: s.Fallback, MessageVersion: s.Version, LookupStatus: s.LookupStatus, CardholderName: s.CardholderName,
		MerchantName: s.MerchantName, Amount: s.Amount, Currency: s.Currency, CreatedAt: apiTime(s.Created),
		UpdatedAt: apiTime(s.Updated), LastEvent: eventType(s.LastEvent), EventCount: s.Events, EnquiryCount: s.Enquiries,
	}
}

// lastChange is the latest time the stored transaction t changed, by
// its namespace's clock.
func lastChange(t *state.Transaction) time.Time {
	last := t.CreatedAt
	for _, at := range []time.Time{t.Challenge.OpenedAt, t.Challenge.DecidedAt, t.Method.RequestedAt, t.Method.StartedAt, t.Method.CompletedAt} {
		if at.After(last) {
			last = at
		}
	}
	return last
}

// overlay sets on v what the store knows now of the transaction: its
// result, which the journal may show a moment later.
func overlay(v *adminapi.TransactionSummary, st *emulator.Settled) {
	t := &st.Transaction
	if t.Phase != state.PhaseMethod {
		v.Status, v.StatusReason, v.ChallengeCancel = t.Status, t.StatusReason, t.ChallengeCancel
		if t.ECI != "" {
			v.ECI = t.ECI
		}
	}
	v.Final = st.Final
	v.Channel = t.Channel.String()
	if at := apiTime(lastChange(t)); at > v.UpdatedAt {
		v.UpdatedAt = at
	}
}

// storedSummary is the summary of a transaction the journal no longer
// holds, from the store alone.
func storedSummary(st *emulator.Settled) adminapi.TransactionSummary {
	t := &st.Transaction
	s := emulator.StoredSummary(*t)
	v := adminapi.TransactionSummary{
		ThreeDSServerTransID: s.ThreeDSServerTransID, ExternalReferenceID: s.ExternalReferenceID,
		CardScheme: s.CardScheme, CardBIN: s.CardBIN, CardLast4: last4(s.MaskedPAN), MaskedPAN: s.MaskedPAN,
		ScenarioID: s.ScenarioID, MessageVersion: s.Version, MerchantName: s.MerchantName,
		Amount: s.Amount, Currency: s.Currency, CreatedAt: apiTime(t.CreatedAt),
	}
	overlay(&v, st)
	return v
}

// detailOf is the admin API's view of a journal entry.
func detailOf(e *journal.Entry) adminapi.Transaction {
	d := adminapi.Transaction{TransactionSummary: summaryOf(&e.Summary), Events: make([]adminapi.Event, 0, len(e.Events)),
		EventsDropped: e.Dropped}
	for i := range e.Events {
		ev := &e.Events[i]
		d.Events = append(d.Events, adminapi.Event{Type: eventType(ev.Kind), At: apiTime(ev.Time), Status: ev.Status,
			Detail: ev.Detail, Request: rawJSON(ev.Request), Response: rawJSON(ev.Response)})
	}
	return d
}
