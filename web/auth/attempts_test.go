package auth_test

import (
	"fmt"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestAttempts: one source may send a client FailureBurst wrong secrets,
// then one each FailureInterval; another source, another client and an
// id no configuration names are never slowed by it.
func TestAttempts(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	m, err := auth.ParseMerchants("shop-1:shop-1-secret-0123456789,shop-2:shop-2-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	a := auth.NewAttempts(m, clock.Now)
	const hostile, other = "192.0.2.66", "198.51.100.7"
	for i := range auth.FailureBurst {
		if _, ok := a.Failed("shop-1", hostile); !ok {
			t.Fatalf("wrong secret %d refused within the burst", i+1)
		}
	}
	wait, ok := a.Failed("shop-1", hostile)
	if ok || wait <= 0 || wait > auth.FailureInterval {
		t.Fatalf("after the burst: wait %s, ok %v; want refused for at most %s", wait, ok, auth.FailureInterval)
	}
	for range 1000 {
		a.Failed("stranger", hostile)
		a.Failed("shop-1", hostile) // a flood does not go below empty
	}
	for _, c := range []struct{ id, source string }{{"shop-1", other}, {"shop-2", hostile}, {"stranger", hostile}} {
		if _, ok := a.Failed(c.id, c.source); !ok {
			t.Errorf("%s from %s was slowed by shop-1's wrong secrets from %s", c.id, c.source, hostile)
		}
	}
	clock.Advance(auth.FailureInterval)
	if _, ok := a.Failed("shop-1", hostile); !ok {
		t.Error("no attempt allowed an interval after the burst")
	}
	if _, ok := a.Failed("shop-1", hostile); ok {
		t.Error("a second attempt within the interval")
	}
	clock.Advance(auth.FailureBurst * auth.FailureInterval)
	for i := range auth.FailureBurst {
		if _, ok := a.Failed("shop-1", hostile); !ok {
			t.Fatalf("after a quiet while, attempt %d refused", i+1)
		}
	}
}

// TestAttemptsBounded: however many sources guess, the pairs counted stay
// under MaxAttemptSources; a source that was forgotten starts again, and
// one still counted keeps its state.
func TestAttemptsBounded(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	m, _ := auth.ParseMerchants("shop-1:shop-1-secret-0123456789")
	a := auth.NewAttempts(m, clock.Now)
	for range auth.FailureBurst {
		a.Failed("shop-1", "first")
	}
	for i := range 3 * auth.MaxAttemptSources {
		a.Failed("shop-1", fmt.Sprint("source-", i))
	}
	if n := a.Counted(); n > auth.MaxAttemptSources {
		t.Errorf("%d pairs counted, want at most %d", n, auth.MaxAttemptSources)
	}
	last := fmt.Sprint("source-", 3*auth.MaxAttemptSources-1)
	for i := range auth.FailureBurst - 1 {
		if _, ok := a.Failed("shop-1", last); !ok {
			t.Fatalf("the last source's wrong secret %d refused within its burst", i+2)
		}
	}
	if _, ok := a.Failed("shop-1", last); ok {
		t.Error("the last source counted is not slowed after its burst: its count was lost")
	}
}

// TestSource: the source of a request is its IP address; an IPv6 one by
// its /64.
func TestSource(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.1:4711":                 "192.0.2.1",
		"[::ffff:192.0.2.1]:4711":        "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1%eth0]:80": "2001:db8:1:2::/64",
		"[::1]:80":                       "::/64",
		"@":                              "@",
		"":                               "",
	} {
		if got := auth.Source(addr); got != want {
			t.Errorf("Source(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestAuthenticateUnknownClient: an id no configuration names is refused
// whatever the secret, its own among the others' included.
func TestAuthenticateUnknownClient(t *testing.T) {
	m, _ := auth.ParseMerchants("shop-1:shop-1-secret-0123456789")
	for _, c := range []struct {
		id, secret string
		want       bool
	}{{"shop-1", "shop-1-secret-0123456789", true}, {"shop-1", "wrong", false}, {"shop-2", "shop-1-secret-0123456789", false}, {"shop-2", "", false}} {
		if got := m.Authenticate(c.id, c.secret); got != c.want {
			t.Errorf("Authenticate(%q, %q) = %v, want %v", c.id, c.secret, got, c.want)
		}
	}
}
