package redisstore

import (
	"strconv"
	"testing"
	"time"
)

// TestTenantRenewal: a replica renews a namespace's list once per period,
// again at once after a renewal that failed, and every time for a
// namespace beyond the bound of those it remembers.
func TestTenantRenewal(t *testing.T) {
	t.Parallel()
	const period = time.Second
	t0 := time.Unix(1_700_000_000, 0)
	var ts tenants
	ten := ts.get("ns")
	steps := []struct {
		at     time.Duration
		failed bool // the lookup's Put fails
		want   bool
	}{
		{0, false, true},
		{period / 2, false, false},
		{period - time.Millisecond, false, false},
		{period, true, true},
		{period + time.Millisecond, false, true}, // the renewal before failed
		{period + 2*time.Millisecond, false, false},
		{2*period + time.Millisecond, false, true},
	}
	for i, st := range steps {
		got := ten.renewal(t0.Add(st.at), period)
		if got != st.want {
			t.Errorf("step %d (+%s): renewal %v, want %v", i, st.at, got, st.want)
		}
		if got && st.failed {
			ten.renewFailed()
		}
	}
	for i := range maxTenants {
		ts.get("ns-" + strconv.Itoa(i))
	}
	far := ts.get("one too many")
	if far != nil {
		t.Fatalf("namespace beyond %d remembered", maxTenants)
	}
	for range 3 {
		if !far.renewal(t0, period) {
			t.Error("a namespace not remembered must renew every time")
		}
	}
	if ts.get("ns") != ten {
		t.Error("a remembered namespace lost its entry")
	}
}
