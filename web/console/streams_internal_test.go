package console

import (
	"fmt"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// gone tells whether s was told to give way.
func gone(s *liveStream) bool {
	select {
	case <-s.gaveWay:
		return true
	default:
		return false
	}
}

// TestStreamPoolGivesWay: at the total, the tenant holding the most
// streams gives up its oldest, its own when it opens more; a newcomer is
// never refused for the total, and a tenant's own bounds still refuse.
func TestStreamPoolGivesWay(t *testing.T) {
	p := newStreamPool(10, 8)
	var hostile []*liveStream
	for i := range 8 {
		s, refusal := p.open(fmt.Sprint("h-", i/4), "hostile")
		if s == nil {
			t.Fatalf("hostile stream %d: %s", i, refusal)
		}
		hostile = append(hostile, s)
	}
	if s, refusal := p.open("h-2", "hostile"); s != nil || refusal == "" {
		t.Fatal("a ninth stream of one token was not refused")
	}
	other, _ := p.open("o", "other")
	second, _ := p.open("o", "other")
	quiet, refusal := p.open("q", "quiet")
	if quiet == nil {
		t.Fatalf("a newcomer at the total: refused (%s)", refusal)
	}
	if !gone(hostile[0]) || gone(hostile[1]) || gone(other) || gone(second) {
		t.Fatal("at the total, the one to give way was not the oldest stream of the tenant holding the most")
	}
	for i := range 20 {
		s, _ := p.open(fmt.Sprint("h-again-", i/4), "hostile")
		if s == nil {
			t.Fatalf("the hostile token reopening (%d) was refused", i)
		}
		hostile = append(hostile, s)
	}
	if gone(quiet) || gone(other) || gone(second) {
		t.Error("a tenant holding fewer gave way while the hostile one reopened")
	}
	if p.total != 10 || p.held.Of("hostile") != 7 || len(p.byTenant["hostile"]) != 7 {
		t.Errorf("total %d, hostile holds %d (%d listed), want 10 and 7", p.total, p.held.Of("hostile"), len(p.byTenant["hostile"]))
	}
	for _, s := range hostile {
		p.close(s) // those that gave way are not counted twice
	}
	p.close(quiet)
	if p.total != 2 || len(p.bySession) != 1 || p.held.Tenants() != 1 {
		t.Errorf("after closing: total %d, %d sessions, %d tenants; want 2, 1, 1", p.total, len(p.bySession), p.held.Tenants())
	}
}

// TestClientTokens: one client address logs in with at most its bound of
// tokens at once; the same token again is no other, a logout or the end
// of a session frees its place, and another client has its own.
func TestClientTokens(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	c := newClientTokens(2, clock.Now)
	until := clock.Now().Add(time.Hour)
	for _, tc := range []struct {
		client, ns string
		want       bool
	}{
		{"192.0.2.1", "a", true}, {"192.0.2.1", "b", true}, {"192.0.2.1", "c", false},
		{"192.0.2.1", "a", true}, {"198.51.100.1", "c", true},
	} {
		if got := c.admit(tc.client, tc.ns, until); got != tc.want {
			t.Errorf("admit(%s, %s) = %v, want %v", tc.client, tc.ns, got, tc.want)
		}
	}
	c.release("192.0.2.1", "b")
	if !c.admit("192.0.2.1", "c", until) {
		t.Error("a logout did not free its place")
	}
	clock.Advance(time.Hour)
	if !c.admit("192.0.2.1", "d", clock.Now().Add(time.Hour)) || !c.admit("192.0.2.1", "e", clock.Now().Add(time.Hour)) {
		t.Error("ended sessions still count")
	}
	for i := range 2 * maxClients {
		c.admit(fmt.Sprint("client-", i), "x", clock.Now().Add(time.Hour))
	}
	if len(c.by) > maxClients {
		t.Errorf("%d clients counted, want at most %d", len(c.by), maxClients)
	}
}
