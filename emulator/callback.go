package emulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
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

// CallbackJob is a result to deliver: the enquiry's answer for the
// transaction, to URL.
type CallbackJob struct {
	Delivery state.Delivery
	URL      string
	// Result is the enquiry's answer; its body is what is posted.
	Result message.EnquiryResponse
	// Attempt is this attempt's number, from 1.
	Attempt int
	// Transaction is the transaction's summary, for the events.
	Transaction state.Summary
	// Key is the generation of the namespace's signing secret.
	Key state.SigningKey
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

// Defaults of the result callbacks' delivery (Config).
const (
	DefaultCallbackAttempts = 5
	DefaultCallbackBackoff  = time.Second
	// DefaultCallbackInFlightPerToken bounds the attempts of one
	// namespace in flight at once, across replicas.
	DefaultCallbackInFlightPerToken = 2
	// MaxCallbackBackoff caps the wait between two attempts.
	MaxCallbackBackoff = 5 * time.Minute
)

// Callbacks returns the result callbacks' state, which the admin API
// registers URLs in; nil when the engine sends none.
func (e *Engine) Callbacks() state.Callbacks { return e.cfg.Callbacks }

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
func (e *Engine) scheduleCallback(ctx context.Context, t state.Transaction, ch *scenarios.Challenge) {
	if e.cfg.Callbacks == nil {
		return
	}
	u, err := e.callbackURL(ctx, t.Namespace)
	if err == nil && u == "" {
		return
	}
	due := e.now()
	if t.Phase != state.PhaseFinal {
		due = e.deadline(ctx, t, ch)
	}
	var pushed state.Delivery
	if err == nil {
		pushed, err = e.cfg.Callbacks.Schedule(ctx, state.Delivery{ID: t.ThreeDSServerTransID, Namespace: t.Namespace, Due: due}, e.now())
	}
	if err != nil {
		e.transactionEvent(ctx, t, state.EventCallback, "the result callback was not queued: "+err.Error()+"; the enquiry still answers the result")
	}
	if pushed.ID != "" {
		if p, err := e.store.Get(ctx, pushed.ID); err == nil && p.Namespace == pushed.Namespace {
			e.transactionEvent(ctx, p, state.EventCallback, "the result callback was given up: the outbox was full and this token had the most deliveries waiting; the enquiry still answers the result")
		}
	}
}

// deadline is when, in real time, a waiting challenge settles by itself:
// its automatic decision, or the timeout of its phase (its scenario's
// window, or the server's), by its token's clock; a little after, as
// settling needs the time past. A clock advanced later makes it due
// sooner: the automation API settles the token's open challenges then.
func (e *Engine) deadline(ctx context.Context, t state.Transaction, ch *scenarios.Challenge) time.Time {
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
func (e *Engine) callbackJob(ctx context.Context, d state.Delivery) (CallbackJob, bool, error) {
	t, err := e.store.Get(ctx, d.ID)
	if errors.Is(err, state.ErrNotFound) || err == nil && t.Namespace != d.Namespace {
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
	if t.Phase != state.PhaseFinal {
		return CallbackJob{}, false, e.releaseLost(e.cfg.Callbacks.Release(ctx, d, e.deadline(ctx, t, ch), e.now()))
	}
	u, err := e.callbackURL(ctx, t.Namespace)
	if err != nil {
		return CallbackJob{}, false, err
	}
	if u == "" {
		e.transactionEvent(ctx, t, state.EventCallback, "result callback dropped: this token has no callback URL any more")
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
func (e *Engine) dropDelivery(ctx context.Context, d state.Delivery) error {
	return e.releaseLost(e.cfg.Callbacks.Done(ctx, d))
}

// releaseLost treats a lost lease as done: another caller has the entry.
func (e *Engine) releaseLost(err error) error {
	if errors.Is(err, state.ErrLeaseLost) {
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
	e.emit(ctx, state.Event{Namespace: d.Namespace, Kind: state.EventCallback, Detail: detail, Transaction: job.Transaction})
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
