// Package journal is the read model of the engine's events that the
// console and the automation API read: per namespace (bearer token) the
// most recent transactions, each with a summary and its ordered events,
// the redacted request and the answer of its API calls among them. The
// engine makes every event; a journal only keeps and shows them.
//
// This package states what a journal answers (Journal), the stored form
// of an event (NewEvent) and how events fold into bounded transactions
// (History). It knows nothing of where the events are kept: the memory
// journal (package memstore) keeps a History under a lock, the shared one
// (package redisstore) keeps the events in Redis and folds them into a
// History when read.
package journal

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// Journal is the console's read model of the engine's events: it records
// them (as the engine's EventSink) and answers the console's pages, per
// namespace (bearer token). Implementations are safe for concurrent use.
type Journal interface {
	state.EventSink
	// List returns the summaries of the most recent transactions of ns,
	// newest first; at most limit of them (all when limit <= 0).
	List(ctx context.Context, ns string, limit int) ([]Summary, error)
	// Get returns the transaction id of namespace ns with its events;
	// false when ns has no such transaction (another namespace's included).
	Get(ctx context.Context, ns, id string) (Entry, bool, error)
	// Query returns the page of the transactions of ns that q selects,
	// newest first (see Query and Page).
	Query(ctx context.Context, ns string, q Query) (Page, error)
	// Forget forgets every transaction of ns (the automation API's
	// DELETE /admin/transactions).
	Forget(ctx context.Context, ns string) error
	// Version is a number that changes whenever the journal of ns changes
	// (a transaction or an event added, a transaction evicted).
	Version(ctx context.Context, ns string) (uint64, error)
	// Changed returns a channel closed at the next change of the journal
	// of ns, or sooner (compare versions). Take it before reading the state
	// it guards, so that no change goes unnoticed.
	Changed(ns string) <-chan struct{}
	// Stats returns the journal's counters, for the metrics.
	Stats() Stats
}

// Queued is implemented by a journal that writes what it records
// asynchronously (the shared one): an event reaches its reads, on every
// replica, a moment after it was recorded. A reader that knows of a
// change the journal does not show yet waits for Changed.
type Queued interface {
	Journal
	// Flush waits until the events this process recorded so far are
	// written, or ctx ends.
	Flush(ctx context.Context) error
}

// Defaults of the journal's bounds.
const (
	// DefaultPerNamespace is how many transactions a namespace keeps.
	DefaultPerNamespace = 200
	// DefaultTotal is how many transactions the whole journal keeps.
	DefaultTotal = 10000
	// DefaultMaxEvents is how many events one transaction keeps.
	DefaultMaxEvents = 64
	// DefaultMaxBytesPerNamespace is how many bytes a namespace's
	// transactions may take.
	DefaultMaxBytesPerNamespace = 4 << 20
	// DefaultMaxTotalBytes is how many bytes the whole journal may take.
	DefaultMaxTotalBytes = 64 << 20
)

// Options bound a journal. Zero fields take the defaults.
type Options struct {
	// PerNamespace is the most transactions kept per namespace.
	PerNamespace int
	// Total is the most transactions kept across all namespaces; beyond
	// it the namespace holding the most bytes forgets its oldest.
	Total int
	// MaxEvents is the most events kept per transaction: beyond it the
	// oldest events after the first are dropped (and counted).
	MaxEvents int
	// MaxBytesPerNamespace bounds the bytes a namespace's transactions
	// take (bodies, strings and the journal's own overhead, see Bytes);
	// beyond it the namespace's oldest transactions are forgotten.
	MaxBytesPerNamespace int64
	// MaxTotalBytes bounds the bytes of the whole journal; beyond it the
	// namespace holding the most bytes forgets its oldest transactions
	// first.
	MaxTotalBytes int64
}

