package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// env is one emulator served by httptest with the embedded defaults.
type env struct {
	t      testing.TB
	URL    string
	Server *httptest.Server
	Engine *emulator.Engine
	Cat    *scenarios.Catalogue
	Clock  *testkit.Clock
}

type envOptions struct {
	tokens      []string
	basePath    string
	firstCReq   time.Duration
	challenge   time.Duration
	load        scenarios.LoadOptions
	chaos       *emulator.Chaos
	maxDelay    int
	journal     bool // keep a journal for the console
	journalOpt  journal.Options
	consoleAuth string        // "user:password" for the console
	realClock   bool          // time.Now instead of the settable test clock
	logger      *slog.Logger  // nil discards the log
	seed        uint64        // 7 when 0
	storeMaxAge time.Duration // the engine's --store-max-age; 0 says nothing
	strictDDC   bool          // refuse unknown and reused ddcIds
	journalLag  time.Duration // the journal shows each event this late, as a shared one does
	maxWaits    [2]int        // the admin API's waits in all and per token; 0: the defaults
}

// sandbox is an emulator's handler and its parts, as the tests build it.
type sandbox struct {
	Server  *web.Server
	Engine  *emulator.Engine
	Cat     *scenarios.Catalogue
	Clock   *testkit.Clock // nil with realClock
	Journal *memstore.Journal
}

