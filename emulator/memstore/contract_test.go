package memstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestContract runs the state.Store contract, as the Redis store does.
func TestContract(t *testing.T) {
	statetest.Run(t, func(t *testing.T, maxAge time.Duration) state.Store {
		s, err := memstore.New(memstore.Options{MaxAge: maxAge})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSharesContract runs the contract of each tenant's share of the
// transactions, as the Redis store does.
func TestSharesContract(t *testing.T) {
	statetest.RunShares(t, func(t *testing.T, perTenant int) state.Store {
		s, err := memstore.New(memstore.Options{MaxEntriesPerTenant: perTenant})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestFullStoreTheLargestGivesWay fills the store, every tenant within
// its share: at the bound of all, the tenant holding the most loses its
// own oldest, and a tenant holding less loses none.
func TestFullStoreTheLargestGivesWay(t *testing.T) {
	s, err := memstore.New(memstore.Options{MaxEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put := func(ns string, n int) {
		for i := range n {
			if err := s.Put(ctx, statetest.Transaction(ns, fmt.Sprintf("%s-%d", ns, i), "")); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("small", 3)
	put("large", 30)
	for i := range 3 {
		if _, err := s.Get(ctx, fmt.Sprintf("small-%d", i)); err != nil {
			t.Errorf("small-%d after the other tenant filled the store: %v", i, err)
		}
	}
	for i := range 30 {
		_, err := s.Get(ctx, fmt.Sprintf("large-%d", i))
		if want := i >= 23; (err == nil) != want {
			t.Errorf("large-%d kept %v, want %v (its newest 7 fill the rest)", i, err == nil, want)
		}
	}
	if s.Len() != 10 || s.Evicted() != 23 {
		t.Errorf("Len %d, Evicted %d; want 10 and 23", s.Len(), s.Evicted())
	}
}

// TestRuntimeContract runs the state.RuntimeScenarios contract on the
// in-memory runtime scenarios (one process: both "replicas" are the same).
func TestRuntimeContract(t *testing.T) {
	statetest.RunRuntime(t, func(t *testing.T, lim scenarios.RuntimeLimits) (a, b state.RuntimeScenarios) {
		rt := memstore.NewRuntime(lim)
		return rt, rt
	})
}

// TestJournalContract runs the journal contract on the memory journal
// (one process: the writer and the reader are the same).
func TestJournalContract(t *testing.T) {
	statetest.RunJournal(t, func(t *testing.T, opt journal.Options) statetest.JournalPair {
		j := memstore.NewJournal(opt)
		return statetest.JournalPair{Writer: j, Reader: j, Sync: func() {}}
	})
}

// TestNamespacesContract runs the state.Namespaces contract on the
// namespace states of this process (both "replicas" are the same).
func TestNamespacesContract(t *testing.T) {
	statetest.RunNamespaces(t, func(t *testing.T) (a, b state.Namespaces) {
		n := memstore.NewNamespaces(memstore.NamespacesOptions{})
		return n, n
	})
}

// TestSessionsContract runs the session contract on the memory store.
func TestSessionsContract(t *testing.T) {
	statetest.RunSessions(t, func(t *testing.T, max int) (a, b state.SessionStore) {
		m := memstore.NewSessions(max, nil)
		return m, m
	})
}

// TestCapturesContract runs the captures contract on the memory store.
func TestCapturesContract(t *testing.T) {
	statetest.RunCaptures(t, func(t *testing.T, perTenant int) (a, b state.Captures) {
		c := memstore.NewCaptures(memstore.CapturesOptions{PerTenant: perTenant})
		return c, c
	})
}

// TestCapturesBound: at the bound of all tenants, Captures forgets
// rather than grows: an entry of the tenant holding the most, never a
// live one of it while an expired one is at hand, and never one of a
// tenant holding fewer.
func TestCapturesBound(t *testing.T) {
	ctx := context.Background()
	clock := time.Unix(1e9, 0)
	c := memstore.NewCaptures(memstore.CapturesOptions{Max: 4, PerTenant: 4, Now: func() time.Time { return clock }})
	key := func(tenant, id string) state.DDCKey { return state.DDCKey{Tenant: tenant, DDCID: id} }
	if ok, _ := c.BindDDC(ctx, key("small", "s"), "tx", time.Hour); !ok {
		t.Fatal("bind refused")
	}
	for i, id := range []string{"a", "b", "c"} {
		if ok, _ := c.BindDDC(ctx, key("big", id), "tx", time.Duration(i+1)*time.Minute); !ok {
			t.Fatalf("bind %s refused", id)
		}
	}
	if ok, _ := c.BindDDC(ctx, key("third", "d"), "tx", time.Hour); !ok {
		t.Fatal("bind beyond the bound refused")
	}
	if _, err := c.DDC(ctx, key("big", "a")); err == nil {
		t.Error("the largest tenant's entry that expires first survived the bound")
	}
	if _, err := c.DDC(ctx, key("small", "s")); err != nil {
		t.Errorf("a tenant holding one entry lost it to the bound: %v", err)
	}
	clock = clock.Add(150 * time.Second) // big's b (2m) expires, c (3m) lives
	if ok, _ := c.BindDDC(ctx, key("third", "e"), "tx", time.Hour); !ok {
		t.Fatal("bind refused")
	}
	for _, k := range []state.DDCKey{key("small", "s"), key("big", "c"), key("third", "d"), key("third", "e")} {
		if _, err := c.DDC(ctx, k); err != nil {
			t.Errorf("%+v was forgotten while an expired entry was at hand: %v", k, err)
		}
	}
}

// TestCallbacksContract runs the result callbacks' contract on the
// memory store.
func TestCallbacksContract(t *testing.T) {
	statetest.RunCallbacks(t, func(t *testing.T, b state.CallbackBounds) (state.Callbacks, state.Callbacks) {
		c := memstore.NewCallbacks(b)
		return c, c
	})
}

// TestKeyRegistryContract runs the key registry's contract in memory.
func TestKeyRegistryContract(t *testing.T) {
	statetest.RunKeyRegistry(t, func(t *testing.T) (a, b state.KeyRegistry) {
		r := memstore.NewKeyRegistry(nil)
		return r, r
	})
}
