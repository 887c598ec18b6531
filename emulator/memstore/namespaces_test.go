package memstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestNamespacesExpireAndBound: a namespace's state is kept MaxAge after
// its last change, then reads as zero; at most Max namespaces hold one,
// the expired ones making room.
func TestNamespacesExpireAndBound(t *testing.T) {
	ctx := context.Background()
	clk := testkit.NewClock(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	n := memstore.NewNamespaces(memstore.NamespacesOptions{MaxAge: time.Hour, Max: 2, Now: clk.Now})
	a, err := n.Forget(ctx, "a")
	if err != nil || a.Generation != uint64(clk.Now().UnixMicro()) {
		t.Fatalf("Forget = %+v, %v; want the time in microseconds", a, err)
	}
	if _, err := n.Advance(ctx, "b", time.Minute, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Advance(ctx, "c", time.Minute, time.Hour); !errors.Is(err, state.ErrNamespaceLimit) {
		t.Errorf("a third namespace: %v, want ErrNamespaceLimit", err)
	}
	if st, _ := n.State(ctx, "c"); st != (state.NamespaceState{}) {
		t.Errorf("a refused namespace has state %+v", st)
	}
	// Resetting the clock of a namespace with no state keeps none.
	if _, err := n.ResetClock(ctx, "d"); err != nil {
		t.Errorf("ResetClock of a namespace with no state: %v", err)
	}
	clk.Advance(time.Hour + time.Second)
	if st, _ := n.State(ctx, "a"); st != (state.NamespaceState{}) {
		t.Errorf("state after MaxAge = %+v, want zero", st)
	}
	if st, err := n.Advance(ctx, "c", time.Minute, time.Hour); err != nil || st.Offset != time.Minute {
		t.Errorf("a namespace once the others expired: %+v, %v", st, err)
	}
	// A forgetting after the expiry still takes a larger generation.
	if st, err := n.Forget(ctx, "a"); err != nil || st.Generation <= a.Generation {
		t.Errorf("Forget after expiry = %+v, %v; want a generation above %d", st, err, a.Generation)
	}
	changed := n.Changed("c")
	if _, err := n.ResetClock(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Error("Changed not closed by a change")
	}
}
