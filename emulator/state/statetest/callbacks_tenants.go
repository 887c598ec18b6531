package statetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// RunCallbacksTenants runs the part of the callbacks' contract between
// namespaces: no namespace costs another its deliveries or its turns.
//
//   - each namespace has its share of the outbox: beyond it its own new
//     deliveries are refused (ErrCallbackQuota), another's still queued;
//   - a full outbox pushes out the newest delivery, not leased, of the
//     namespace with the most, while it has more than the newcomer would;
//     a newcomer with as many as any is refused (ErrCallbackLimit);
//   - claims take the namespaces in turn, the one served longest ago
//     first, however many deliveries another has due before;
//   - a namespace has at most perNamespace deliveries leased at once, on
//     every replica together, until a lease is released or ends.
func RunCallbacksTenants(t *testing.T, newCallbacks CallbacksFactory) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	schedule := func(t *testing.T, c state.Callbacks, ns string, n int, due time.Time) []string {
		t.Helper()
		var ids []string
		for i := range n {
			id := fmt.Sprintf("%s-tx-%d", ns, i)
			if _, err := c.Schedule(ctx, state.Delivery{ID: id, Namespace: ns, Due: due}, t0); err != nil {
				t.Fatalf("schedule %s: %v", id, err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	t.Run("share", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{Outbox: 100, OutboxPerNamespace: 3})
		schedule(t, a, "hostile", 3, t0)
		_, err := b.Schedule(ctx, state.Delivery{ID: "hostile-tx-3", Namespace: "hostile", Due: t0}, t0)
		if !errors.Is(err, state.ErrCallbackQuota) {
			t.Errorf("a delivery beyond the namespace's share: %v, want ErrCallbackQuota", err)
		}
		if _, err := b.Schedule(ctx, state.Delivery{ID: "hostile-tx-0", Namespace: "hostile", Due: t0.Add(-time.Second)}, t0); err != nil {
			t.Errorf("a delivery already waiting, at the share: %v", err)
		}
		schedule(t, b, "victim", 3, t0)
		// Room frees as deliveries end.
		got, _ := a.Claim(ctx, t0, time.Minute, 100, 0)
		for _, d := range got {
			if d.Namespace == "hostile" {
				if err := a.Done(ctx, d); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		if _, err := b.Schedule(ctx, state.Delivery{ID: "hostile-tx-3", Namespace: "hostile", Due: t0}, t0); err != nil {
			t.Errorf("after one of its deliveries ended: %v", err)
		}
	})
	t.Run("a full outbox pushes out the largest", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{Outbox: 5, OutboxPerNamespace: 4})
		schedule(t, a, "big", 4, t0)
		schedule(t, a, "small", 1, t0)
		pushed, err := b.Schedule(ctx, state.Delivery{ID: "new-tx-0", Namespace: "new", Due: t0}, t0)
		if err != nil || pushed.Namespace != "big" || pushed.ID == "" {
			t.Fatalf("a newcomer into the full outbox: pushed %+v, %v; want one of big's", pushed, err)
		}
		pushed2, err := a.Schedule(ctx, state.Delivery{ID: "small-tx-1", Namespace: "small", Due: t0}, t0)
		if err != nil || pushed2.Namespace != "big" || pushed2.ID == pushed.ID {
			t.Fatalf("small's second: pushed %+v, %v; want another of big's", pushed2, err)
		}
		// big 2, small 2, new 1: small would have 3, big has no more.
		_, err = b.Schedule(ctx, state.Delivery{ID: "small-tx-2", Namespace: "small", Due: t0}, t0)
		if !errors.Is(err, state.ErrCallbackLimit) {
			t.Errorf("a newcomer with as many as any, into the full outbox: %v, want ErrCallbackLimit", err)
		}
		got, _ := a.Claim(ctx, t0, time.Minute, 10, 0)
		seen := map[string]int{}
		for _, d := range got {
			seen[d.Namespace]++
			if d.ID == pushed.ID || d.ID == pushed2.ID {
				t.Errorf("a delivery pushed out was claimed: %s", d.ID)
			}
		}
		if len(got) != 5 || seen["big"] != 2 || seen["small"] != 2 || seen["new"] != 1 {
			t.Errorf("claimed %v, want big 2, small 2, new 1", seen)
		}
	})
	t.Run("leased deliveries are not pushed out", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{Outbox: 2, OutboxPerNamespace: 2})
		schedule(t, a, "big", 2, t0)
		if got, _ := a.Claim(ctx, t0, time.Minute, 10, 0); len(got) != 2 {
			t.Fatalf("claimed %d, want 2", len(got))
		}
		if _, err := b.Schedule(ctx, state.Delivery{ID: "new-tx-0", Namespace: "new", Due: t0}, t0); !errors.Is(err, state.ErrCallbackLimit) {
			t.Errorf("with every delivery leased: %v, want ErrCallbackLimit", err)
		}
	})
	t.Run("turns", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		// The hostile namespace's 20 are due before the others' one each.
		schedule(t, a, "hostile", 20, t0.Add(-time.Minute))
		schedule(t, b, "victim-1", 1, t0)
		schedule(t, a, "victim-2", 1, t0.Add(-time.Second))
		got, err := b.Claim(ctx, t0, time.Minute, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, d := range got {
			seen[d.Namespace]++
		}
		if seen["hostile"] != 1 || seen["victim-1"] != 1 || seen["victim-2"] != 1 {
			t.Errorf("three claimed went to %v, want one each", seen)
		}
		// Next, the hostile namespace alone has deliveries due.
		if got, _ := a.Claim(ctx, t0, time.Minute, 4, 0); len(got) != 4 {
			t.Errorf("then %d claimed, want 4", len(got))
		}
		// A newcomer is served before the namespace served last.
		schedule(t, b, "victim-3", 1, t0)
		if got, _ := a.Claim(ctx, t0, time.Minute, 1, 0); len(got) != 1 || got[0].Namespace != "victim-3" {
			t.Errorf("a newcomer's turn: %+v", got)
		}
	})
	t.Run("leases per namespace", func(t *testing.T) {
		a, b := newCallbacks(t, state.CallbackBounds{})
		schedule(t, a, "hostile", 10, t0.Add(-time.Minute))
		schedule(t, a, "victim", 1, t0)
		got, _ := a.Claim(ctx, t0, 30*time.Second, 8, 2)
		seen := map[string]int{}
		for _, d := range got {
			seen[d.Namespace]++
		}
		if len(got) != 3 || seen["hostile"] != 2 || seen["victim"] != 1 {
			t.Fatalf("claimed %v, want hostile 2, victim 1", seen)
		}
		var held []state.Delivery
		for _, d := range got {
			if d.Namespace == "hostile" {
				held = append(held, d)
			}
		}
		// The other replica sees the leases.
		if more, _ := b.Claim(ctx, t0.Add(time.Second), 30*time.Second, 8, 2); len(more) != 0 {
			t.Fatalf("with two leased, the other replica claimed %+v", more)
		}
		if err := a.Done(ctx, held[0]); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(2 * time.Second)
		if more, _ := b.Claim(ctx, now, 30*time.Second, 8, 2); len(more) != 1 {
			t.Fatalf("after one lease ended by Done: %d claimed, want 1", len(more))
		}
		held[1].Attempt = 1
		if err := a.Release(ctx, held[1], now.Add(time.Hour), now); err != nil {
			t.Fatal(err)
		}
		if more, _ := a.Claim(ctx, now, 30*time.Second, 8, 2); len(more) != 1 {
			t.Fatalf("after one lease ended by Release: %d claimed, want 1", len(more))
		}
		// Leases that end unreleased (a replica died) free the turns.
		later := now.Add(31 * time.Second)
		more, _ := b.Claim(ctx, later, 30*time.Second, 8, 2)
		seen = map[string]int{}
		for _, d := range more {
			seen[d.Namespace]++
		}
		if seen["hostile"] != 2 || seen["victim"] != 1 {
			t.Errorf("after the leases ended: claimed %v, want hostile 2 and the victim's again", seen)
		}
	})
}
