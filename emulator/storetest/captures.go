package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// RunCaptures runs the contract every emulator.Captures keeps on a and b,
// one state as two replicas see it (the same value for a local one): a
// ddcId is bound once and a JWT id used once, across replicas and under
// concurrency, each for its time to live.
func RunCaptures(t *testing.T, a, b emulator.Captures) {
	ctx := context.Background()
	t.Run("ddcId", func(t *testing.T) {
		if _, err := b.DDC(ctx, "ddc-unknown"); !errors.Is(err, emulator.ErrNotFound) {
			t.Errorf("DDC of an unbound ddcId: %v, want ErrNotFound", err)
		}
		if ok, err := a.BindDDC(ctx, "6b0cbd4f-3e4a", "tx-1", time.Hour); !ok || err != nil {
			t.Fatalf("BindDDC = %v, %v", ok, err)
		}
		if id, err := b.DDC(ctx, "6b0cbd4f-3e4a"); id != "tx-1" || err != nil {
			t.Errorf("DDC on the other replica = %q, %v", id, err)
		}
		if ok, err := b.BindDDC(ctx, "6b0cbd4f-3e4a", "tx-2", time.Hour); ok || err != nil {
			t.Errorf("a second BindDDC = %v, %v, want false", ok, err)
		}
		if id, _ := a.DDC(ctx, "6b0cbd4f-3e4a"); id != "tx-1" {
			t.Errorf("the refused bind changed the binding to %q", id)
		}
	})
	t.Run("jti", func(t *testing.T) {
		if ok, err := a.UseJTI(ctx, "shop-1", "j-1", time.Hour); !ok || err != nil {
			t.Fatalf("UseJTI = %v, %v", ok, err)
		}
		if ok, err := b.UseJTI(ctx, "shop-1", "j-1", time.Hour); ok || err != nil {
			t.Errorf("a replay on the other replica = %v, %v, want false", ok, err)
		}
		// The issuer is part of the key, with its length: shop-1 + "1:x"
		// is not shop + "-1:x" or another issuer's "j-1".
		for _, k := range [][2]string{{"shop-2", "j-1"}, {"shop-1:", "x"}, {"shop-1", ":x"}} {
			if ok, err := a.UseJTI(ctx, k[0], k[1], time.Hour); !ok || err != nil {
				t.Errorf("UseJTI(%q, %q) = %v, %v: another issuer's or id's", k[0], k[1], ok, err)
			}
		}
	})
	t.Run("expiry", func(t *testing.T) {
		if ok, _ := a.UseJTI(ctx, "shop-1", "short", 200*time.Millisecond); !ok {
			t.Fatal("UseJTI refused a new id")
		}
		if ok, _ := a.BindDDC(ctx, "short-ddc", "tx", 200*time.Millisecond); !ok {
			t.Fatal("BindDDC refused a new ddcId")
		}
		deadline := time.Now().Add(3 * time.Second)
		for {
			_, err := b.DDC(ctx, "short-ddc")
			if errors.Is(err, emulator.ErrNotFound) {
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
	})
	t.Run("concurrent", func(t *testing.T) {
		var wins, binds atomic.Int32
		var wg sync.WaitGroup
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
				if ok, err := c.BindDDC(ctx, "race-ddc", "tx", time.Hour); err != nil {
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
