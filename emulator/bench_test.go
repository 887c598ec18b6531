package emulator_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// Allocation budgets of the engine's hot paths, in allocations per call:
// about twice today's count (in the comments), so only a real regression
// trips TestAllocBudgets.
const (
	budgetLookupFrictionless = 45  // measured 21
	budgetLookupChallenge    = 200 // measured 100 (renders challengeHtml)
	budgetEnquiry            = 4   // measured 0
	budgetEncodeLookup       = 3   // measured 1
)

// Scenarios of the default catalogue the benchmarks use, by id (their
// magic card numbers are looked up, so renumbering the cards keeps the
// benchmarks honest).
const (
	scenarioFrictionless = "visa-frictionless-y" // frictionless Y
	scenarioChallenge    = "visa-challenge"      // challenge, OTP 1234 passes
	benchNamespace       = "5e1f0c2a9b7d4e61"
)

// cardOf returns the magic card number of a default scenario.
func cardOf(tb testing.TB, cat *scenarios.Catalogue, id string) string {
	tb.Helper()
	sc, ok := cat.ByID(id)
	if !ok || sc.Match.CardNumber == "" {
		tb.Fatalf("default catalogue: no scenario %q with a card number", id)
	}
	return sc.Match.CardNumber
}

// benchEngine is the engine of the binary with its defaults (the embedded
// catalogue, the default BIN table, an in-memory store bounded at its
// default 100k entries) and the cards the benchmarks send.
type benchEngine struct {
	*emulator.Engine
	frictionless, challenge emulator.LookupRequest
}

// newBenchEngine builds a benchEngine.
func newBenchEngine(tb testing.TB) benchEngine {
	tb.Helper()
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		tb.Fatalf("load scenarios: %v", err)
	}
	set, err := templates.Parse()
	if err != nil {
		tb.Fatalf("parse templates: %v", err)
	}
	store, err := memstore.New(memstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	e, err := emulator.New(emulator.Config{
		PublicURL: "http://localhost:8080",
		Seed:      1,
		Catalogue: func() *scenarios.Catalogue { return cat },
		Pages:     web.FormPages{Set: set},
	}, store)
	if err != nil {
		tb.Fatal(err)
	}
	return benchEngine{
		Engine:       e,
		frictionless: lookupRequest(tb, cardOf(tb, cat, scenarioFrictionless)),
		challenge:    lookupRequest(tb, cardOf(tb, cat, scenarioChallenge)),
	}
}

// lookupRequest is the realistic lookup of the wire testdata for card,
// decoded and validated as the API does it.
func lookupRequest(tb testing.TB, card string) emulator.LookupRequest {
	tb.Helper()
	raw, err := os.ReadFile("wire/testdata/lookup.json")
	if err != nil {
		tb.Fatal(err)
	}
	req, _, err := wire.DecodeLookup(raw)
	if err != nil {
		tb.Fatalf("decode lookup: %v", err)
	}
	req.Card.CardNumber = card
	return req
}

// benchLookup runs Engine.Lookup from every CPU at once: the challenge
// card or the frictionless one.
func benchLookup(b *testing.B, challenge bool, wantStatus string) {
	e := newBenchEngine(b)
	req := e.frictionless
	if challenge {
		req = e.challenge
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			resp, err := e.Lookup(ctx, benchNamespace, req, emulator.LookupOptions{})
			if err != nil || resp.Status != wantStatus {
				b.Errorf("Lookup(%s): got status %q, error %v; want status %s", req.Card.CardNumber, resp.Status, err, wantStatus)
				return
			}
		}
	})
}

// BenchmarkLookupFrictionless is the engine's share of a frictionless
// lookup: scenario match, identifiers, ACS identity, CAVV, store.
func BenchmarkLookupFrictionless(b *testing.B) { benchLookup(b, false, "Y") }

// BenchmarkLookupChallenge adds the rendering of challengeHtml and its CReq.
func BenchmarkLookupChallenge(b *testing.B) { benchLookup(b, true, "C") }

// storedIDs runs n frictionless lookups and returns their transaction ids.
func storedIDs(tb testing.TB, e benchEngine, n int) []string {
	tb.Helper()
	ids := make([]string, n)
	for i := range ids {
		resp, err := e.Lookup(context.Background(), benchNamespace, e.frictionless, emulator.LookupOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		ids[i] = resp.ThreeDSServerTransID
	}
	return ids
}

// BenchmarkEnquiry asks for stored transactions by id from every CPU.
func BenchmarkEnquiry(b *testing.B) {
	e := newBenchEngine(b)
	ids := storedIDs(b, e, 1000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := 0
		for pb.Next() {
			if _, err := e.Enquiry(ctx, benchNamespace, emulator.EnquiryRequest{ThreeDSServerTransID: ids[i%len(ids)]}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// encodeResponse writes resp the way package web writes a lookup answer:
// wire.AppendLookupResponse into a buffer sized for it.
func encodeResponse(w io.Writer, resp *emulator.LookupResponse) error {
	n := len(resp.ChallengeHTML) + len(resp.HostedChallengeURL)
	_, err := w.Write(wire.AppendLookupResponse(make([]byte, 0, 768+n+n/10), resp))
	return err
}

// lookupResponses returns one response of each kind, as the engine gives
// them.
func lookupResponses(tb testing.TB) map[string]emulator.LookupResponse {
	tb.Helper()
	e := newBenchEngine(tb)
	out := map[string]emulator.LookupResponse{}
	for name, req := range map[string]emulator.LookupRequest{"frictionless": e.frictionless, "challenge": e.challenge} {
		resp, err := e.Lookup(context.Background(), benchNamespace, req, emulator.LookupOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = resp
	}
	return out
}

// BenchmarkEncodeLookupResponse encodes a LookupResponse to JSON as the
// API writes it (the challenge one carries a 2 KB challengeHtml).
func BenchmarkEncodeLookupResponse(b *testing.B) {
	for name, resp := range lookupResponses(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := encodeResponse(io.Discard, &resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAllocBudgets fails when an engine path allocates far beyond its
// budget. It counts allocations, never time, and is skipped under the race
// detector, which changes the counts.
func TestAllocBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector; run go test -run TestAllocBudgets without -race")
	}
	ctx := context.Background()
	e := newBenchEngine(t)
	ids := storedIDs(t, e, 10)
	resp := lookupResponses(t)["frictionless"]
	tests := []struct {
		name   string
		budget float64
		fn     func() error
	}{
		{"LookupFrictionless", budgetLookupFrictionless, func() error {
			_, err := e.Lookup(ctx, benchNamespace, e.frictionless, emulator.LookupOptions{})
			return err
		}},
		{"LookupChallenge", budgetLookupChallenge, func() error {
			_, err := e.Lookup(ctx, benchNamespace, e.challenge, emulator.LookupOptions{})
			return err
		}},
		{"Enquiry", budgetEnquiry, func() error {
			_, err := e.Enquiry(ctx, benchNamespace, emulator.EnquiryRequest{ThreeDSServerTransID: ids[0]})
			return err
		}},
		{"EncodeLookupResponse", budgetEncodeLookup, func() error { return encodeResponse(io.Discard, &resp) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			got := testing.AllocsPerRun(50, func() {
				if e := tt.fn(); e != nil && err == nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got > tt.budget {
				t.Errorf("got %.0f allocs/op, want at most %.0f (the budget in bench_test.go)", got, tt.budget)
			}
			t.Logf("%.0f allocs/op (budget %.0f)", got, tt.budget)
		})
	}
}