// WithDefaults returns o with its zero fields set to the defaults.
func (o Options) WithDefaults() Options {
	if o.MaxBytesPerNamespace <= 0 {
		o.MaxBytesPerNamespace = DefaultMaxBytesPerNamespace
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.PerNamespace <= 0 {
		o.PerNamespace = DefaultPerNamespace
	}
	if o.Total <= 0 {
		o.Total = DefaultTotal
	}
	if o.MaxEvents <= 1 {
		o.MaxEvents = DefaultMaxEvents
	}
	return o
}

// Stats are a journal's counters, for the metrics.
type Stats struct {
	// Transactions and Bytes are what the journal holds now.
	Transactions int
	Bytes        int64
	// Recorded counts the events kept; Dropped those lost, never kept
	// (a full queue) or dropped later to bound a transaction's history;
	// Evicted the transactions forgotten to bound the journal.
	Recorded, Dropped, Evicted uint64
}

// Summary describes one transaction in a listing.
type Summary struct {
	// ID is the threeDSServerTransID.
	ID string
	// Created is the time of the transaction's first event.
	Created time.Time
	// Updated is the time of its latest event.
	Updated time.Time
	// Status is the transaction status after the latest event.
	Status string
	// StatusReason and ChallengeCancel are those of the latest event that
	// had one.
	StatusReason, ChallengeCancel string
	// ECI is the ECI after the latest event that had one.
	ECI string
	// LastEvent is the kind of the latest event.
	LastEvent state.EventKind
	// Events counts every event recorded, dropped ones included.
	Events int
	// Enquiries counts the enquiries answered.
	Enquiries int
	// ScenarioID is the scenario that answered the lookup; Fallback
	// whether it was the catalogue's fallback (no scenario matched).
	ScenarioID string
	Fallback   bool
	// Version is the protocol version of the transaction.
	Version string
	// Channel is the device channel of the transaction.
	Channel state.Channel

	// MaskedPAN is the card number, masked (first six and last four
	// digits).
	MaskedPAN string
	// CardBIN is the card's BIN.
	CardBIN string
	// Scheme is the card scheme, e.g. "VISA".
	Scheme string
	// The fields below come from the lookup; empty when it was not seen.

	// CardholderName is card.cardholderName of the lookup.
	CardholderName string
	// MerchantName is merchantName of the lookup.
	MerchantName string
	// Amount and Currency are purchase.amount and purchase.currencyCode.
	Amount, Currency string
	// ExternalReferenceID is the Requestor's reference of the lookup.
	ExternalReferenceID string
	// LookupStatus is the status the lookup answered, e.g. "C" or "Y".
	LookupStatus string
	// ThreeRIInd is the threeRIInd of a 3RI lookup.
	ThreeRIInd string
}

// Entry is one transaction with its history.
type Entry struct {
	Summary
	// Events are the recorded events, oldest first.
	Events []Event
	// Dropped counts the events dropped to bound the history.
	Dropped int
}

// Event is one step of a transaction's history.
type Event struct {
	Kind   state.EventKind
	Time   time.Time
	Status string
	Detail string
	// Request and Response are the JSON bodies of API events (card numbers
	// masked, long values cut) and the final CRes; nil for the others.
	// Callers must not modify them.
	Request, Response []byte
	// Challenge is the challenge indication of a lookup answered C, from
	// which the console shows its challengeHtml; nil otherwise.
	Challenge *message.ChallengeIndication
	// SincePrevious is the time since the event before (0 for the first);
	// SinceStart the time since the first event. Set by Get.
	SincePrevious, SinceStart time.Duration
}

// NewEvent is the stored form of an engine event: the answer as the API
// wrote it (but for challengeHtml, kept as data), either the engine's
// encoding of it (ev.Answer, kept without a copy unless it holds a card
// number to mask) or the typed answer encoded here. Its strings are the
// summary's after merge (status) or the engine's own (detail), never the
// request's memory.
func NewEvent(ev state.Event) Event {
	e := Event{Kind: ev.Kind, Time: ev.Time, Detail: ev.Detail, Request: ev.Request}
	c := ev.Challenge
	if ev.Lookup != nil && ev.Lookup.Challenge != nil {
		c = ev.Lookup.Challenge
	}
	if c != nil {
		e.Challenge = &message.ChallengeIndication{
			ACSURL: c.ACSURL, CReq: c.CReq, SessionData: strings.Clone(c.SessionData), WindowSize: c.WindowSize,
		}
	}
	// The answer went out as the merchant's request made it; its copy
	// shows no card number (an externalReferenceId may be one).
	switch {
	case ev.Answer != nil: // encoded once by the engine, written by the transport too
		e.Response = redact.SharedAnswer(trimNewline(ev.Answer))
	case ev.Lookup != nil:
		e.Response = redact.Answer(trimNewline(wire.AppendLookupResponse(make([]byte, 0, responseCap), ev.Lookup, "")))
	case ev.Enquiry != nil:
		e.Response = redact.Answer(trimNewline(wire.AppendEnquiryResponse(make([]byte, 0, responseCap), ev.Enquiry)))
	case ev.CRes != nil:
		b, _ := json.Marshal(ev.CRes) // plain strings: never fails
		e.Response = redact.Answer(b)
	}
	// The engine redacts requests and its answers are small; a body beyond
	// the redacted bound (a sink fed by hand) is redacted here, so that no
	// event takes more.
	if len(e.Request) > redact.DefaultMaxBytes {
		e.Request = redact.JSON(e.Request, redact.Limits{})
	}
	if len(e.Response) > redact.DefaultMaxBytes {
		e.Response = redact.JSON(e.Response, redact.Limits{})
	}
	return e
}

// trimNewline is b without the newline that ends an encoded answer.
func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// responseCap holds an encoded lookup or enquiry answer in one allocation.
const responseCap = 768

// merge updates a summary with the transaction after an event: every field
// the event knows replaces the old one. The strings are then packed into
// one allocation of the journal's own: none refers to a request's memory,
// and the summary's size is exactly what pack counts, which merge returns.
func (s *Summary) merge(ev state.Event) int {
	t := ev.Transaction
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	if ev.Time.After(s.Updated) {
		s.Updated = ev.Time
	}
	set(&s.Status, t.Status)
	s.StatusReason, s.ChallengeCancel = t.StatusReason, t.ChallengeCancel
	set(&s.ECI, t.ECI)
	set(&s.ScenarioID, t.ScenarioID)
	set(&s.Version, t.Version)
	set(&s.MaskedPAN, t.MaskedPAN)
	set(&s.CardBIN, t.CardBIN)
	set(&s.Scheme, t.CardScheme)
	set(&s.CardholderName, t.CardholderName)
	set(&s.MerchantName, t.MerchantName)
	set(&s.Amount, t.Amount)
	set(&s.Currency, t.Currency)
	set(&s.ExternalReferenceID, t.ExternalReferenceID)
	set(&s.ThreeRIInd, t.ThreeRIInd)
	if t.Channel != state.ChannelBrowser {
		s.Channel = t.Channel
	}
	if ev.Kind == state.EventLookup {
		s.LookupStatus, s.Fallback = t.Status, t.Fallback
	}
	s.LastEvent = ev.Kind
	s.Events++
	if ev.Kind == state.EventEnquiry {
		s.Enquiries++
	}
	return s.pack()
}

// strings lists the summary's string fields.
func (s *Summary) strings() [17]*string {
	return [17]*string{&s.ID, &s.Status, &s.StatusReason, &s.ChallengeCancel, &s.ECI, &s.ScenarioID, &s.Version,
		&s.MaskedPAN, &s.CardBIN, &s.Scheme, &s.CardholderName, &s.MerchantName, &s.Amount, &s.Currency,
		&s.ExternalReferenceID, &s.LookupStatus, &s.ThreeRIInd}
}

// pack copies every string of the summary into one new allocation and
// returns its size in bytes.
func (s *Summary) pack() int {
	fields := s.strings()
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(*f)
	}
	all := b.String()
	at := 0
	for _, f := range fields {
		l := len(*f)
		*f = all[at : at+l]
		at += l
	}
	return n
}
