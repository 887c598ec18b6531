package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// env is one emulator served by httptest with the embedded defaults.
type env struct {
	t      testing.TB
	URL    string
	Server *httptest.Server
	Engine *emulator.Engine
	Cat    *scenarios.Catalogue
	Clock  *testkit.Clock
	// Journal is the journal, with the journal option; nil without.
	Journal *memstore.Journal
	// Web is the sandbox's server, served by Server.
	Web *web.Server
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
	merchants   string        // --merchants: id:secret,...
	tokenLife   time.Duration // the access tokens' lifetime; the default when 0
	callbacks   bool          // keep result callbacks (run them with env.Web.RunCallbacks)
	backoff     time.Duration // the callbacks' first backoff
	allowHosts  string        // --callback-allow-hosts
	journalLag  time.Duration // the journal shows each event this late, as a shared one does
	maxWaits    [2]int        // the admin API's waits in all and per token; 0: the defaults
	issuerHost  bool          // the OAuth issuer is the URL each request reached (no --public-url)
	addr        string        // the address web.Server.Open listens on
	timeouts    web.Timeouts  // the server's connection timeouts
	// state, when set, replaces or wraps the memory state the sandbox
	// would keep (a store that refuses writes, a Redis wing).
	state func(*stateParts)
}

// stateParts is the state a test sandbox keeps: the memory wing's unless
// envOptions.state changes them.
type stateParts struct {
	Store      state.Store
	Runtime    state.RuntimeScenarios
	Namespaces state.Namespaces
	Sessions   state.SessionStore
	Events     state.EventSink
	Journal    journal.Journal
}

// sandbox is an emulator's handler and its parts, as the tests build it.
type sandbox struct {
	Server  *web.Server
	Engine  *emulator.Engine
	Cat     *scenarios.Catalogue
	Clock   *testkit.Clock // nil with realClock
	Journal *memstore.Journal
}

// callbacks are the result callbacks of o, or none.
func (o envOptions) callbackState() state.Callbacks {
	if !o.callbacks {
		return nil
	}
	return memstore.NewCallbacks(state.CallbackBounds{})
}

// defaultCatalogue is the catalogue of the embedded defaults, loaded
// once for every sandbox of the tests that loads nothing else: a
// catalogue is never changed once built, and loading it takes a good
// share of a test's time under the race detector.
var defaultCatalogue = sync.OnceValues(func() (*scenarios.Catalogue, error) { return scenarios.Load(scenarios.LoadOptions{}) })

// parsedPages are the pages, parsed once for every sandbox of the tests
// (html/template renders a parsed set from any number of goroutines).
var parsedPages = sync.OnceValues(templates.Parse)

