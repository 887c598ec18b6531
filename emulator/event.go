package emulator

import "time"

// EventKind names something that happened to a transaction.
type EventKind string

// The events of a transaction's life.
const (
	EventLookup   EventKind = "lookup"   // the lookup was answered
	EventCReq     EventKind = "creq"     // the browser posted the CReq; the challenge page is shown
	EventAttempt  EventKind = "attempt"  // a wrong one-time code was typed
	EventDecision EventKind = "decision" // the cardholder (or the headless API) decided
	EventAuto     EventKind = "auto"     // the scenario resolved the challenge by itself
	EventTimeout  EventKind = "timeout"  // a challenge window ran out
	EventCRes     EventKind = "cres"     // the final CRes was handed to the browser or the API
	EventEnquiry  EventKind = "enquiry"  // the enquiry was answered
	EventError    EventKind = "error"    // a step failed
)

// Event is one entry of a transaction's history.
type Event struct {
	Time                 time.Time
	Namespace            string
	ThreeDSServerTransID string
	Kind                 EventKind
	// Status is the transaction status after the event.
	Status string
	// Detail says more in words ("pass", "OTP 1234", "first CReq not received").
	Detail string
	// Request and Response are the JSON bodies of API events as they
	// travelled (an observer that shows them masks card numbers); nil for
	// the others. They are handed over with the event: nobody changes them
	// afterwards.
	Request, Response []byte
}

// Observer is told of every event, e.g. to keep the console's journal. It
// must be safe for concurrent use and quick: it runs on the request path.
type Observer interface {
	Observe(Event)
}

// observe reports an event when an observer is configured.
func (e *Engine) observe(t Transaction, kind EventKind, detail string) {
	if e.cfg.Observer == nil {
		return
	}
	e.cfg.Observer.Observe(Event{
		Time:                 e.now(),
		Namespace:            t.Namespace,
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		Kind:                 kind,
		Status:               t.Status,
		Detail:               detail,
	})
}
