package emulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds the result callback: the real service's enquiry page
// says the transaction id comes "in lookup response and callback". A
// namespace registers a URL (or the sandbox has a default one); when one
// of its transactions becomes final, the sandbox posts the result, the
// enquiry's body, to that URL, server to server. The engine decides what
// is delivered, when, how often it is retried, and records every attempt
// as an event; the transport (web/callback) makes the HTTP requests.
//
// A transaction becomes final at its lookup (frictionless), at the
// cardholder's decision, or by a timeout or an automatic decision that
// falls due while nobody asks. For the last, a challenge's delivery is
// scheduled at its deadline: when it falls due, the delivery settles the
// transaction (recording the timeout) and sends the result; a challenge
// still open then (opened later, so its deadline moved) is looked at
// again at its new deadline.

// Callbacks keeps the result callbacks: the URL each namespace
// registered, the generation of each namespace's signing secret, and the
// outbox of deliveries. An outbox entry is one transaction's delivery; a
// caller leases it (Claim) to attempt it, so that of several replicas
// only one delivers it at a time, and a replica that dies mid-way leaves
// it to another when its lease ends. It is state that outlives a
// request: in memory by default, shared by every replica in a shared
// store. Implementations are safe for concurrent use and bounded.
//
// The outbox is shared by every namespace, and no namespace may cost
// another its deliveries: each has a share of the outbox (a namespace
// with its share waiting has its next delivery refused, no other's), a
// full outbox makes room by pushing out a delivery of the namespace with
// the most waiting, and Claim takes the namespaces in turn, with at most
// a few attempts of each in flight, so that a receiver that never
// answers holds only its own namespace's turns.
type Callbacks interface {
	// Register sets the callback URL of namespace ns; an error wrapping
	// ErrCallbackLimit when too many namespaces have one.
	Register(ctx context.Context, ns, url string) error
	// Registered returns the callback URL of ns, "" when it has none. A
	// change made on this replica is seen at once; one made on another
	// as soon as the shared store announces it (within milliseconds).
	Registered(ctx context.Context, ns string) (string, error)
	// Unregister removes the URL of ns and reports whether it had one.
	Unregister(ctx context.Context, ns string) (bool, error)
	// SigningKey returns the generation of the signing secret of ns: the
	// zero SigningKey until it is first rotated. Every replica sees a
	// rotation at once.
	SigningKey(ctx context.Context, ns string) (SigningKey, error)
	// RotateSigningKey moves ns to the next generation of its signing
	// secret, rotated at now, and returns it; an error wrapping
	// ErrCallbackLimit when too many namespaces have rotated theirs.
	RotateSigningKey(ctx context.Context, ns string, now time.Time) (SigningKey, error)
	// Schedule asks for the delivery of transaction d.ID of d.Namespace at
	// d.Due: a new entry; or, for an entry not leased at now, the earlier
	// of the two dues; or, for a leased one, a delivery as soon as its
	// lease is released. A new entry is refused with an error wrapping
	// ErrCallbackQuota when its namespace has its share of the outbox
	// waiting. When the outbox is full, it pushes out the newest entry
	// not leased of the namespace with the most entries, when that one
	// has more than d's namespace would have, and returns it (its result
	// will not be delivered); otherwise it is refused with an error
	// wrapping ErrCallbackLimit.
	Schedule(ctx context.Context, d Delivery, now time.Time) (pushed Delivery, err error)
	// Claim leases at most max entries due at now until now+lease, each
	// with a new Token: no other Claim returns an entry while its lease
	// lasts. It takes the namespaces with entries due in turn, one entry
	// each, the namespace served longest ago first; a namespace with
	// perNamespace entries leased (by any caller, leases not yet ended)
	// waits until one ends (<= 0: no bound). The stores keep no clock:
	// the engine's is passed in.
	Claim(ctx context.Context, now time.Time, lease time.Duration, max, perNamespace int) ([]Delivery, error)
	// Release ends the lease of d (its Token): the entry, with d.Attempt,
	// is due at due, or at now when a Schedule came during the lease.
	// ErrLeaseLost when the lease ended meanwhile.
	Release(ctx context.Context, d Delivery, due, now time.Time) error
	// Done removes the entry of d when d.Token still leases it;
	// ErrLeaseLost otherwise.
	Done(ctx context.Context, d Delivery) error
}

