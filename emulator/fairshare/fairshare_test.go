package fairshare

import (
	"math/rand/v2"
	"testing"
)

func TestLargestFollowsEveryChange(t *testing.T) {
	var h Holdings
	if tenant, n := h.Largest(); tenant != "" || n != 0 {
		t.Fatalf("empty: Largest = %q, %d", tenant, n)
	}
	steps := []struct {
		tenant string
		d      int64
		want   string
		amount int64
	}{
		{"a", 1, "a", 1},
		{"b", 3, "b", 3},
		{"a", 5, "a", 6},
		{"a", -4, "b", 3},
		{"b", -3, "a", 2},
		{"a", -2, "", 0},
		{"c", -1, "", 0}, // nothing held: nothing to take
	}
	for i, s := range steps {
		h.Add(s.tenant, s.d)
		if tenant, n := h.Largest(); tenant != s.want || n != s.amount {
			t.Fatalf("step %d (%s %+d): Largest = %q, %d; want %q, %d", i, s.tenant, s.d, tenant, n, s.want, s.amount)
		}
	}
	if h.Tenants() != 0 || len(h.at) != 0 {
		t.Fatalf("emptied holdings keep %d tenants", h.Tenants())
	}
}

func TestLargestAgainstAScan(t *testing.T) {
	var h Holdings
	want := map[string]int64{}
	r := rand.New(rand.NewPCG(1, 2))
	tenants := []string{"a", "b", "c", "d", "e"}
	for i := range 5000 {
		tn := tenants[r.IntN(len(tenants))]
		d := int64(r.IntN(7) - 3)
		if want[tn]+d < 0 {
			d = -want[tn]
		}
		h.Add(tn, d)
		want[tn] += d
		var most int64
		for _, n := range want {
			most = max(most, n)
		}
		got, n := h.Largest()
		if n != most || (most > 0 && want[got] != most) {
			t.Fatalf("after %d changes: Largest = %q, %d; the most held is %d (%v)", i, got, n, most, want)
		}
		if h.Of(tn) != want[tn] {
			t.Fatalf("Of(%q) = %d, want %d", tn, h.Of(tn), want[tn])
		}
	}
}
