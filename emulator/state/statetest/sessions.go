package statetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// SessionsFactory returns two values over one new, empty session store
// that keeps at most max sessions in all, as two replicas see it (the
// same value twice for a local store).
type SessionsFactory func(t *testing.T, max int) (a, b state.SessionStore)

// tokenHash is a token hash of the tests: 32 hex digits from i.
func tokenHash(i int) string { return fmt.Sprintf("%032x", i+1) }

// RunSessions runs the contract every state.SessionStore keeps: a
// session opened through one replica is known to the other, with what it
// keeps of its token (never the token); a token has at most
// state.MaxSessionsPerToken sessions, its own that expires first
// ending beyond; the store at most its bound, where the token holding the
// most sessions loses its own that expires first, atomically.
func RunSessions(t *testing.T, newStores SessionsFactory) {
	t.Run("Basics", func(t *testing.T) { testSessionBasics(t, newStores) })
	t.Run("PerToken", func(t *testing.T) { testSessionsPerToken(t, newStores) })
	t.Run("InAll", func(t *testing.T) { testSessionsInAll(t, newStores) })
	t.Run("LargestGivesWay", func(t *testing.T) { testSessionsLargestGivesWay(t, newStores) })
}

func testSessionBasics(t *testing.T, newStores SessionsFactory) {
	ctx := context.Background()
	a, b := newStores(t, 0)
	want := state.Session{TokenHash: tokenHash(0), Namespace: "0123456789abcdef"}
	id, err := a.Create(ctx, want, time.Hour)
	if err != nil || !state.ValidSessionID(id) {
		t.Fatalf("Create = %q, %v", id, err)
	}
	if got, ok, err := b.Session(ctx, id); !ok || err != nil || got != want {
		t.Errorf("Session on the other replica = %+v, %v, %v; want %+v", got, ok, err, want)
	}
	access := state.Session{TokenHash: tokenHash(1), Namespace: "fedcba9876543210", Expires: time.UnixMilli(time.Now().Add(time.Hour).UnixMilli())}
	aid, _ := a.Create(ctx, access, time.Hour)
	if got, ok, _ := b.Session(ctx, aid); !ok || !got.Expires.Equal(access.Expires) || got.Namespace != access.Namespace {
		t.Errorf("an access token's session = %+v, %v; want %+v", got, ok, access)
	}
	for _, bad := range []string{"", "0", "not hex: 0123456789abcdef", "0123456789ABCDEF", "csu:0123456789abcdef"} {
		if _, err := a.Create(ctx, state.Session{TokenHash: bad, Namespace: "n"}, time.Hour); err == nil {
			t.Errorf("Create with token hash %q: no error", bad)
		}
	}
	other, _ := a.Create(ctx, want, time.Hour)
	if other == id {
		t.Error("two sessions got one id")
	}
	for _, bad := range []string{"", "unknown", "../" + id, id + "x", "cs:" + id} {
		if _, ok, err := b.Session(ctx, bad); ok || err != nil {
			t.Errorf("Session(%q) = %v, %v", bad, ok, err)
		}
	}
	if err := b.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Session(ctx, id); ok {
		t.Error("a session ended on one replica lives on the other")
	}
	if _, ok, _ := a.Session(ctx, other); !ok {
		t.Error("ending one session ended another")
	}
	if err := a.Delete(ctx, "never-was"); err != nil {
		t.Errorf("Delete of an unknown session: %v", err)
	}
	short, _ := a.Create(ctx, want, 200*time.Millisecond)
	deadline := time.Now().Add(3 * time.Second)
	for {
		if _, ok, _ := b.Session(ctx, short); !ok {
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
			s := state.Session{TokenHash: tokenHash(100 + i), Namespace: fmt.Sprint("ns-", i)}
			id, err := a.Create(ctx, s, time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			if got, ok, _ := b.Session(ctx, id); !ok || got != s {
				t.Errorf("concurrent session %d: %+v %v", i, got, ok)
			}
		})
	}
	wg.Wait()
}

