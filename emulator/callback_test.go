package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

const hookURL = "http://127.0.0.1:9/results"

// withCallbacks gives the fixture's engine the memory store's callbacks,
// with ns registered at hookURL, and returns them.
func withCallbacks(cb **memstore.Callbacks) func(*emulator.Config) {
	return func(c *emulator.Config) {
		*cb = memstore.NewCallbacks(state.CallbackBounds{})
		_ = (*cb).Register(context.Background(), ns, hookURL)
		c.Callbacks = *cb
		c.CallbackAttempts = 3
		c.CallbackBackoff = 2 * time.Second
	}
}

// due claims the deliveries due now; exactly want of them.
func (f *fixture) due(want int) []emulator.CallbackJob {
	f.t.Helper()
	jobs, err := f.DueCallbacks(context.Background(), 10, time.Minute)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(jobs) != want {
		f.t.Fatalf("%d deliveries due, want %d: %+v", len(jobs), want, jobs)
	}
	return jobs
}

// TestCallbackDelivered: a frictionless result is due at once, with the
// enquiry's answer; a 2xx ends it; each attempt is an event.
func TestCallbackDelivered(t *testing.T) {
	var cb *memstore.Callbacks
	f := newFixture(t, withCallbacks(&cb))
	resp := f.lookup(f.card("visa-frictionless-y"), nil)
	job := f.due(1)[0]
	if job.URL != hookURL || job.Attempt != 1 || job.Result.ThreeDSServerTransID != resp.ThreeDSServerTransID ||
		job.Result.TransactionStatus != "Y" || job.Result.ExternalReferenceID == "" || job.Result.AuthenticationValue == "" {
		t.Fatalf("job %+v", job)
	}
	f.due(0) // leased
	if err := f.CallbackDelivered(context.Background(), job, emulator.CallbackAttempt{Status: 204, Took: 3 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if ev := f.events.last(resp.ThreeDSServerTransID); ev.Kind != state.EventCallback || !strings.Contains(ev.Detail, "delivered to "+hookURL+": HTTP 204") {
		t.Errorf("event %+v", ev)
	}
	f.clock.Advance(time.Hour)
	f.due(0)
	// Another namespace without a URL schedules nothing.
	req := f.request(f.card("visa-frictionless-y"))
	if _, err := f.Lookup(context.Background(), "quiet-ns", req, emulator.APICall{}); err != nil {
		t.Fatal(err)
	}
	f.due(0)
}

// TestCallbackRetries: failures are retried after 2s, then 4s, and given
// up after the third attempt; a permanent failure at once.
func TestCallbackRetries(t *testing.T) {
	var cb *memstore.Callbacks
	f := newFixture(t, withCallbacks(&cb))
	resp := f.lookup(f.card("visa-frictionless-n"), nil)
	ctx := context.Background()
	job := f.due(1)[0]
	_ = f.CallbackDelivered(ctx, job, emulator.CallbackAttempt{Status: 500})
	if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "HTTP 500") || !strings.Contains(ev.Detail, "next attempt in 2s") {
		t.Errorf("event %q", ev.Detail)
	}
	f.clock.Advance(time.Second)
	f.due(0)
	f.clock.Advance(time.Second)
	job = f.due(1)[0]
	if job.Attempt != 2 {
		t.Fatalf("attempt %d, want 2", job.Attempt)
	}
	_ = f.CallbackDelivered(ctx, job, emulator.CallbackAttempt{Err: "connection refused"})
	if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "connection refused (attempt 2 of 3); next attempt in 4s") {
		t.Errorf("event %q", ev.Detail)
	}
	f.clock.Advance(4 * time.Second)
	job = f.due(1)[0]
	_ = f.CallbackDelivered(ctx, job, emulator.CallbackAttempt{Status: 502})
	if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "given up") {
		t.Errorf("event %q", ev.Detail)
	}
	f.clock.Advance(time.Hour)
	f.due(0)

	resp = f.lookup(f.card("visa-frictionless-y"), nil)
	_ = f.CallbackDelivered(ctx, f.due(1)[0], emulator.CallbackAttempt{Err: "host not allowed", Permanent: true})
	if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "host not allowed (attempt 1 of 3); given up") {
		t.Errorf("event %q", ev.Detail)
	}
}

