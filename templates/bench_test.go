package templates

import (
	"io"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Allocation budgets of page rendering, in allocations per page: about
// twice today's count (in the comments), so only a real regression (such
// as parsing templates per request) trips TestAllocBudgets.
const (
	budgetRenderChallenge  = 800 // measured 387 (139 before the texts came from catalogues)
	budgetRenderAutoSubmit = 220 // measured 109 (73 before the texts came from catalogues)
)

// benchSet parses the embedded templates once for a benchmark.
func benchSet(tb testing.TB) *Set {
	tb.Helper()
	s, err := Parse()
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return s
}

// autoSubmitView is the challengeHtml of a lookup: the initial CReq form.
var autoSubmitView = AutoSubmit{
	Action:  "http://localhost:8080/acs/challenge",
	Title:   "Authenticating",
	Message: "Connecting to your card issuer…",
	Fields: []Field{
		{"creq", "eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IjhhODgwZGMwLWQyZDItNDA2Ny1iY2IxLWIwOGQxNjkwYjI2ZSIsImFjc1RyYW5zSUQiOiJkN2M0NWY5OS05NDc4LTQ0YTYtYjFmMi0xMDAwMDAwMDAwMDEiLCJtZXNzYWdlVHlwZSI6IkNSZXEiLCJtZXNzYWdlVmVyc2lvbiI6IjIuMi4wIiwiY2hhbGxlbmdlV2luZG93U2l6ZSI6IjAzIn0"},
		{"threeDSSessionData", "eyJvcmRlciI6IjAwMDEyMyJ9"},
	},
}

// BenchmarkRenderChallenge renders the issuer's challenge page from every
// CPU at once, as concurrent browsers open it.
func BenchmarkRenderChallenge(b *testing.B) {
	s, view := benchSet(b), challengeView()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Render(io.Discard, PageChallenge, view); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRenderAutoSubmit renders the self-submitting CReq form that
// every challenge lookup carries as challengeHtml.
func BenchmarkRenderAutoSubmit(b *testing.B) {
	s := benchSet(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Render(io.Discard, PageAutoSubmit, autoSubmitView); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAllocBudgets fails when rendering a page allocates far beyond its
// budget. It counts allocations, never time, and is skipped under the race
// detector, which changes the counts.
func TestAllocBudgets(t *testing.T) {
	s := parseSet(t)
	render := func(name, page string, view any, max float64) testkit.Budget {
		return testkit.Budget{Name: name, Max: max, Fn: func() error { return s.Render(io.Discard, page, view) }}
	}
	testkit.CheckBudgets(t, 50,
		render("challenge", PageChallenge, challengeView(), budgetRenderChallenge),
		render("autosubmit", PageAutoSubmit, autoSubmitView, budgetRenderAutoSubmit),
	)
}