// SigningKey is the generation of a namespace's callback signing
// secret. The secret itself is kept nowhere: the transport derives it
// from the state key, the namespace and the generation.
type SigningKey struct {
	// Generation counts the rotations, from 0.
	Generation uint64
	// Rotated is when the last rotation was made; zero before the first.
	Rotated time.Time
}

// Delivery is an outbox entry: the delivery of one transaction's result.
type Delivery struct {
	// ID is the transaction's threeDSServerTransID.
	ID        string
	Namespace string
	// Due is when it is next attempted.
	Due time.Time
	// Attempt counts the attempts made so far.
	Attempt int
	// Token names the lease of a claimed entry; empty otherwise.
	Token string
}

// Errors of a Callbacks.
var (
	// ErrCallbackLimit: the registrations, the rotated secrets or the
	// outbox are full.
	ErrCallbackLimit = errors.New("result callbacks: limit reached")
	// ErrCallbackQuota: a namespace has its share of the outbox waiting.
	ErrCallbackQuota = errors.New("result callbacks: this token's share of the outbox is full")
	// ErrLeaseLost: the delivery's lease ended before it was released.
	ErrLeaseLost = errors.New("result callbacks: the delivery's lease was lost")
)

// Defaults of the result callbacks.
const (
	DefaultCallbackAttempts = 5
	DefaultCallbackBackoff  = time.Second
	// DefaultCallbackInFlightPerToken bounds the attempts of one
	// namespace in flight at once, across replicas.
	DefaultCallbackInFlightPerToken = 2
	// DefaultCallbackURLs bounds the namespaces with a callback URL, and
	// those with a rotated signing secret.
	DefaultCallbackURLs = 10_000
	// DefaultCallbackOutbox bounds the deliveries waiting, and
	// DefaultCallbackOutboxPerToken those of one namespace.
	DefaultCallbackOutbox         = 100_000
	DefaultCallbackOutboxPerToken = 10_000
	// MaxCallbackBackoff caps the wait between two attempts.
	MaxCallbackBackoff = 5 * time.Minute
)

// CallbackBounds bound the result callbacks' state, in every store; a
// zero field takes its default.
type CallbackBounds struct {
	// URLs bounds the namespaces with a callback URL, and those with a
	// rotated signing secret (DefaultCallbackURLs).
	URLs int
	// Outbox bounds the deliveries waiting (DefaultCallbackOutbox),
	// OutboxPerNamespace those of one namespace
	// (DefaultCallbackOutboxPerToken).
	Outbox, OutboxPerNamespace int
}

// WithDefaults returns b with each zero field set to its default.
func (b CallbackBounds) WithDefaults() CallbackBounds {
	if b.URLs <= 0 {
		b.URLs = DefaultCallbackURLs
	}
	if b.Outbox <= 0 {
		b.Outbox = DefaultCallbackOutbox
	}
	if b.OutboxPerNamespace <= 0 {
		b.OutboxPerNamespace = DefaultCallbackOutboxPerToken
	}
	return b
}

// CallbackJob is a result to deliver: the enquiry's answer for the
// transaction, to URL.
type CallbackJob struct {
	Delivery Delivery
	URL      string
	// Result is the enquiry's answer; its body is what is posted.
	Result EnquiryResponse
	// Attempt is this attempt's number, from 1.
	Attempt int
	// Transaction is the transaction's summary, for the events.
	Transaction Summary
	// Key is the generation of the namespace's signing secret.
	Key SigningKey
}

// CallbackAttempt is how one delivery attempt went.
type CallbackAttempt struct {
	// Status is the HTTP status of the answer; 0 when none came.
	Status int
	// Err says what went wrong when no answer came, or why the URL was
	// not tried (then Permanent).
	Err string
	// Permanent marks a failure no retry can cure (a URL the allowlist
	// no longer names).
	Permanent bool
	Took      time.Duration
}

// Delivered tells whether the attempt delivered the result: a 2xx answer.
func (a CallbackAttempt) Delivered() bool { return a.Status >= 200 && a.Status < 300 }

// Callbacks returns the result callbacks' state, which the admin API
// registers URLs in; nil when the engine sends none.
func (e *Engine) Callbacks() Callbacks { return e.cfg.Callbacks }

// DefaultCallbackURL is where the results of namespaces without a URL of
// their own go; empty for nowhere.
func (e *Engine) DefaultCallbackURL() string { return e.cfg.DefaultCallbackURL }

