package auth_test

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestAttempts: a client may be sent FailureBurst wrong secrets, then one
// each FailureInterval; another client, and an id no configuration
// names, are never slowed by it.
func TestAttempts(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	m, err := auth.ParseMerchants("shop-1:shop-1-secret-0123456789,shop-2:shop-2-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	a := auth.NewAttempts(m, clock.Now)
	for i := range auth.FailureBurst {
		if _, ok := a.Allow("shop-1"); !ok {
			t.Fatalf("attempt %d refused within the burst", i+1)
		}
		a.Failed("shop-1")
	}
	wait, ok := a.Allow("shop-1")
	if ok || wait <= 0 || wait > auth.FailureInterval {
		t.Fatalf("after the burst: wait %s, ok %v; want refused for at most %s", wait, ok, auth.FailureInterval)
	}
	for range 1000 {
		a.Failed("stranger")
		a.Failed("shop-1") // refused attempts are not checked, but a flood does not go below empty
	}
	if _, ok := a.Allow("shop-2"); !ok {
		t.Error("another client was slowed by shop-1's wrong secrets")
	}
	if _, ok := a.Allow("stranger"); !ok {
		t.Error("an unknown id is slowed: it has no secret to guess, and no state")
	}
	clock.Advance(auth.FailureInterval)
	if _, ok := a.Allow("shop-1"); !ok {
		t.Error("no attempt allowed an interval after the burst")
	}
	a.Failed("shop-1")
	if _, ok := a.Allow("shop-1"); ok {
		t.Error("a second attempt within the interval")
	}
	clock.Advance(auth.FailureBurst * auth.FailureInterval)
	for i := range auth.FailureBurst {
		if _, ok := a.Allow("shop-1"); !ok {
			t.Fatalf("after a quiet while, attempt %d refused", i+1)
		}
		a.Failed("shop-1")
	}
}
