package statetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// NewCaptures makes the two views a, b of one fresh captures state that
// RunCaptures checks, as two replicas see it (the same value for a local
// one), each tenant holding at most perTenant entries of each kind
// (state.MaxCapturesPerTenant when 0).
type NewCaptures func(t *testing.T, perTenant int) (a, b state.Captures)

// RunCaptures runs the contract every state.Captures keeps: a ddcId is
// bound once within its scope (a tenant and its generation, or the
// claimable captures' one) and a JWT id used once within its tenant,
// across replicas and under concurrency, each for its time to live; a
// tenant's flood forgets only its own entries.
func RunCaptures(t *testing.T, newCaptures NewCaptures) {
	ctx := context.Background()
	shopA := state.DDCKey{Tenant: "aaaaaaaaaaaaaaaa", Generation: 1, DDCID: "6b0cbd4f-3e4a"}
	t.Run("ddcId", func(t *testing.T) {
		a, b := newCaptures(t, 0)
		if _, err := b.DDC(ctx, state.DDCKey{Tenant: shopA.Tenant, DDCID: "ddc-unknown"}); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("DDC of an unbound ddcId: %v, want ErrNotFound", err)
		}
		if ok, err := a.BindDDC(ctx, shopA, "tx-1", time.Hour); !ok || err != nil {
			t.Fatalf("BindDDC = %v, %v", ok, err)
		}
		if id, err := b.DDC(ctx, shopA); id != "tx-1" || err != nil {
			t.Errorf("DDC on the other replica = %q, %v", id, err)
		}
		if ok, err := b.BindDDC(ctx, shopA, "tx-2", time.Hour); ok || err != nil {
			t.Errorf("a second BindDDC = %v, %v, want false", ok, err)
		}
		if id, _ := a.DDC(ctx, shopA); id != "tx-1" {
			t.Errorf("the refused bind changed the binding to %q", id)
		}
	})
	t.Run("ddcId scopes", func(t *testing.T) {
		a, b := newCaptures(t, 0)
		if ok, err := a.BindDDC(ctx, shopA, "tx-a", time.Hour); !ok || err != nil {
			t.Fatalf("BindDDC = %v, %v", ok, err)
		}
		// Another tenant, the same tenant after a forgetting, and the
		// claimable captures each have the ddcId to themselves.
		other := shopA
		other.Tenant = "bbbbbbbbbbbbbbbb"
		later := shopA
		later.Generation = 2
		claim := state.DDCKey{Tenant: "cccccccccccccccc", Claim: true, DDCID: shopA.DDCID}
		for _, k := range []state.DDCKey{other, later, claim} {
			if _, err := b.DDC(ctx, k); !errors.Is(err, state.ErrNotFound) {
				t.Errorf("DDC(%+v) before its bind: %v, want ErrNotFound", k, err)
			}
			if ok, err := b.BindDDC(ctx, k, "tx-"+k.Scope(), time.Hour); !ok || err != nil {
				t.Errorf("BindDDC(%+v) = %v, %v: another scope's", k, ok, err)
			}
			if id, err := a.DDC(ctx, k); id != "tx-"+k.Scope() || err != nil {
				t.Errorf("DDC(%+v) = %q, %v", k, id, err)
			}
		}
		// A claimable ddcId is one for every tenant: another's bind of
		// it is refused, and any tenant finds it.
		if ok, _ := a.BindDDC(ctx, state.DDCKey{Tenant: "dddddddddddddddd", Claim: true, DDCID: shopA.DDCID}, "tx-x", time.Hour); ok {
			t.Error("a second claimable bind of one ddcId succeeded")
		}
		if id, _ := a.DDC(ctx, state.DDCKey{Claim: true, DDCID: shopA.DDCID}); id != "tx-claim" {
			t.Errorf("the claimable ddcId without its tenant: %q", id)
		}
		if id, _ := b.DDC(ctx, shopA); id != "tx-a" {
			t.Errorf("the first tenant's binding changed to %q", id)
		}
	})
	t.Run("jti", func(t *testing.T) {
		a, b := newCaptures(t, 0)
		if ok, err := a.UseJTI(ctx, "shop-1", "j-1", time.Hour); !ok || err != nil {
			t.Fatalf("UseJTI = %v, %v", ok, err)
		}
		if ok, err := b.UseJTI(ctx, "shop-1", "j-1", time.Hour); ok || err != nil {
			t.Errorf("a replay on the other replica = %v, %v, want false", ok, err)
		}
		// The tenant is part of the key, whole: shop-1 + "1:x" is not
		// shop + "-1:x" or another tenant's "j-1".
		for _, k := range [][2]string{{"shop-2", "j-1"}, {"shop-1:", "x"}, {"shop-1", ":x"}, {"shop-1\x00", "j-1"}} {
			if ok, err := a.UseJTI(ctx, k[0], k[1], time.Hour); !ok || err != nil {
				t.Errorf("UseJTI(%q, %q) = %v, %v: another tenant's or id's", k[0], k[1], ok, err)
			}
		}
	})
	t.Run("expiry", func(t *testing.T) {
		a, b := newCaptures(t, 0)
		if ok, _ := a.UseJTI(ctx, "shop-1", "short", 200*time.Millisecond); !ok {
			t.Fatal("UseJTI refused a new id")
		}
		short := state.DDCKey{Tenant: shopA.Tenant, DDCID: "short-ddc"}
		if ok, _ := a.BindDDC(ctx, short, "tx", 200*time.Millisecond); !ok {
			t.Fatal("BindDDC refused a new ddcId")
		}
		deadline := time.Now().Add(3 * time.Second)
		for {
			_, err := b.DDC(ctx, short)
			if errors.Is(err, state.ErrNotFound) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a binding of 200ms still lives after 3s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if ok, err := b.UseJTI(ctx, "shop-1", "short", time.Hour); !ok || err != nil {
			t.Errorf("a JWT id after its time to live: %v, %v, want usable again", ok, err)
		}
		if ok, err := b.BindDDC(ctx, short, "tx-2", time.Hour); !ok || err != nil {
			t.Errorf("a ddcId after its time to live: %v, %v, want usable again", ok, err)
		}
	})
	t.Run("a tenant's flood forgets only its own", func(t *testing.T) {
		const share = 8
		a, b := newCaptures(t, share)
		victim := state.DDCKey{Tenant: "1111111111111111", DDCID: "victim-order-1"}
		if ok, err := a.BindDDC(ctx, victim, "tx-victim", time.Hour); !ok || err != nil {
			t.Fatalf("BindDDC = %v, %v", ok, err)
		}
		if ok, err := a.UseJTI(ctx, victim.Tenant, "victim-jti", time.Hour); !ok || err != nil {
			t.Fatalf("UseJTI = %v, %v", ok, err)
		}
		const flood = "2222222222222222"
		for i := range 5 * share {
			c := a
			if i%2 == 1 {
				c = b
			}
			// The earliest ends first: the flood forgets its oldest.
			ttl := time.Hour + time.Duration(i)*time.Second
			if ok, err := c.BindDDC(ctx, state.DDCKey{Tenant: flood, DDCID: fmt.Sprint("flood-", i)}, "tx", ttl); !ok || err != nil {
				t.Fatalf("flood bind %d = %v, %v", i, ok, err)
			}
			if ok, err := c.UseJTI(ctx, flood, fmt.Sprint("flood-", i), ttl); !ok || err != nil {
				t.Fatalf("flood jti %d = %v, %v", i, ok, err)
			}
		}
		if id, err := b.DDC(ctx, victim); id != "tx-victim" || err != nil {
			t.Errorf("after another tenant's flood the victim's ddcId = %q, %v", id, err)
		}
		if ok, _ := b.UseJTI(ctx, victim.Tenant, "victim-jti", time.Hour); ok {
			t.Error("after another tenant's flood the victim's JWT id could be replayed")
		}
		if id, err := a.DDC(ctx, state.DDCKey{Tenant: flood, DDCID: fmt.Sprint("flood-", 5*share-1)}); id != "tx" || err != nil {
			t.Errorf("the flood's newest ddcId = %q, %v", id, err)
		}
		if _, err := a.DDC(ctx, state.DDCKey{Tenant: flood, DDCID: "flood-0"}); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("the flood's oldest ddcId beyond its share: %v, want forgotten", err)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		a, b := newCaptures(t, 0)
		var wins, binds atomic.Int32
		var wg sync.WaitGroup
		race := state.DDCKey{Tenant: shopA.Tenant, DDCID: "race-ddc"}
		for i := range 16 {
			c := a
			if i%2 == 1 {
				c = b
			}
			wg.Go(func() {
				if ok, err := c.UseJTI(ctx, "shop-1", "race", time.Hour); err != nil {
					t.Error(err)
				} else if ok {
					wins.Add(1)
				}
				if ok, err := c.BindDDC(ctx, race, "tx", time.Hour); err != nil {
					t.Error(err)
				} else if ok {
					binds.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 || binds.Load() != 1 {
			t.Errorf("of 16 concurrent uses %d won the jti and %d the ddcId, want 1 each", wins.Load(), binds.Load())
		}
	})
}