// callbackURL is where the results of namespace ns go: its registered
// URL, else the default; "" for none.
func (e *Engine) callbackURL(ctx context.Context, ns string) (string, error) {
	u, err := e.cfg.Callbacks.Registered(ctx, ns)
	if err != nil || u != "" {
		return u, err
	}
	return e.cfg.DefaultCallbackURL, nil
}

// scheduleCallback schedules the delivery of t's result when its
// namespace has a callback URL: at once when t is final, at its deadline
// while a challenge waits (rules ch). A failure is recorded as an event:
// the transaction itself went well. A delivery pushed out of a full
// outbox to make room is recorded as an event of its own transaction.
func (e *Engine) scheduleCallback(ctx context.Context, t Transaction, ch *scenarios.Challenge) {
	if e.cfg.Callbacks == nil {
		return
	}
	u, err := e.callbackURL(ctx, t.Namespace)
	if err == nil && u == "" {
		return
	}
	due := e.now()
	if t.Phase != PhaseFinal {
		due = e.deadline(ctx, t, ch)
	}
	var pushed Delivery
	if err == nil {
		pushed, err = e.cfg.Callbacks.Schedule(ctx, Delivery{ID: t.ThreeDSServerTransID, Namespace: t.Namespace, Due: due}, e.now())
	}
	if err != nil {
		e.transactionEvent(ctx, t, EventCallback, "the result callback was not queued: "+err.Error()+"; the enquiry still answers the result")
	}
	if pushed.ID != "" {
		if p, err := e.store.Get(ctx, pushed.ID); err == nil && p.Namespace == pushed.Namespace {
			e.transactionEvent(ctx, p, EventCallback, "the result callback was given up: the outbox was full and this token had the most deliveries waiting; the enquiry still answers the result")
		}
	}
}

// deadline is when, in real time, a waiting challenge settles by itself:
// its automatic decision, or the timeout of its phase (its scenario's
// window, or the server's), by its token's clock; a little after, as
// settling needs the time past. A clock advanced later makes it due
// sooner: the automation API settles the token's open challenges then.
func (e *Engine) deadline(ctx context.Context, t Transaction, ch *scenarios.Challenge) time.Time {
	real := e.now()
	if ch == nil {
		ch = &defaultChallenge
	}
	in, ok := dueIn(t, e.clockOr(ctx, t.Namespace), ch, e.cfg)
	if !ok {
		return real
	}
	return real.Add(in + 10*time.Millisecond)
}

// DueCallbacks claims the deliveries due now, at most max, for lease (how
// long the caller may take over them), and returns the results to post:
// the namespaces in turn, at most CallbackInFlightPerToken attempts of
// each in flight.
// Each transaction is settled first, so a timeout that fell due while
// nobody asked is recorded and delivered; one still waiting is put back
// until its next deadline; one gone, or whose namespace has no callback
// URL any more, is dropped.
func (e *Engine) DueCallbacks(ctx context.Context, max int, lease time.Duration) ([]CallbackJob, error) {
	if e.cfg.Callbacks == nil || max <= 0 {
		return nil, nil
	}
	claimed, err := e.cfg.Callbacks.Claim(ctx, e.now(), lease, max, e.callbackInFlight())
	if err != nil {
		return nil, fmt.Errorf("result callbacks: claim: %w", err)
	}
	jobs := make([]CallbackJob, 0, len(claimed))
	for _, d := range claimed {
		job, ok, err := e.callbackJob(ctx, d)
		if err != nil {
			// Left leased: it is due again when its lease ends.
			return jobs, fmt.Errorf("result callback of %s: %w", d.ID, err)
		}
		if ok {
			jobs = append(jobs, job)
		}
	}
	return jobs, nil
}

