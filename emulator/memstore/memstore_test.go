package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

func newStore(t *testing.T, opts memstore.Options) (*memstore.Store, *testkit.Clock) {
	t.Helper()
	clk := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts.Now = clk.Now
	s, err := memstore.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

func tx(clk *testkit.Clock, id, ns, ref string) state.Transaction {
	return state.Transaction{ThreeDSServerTransID: id, Namespace: ns, ExternalReferenceID: ref, CreatedAt: clk.Now(), Status: "C"}
}

func TestPutGet(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{})
	if err := s.Put(ctx, tx(clk, "a", "ns1", "ref")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, tx(clk, "a", "ns1", "ref")); err == nil {
		t.Error("second Put of one id succeeded")
	}
	if err := s.Put(ctx, state.Transaction{}); err == nil {
		t.Error("Put without id succeeded")
	}
	got, err := s.Get(ctx, "a")
	if err != nil || got.Namespace != "ns1" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if _, err := s.Get(ctx, "b"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Get unknown: %v, want ErrNotFound", err)
	}
}

func TestExternalRefNewestWinsPerNamespace(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{})
	for _, x := range []state.Transaction{tx(clk, "1", "ns1", "r"), tx(clk, "2", "ns2", "r"), tx(clk, "3", "ns1", "r")} {
		if err := s.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ ns, want string }{{"ns1", "3"}, {"ns2", "2"}}
	for _, tt := range tests {
		got, err := s.GetByExternalRef(ctx, tt.ns, "r")
		if err != nil || got.ThreeDSServerTransID != tt.want {
			t.Errorf("GetByExternalRef(%s) = %s, %v; want %s", tt.ns, got.ThreeDSServerTransID, err, tt.want)
		}
	}
	if _, err := s.GetByExternalRef(ctx, "ns3", "r"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("other namespace: %v, want ErrNotFound", err)
	}
}

func TestEvictionByCount(t *testing.T) {
	ctx := context.Background()
	var evicted []string
	s, clk := newStore(t, memstore.Options{MaxEntries: 3, OnEvict: func(id, reason string) { evicted = append(evicted, id+":"+reason) }})
	for i := range 5 {
		if err := s.Put(ctx, tx(clk, fmt.Sprint(i), "ns", fmt.Sprint("ref", i))); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 3 || s.Evicted() != 2 {
		t.Errorf("Len = %d, Evicted = %d; want 3, 2", s.Len(), s.Evicted())
	}
	if fmt.Sprint(evicted) != "[0:capacity 1:capacity]" {
		t.Errorf("evicted %v, want the two oldest", evicted)
	}
	if _, err := s.GetByExternalRef(ctx, "ns", "ref0"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("reference of an evicted transaction still found: %v", err)
	}
	if _, err := s.Get(ctx, "4"); err != nil {
		t.Errorf("newest evicted: %v", err)
	}
}

func TestEvictionByAge(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{MaxAge: time.Hour})
	_ = s.Put(ctx, tx(clk, "old", "ns", ""))
	clk.Advance(61 * time.Minute)
	if _, err := s.Get(ctx, "old"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("expired transaction found: %v", err)
	}
	_ = s.Put(ctx, tx(clk, "new", "ns", ""))
	if s.Len() != 1 || s.Evicted() != 1 {
		t.Errorf("Len = %d, Evicted = %d; want 1, 1", s.Len(), s.Evicted())
	}
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{})
	_ = s.Put(ctx, tx(clk, "a", "ns", "ref"))
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "a", func(t *state.Transaction) error { t.Status = "Y"; return boom }); !errors.Is(err, boom) {
		t.Errorf("Update error = %v, want boom", err)
	}
	if got, _ := s.Get(ctx, "a"); got.Status != "C" {
		t.Errorf("failed Update changed status to %s", got.Status)
	}
	got, err := s.Update(ctx, "a", func(t *state.Transaction) error {
		t.Status, t.Namespace, t.ThreeDSServerTransID = "Y", "stolen", "b"
		return nil
	})
	if err != nil || got.Status != "Y" || got.Namespace != "ns" || got.ThreeDSServerTransID != "a" {
		t.Errorf("Update = %+v, %v; want status Y with identity kept", got, err)
	}
	if _, err := s.Update(ctx, "zz", func(*state.Transaction) error { return nil }); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Update unknown: %v", err)
	}
}

// TestConcurrentUpdates checks that updates of one transaction never
// interleave and that parallel puts lose nothing (run with -race).
func TestConcurrentUpdates(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{})
	_ = s.Put(ctx, tx(clk, "counter", "ns", ""))
	var wg sync.WaitGroup
	const workers, each = 8, 200
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, _ = s.Update(ctx, "counter", func(t *state.Transaction) error { t.Challenge.Interactions++; return nil })
				_ = s.Put(ctx, tx(clk, fmt.Sprintf("w%d-%d", w, i), "ns", ""))
			}
		}()
	}
	wg.Wait()
	got, _ := s.Get(ctx, "counter")
	if got.Challenge.Interactions != workers*each {
		t.Errorf("counter = %d, want %d", got.Challenge.Interactions, workers*each)
	}
	if s.Len() != workers*each+1 {
		t.Errorf("Len = %d, want %d", s.Len(), workers*each+1)
	}
}

