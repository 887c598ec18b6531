package statetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// NamespacesFactory returns two views of one new set of namespace
// states, all zero, as two replicas see a shared store (an in-memory
// implementation returns the same value twice).
type NamespacesFactory func(t *testing.T) (a, b state.Namespaces)

// RunNamespaces runs the contract of state.Namespaces.
func RunNamespaces(t *testing.T, newNamespaces NamespacesFactory) {
	tests := []struct {
		name string
		fn   func(*testing.T, NamespacesFactory)
	}{
		{"Clock", testNamespaceClock},
		{"Forget", testNamespaceForget},
		{"Isolation", testNamespaceIsolation},
		{"SeenByEveryReplica", testNamespaceShared},
		{"ConcurrentAdvances", testNamespaceConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newNamespaces) })
	}
}

// wantState fails t unless n's state of ns is want.
func wantState(t *testing.T, n state.Namespaces, ns string, want state.NamespaceState) {
	t.Helper()
	got, err := n.State(ctx, ns)
	if err != nil || got != want {
		t.Errorf("State(%s) = %+v, %v; want %+v", ns, got, err, want)
	}
}

func testNamespaceClock(t *testing.T, newNamespaces NamespacesFactory) {
	n, _ := newNamespaces(t)
	wantState(t, n, "ns", state.NamespaceState{})
	const max = 30 * time.Minute
	st, err := n.Advance(ctx, "ns", 11*time.Minute, max)
	if err != nil || st.Offset != 11*time.Minute {
		t.Fatalf("Advance 11m = %+v, %v", st, err)
	}
	if st, err = n.Advance(ctx, "ns", 1500*time.Millisecond, max); err != nil || st.Offset != 11*time.Minute+1500*time.Millisecond {
		t.Errorf("Advance 1.5s more = %+v, %v", st, err)
	}
	wantState(t, n, "ns", state.NamespaceState{Offset: 11*time.Minute + 1500*time.Millisecond})
	// Beyond the bound: refused, unchanged.
	st, err = n.Advance(ctx, "ns", 20*time.Minute, max)
	if !errors.Is(err, state.ErrClockLimit) {
		t.Errorf("Advance beyond the bound = %+v, %v; want ErrClockLimit", st, err)
	}
	wantState(t, n, "ns", state.NamespaceState{Offset: 11*time.Minute + 1500*time.Millisecond})
	// Up to the bound exactly: accepted.
	if st, err = n.Advance(ctx, "ns", max-st.Offset, max); err != nil || st.Offset != max {
		t.Errorf("Advance to the bound = %+v, %v", st, err)
	}
	if st, err = n.ResetClock(ctx, "ns"); err != nil || st != (state.NamespaceState{}) {
		t.Errorf("ResetClock = %+v, %v", st, err)
	}
	wantState(t, n, "ns", state.NamespaceState{})
	if st, err = n.ResetClock(ctx, "never-set"); err != nil || st != (state.NamespaceState{}) {
		t.Errorf("ResetClock of a namespace with no state = %+v, %v", st, err)
	}
}

func testNamespaceForget(t *testing.T, newNamespaces NamespacesFactory) {
	n, _ := newNamespaces(t)
	if _, err := n.Advance(ctx, "ns", time.Hour, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := range 3 {
		st, err := n.Forget(ctx, "ns")
		if err != nil || st.Generation <= last || st.Offset != time.Hour {
			t.Fatalf("Forget #%d = %+v, %v; want a generation above %d, the offset kept", i, st, err, last)
		}
		last = st.Generation
	}
	// A real time in microseconds, as the engine's forgetting makes it.
	if now := uint64(time.Now().UnixMicro()); last < now-uint64(time.Hour/time.Microsecond) || last > now+uint64(time.Hour/time.Microsecond) {
		t.Errorf("generation %d is not about now in Unix microseconds (%d)", last, now)
	}
	st, err := n.ResetClock(ctx, "ns")
	if err != nil || st.Generation != last || st.Offset != 0 {
		t.Errorf("ResetClock = %+v, %v; want the generation kept", st, err)
	}
	wantState(t, n, "ns", state.NamespaceState{Generation: last})
}

func testNamespaceIsolation(t *testing.T, newNamespaces NamespacesFactory) {
	n, _ := newNamespaces(t)
	if _, err := n.Advance(ctx, "a", time.Minute, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Forget(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if st, _ := n.State(ctx, "a"); st.Generation != 0 {
		t.Errorf("b's forgetting reached a: %+v", st)
	}
	if st, _ := n.State(ctx, "b"); st.Offset != 0 {
		t.Errorf("a's clock reached b: %+v", st)
	}
	wantState(t, n, "c", state.NamespaceState{})
}

func testNamespaceShared(t *testing.T, newNamespaces NamespacesFactory) {
	a, b := newNamespaces(t)
	// b reads (and caches) the zero state, then waits for a's change.
	wantState(t, b, "ns", state.NamespaceState{})
	changed := b.Changed("ns")
	st, err := a.Advance(ctx, "ns", 5*time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the other replica's Changed was not closed by the change")
	}
	wantState(t, b, "ns", st)
	changed = b.Changed("ns")
	if st, err = a.Forget(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the other replica's Changed was not closed by the forgetting")
	}
	wantState(t, b, "ns", st)
}

func testNamespaceConcurrent(t *testing.T, newNamespaces NamespacesFactory) {
	a, b := newNamespaces(t)
	const workers, each, max = 8, 10, 50 * time.Millisecond
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, refused := 0, 0
	for w := range workers {
		n := a
		if w%2 == 1 {
			n = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := n.Advance(ctx, "ns", time.Millisecond, max)
				mu.Lock()
				switch {
				case err == nil:
					accepted++
				case errors.Is(err, state.ErrClockLimit):
					refused++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if accepted != 50 || refused != workers*each-50 {
		t.Errorf("accepted %d, refused %d advances of 1ms up to 50ms; want 50 and %d", accepted, refused, workers*each-50)
	}
	st, err := a.Advance(ctx, "ns", time.Nanosecond, time.Hour)
	if err != nil || st.Offset != max+time.Nanosecond {
		t.Errorf("offset after the race = %+v, %v; want %s", st, err, fmt.Sprint(max+time.Nanosecond))
	}
}
