package scenarios

import (
	"fmt"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Allocation budgets of Match on the 10k-scenario catalogue of
// largeCatalogue, in allocations per call: about twice today's count (plus
// a little headroom where today's is zero), so only a real regression such
// as building a key string per prefix length trips TestAllocBudgets.
const (
	budgetMatchExact    = 2 // measured 0
	budgetMatchPrefix   = 2 // measured 0
	budgetMatchFallback = 2 // measured 0
)

// matchCards are one card of each kind of match on largeCatalogue(10000):
// an exact number, a prefix, and a miss that falls back.
func matchCards() map[string]Request {
	body := fmt.Sprintf("41%013d", 4321)
	return map[string]Request{
		"exact":    {CardNumber: body + luhnDigit(body)},
		"prefix":   {CardNumber: "4249990000000000"},
		"fallback": {CardNumber: "4300000000000000"},
	}
}

// BenchmarkMatchKinds matches each kind of card on the large catalogue
// (BenchmarkMatch in catalogue_test.go is the fallback case alone).
func BenchmarkMatchKinds(b *testing.B) {
	c := largeCatalogue(b, 10000)
	for name, r := range matchCards() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Match(r)
			}
		})
	}
}

// BenchmarkMatchParallel matches on every CPU at once, the way concurrent
// lookups share one catalogue.
func BenchmarkMatchParallel(b *testing.B) {
	c := largeCatalogue(b, 10000)
	cards := matchCards()
	reqs := []Request{cards["exact"], cards["prefix"], cards["fallback"]}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			c.Match(reqs[i%len(reqs)])
			i++
		}
	})
}

// TestAllocBudgets fails when matching allocates far beyond its budget.
// It counts allocations, never time, and is skipped under the race
// detector, which changes the counts.
func TestAllocBudgets(t *testing.T) {
	c := largeCatalogue(t, 10000)
	cards := matchCards()
	match := func(name string, max float64) testkit.Budget {
		r := cards[name]
		return testkit.Budget{Name: name, Max: max, Fn: func() error { c.Match(r); return nil }}
	}
	testkit.CheckBudgets(t, 100,
		match("exact", budgetMatchExact),
		match("prefix", budgetMatchPrefix),
		match("fallback", budgetMatchFallback),
	)
}