// callbackJob prepares the delivery d, or settles what it can without one.
func (e *Engine) callbackJob(ctx context.Context, d Delivery) (CallbackJob, bool, error) {
	t, err := e.store.Get(ctx, d.ID)
	if errors.Is(err, ErrNotFound) || err == nil && t.Namespace != d.Namespace {
		return CallbackJob{}, false, e.dropDelivery(ctx, d)
	}
	if err != nil {
		return CallbackJob{}, false, err
	}
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return CallbackJob{}, false, err
	}
	ch := challengeRules(sc)
	if t, err = e.settleWith(ctx, t, ch); err != nil {
		return CallbackJob{}, false, err
	}
	if t.Phase != PhaseFinal {
		return CallbackJob{}, false, e.releaseLost(e.cfg.Callbacks.Release(ctx, d, e.deadline(ctx, t, ch), e.now()))
	}
	u, err := e.callbackURL(ctx, t.Namespace)
	if err != nil {
		return CallbackJob{}, false, err
	}
	if u == "" {
		e.transactionEvent(ctx, t, EventCallback, "result callback dropped: this token has no callback URL any more")
		return CallbackJob{}, false, e.dropDelivery(ctx, d)
	}
	key, err := e.cfg.Callbacks.SigningKey(ctx, t.Namespace)
	if err != nil {
		return CallbackJob{}, false, err
	}
	resp := e.enquiryResponse(t)
	if resp.ThreeDSMethod = e.methodTimeline(ctx, t); resp.ThreeDSMethod != nil {
		resp.DDCID, resp.ThreeDSCompInd = t.Method.DDCID, t.Method.CompInd
	}
	return CallbackJob{Delivery: d, URL: u, Result: resp, Attempt: d.Attempt + 1, Transaction: summaryOf(t), Key: key}, true, nil
}

// dropDelivery removes a delivery there is nothing to deliver for.
func (e *Engine) dropDelivery(ctx context.Context, d Delivery) error {
	return e.releaseLost(e.cfg.Callbacks.Done(ctx, d))
}

// releaseLost treats a lost lease as done: another caller has the entry.
func (e *Engine) releaseLost(err error) error {
	if errors.Is(err, ErrLeaseLost) {
		return nil
	}
	return err
}

// CallbackDelivered records how an attempt of job went, as an event of
// its transaction: a 2xx answer delivered it; a failure is tried again
// after a wait that doubles each time, at most CallbackAttempts times in
// all, unless it cannot succeed.
func (e *Engine) CallbackDelivered(ctx context.Context, job CallbackJob, a CallbackAttempt) error {
	d := job.Delivery
	of := fmt.Sprintf("attempt %d of %d", job.Attempt, e.callbackAttempts())
	took := a.Took.Round(time.Millisecond)
	var detail string
	var err error
	switch {
	case a.Delivered():
		detail = fmt.Sprintf("result callback delivered to %s: HTTP %d in %s (%s)", job.URL, a.Status, took, of)
		err = e.cfg.Callbacks.Done(ctx, d)
	case a.Permanent || job.Attempt >= e.callbackAttempts():
		detail = fmt.Sprintf("result callback to %s failed: %s (%s); given up", job.URL, attemptFailure(a, took), of)
		err = e.cfg.Callbacks.Done(ctx, d)
	default:
		wait := e.callbackBackoff(job.Attempt)
		detail = fmt.Sprintf("result callback to %s failed: %s (%s); next attempt in %s", job.URL, attemptFailure(a, took), of, wait)
		d.Attempt = job.Attempt
		err = e.cfg.Callbacks.Release(ctx, d, e.now().Add(wait), e.now())
	}
	e.emit(ctx, Event{Namespace: d.Namespace, Kind: EventCallback, Detail: detail, Transaction: job.Transaction})
	if err = e.releaseLost(err); err != nil {
		return fmt.Errorf("result callback of %s: %w", d.ID, err)
	}
	return nil
}

// attemptFailure says how an attempt failed.
func attemptFailure(a CallbackAttempt, took time.Duration) string {
	if a.Status != 0 {
		return fmt.Sprintf("HTTP %d in %s", a.Status, took)
	}
	return a.Err
}

// callbackInFlight is the most attempts of one namespace in flight.
func (e *Engine) callbackInFlight() int {
	if e.cfg.CallbackInFlightPerToken > 0 {
		return e.cfg.CallbackInFlightPerToken
	}
	return DefaultCallbackInFlightPerToken
}

// callbackAttempts is the most attempts of one delivery.
func (e *Engine) callbackAttempts() int {
	if e.cfg.CallbackAttempts > 0 {
		return e.cfg.CallbackAttempts
	}
	return DefaultCallbackAttempts
}

// callbackBackoff is the wait after failed attempt n (from 1): the first
// backoff, doubled for each attempt before, at most MaxCallbackBackoff.
func (e *Engine) callbackBackoff(n int) time.Duration {
	b := e.cfg.CallbackBackoff
	if b <= 0 {
		b = DefaultCallbackBackoff
	}
	for i := 1; i < n && b < MaxCallbackBackoff; i++ {
		b *= 2
	}
	return min(b, MaxCallbackBackoff)
}