func TestNewRejectsNegativeBounds(t *testing.T) {
	if _, err := memstore.New(memstore.Options{MaxEntries: -1}); err == nil {
		t.Error("negative MaxEntries accepted")
	}
}

// TestEvictionByAgeInOrder checks that a Put drops exactly the expired
// transactions, oldest first, with their references, and that Get and
// Update no longer see expired ones that wait for their eviction.
func TestEvictionByAgeInOrder(t *testing.T) {
	ctx := context.Background()
	var evicted []string
	s, clk := newStore(t, memstore.Options{MaxAge: time.Hour, OnEvict: func(id, reason string) { evicted = append(evicted, id+":"+reason) }})
	for i := range 4 {
		_ = s.Put(ctx, tx(clk, fmt.Sprint(i), "ns", fmt.Sprint("ref", i)))
		clk.Advance(20 * time.Minute)
	}
	// Created at 0, 20, 40 and 60 minutes; now 80: 0 is expired.
	clk.Advance(5 * time.Minute) // 85: 20 is expired too
	for _, id := range []string{"0", "1"} {
		if _, err := s.Get(ctx, id); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Get(%s) of an expired transaction: %v", id, err)
		}
		if _, err := s.Update(ctx, id, func(*state.Transaction) error { return nil }); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Update(%s) of an expired transaction: %v", id, err)
		}
	}
	if _, err := s.GetByExternalRef(ctx, "ns", "ref1"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("GetByExternalRef of an expired transaction: %v", err)
	}
	if s.Len() != 4 {
		t.Errorf("Len = %d before the next Put, want 4", s.Len())
	}
	_ = s.Put(ctx, tx(clk, "4", "ns", "ref4"))
	if fmt.Sprint(evicted) != "[0:age 1:age]" || s.Len() != 3 {
		t.Errorf("evicted %v, Len %d; want [0:age 1:age], 3", evicted, s.Len())
	}
	for _, id := range []string{"2", "3", "4"} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("Get(%s): %v", id, err)
		}
	}
}

// TestTimesSurvive checks the times a Get returns: those of the fake
// clocks (UTC) compare ==, those of time.Now Equal and keep their
// location, and zero times stay zero.
func TestTimesSurvive(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{})
	utc := tx(clk, "utc", "ns", "")
	utc.Challenge.DecidedAt = clk.Now().Add(time.Nanosecond)
	now := time.Now()
	local := state.Transaction{ThreeDSServerTransID: "local", CreatedAt: now, Challenge: state.ChallengeState{OpenedAt: now}}
	for _, x := range []state.Transaction{utc, local} {
		if err := s.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, "utc")
	if err != nil || got.CreatedAt != utc.CreatedAt || got.Challenge.DecidedAt != utc.Challenge.DecidedAt || !got.Challenge.OpenedAt.IsZero() {
		t.Errorf("Get = %+v, %v; want the times of %+v", got, err, utc)
	}
	got, err = s.Get(ctx, "local")
	if err != nil || !got.CreatedAt.Equal(now) || got.CreatedAt.Location() != now.Location() || !got.Challenge.OpenedAt.Equal(now) || !got.Challenge.DecidedAt.IsZero() {
		t.Errorf("Get = %+v, %v; want the times of %+v", got, err, local)
	}
}

// TestConcurrentUse runs puts, gets, reference lookups and updates from
// several goroutines on a small store that evicts all along (run with
// -race), and checks every answer it gets.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	s, clk := newStore(t, memstore.Options{MaxEntries: 64})
	var wg sync.WaitGroup
	const workers, each = 4, 2000
	for w := range workers {
		wg.Go(func() {
			ns := fmt.Sprint("ns", w)
			for i := range each {
				id, ref := fmt.Sprintf("w%d-%d", w, i), fmt.Sprint("ref", i)
				if err := s.Put(ctx, tx(clk, id, ns, ref)); err != nil {
					t.Error(err)
					return
				}
				back := fmt.Sprintf("w%d-%d", w, max(0, i-i%50)) // recent or long evicted
				if got, err := s.Get(ctx, back); err == nil && (got.ThreeDSServerTransID != back || got.Namespace != ns) {
					t.Errorf("Get(%s) = %+v", back, got)
				} else if err != nil && !errors.Is(err, state.ErrNotFound) {
					t.Error(err)
				}
				// Evicted already if the others put 64 since.
				if got, err := s.GetByExternalRef(ctx, ns, ref); err == nil && got.ThreeDSServerTransID != id {
					t.Errorf("GetByExternalRef(%s, %s) = %s, want %s", ns, ref, got.ThreeDSServerTransID, id)
				} else if err != nil && !errors.Is(err, state.ErrNotFound) {
					t.Error(err)
				}
				got, err := s.Update(ctx, back, func(t *state.Transaction) error {
					t.Challenge.Interactions++
					t.Challenge.Session = strings.Repeat("s", t.Challenge.Interactions) // grows: moves sometimes
					return nil
				})
				if err == nil && (got.ThreeDSServerTransID != back || len(got.Challenge.Session) != got.Challenge.Interactions) {
					t.Errorf("Update(%s) = %+v", back, got)
				}
				_ = s.Len()
			}
		})
	}
	wg.Wait()
	if s.Len() != 64 || s.Evicted() != workers*each-64 {
		t.Errorf("Len = %d, Evicted = %d; want 64, %d", s.Len(), s.Evicted(), workers*each-64)
	}
}
