package session_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/session"
)

// TestContract runs the same tests on both stores; the Redis one on a real
// redis-server, with two Stores over it as two replicas.
func TestContract(t *testing.T) {
	t.Run("Memory", func(t *testing.T) {
		m := session.NewMemory(0)
		contract(t, m, m)
	})
	t.Run("Redis", func(t *testing.T) {
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		a, _ := session.NewRedis(c, "", time.Second)
		b, _ := session.NewRedis(c, "", time.Second)
		contract(t, a, b)
	})
}

func contract(t *testing.T, a, b session.Store) {
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

// TestMemoryBound: Memory keeps at most its bound, ending the session that
// expires first.
func TestMemoryBound(t *testing.T) {
	ctx := context.Background()
	m := session.NewMemory(3)
	first, _ := m.Create(ctx, "a", time.Minute)
	var last string
	for range 3 {
		last, _ = m.Create(ctx, "b", time.Hour)
	}
	if _, ok, _ := m.Token(ctx, first); ok {
		t.Error("the session that expires first survived the bound")
	}
	if _, ok, _ := m.Token(ctx, last); !ok {
		t.Error("the newest session was ended")
	}
}