// live counts the sessions of ids that s still knows.
func live(t *testing.T, s state.SessionStore, ids []string) (n int, alive []bool) {
	t.Helper()
	for _, id := range ids {
		_, ok, err := s.Session(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		alive = append(alive, ok)
		if ok {
			n++
		}
	}
	return n, alive
}

func testSessionsPerToken(t *testing.T, newStores SessionsFactory) {
	ctx := context.Background()
	a, b := newStores(t, 0)
	const extra = 4
	var ids []string
	for i := range state.MaxSessionsPerToken + extra {
		// Each expires after the one before: the first are the oldest.
		id, err := a.Create(ctx, state.Session{TokenHash: tokenHash(0), Namespace: "n"}, time.Hour+time.Duration(i)*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	other, _ := b.Create(ctx, state.Session{TokenHash: tokenHash(1), Namespace: "n"}, time.Minute)
	n, alive := live(t, b, ids)
	if n != state.MaxSessionsPerToken {
		t.Errorf("%d sessions of one token live, want %d", n, state.MaxSessionsPerToken)
	}
	for i := range extra {
		if alive[i] {
			t.Errorf("session %d of %d, among the oldest, lives on", i, len(ids))
		}
	}
	if !alive[len(alive)-1] {
		t.Error("the newest session of the token was ended")
	}
	if _, ok, _ := a.Session(ctx, other); !ok {
		t.Error("another token's session was ended by the bound of the first")
	}
	// A session ended by a logout no longer counts.
	if err := b.Delete(ctx, ids[extra]); err != nil {
		t.Fatal(err)
	}
	last, _ := a.Create(ctx, state.Session{TokenHash: tokenHash(0), Namespace: "n"}, 2*time.Hour)
	if n, _ := live(t, b, append(ids[extra+1:], last)); n != state.MaxSessionsPerToken {
		t.Errorf("after a logout and a login: %d of the token's sessions live, want all %d", n, state.MaxSessionsPerToken)
	}
}

func testSessionsInAll(t *testing.T, newStores SessionsFactory) {
	ctx := context.Background()
	const max = 10
	a, b := newStores(t, max)
	var ids []string
	for i := range max + 5 {
		id, err := a.Create(ctx, state.Session{TokenHash: tokenHash(i), Namespace: "n"}, time.Hour+time.Duration(i)*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if n, _ := live(t, b, ids); n != max {
		t.Errorf("%d sessions live, want the bound %d", n, max)
	}
	// Many at once, on both replicas: the bound holds.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 40 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			id, err := s.Create(ctx, state.Session{TokenHash: tokenHash(1000 + i%7), Namespace: "n"}, time.Hour)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			ids = append(ids, id)
			mu.Unlock()
		})
	}
	wg.Wait()
	if n, _ := live(t, a, ids); n != max {
		t.Errorf("after 40 concurrent logins: %d sessions live, want the bound %d", n, max)
	}
}

func testSessionsLargestGivesWay(t *testing.T, newStores SessionsFactory) {
	// A token signing in again and again at the bound ends its own
	// sessions, never those of a token holding fewer, however soon
	// theirs expire.
	ctx := context.Background()
	const max = 10
	a, b := newStores(t, max)
	var quiet []string
	for i := range 3 {
		id, err := a.Create(ctx, state.Session{TokenHash: tokenHash(1), Namespace: "quiet"}, time.Minute+time.Duration(i)*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, id)
	}
	var flood []string
	for range 3 * max {
		id, err := b.Create(ctx, state.Session{TokenHash: tokenHash(2), Namespace: "flood"}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		flood = append(flood, id)
	}
	if n, _ := live(t, a, quiet); n != len(quiet) {
		t.Errorf("another token's logins at the bound ended %d of the quiet token's %d sessions", len(quiet)-n, len(quiet))
	}
	if n, alive := live(t, a, flood); n != max-len(quiet) || !alive[len(flood)-1] {
		t.Errorf("the flooding token keeps %d sessions (its newest: %v), want %d", n, alive[len(flood)-1], max-len(quiet))
	}
}
