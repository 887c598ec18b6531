package redisstore

import (
	"testing"
	"time"
)

// TestAnnounced: a value is used while younger than revalidate and no
// change of its namespace was announced; a value read while a change was
// announced is not kept; the cache starts afresh beyond maxCached.
func TestAnnounced(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a := newAnnounced[string](time.Second)

	if _, ok, _ := a.get("ns", t0); ok {
		t.Fatal("a value before any was read")
	}
	_, _, drops := a.get("ns", t0)
	a.put("ns", "http://a", t0, drops)
	if v, ok, _ := a.get("ns", t0.Add(999*time.Millisecond)); !ok || v != "http://a" {
		t.Errorf("within revalidate: %q, %v", v, ok)
	}
	if _, ok, _ := a.get("ns", t0.Add(time.Second)); ok {
		t.Error("a value as old as revalidate is still used")
	}

	a.put("ns", "http://a", t0, drops)
	a.drop("other")
	if v, ok, _ := a.get("ns", t0); !ok || v != "http://a" {
		t.Errorf("another namespace's announcement dropped this one: %q, %v", v, ok)
	}
	a.drop("ns")
	if _, ok, _ := a.get("ns", t0); ok {
		t.Error("an announced change left the value in place")
	}

	// A read that spans an announcement is not kept.
	_, _, drops = a.get("ns", t0)
	a.drop("ns")
	a.put("ns", "http://stale", t0, drops)
	if v, ok, _ := a.get("ns", t0); ok {
		t.Errorf("a value read before an announcement was kept: %q", v)
	}

	_, _, drops = a.get("ns", t0)
	a.put("ns", "http://a", t0, drops)
	a.put("ns2", "http://b", t0, drops)
	a.dropAll()
	for _, ns := range []string{"ns", "ns2"} {
		if _, ok, _ := a.get(ns, t0); ok {
			t.Errorf("%s kept after dropAll", ns)
		}
	}

	_, _, drops = a.get("x", t0)
	for i := range maxCached + 1 {
		a.put(string(rune('a'+i%26))+time.Duration(i).String(), "v", t0, drops)
	}
	if n := len(a.m); n > maxCached {
		t.Errorf("%d values kept, more than %d", n, maxCached)
	}
}
