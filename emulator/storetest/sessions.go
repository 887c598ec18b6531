package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// RunSessions runs the contract every emulator.SessionStore keeps on a
// and b, one store as two replicas see it (the same value for a local
// store): a session opened through one is known to the other.
func RunSessions(t *testing.T, a, b emulator.SessionStore) {
	ctx := context.Background()
	id, err := a.Create(ctx, "team-token", time.Hour)
	if err != nil || len(id) != 32 {
		t.Fatalf("Create = %q, %v", id, err)
	}
	if tok, ok, err := b.Token(ctx, id); !ok || err != nil || tok != "team-token" {
		t.Errorf("Token on the other replica = %q, %v, %v", tok, ok, err)
	}
	other, _ := a.Create(ctx, "team-token", time.Hour)
	if other == id {
		t.Error("two sessions got one id")
	}
	for _, bad := range []string{"", "unknown", "../" + id, id + "x", "cs:" + id} {
		if _, ok, err := b.Token(ctx, bad); ok || err != nil {
			t.Errorf("Token(%q) = %v, %v", bad, ok, err)
		}
	}
	if err := b.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Token(ctx, id); ok {
		t.Error("a session ended on one replica lives on the other")
	}
	if _, ok, _ := a.Token(ctx, other); !ok {
		t.Error("ending one session ended another")
	}
	if err := a.Delete(ctx, "never-was"); err != nil {
		t.Errorf("Delete of an unknown session: %v", err)
	}
	short, _ := a.Create(ctx, "t", 200*time.Millisecond)
	deadline := time.Now().Add(3 * time.Second)
	for {
		if _, ok, _ := b.Token(ctx, short); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a session of 200ms still lives after 3s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			id, err := a.Create(ctx, fmt.Sprint("tok-", i), time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			if tok, ok, _ := b.Token(ctx, id); !ok || tok != fmt.Sprint("tok-", i) {
				t.Errorf("concurrent session %d: %q %v", i, tok, ok)
			}
		})
	}
	wg.Wait()
}