// buildSandbox wires an emulator whose browser pages live at public, the
// way cmd/threeds-sandbox does, with fixed state keys.
func buildSandbox(tb testing.TB, o envOptions, public string) sandbox {
	tb.Helper()
	cat, err := scenarios.Load(o.load)
	if err != nil {
		tb.Fatalf("load scenarios: %v", err)
	}
	pages, err := templates.Parse()
	if err != nil {
		tb.Fatalf("parse templates: %v", err)
	}
	b := sandbox{Cat: cat}
	var now func() time.Time
	if !o.realClock {
		b.Clock = testkit.NewClock(testkit.T0)
		now = b.Clock.Now
	}
	store, err := memstore.New(memstore.Options{Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	var events emulator.EventSink
	var reader journal.Journal
	if o.journal {
		b.Journal = memstore.NewJournal(o.journalOpt)
		events, reader = b.Journal, b.Journal
		if o.journalLag > 0 {
			l := &laggingJournal{Journal: b.Journal, lag: o.journalLag}
			events, reader = l, l
		}
	}
	if o.seed == 0 {
		o.seed = 7
	}
	b.Engine, err = emulator.New(emulator.Config{
		PublicURL:        public,
		Seed:             o.seed,
		FirstCReqTimeout: o.firstCReq,
		ChallengeTimeout: o.challenge,
		Catalogue:        func() *scenarios.Catalogue { return cat },
		Runtime:          memstore.NewRuntime(scenarios.RuntimeLimits{}),
		Namespaces:       memstore.NewNamespaces(memstore.NamespacesOptions{Now: now}),
		Now:              now,
		MaxDelayed:       o.maxDelay,
		Events:           events,
		Chaos:            o.chaos,
		StrictDDC:        o.strictDDC,
		StoreMaxAge:      o.storeMaxAge,
	}, store)
	if err != nil {
		tb.Fatal(err)
	}
	b.Server, err = web.NewServer(web.Config{
		BasePath:    o.basePath,
		Tokens:      auth.NewTokens(o.tokens),
		HashKey:     bytes.Repeat([]byte("h"), 32),
		BlockKey:    bytes.Repeat([]byte("b"), 32),
		PublicURL:   public,
		Engine:      b.Engine,
		Pages:       pages,
		Logger:      o.logger,
		ConsoleAuth: o.consoleAuth,
		Sessions:    memstore.NewSessions(0),
		Journal:     reader,
		MaxWaits:    o.maxWaits[0],
		// The second bound applies per token.
		MaxWaitsPerToken: o.maxWaits[1],
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func newEnv(t testing.TB, opts ...func(*envOptions)) *env {
	t.Helper()
	o := envOptions{}
	for _, f := range opts {
		f(&o)
	}
	ts := httptest.NewUnstartedServer(nil)
	public := "http://" + ts.Listener.Addr().String() + o.basePath
	b := buildSandbox(t, o, public)
	ts.Config.Handler = b.Server
	ts.Start()
	t.Cleanup(ts.Close)
	return &env{t: t, URL: public, Server: ts, Engine: b.Engine, Cat: b.Cat, Clock: b.Clock}
}

// result is a decoded response.
type result struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

func (r result) str(key string) string {
	v, _ := r.Body[key].(string)
	return v
}

func (r result) emv(key string) string {
	m, _ := r.Body["emvError"].(map[string]any)
	v, _ := m[key].(string)
	return v
}

// call sends a JSON request with a bearer token ("" sends none).
func (e *env) call(method, path, token string, body any) result {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) result {
	e.t.Helper()
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := result{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			e.t.Fatalf("%s %s: response is not JSON: %v\n%s", req.Method, req.URL, err, raw)
		}
	}
	return r
}

func (e *env) lookup(token string, body any) result {
	e.t.Helper()
	return e.call(http.MethodPost, "/authentication/brw", token, body)
}

func (e *env) enquiry(token string, body any) result {
	e.t.Helper()
	return e.call(http.MethodPost, "/enquiry/", token, body)
}

// checkErrorBody asserts that r is the spec's error body with every field.
func checkErrorBody(t *testing.T, r result, status int, emvCode string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("HTTP status = %d, want %d\n%s", r.Status, status, r.Raw)
	}
	if got := r.emv("emvErrorCode"); got != emvCode {
		t.Errorf("emvErrorCode = %q, want %q\n%s", got, emvCode, r.Raw)
	}
	if len(r.str("errorCode")) != 4 {
		t.Errorf("errorCode = %q, want 4 characters", r.str("errorCode"))
	}
	if r.str("status") == "" || r.str("error") == "" {
		t.Errorf("status and error must be set: %s", r.Raw)
	}
	if r.emv("emvErrorComponent") == "" || r.emv("emvErrorDescription") == "" || r.emv("emvErrorDetail") == "" {
		t.Errorf("emvErrorComponent, emvErrorDescription and emvErrorDetail must all be set (spec 2.16): %s", r.Raw)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// card returns the card number of a catalogue scenario, so tests name
// outcomes rather than numbers.
func (e *env) card(id string) string {
	e.t.Helper()
	sc, ok := e.Cat.ByID(id)
	if !ok || sc.Match.CardNumber == "" {
		e.t.Fatalf("no scenario %q with a card number", id)
	}
	return sc.Match.CardNumber
}

// matchingBody returns a lookup body that the scenario's selectors accept.
func matchingBody(t testing.TB, sc scenarios.Scenario, ref string) map[string]any {
	return testkit.LookupBody(t, sc.Match.CardNumber, func(m map[string]any) {
		m["externalReferenceId"] = ref
		if sc.Match.ChallengeInd != 0 {
			m["threeDsRequestorChallengeInd"] = sc.Match.ChallengeInd
		}
		if sc.Match.MessageVersion != "" {
			m["messageVersion"] = sc.Match.MessageVersion
		}
		if sc.Match.CardholderName != "" {
			m["card"].(map[string]any)["cardholderName"] = sc.Match.CardholderName
		}
		if sc.Match.Currency != "" {
			m["purchase"].(map[string]any)["currencyCode"] = sc.Match.Currency
		}
		if a := sc.Match.Amount; a != nil && a.Exact != "" {
			m["purchase"].(map[string]any)["amount"] = a.Exact
		}
		if sc.Match.ThreeDSCompInd != "" {
			// Without a device data collection, the Requestor's value counts.
			m["threeDSCompInd"] = sc.Match.ThreeDSCompInd
		}
	})
}

// laggingJournal records each event lag after it is given, in order, as
// a journal shared over Redis shows it a moment later (journal.Queued).
type laggingJournal struct {
	*memstore.Journal
	lag time.Duration

	mu   sync.Mutex
	last time.Time     // when the latest event is due
	tail chan struct{} // closed once the latest event is recorded
}

func (l *laggingJournal) Record(ctx context.Context, ev emulator.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	due := time.Now().Add(l.lag)
	if due.Before(l.last) {
		due = l.last
	}
	l.last = due
	prev := l.tail
	done := make(chan struct{})
	l.tail = done
	go func() {
		defer close(done)
		if prev != nil {
			<-prev // in the order they came
		}
		time.Sleep(time.Until(due))
		l.Journal.Record(context.WithoutCancel(ctx), ev)
	}()
}

// Flush waits out the lag.
func (l *laggingJournal) Flush(context.Context) error {
	time.Sleep(l.lag)
	return nil
}

var _ journal.Queued = (*laggingJournal)(nil)
