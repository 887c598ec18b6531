package web

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// The JSON of the automation API's transactions: what a test reads back
// of what its checkout sent and what the sandbox answered.

// TransactionSummary is one transaction of the admin API's listing.
type TransactionSummary struct {
	ThreeDSServerTransID string `json:"threeDsServerTransId"`
	ExternalReferenceID  string `json:"externalReferenceId,omitempty"`
	// Status is the current transStatus; empty for a device data
	// collection whose lookup has not come yet.
	Status string `json:"status"`
	// Final tells whether no later event can change the result.
	Final           bool   `json:"final"`
	StatusReason    string `json:"statusReason,omitempty"`
	ChallengeCancel string `json:"challengeCancel,omitempty"`
	ECI             string `json:"eci,omitempty"`
	CardScheme      string `json:"cardScheme,omitempty"`
	CardBIN         string `json:"cardBin,omitempty"`
	CardLast4       string `json:"cardLast4,omitempty"`
	MaskedPAN       string `json:"maskedCardNumber,omitempty"`
	ScenarioID      string `json:"scenarioId,omitempty"`
	Fallback        bool   `json:"fallback,omitempty"`
	MessageVersion  string `json:"messageVersion,omitempty"`
	LookupStatus    string `json:"lookupStatus,omitempty"`
	CardholderName  string `json:"cardholderName,omitempty"`
	MerchantName    string `json:"merchantName,omitempty"`
	Amount          string `json:"amount,omitempty"`
	Currency        string `json:"currency,omitempty"`
	CreatedAt       string `json:"createdAt"`
	UpdatedAt       string `json:"updatedAt"`
	// LastEvent is the type of the latest event; EventCount and
	// EnquiryCount count every event and enquiry, dropped ones included.
	LastEvent    string `json:"lastEvent,omitempty"`
	EventCount   int    `json:"eventCount"`
	EnquiryCount int    `json:"enquiryCount"`
}

// TransactionDetail is one transaction with its events.
type TransactionDetail struct {
	TransactionSummary
	Events []TransactionEvent `json:"events"`
	// EventsDropped counts the events dropped to bound the history.
	EventsDropped int `json:"eventsDropped,omitempty"`
	// EventsEvicted tells that the journal holds none of its events any
	// more (--journal-size, --journal-bytes): the summary is the store's.
	EventsEvicted bool `json:"eventsEvicted,omitempty"`
}

// TransactionEvent is one event of a transaction.
type TransactionEvent struct {
	Type   string `json:"type"`
	At     string `json:"at"`
	Status string `json:"status,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Request is the API request as the sandbox received it (card
	// numbers masked, long values cut), Response its answer or the final
	// CRes; absent for other events.
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// eventTypes name the engine's event kinds in the API.
var eventTypes = map[state.EventKind]string{
	state.EventDDC:        "collection",
	state.EventMethod:     "methodStart",
	state.EventMethodDone: "methodCompletion",
	state.EventLookup:     "lookup",
	state.EventCReq:       "creq",
	state.EventAttempt:    "otpAttempt",
	state.EventCodeSent:   "codeSent",
	state.EventApp:        "bankApp",
	state.EventContinue:   "oobContinue",
	state.EventDecision:   "decision",
	state.EventCRes:       "cres",
	state.EventEnquiry:    "enquiry",
	state.EventAuto:       "automaticDecision",
	state.EventTimeout:    "timeout",
	state.EventCallback:   "resultCallback",
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
func summaryOf(s *journal.Summary) TransactionSummary {
	return TransactionSummary{
		ThreeDSServerTransID: s.ID, ExternalReferenceID: s.ExternalReferenceID, Status: s.Status, Final: finalStatus(s.Status),
		StatusReason: s.StatusReason, ChallengeCancel: s.ChallengeCancel, ECI: s.ECI, CardScheme: s.Scheme,
		CardBIN: s.CardBIN, CardLast4: last4(s.MaskedPAN), MaskedPAN: s.MaskedPAN, ScenarioID: s.ScenarioID,
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
func (v *TransactionSummary) overlay(st *emulator.Settled) {
	t := &st.Transaction
	if t.Phase != state.PhaseMethod {
		v.Status, v.StatusReason, v.ChallengeCancel = t.Status, t.StatusReason, t.ChallengeCancel
		if t.ECI != "" {
			v.ECI = t.ECI
		}
	}
	v.Final = st.Final
	if at := apiTime(lastChange(t)); at > v.UpdatedAt {
		v.UpdatedAt = at
	}
}

// storedSummary is the summary of a transaction the journal no longer
// holds, from the store alone.
func storedSummary(st *emulator.Settled) TransactionSummary {
	t := &st.Transaction
	s := emulator.StoredSummary(*t)
	v := TransactionSummary{
		ThreeDSServerTransID: s.ThreeDSServerTransID, ExternalReferenceID: s.ExternalReferenceID,
		CardScheme: s.CardScheme, CardBIN: s.CardBIN, CardLast4: last4(s.MaskedPAN), MaskedPAN: s.MaskedPAN,
		ScenarioID: s.ScenarioID, MessageVersion: s.Version, MerchantName: s.MerchantName,
		Amount: s.Amount, Currency: s.Currency, CreatedAt: apiTime(t.CreatedAt),
	}
	v.overlay(st)
	return v
}

// detailOf is the admin API's view of a journal entry.
func detailOf(e *journal.Entry) TransactionDetail {
	d := TransactionDetail{TransactionSummary: summaryOf(&e.Summary), Events: make([]TransactionEvent, 0, len(e.Events)),
		EventsDropped: e.Dropped}
	for i := range e.Events {
		ev := &e.Events[i]
		d.Events = append(d.Events, TransactionEvent{Type: eventType(ev.Kind), At: apiTime(ev.Time), Status: ev.Status,
			Detail: ev.Detail, Request: rawJSON(ev.Request), Response: rawJSON(ev.Response)})
	}
	return d
}
