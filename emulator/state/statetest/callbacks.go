package statetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// CallbacksFactory returns one state.Callbacks as two replicas see it
// (the same value for a local one), with bounds b.
type CallbacksFactory func(t *testing.T, b state.CallbackBounds) (a, b2 state.Callbacks)

// RunCallbacks runs the contract every state.Callbacks keeps: a
// registration is seen at once by the replica that made it and by every
// other as soon as it is announced, and so is a rotated signing key; a
// delivery is leased to one caller at a time, across replicas and under
// concurrency, comes back when its lease ends, and a Schedule during a
// lease brings it back at once when the lease is released. Between
// namespaces (tenants, RunCallbacksTenants): each has its share of the
// outbox, a full outbox pushes out the largest one's newest, and claims
// take the namespaces in turn with a bound on each one's leases.
func RunCallbacks(t *testing.T, newCallbacks CallbacksFactory) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t.Run("registrations", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		if u, err := b.Registered(ctx, "ns-1"); u != "" || err != nil {
			t.Errorf("Registered before any = %q, %v", u, err)
		}
		if err := a.Register(ctx, "ns-1", "http://127.0.0.1:9/cb"); err != nil {
			t.Fatal(err)
		}
		if u, _ := a.Registered(ctx, "ns-1"); u != "http://127.0.0.1:9/cb" {
			t.Errorf("the replica that registered sees %q", u)
		}
		seen(t, b, "ns-1", "http://127.0.0.1:9/cb", "the other replica, after the registration")
		if u, _ := a.Registered(ctx, "ns-2"); u != "" {
			t.Errorf("another namespace sees %q", u)
		}
		if err := b.Register(ctx, "ns-1", "http://localhost:9/other"); err != nil {
			t.Fatal(err)
		}
		seen(t, a, "ns-1", "http://localhost:9/other", "the first replica, after the change")
		if ok, err := a.Unregister(ctx, "ns-1"); !ok || err != nil {
			t.Errorf("Unregister = %v, %v", ok, err)
		}
		if u, _ := a.Registered(ctx, "ns-1"); u != "" {
			t.Errorf("the replica that removed it sees %q", u)
		}
		if ok, _ := a.Unregister(ctx, "ns-1"); ok {
			t.Error("a second Unregister found a URL")
		}
		seen(t, b, "ns-1", "", "the other replica, after the removal")
	})
	t.Run("lease", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		if _, err := a.Schedule(ctx, state.Delivery{ID: "tx-1", Namespace: "ns", Due: t0.Add(time.Minute)}, t0); err != nil {
			t.Fatal(err)
		}
		if got, _ := b.Claim(ctx, t0, time.Minute, 10, 0); len(got) != 0 {
			t.Fatalf("claimed before due: %+v", got)
		}
		now := t0.Add(time.Minute)
		got, err := b.Claim(ctx, now, 30*time.Second, 10, 0)
		if err != nil || len(got) != 1 || got[0].ID != "tx-1" || got[0].Namespace != "ns" || got[0].Token == "" || got[0].Attempt != 0 {
			t.Fatalf("Claim when due = %+v, %v", got, err)
		}
		d := got[0]
		if again, _ := a.Claim(ctx, now, 30*time.Second, 10, 0); len(again) != 0 {
			t.Fatalf("claimed twice during the lease: %+v", again)
		}
		d.Attempt = 1
		if err := a.Release(ctx, d, now.Add(2*time.Second), now); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(ctx, d, now, now); !errors.Is(err, state.ErrLeaseLost) {
			t.Errorf("a second Release = %v, want ErrLeaseLost", err)
		}
		got, _ = a.Claim(ctx, now.Add(2*time.Second), 30*time.Second, 10, 0)
		if len(got) != 1 || got[0].Attempt != 1 || got[0].Token == d.Token {
			t.Fatalf("Claim after the release = %+v", got)
		}
		stale := got[0]
		// The lease ends unreleased (a replica died): another claims it.
		later := now.Add(2*time.Second + 31*time.Second)
		got, _ = b.Claim(ctx, later, 30*time.Second, 10, 0)
		if len(got) != 1 || got[0].Token == stale.Token {
			t.Fatalf("Claim after a lease ended = %+v", got)
		}
		if err := a.Done(ctx, stale); !errors.Is(err, state.ErrLeaseLost) {
			t.Errorf("Done with an ended lease = %v, want ErrLeaseLost", err)
		}
		if err := a.Done(ctx, got[0]); err != nil {
			t.Fatal(err)
		}
		if left, _ := a.Claim(ctx, later.Add(time.Hour), time.Minute, 10, 0); len(left) != 0 {
			t.Errorf("a delivery left after Done: %+v", left)
		}
	})
	t.Run("schedule", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		// An earlier due wins for an entry not leased.
		_, _ = a.Schedule(ctx, state.Delivery{ID: "tx-2", Namespace: "ns", Due: t0.Add(time.Hour)}, t0)
		_, _ = b.Schedule(ctx, state.Delivery{ID: "tx-2", Namespace: "ns", Due: t0.Add(time.Minute)}, t0)
		_, _ = a.Schedule(ctx, state.Delivery{ID: "tx-2", Namespace: "ns", Due: t0.Add(2 * time.Hour)}, t0)
		got, _ := a.Claim(ctx, t0.Add(time.Minute), time.Minute, 10, 0)
		if len(got) != 1 {
			t.Fatalf("the earlier due was not kept: %+v", got)
		}
		// A Schedule during the lease: due at once when released.
		now := t0.Add(time.Minute)
		if _, err := b.Schedule(ctx, state.Delivery{ID: "tx-2", Namespace: "ns", Due: now}, now); err != nil {
			t.Fatal(err)
		}
		if again, _ := b.Claim(ctx, now, time.Minute, 10, 0); len(again) != 0 {
			t.Fatalf("a Schedule broke the lease: %+v", again)
		}
		if err := a.Release(ctx, got[0], now.Add(time.Hour), now); err != nil {
			t.Fatal(err)
		}
		if back, _ := b.Claim(ctx, now, time.Minute, 10, 0); len(back) != 1 {
			t.Errorf("rescheduled during the lease, not due at its release: %+v", back)
		}
	})
	t.Run("concurrent claims", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		for i := range 40 {
			_, _ = a.Schedule(ctx, state.Delivery{ID: fmt.Sprint("tx-", i), Namespace: "ns", Due: t0}, t0)
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for i := range 8 {
			c := a
			if i%2 == 1 {
				c = b
			}
			wg.Go(func() {
				got, err := c.Claim(ctx, t0, time.Minute, 7, 0)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, d := range got {
					seen[d.ID]++
				}
			})
		}
		wg.Wait()
		if len(seen) != 40 {
			t.Errorf("8 claims of 7 leased %d of 40 deliveries", len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s leased %d times", id, n)
			}
		}
	})
	t.Run("bound", func(t *testing.T) {
		a, _ := newCallbacks(t, state.CallbackBounds{Outbox: 3})
		for i := range 3 {
			if _, err := a.Schedule(ctx, state.Delivery{ID: fmt.Sprint("tx-", i), Namespace: "ns", Due: t0}, t0); err != nil {
				t.Fatal(err)
			}
		}
		_, err := a.Schedule(ctx, state.Delivery{ID: "tx-3", Namespace: "ns", Due: t0}, t0)
		if !errors.Is(err, state.ErrCallbackLimit) {
			t.Errorf("a delivery beyond the bound: %v, want ErrCallbackLimit", err)
		}
		if _, err := a.Schedule(ctx, state.Delivery{ID: "tx-0", Namespace: "ns", Due: t0}, t0); err != nil {
			t.Errorf("a delivery already waiting, at the bound: %v", err)
		}
	})
}

// announced is how long a change may take to reach another replica: its
// announcement's way through the shared store, far below any cache's
// revalidation in these tests.
const announced = 5 * time.Second

// seen fails t unless c returns want as the URL of ns within announced.
func seen(t *testing.T, c state.Callbacks, ns, want, who string) {
	t.Helper()
	var got string
	var err error
	for deadline := time.Now().Add(announced); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if got, err = c.Registered(ctx, ns); got == want && err == nil {
			return
		}
	}
	t.Errorf("%s: Registered(%s) = %q, %v; want %q within %s", who, ns, got, err, want, announced)
}
