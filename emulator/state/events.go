package state

import (
	"context"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
)

// EventKind names something that happened to a transaction.
type EventKind string

// The events of a transaction's life.
const (
	EventLookup   EventKind = "lookup"   // the lookup was answered
	EventCReq     EventKind = "creq"     // the browser posted the CReq (or opened the hosted URL); the challenge page is shown
	EventDecision EventKind = "decision" // the cardholder (or the headless API) decided
	// The wrong entries, by what was entered (emulator/attempts.go
	// names each style's): a one-time code, a password, the choices of
	// a question (select and multiselect). Each uses an attempt.
	EventAttempt         EventKind = "attempt" // a wrong one-time code
	EventPasswordAttempt EventKind = "password-attempt"
	EventChoiceAttempt   EventKind = "choice-attempt"
	// EventCodeSent: a one-time code was "sent" to the cardholder's
	// phone, when an otp page first opened and on each resend.
	EventCodeSent EventKind = "code-sent"
	// EventApp: the banking app of an oob challenge was asked to
	// approve, or answered.
	EventApp EventKind = "app"
	// EventContinue: an oob page's Continue was pressed before the app
	// answered.
	EventContinue EventKind = "continue"
	EventAuto     EventKind = "auto"    // the scenario resolved the challenge by itself
	EventTimeout  EventKind = "timeout" // a challenge window ran out
	EventCRes     EventKind = "cres"    // the final CRes was handed to the browser or the API
	EventEnquiry  EventKind = "enquiry" // the enquiry was answered
	EventDDC      EventKind = "ddc"     // a device data collection was requested
	EventMethod   EventKind = "method"  // the 3DS Method page opened
	// EventMethodDone: the 3DS Method completed and notified the 3DS
	// Requestor.
	EventMethodDone EventKind = "method-done"
	EventCallback   EventKind = "callback" // a result callback was attempted, delivered or given up
)

// Event is one entry of a transaction's history. The engine makes every
// event, once, when the thing happens; nothing else records any. An event
// holds no full card number: the summary carries the masked one, and the
// request body is a redacted copy.
type Event struct {
	Time      time.Time
	Namespace string
	Kind      EventKind
	// Detail says more in words ("pass -> Y", "challenge page shown,
	// window size 2").
	Detail string
	// Transaction is the transaction after the event.
	Transaction Summary
	// Request is the API request of a lookup or an enquiry: its JSON body
	// compacted, card numbers masked and long values cut (package
	// redact); nil for other events.
	Request []byte
	// The engine's answer, typed: Lookup on a lookup event (unless Answer
	// holds it), Enquiry on an enquiry event, CRes on a cres event; nil
	// otherwise.
	Lookup  *message.LookupResponse
	Enquiry *message.EnquiryResponse
	CRes    *message.CRes
	// Answer is the answer's JSON body as the API writes it (without a
	// challengeHtml), when the engine encoded it once for both the
	// transport and the journal; nil otherwise. It holds what the merchant
	// sent, as the typed answer does: the journal keeps a masked copy when
	// it holds a card number. Shared: nobody changes it.
	Answer []byte
	// Challenge is the challenge indication of a lookup answered C whose
	// Answer is set (the journal keeps it as data, for the console's
	// challengeHtml); nil otherwise.
	Challenge *message.ChallengeIndication
}

// Summary is a transaction as the console lists it. Fields marked "lookup
// only" are known when the lookup is answered and empty on later events
// (the engine does not store them).
type Summary struct {
	ThreeDSServerTransID string
	ExternalReferenceID  string
	ScenarioID           string
	// MaskedPAN is the card number with only its BIN and last four
	// digits.
	MaskedPAN       string
	CardBIN         string
	CardScheme      string
	Version         string
	Status          string // transStatus after the event
	StatusReason    string
	ECI             string
	ChallengeCancel string

	// Fallback is whether the catalogue's fallback answered the lookup (no
	// scenario matched the card); lookup only.
	Fallback bool
	// Channel is the device channel of the transaction.
	Channel Channel
	// ThreeRIInd is a 3RI lookup's threeRIInd; lookup only.
	ThreeRIInd string

	CardholderName string // lookup only
	MerchantName   string // lookup only, or a challenge's
	Amount         string // lookup only, or a challenge's
	Currency       string // lookup only, or a challenge's
}

// EventSink receives the engine's events, e.g. the console's journal. It
// must be safe for concurrent use and quick: it runs on the request path,
// and a failure to record is its own to log, never the request's.
type EventSink interface {
	Record(ctx context.Context, ev Event)
}

// Masked is the summary as the console and the automation API show it:
// every card number in its free-text fields masked (redact.Text), as in
// the request body an event keeps. The answers of the API still carry
// what the merchant sent.
func (s Summary) Masked() Summary {
	for _, f := range [...]*string{&s.ExternalReferenceID, &s.ScenarioID, &s.CardholderName, &s.MerchantName, &s.Amount, &s.Currency} {
		*f = redact.Text(*f)
	}
	return s
}