// TestCallbackTimeoutNobodyAsks: a challenge nobody opens ends by its
// timeout, and its result is delivered without anybody asking; one opened
// later waits for its own deadline; a decision delivers at once.
func TestCallbackTimeoutNobodyAsks(t *testing.T) {
	var cb *memstore.Callbacks
	f := newFixture(t, withCallbacks(&cb))
	resp := f.lookup(f.card("visa-challenge"), nil)
	f.due(0)
	f.clock.Advance(emulator.DefaultFirstCReqTimeout + time.Second)
	job := f.due(1)[0]
	if job.Result.TransactionStatus != "N" || job.Result.StatusReason != "14" || job.Result.ChallengeCancel != "05" {
		t.Errorf("result %+v", job.Result)
	}
	if got := f.events.kinds(resp.ThreeDSServerTransID); got != "lookup,timeout" {
		t.Errorf("events %s", got)
	}
	_ = f.CallbackDelivered(context.Background(), job, emulator.CallbackAttempt{Status: 200})

	opened := f.lookup(f.card("visa-challenge"), nil)
	f.clock.Advance(5 * time.Minute)
	f.open(opened)
	f.clock.Advance(emulator.DefaultFirstCReqTimeout)
	f.due(0) // its first deadline passed: still open, put back
	f.clock.Advance(emulator.DefaultChallengeTimeout)
	job = f.due(1)[0]
	if job.Result.ChallengeCancel != "04" {
		t.Errorf("opened, then timed out: %+v", job.Result)
	}
	_ = f.CallbackDelivered(context.Background(), job, emulator.CallbackAttempt{Status: 200})

	decided := f.lookup(f.card("visa-challenge"), nil)
	if _, err := f.CompleteChallenge(context.Background(), ns, decided.ThreeDSServerTransID, emulator.Choice{Action: "pass"}); err != nil {
		t.Fatal(err)
	}
	if job := f.due(1)[0]; job.Result.TransactionStatus != "Y" || job.Result.ThreeDSServerTransID != decided.ThreeDSServerTransID {
		t.Errorf("decided: %+v", job.Result)
	}
}

// TestCallbackDefaultURL: the default URL serves namespaces that
// registered none; unregistering later drops a waiting delivery.
func TestCallbackDefaultURL(t *testing.T) {
	cb := memstore.NewCallbacks(state.CallbackBounds{})
	f := newFixture(t, func(c *emulator.Config) { c.Callbacks, c.DefaultCallbackURL = cb, "http://localhost:1/default" })
	f.lookup(f.card("visa-frictionless-y"), nil)
	if job := f.due(1)[0]; job.URL != "http://localhost:1/default" {
		t.Errorf("URL %q", job.URL)
	}

	var own *memstore.Callbacks
	g := newFixture(t, withCallbacks(&own))
	resp := g.lookup(g.card("visa-challenge"), nil)
	_, _ = own.Unregister(context.Background(), ns)
	g.clock.Advance(time.Hour)
	g.due(0)
	if ev := g.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "dropped") {
		t.Errorf("event %q", ev.Detail)
	}
}

// TestCallbackShares: a namespace beyond its share of the outbox has its
// own next result not queued, said in its journal, while another's is;
// a full outbox pushes out the largest namespace's newest delivery, said
// in that transaction's journal; a namespace has at most
// CallbackInFlightPerToken deliveries claimed at once.
func TestCallbackShares(t *testing.T) {
	cb := memstore.NewCallbacks(state.CallbackBounds{Outbox: 3, OutboxPerNamespace: 2})
	ctx := context.Background()
	for _, n := range []string{ns, "other", "third"} {
		_ = cb.Register(ctx, n, hookURL)
	}
	f := newFixture(t, func(c *emulator.Config) { c.Callbacks, c.CallbackInFlightPerToken = cb, 1 })
	lookupOf := func(n string) string {
		t.Helper()
		resp, err := f.Lookup(ctx, n, f.request(f.card("visa-frictionless-y")), emulator.APICall{})
		if err != nil {
			t.Fatal(err)
		}
		return resp.ThreeDSServerTransID
	}
	first, second := lookupOf(ns), lookupOf(ns)
	over := lookupOf(ns)
	if ev := f.events.last(over); ev.Kind != state.EventCallback || !strings.Contains(ev.Detail, "not queued") ||
		!strings.Contains(ev.Detail, "share of the outbox is full: 2 of its deliveries wait") {
		t.Errorf("beyond the share: %+v", ev)
	}
	if ev := f.events.last(lookupOf("other")); ev.Kind == state.EventCallback {
		t.Errorf("another namespace's result: %+v", ev)
	}
	// The outbox holds 3: the third namespace's pushes out ns's newest.
	third := lookupOf("third")
	if ev := f.events.last(third); ev.Kind == state.EventCallback {
		t.Errorf("the newcomer's result: %+v", ev)
	}
	if ev := f.events.last(second); ev.Kind != state.EventCallback || !strings.Contains(ev.Detail, "given up: the outbox was full") {
		t.Errorf("the pushed-out delivery: %+v", ev)
	}
	jobs := f.due(3)
	seen := map[string]bool{}
	for _, j := range jobs {
		seen[j.Delivery.ID] = true
	}
	if !seen[first] || !seen[third] || seen[second] || seen[over] {
		t.Errorf("claimed %v", seen)
	}

	// At most one in flight per namespace: ns's second waits for the first.
	g := newFixture(t, func(c *emulator.Config) {
		c.Callbacks, c.CallbackInFlightPerToken = memstore.NewCallbacks(state.CallbackBounds{}), 1
		_ = c.Callbacks.Register(ctx, ns, hookURL)
	})
	g.lookup(g.card("visa-frictionless-y"), nil)
	g.lookup(g.card("visa-frictionless-y"), nil)
	job := g.due(1)[0]
	g.due(0)
	if err := g.CallbackDelivered(ctx, job, emulator.CallbackAttempt{Status: 204}); err != nil {
		t.Fatal(err)
	}
	g.due(1)
}
