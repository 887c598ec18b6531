package web_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// Budgets of whole API requests through the handler (routing, auth,
// body, decoding, engine, journal, response), per request: within the
// issue's bounds for the frictionless lookup (40 allocations, 10 KiB) and
// a little above today's figures (in the comments), so that a real
// regression trips TestAllocBudgets. The request and the response writer
// are reused (see replay): what is counted is the handler's own.
const (
	budgetServeLookup         = 21       // measured 17 (20 before the answer was encoded once, its typed copy left out of the event, and the journal reused its evicted entries)
	budgetServeLookupBytes    = 9 << 10  // measured 8,180 (the journal keeps the masked body, 2.8 KB)
	budgetServeEnquiry        = 22       // measured 14
	budgetServeEnquiryBytes   = 6 << 10  // measured 3,397
	budgetServeChallenge      = 450      // measured 318, 215 before the texts came from catalogues in the browser's language (a challenge lookup, then its headless completion, through httptest)
	budgetServeChallengeBytes = 80 << 10 // measured 52,700
)

// benchServer is the emulator's handler as the binary builds it, with the
// embedded catalogue, a default-bounded store and the console journal;
// logger nil discards the request log.
func benchServer(tb testing.TB, logger *slog.Logger) *web.Server {
	tb.Helper()
	return buildSandbox(tb, envOptions{realClock: true, logger: logger, seed: 1, journal: true}, "http://127.0.0.1:8080").Server
}

// Scenarios of the default catalogue the benchmarks use, by id: their
// magic card numbers are looked up, so renumbering the cards keeps the
// benchmarks honest.
const (
	scenarioFrictionless = "visa-frictionless-y"
	scenarioChallenge    = "visa-challenge"
)

// cardNumberField finds the card number of a lookup body.
var cardNumberField = regexp.MustCompile(`"cardNumber"\s*:\s*"[0-9]*"`)

// rawLookup is the realistic lookup body of the wire testdata, sent with
// the card of the default scenario id.
func rawLookup(tb testing.TB, id string) []byte {
	tb.Helper()
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		tb.Fatalf("load scenarios: %v", err)
	}
	sc, ok := cat.ByID(id)
	if !ok || sc.Match.CardNumber == "" {
		tb.Fatalf("default catalogue: no scenario %q with a card number", id)
	}
	raw := testkit.LookupJSON()
	if !cardNumberField.Match(raw) {
		tb.Fatal("lookup.json: no card.cardNumber")
	}
	return cardNumberField.ReplaceAll(raw, []byte(`"cardNumber": "`+sc.Match.CardNumber+`"`))
}

// serve sends one JSON API request through srv and returns the recorder.
func serve(srv http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer bench-team")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// replay sends the same JSON API request through a handler again and
// again, reusing the request and the response writer, so that a
// benchmark counts what the handler allocates and nothing of the test's
// own machinery (as net/http's server allocates its request either way).
type replay struct {
	srv  http.Handler
	req  *http.Request
	body rewindBody
	w    reusedWriter
	raw  []byte
}

func newReplay(srv http.Handler, path string, body []byte) *replay {
	p := &replay{srv: srv, raw: body, w: reusedWriter{header: http.Header{}}}
	p.req = httptest.NewRequest(http.MethodPost, path, nil)
	p.req.Header.Set("Content-Type", "application/json")
	p.req.Header.Set("Authorization", "Bearer bench-team")
	p.req.ContentLength = int64(len(body))
	return p
}

// serve sends the request once and returns the status and the body.
func (p *replay) serve() (int, []byte) {
	p.body.Reset(p.raw)
	p.req.Body = &p.body
	clear(p.w.header)
	p.w.status, p.w.body = 0, p.w.body[:0]
	p.srv.ServeHTTP(&p.w, p.req)
	return p.w.status, p.w.body
}

// rewindBody is a request body read from the start again for each use.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

// reusedWriter is a ResponseWriter whose header map and body buffer
// serve request after request.
type reusedWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *reusedWriter) Header() http.Header { return w.header }

func (w *reusedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *reusedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, b...)
	return len(b), nil
}

// benchServe sends the same request from every CPU at once, counting
// from the first request (the server's set-up excluded); cpu-ns/op is
// the process's CPU time per request (testkit.ReportCPU).
func benchServe(b *testing.B, srv http.Handler, path string, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	testkit.ReportCPU(b, func() {
		b.RunParallel(func(pb *testing.PB) {
			p := newReplay(srv, path, body)
			for pb.Next() {
				if code, out := p.serve(); code != http.StatusOK {
					b.Errorf("POST %s: got HTTP %d, want 200\n%s", path, code, out)
					return
				}
			}
		})
	})
}