// buildSandbox wires an emulator whose browser pages live at public, the
// way cmd/threeds-sandbox does, with fixed state keys.
func buildSandbox(tb testing.TB, o envOptions, public string) sandbox {
	tb.Helper()
	load := func() (*scenarios.Catalogue, error) { return scenarios.Load(o.load) }
	if reflect.ValueOf(o.load).IsZero() {
		load = defaultCatalogue
	}
	cat, err := load()
	if err != nil {
		tb.Fatalf("load scenarios: %v", err)
	}
	pages, err := parsedPages()
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
	parts := stateParts{
		Store:      store,
		Runtime:    memstore.NewRuntime(scenarios.RuntimeLimits{}),
		Namespaces: memstore.NewNamespaces(memstore.NamespacesOptions{Now: now}),
		Sessions:   memstore.NewSessions(0, nil),
	}
	if o.journal {
		b.Journal = memstore.NewJournal(o.journalOpt)
		parts.Events, parts.Journal = b.Journal, b.Journal
		if o.journalLag > 0 {
			l := &laggingJournal{Journal: b.Journal, lag: o.journalLag}
			parts.Events, parts.Journal = l, l
		}
	}
	if o.state != nil {
		o.state(&parts)
	}
	if o.seed == 0 {
		o.seed = 7
	}
	merchants, err := auth.ParseMerchants(o.merchants)
	if err != nil {
		tb.Fatal(err)
	}
	allow, err := callback.ParseAllowlist(o.allowHosts)
	if err != nil {
		tb.Fatal(err)
	}
	b.Engine, err = emulator.New(emulator.Config{
		PublicURL:        public,
		Seed:             o.seed,
		FirstCReqTimeout: o.firstCReq,
		ChallengeTimeout: o.challenge,
		Catalogue:        func() *scenarios.Catalogue { return cat },
		Runtime:          parts.Runtime,
		Namespaces:       parts.Namespaces,
		Now:              now,
		MaxDelayed:       o.maxDelay,
		Events:           parts.Events,
		Chaos:            o.chaos,
		StrictDDC:        o.strictDDC,
		StoreMaxAge:      o.storeMaxAge,
		Captures:         memstore.NewCaptures(memstore.CapturesOptions{Now: now}),
		Callbacks:        o.callbackState(),
		CallbackBackoff:  o.backoff,
	}, parts.Store)
	if err != nil {
		tb.Fatal(err)
	}
	b.Server, err = web.NewServer(web.Config{
		Addr:          o.addr,
		Timeouts:      o.timeouts,
		BasePath:      o.basePath,
		Tokens:        auth.NewTokens(o.tokens),
		HashKey:       testHashKey,
		BlockKey:      bytes.Repeat([]byte("b"), 32),
		PublicURL:     public,
		Engine:        b.Engine,
		Pages:         pages,
		Logger:        o.logger,
		ConsoleAuth:   o.consoleAuth,
		Sessions:      parts.Sessions,
		Journal:       parts.Journal,
		Merchants:     merchants,
		TokenLifetime: o.tokenLife,
		Now:           now,
		Callbacks:     web.CallbacksConfig{Allow: allow, Poll: 10 * time.Millisecond, Timeout: time.Second},
		MaxWaits:      o.maxWaits[0],
		// The second bound applies per token.
		MaxWaitsPerToken:  o.maxWaits[1],
		IssuerFromRequest: o.issuerHost,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// testHashKey is the state hash key of the tests' servers.
var testHashKey = bytes.Repeat([]byte("h"), 32)

// namespaceOf is the namespace of token on the tests' servers: its keyed
// hash under a key derived from testHashKey.
func namespaceOf(token string) string {
	k, err := auth.NewTokenKeys([][]byte{testHashKey}, nil)
	if err != nil {
		panic(err)
	}
	return k.Namespace(token)
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
	return &env{t: t, URL: public, Server: ts, Engine: b.Engine, Cat: b.Cat, Clock: b.Clock, Journal: b.Journal, Web: b.Server}
}

// result is a decoded response.
type result = testkit.Response

// call sends a JSON request with a bearer token ("" sends none); a
// request without a body still says it is JSON, as the API wants.
func (e *env) call(method, path, token string, body any) result {
	e.t.Helper()
	req := testkit.Request(e.t, method, e.URL+path, token, body)
	req.Header.Set("Content-Type", "application/json")
	return e.do(req)
}

func (e *env) do(req *http.Request) result {
	e.t.Helper()
	return testkit.Do(e.t, e.Server.Client(), req)
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
	if got := r.EMV("emvErrorCode"); got != emvCode {
		t.Errorf("emvErrorCode = %q, want %q\n%s", got, emvCode, r.Raw)
	}
	if len(r.Str("errorCode")) != 4 {
		t.Errorf("errorCode = %q, want 4 characters", r.Str("errorCode"))
	}
	if r.Str("status") == "" || r.Str("error") == "" {
		t.Errorf("status and error must be set: %s", r.Raw)
	}
	if r.EMV("emvErrorComponent") == "" || r.EMV("emvErrorDescription") == "" || r.EMV("emvErrorDetail") == "" {
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

func (l *laggingJournal) Record(ctx context.Context, ev state.Event) {
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
		// The stand-in is late on purpose, as a shared journal is: the
		// sleep is its lag, not a wait of the test.
		time.Sleep(time.Until(due))
		l.Journal.Record(context.WithoutCancel(ctx), ev)
	}()
}

// Flush waits until every event given so far is recorded, or ctx ends.
func (l *laggingJournal) Flush(ctx context.Context) error {
	l.mu.Lock()
	tail := l.tail
	l.mu.Unlock()
	if tail == nil {
		return nil
	}
	select {
	case <-tail:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var _ journal.Queued = (*laggingJournal)(nil)
