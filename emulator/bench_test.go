package emulator_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Allocation budgets of the engine's hot paths, in allocations per call:
// about twice today's count (in the comments), so only a real regression
// trips TestAllocBudgets.
const (
	budgetLookupFrictionless = 12 // measured 7 (with its event: redacted body, the answer encoded once for the transport and the journal)
	budgetLookupChallenge    = 30 // measured 20 (and the CReq; the page is the transport's)
	budgetEnquiry            = 8  // measured 5 (its event: redacted body, typed answer)
	budgetEncodeLookup       = 3  // measured 1
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
// default 100k entries, an event sink: the binary's journal is on by
// default) and the cards the benchmarks send, with the request body the
// engine redacts for each event.
type benchEngine struct {
	*emulator.Engine
	frictionless, challenge message.LookupRequest
	body                    []byte
}

// discardSink takes the engine's events and keeps none: the benchmarks
// measure making the events, not a journal.
type discardSink struct{}

func (discardSink) Record(context.Context, state.Event) {}

// newBenchEngine builds a benchEngine.
func newBenchEngine(tb testing.TB) benchEngine {
	tb.Helper()
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		tb.Fatalf("load scenarios: %v", err)
	}
	store, err := memstore.New(memstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	e, err := emulator.New(emulator.Config{
		PublicURL:  "http://localhost:8080",
		Seed:       1,
		Catalogue:  func() *scenarios.Catalogue { return cat },
		Runtime:    memstore.NewRuntime(scenarios.RuntimeLimits{}),
		Namespaces: memstore.NewNamespaces(memstore.NamespacesOptions{}),
		Events:     discardSink{},
		// As the binary wires it: the captures' ddcIds, the callbacks.
		Captures:  memstore.NewCaptures(memstore.CapturesOptions{}),
		Callbacks: memstore.NewCallbacks(state.CallbackBounds{}),
	}, store)
	if err != nil {
		tb.Fatal(err)
	}
	body := testkit.LookupJSON()
	return benchEngine{
		Engine:       e,
		frictionless: lookupRequest(tb, cardOf(tb, cat, scenarioFrictionless)),
		challenge:    lookupRequest(tb, cardOf(tb, cat, scenarioChallenge)),
		body:         body,
	}
}

// lookupRequest is the realistic lookup of the wire testdata for card,
// decoded and validated as the API does it.
func lookupRequest(tb testing.TB, card string) message.LookupRequest {
	tb.Helper()
	raw := testkit.LookupJSON()
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
			resp, err := e.Lookup(ctx, benchNamespace, req, emulator.APICall{Body: e.body})
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

// BenchmarkLookupChallenge adds the CReq of the challenge indication.
func BenchmarkLookupChallenge(b *testing.B) { benchLookup(b, true, "C") }

// storedIDs runs n frictionless lookups and returns their transaction ids.
func storedIDs(tb testing.TB, e benchEngine, n int) []string {
	tb.Helper()
	ids := make([]string, n)
	for i := range ids {
		resp, err := e.Lookup(context.Background(), benchNamespace, e.frictionless, emulator.APICall{Body: e.body})
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
			if _, err := e.Enquiry(ctx, benchNamespace, message.EnquiryRequest{ThreeDSServerTransID: ids[i%len(ids)]}, emulator.APICall{Body: enquiryBody}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// enquiryBody is an enquiry request as it travels.
var enquiryBody = []byte(`{"externalReferenceId":"ORD-20240611-000123"}`)

// challengeHTML stands for the page the transport renders from a
// challenge indication: about 2 KB of HTML.
var challengeHTML = `<!DOCTYPE html><html lang="en"><head><title>"Authenticating"</title></head>` + strings.Repeat("<p>x</p>\n", 200) + `</html>`

// encodeResponse writes resp the way package web writes a lookup answer:
// wire.AppendLookupResponse into a buffer sized for it, with a 2 KB
// challengeHtml for a challenge.
func encodeResponse(w io.Writer, resp *message.LookupResponse) error {
	html := ""
	if resp.Challenge != nil {
		html = challengeHTML
	}
	n := len(html) + len(resp.HostedChallengeURL)
	_, err := w.Write(wire.AppendLookupResponse(make([]byte, 0, 768+n+n/10), resp, html))
	return err
}

// lookupResponses returns one response of each kind, as the engine gives
// them.
func lookupResponses(tb testing.TB) map[string]message.LookupResponse {
	tb.Helper()
	e := newBenchEngine(tb)
	out := map[string]message.LookupResponse{}
	for name, req := range map[string]message.LookupRequest{"frictionless": e.frictionless, "challenge": e.challenge} {
		resp, err := e.Lookup(context.Background(), benchNamespace, req, emulator.APICall{Body: e.body})
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
	ctx := context.Background()
	e := newBenchEngine(t)
	ids := storedIDs(t, e, 10)
	resp := lookupResponses(t)["frictionless"]
	testkit.CheckBudgets(t, 50,
		testkit.Budget{Name: "LookupFrictionless", Max: budgetLookupFrictionless, Fn: func() error {
			_, err := e.Lookup(ctx, benchNamespace, e.frictionless, emulator.APICall{Body: e.body})
			return err
		}},
		testkit.Budget{Name: "LookupChallenge", Max: budgetLookupChallenge, Fn: func() error {
			_, err := e.Lookup(ctx, benchNamespace, e.challenge, emulator.APICall{Body: e.body})
			return err
		}},
		testkit.Budget{Name: "Enquiry", Max: budgetEnquiry, Fn: func() error {
			_, err := e.Enquiry(ctx, benchNamespace, message.EnquiryRequest{ThreeDSServerTransID: ids[0]}, emulator.APICall{Body: enquiryBody})
			return err
		}},
		testkit.Budget{Name: "EncodeLookupResponse", Max: budgetEncodeLookup, Fn: func() error { return encodeResponse(io.Discard, &resp) }},
	)
}