// BenchmarkServeLookup is one frictionless lookup through the whole
// handler: the API's hot path. "log" adds the binary's text request log
// (written to io.Discard) to show what one log line per request costs.
func BenchmarkServeLookup(b *testing.B) {
	body := rawLookup(b, scenarioFrictionless)
	b.Run("nolog", func(b *testing.B) {
		benchServe(b, benchServer(b, nil), "/authentication/brw", body)
	})
	b.Run("log", func(b *testing.B) {
		log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
		benchServe(b, benchServer(b, log), "/authentication/brw", body)
	})
}

// BenchmarkServeChallengeLookup is a lookup that answers a challenge, with
// its challengeHtml.
func BenchmarkServeChallengeLookup(b *testing.B) {
	benchServe(b, benchServer(b, nil), "/authentication/brw", rawLookup(b, scenarioChallenge))
}

// BenchmarkServeEnquiry is an enquiry by externalReferenceId through the
// whole handler.
func BenchmarkServeEnquiry(b *testing.B) {
	srv := benchServer(b, nil)
	if rec := serve(srv, "/authentication/brw", rawLookup(b, scenarioFrictionless)); rec.Code != http.StatusOK {
		b.Fatalf("lookup: HTTP %d\n%s", rec.Code, rec.Body)
	}
	benchServe(b, srv, "/enquiry/", []byte(`{"externalReferenceId":"ORD-20240611-000123"}`))
}

// challengeOnce runs a challenge lookup and completes it headlessly.
func challengeOnce(srv http.Handler, lookup []byte) (int, string) {
	rec := serve(srv, "/authentication/brw", lookup)
	if rec.Code != http.StatusOK {
		return rec.Code, rec.Body.String()
	}
	// The id sits at a fixed place in the JSON; a decoder would add its
	// own allocations to the measure.
	const key = `"threeDsServerTransId":"`
	body := rec.Body.Bytes()
	i := bytes.Index(body, []byte(key))
	if i < 0 || len(body) < i+len(key)+36 {
		return 0, "no threeDsServerTransId in " + rec.Body.String()
	}
	id := string(body[i+len(key) : i+len(key)+36])
	rec = serve(srv, "/challenge/"+id, []byte(`{"action":"pass"}`))
	return rec.Code, rec.Body.String()
}

// BenchmarkServeHeadlessChallenge is a challenge lookup followed by its
// headless completion (POST /challenge/{id}).
func BenchmarkServeHeadlessChallenge(b *testing.B) {
	srv := benchServer(b, nil)
	lookup := rawLookup(b, scenarioChallenge)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if code, body := challengeOnce(srv, lookup); code != http.StatusOK {
				b.Errorf("challenge: got HTTP %d, want 200\n%s", code, body)
				return
			}
		}
	})
}

// TestAllocBudgets fails when a whole API request allocates far beyond its
// budget. It counts allocations, never time, and is skipped under the race
// detector, which changes the counts.
func TestAllocBudgets(t *testing.T) {
	srv := benchServer(t, nil)
	lookup, challenge := rawLookup(t, scenarioFrictionless), rawLookup(t, scenarioChallenge)
	enquiry := []byte(`{"externalReferenceId":"ORD-20240611-000123"}`)
	ok := func(code int, body string) error {
		if code != http.StatusOK {
			return fmt.Errorf("got HTTP %d, want 200\n%s", code, body)
		}
		return nil
	}
	lookups, enquiries := newReplay(srv, "/authentication/brw", lookup), newReplay(srv, "/enquiry/", enquiry)
	testkit.CheckBudgets(t, 1000, // enough calls that the store's occasional new chunk of memory is spread thin
		testkit.Budget{Name: "lookup", Max: budgetServeLookup, MaxBytes: budgetServeLookupBytes, Fn: func() error {
			code, body := lookups.serve()
			return ok(code, string(body))
		}},
		testkit.Budget{Name: "enquiry", Max: budgetServeEnquiry, MaxBytes: budgetServeEnquiryBytes, Fn: func() error {
			code, body := enquiries.serve()
			return ok(code, string(body))
		}},
		testkit.Budget{Name: "headless challenge", Max: budgetServeChallenge, MaxBytes: budgetServeChallengeBytes, Fn: func() error { return ok(challengeOnce(srv, challenge)) }},
	)
}
