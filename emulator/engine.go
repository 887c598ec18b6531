// Package emulator is the 3-D Secure engine of the sandbox: lookup,
// challenge and enquiry, the transaction state machine, the events of a
// transaction's life and the Store interface. It knows the protocol and
// nothing about HTTP, and it renders nothing: the challenge and the final
// CRes leave it as data that the transport turns into pages.
package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Defaults of the challenge windows: generous, for a human tester.
const (
	DefaultFirstCReqTimeout = 10 * time.Minute
	DefaultChallengeTimeout = 15 * time.Minute
	// DefaultVersion is the protocol version used when neither the request
	// nor the scenario names one.
	DefaultVersion = "2.2.0"
	// DefaultMaxDelayed is the default bound on requests held in delays.
	DefaultMaxDelayed = 256
)

// Config sets up an Engine.
type Config struct {
	// PublicURL is the emulator's base URL as browsers reach it, e.g.
	// "http://localhost:8080" or "https://sandbox.example.com/3ds"; the
	// hostedChallengeUrl and the ACS form action are built from it.
	PublicURL string
	// Seed makes the fake ACS data and authentication values reproducible.
	Seed uint64
	// FirstCReqTimeout is how long a challenge waits for its first CReq
	// before it ends as N, reason 14, challengeCancel 05.
	FirstCReqTimeout time.Duration
	// ChallengeTimeout is how long an opened challenge waits for the
	// cardholder's decision before it ends as N, reason 14, challengeCancel 04.
	ChallengeTimeout time.Duration
	// Schemes finds the card scheme by BIN; the built-in table when nil.
	Schemes *SchemeTable
	// Directory holds the app channel's directory servers: their keys,
	// roots and the ACS's signing chains; the embedded test keys when
	// nil.
	Directory *directory.Directory
	// AppKey seals the app channel's exchange keys in the store
	// (AppState.SealedKey): 32 bytes that every replica sharing the store
	// holds alike (the wiring derives them from the namespace key). When
	// nil, a key derived from Seed: enough for one process.
	AppKey []byte
	// Catalogue returns the active scenario catalogue; it may change
	// between calls (hot reload).
	Catalogue func() *scenarios.Catalogue
	// Runtime holds the scenarios added through the admin API, per
	// namespace; they win over the catalogue. Kept by the state store
	// (memstore.NewRuntime, redisstore.NewRuntime); required.
	Runtime state.RuntimeScenarios
	// Namespaces keeps what each namespace sets for its own transactions
	// through the admin API: its clock and its forgetting. Kept by the
	// state store (memstore.NewNamespaces, redisstore.NewNamespaces);
	// required.
	Namespaces state.Namespaces
	// MaxClockOffset bounds how far a namespace may move its clock
	// ahead; DefaultMaxClockOffset when zero.
	MaxClockOffset time.Duration
	// Events receives every event of every transaction (the console's
	// journal); nil records none.
	Events state.EventSink
	// Chaos, when set, injects faults into the API steps at random.
	Chaos *Chaos
	// Now is the real clock; time.Now when nil. Each namespace's clock
	// runs ahead of it by the namespace's offset (see Namespaces).
	Now func() time.Time
	// MaxDelayed bounds the requests held in scenario delays at once;
	// beyond it a delayed step fails at once with 503 (EMV 403).
	MaxDelayed int
	// StrictDDC refuses a lookup whose ddcId names no device data
	// collection of the token (301) or one an earlier lookup used (305);
	// false accepts it as a new transaction, flagged in the lookup event.
	StrictDDC bool
	// StoreMaxAge is how long the store keeps a transaction; when set, an
	// unknown transaction's error says so (it may have expired), and a
	// namespace whose clock runs ahead sees its transactions expire by
	// its clock.
	StoreMaxAge time.Duration
	// Captures keeps the ddcIds merchants choose and the JWT ids their
	// captures used (memstore.NewCaptures, redisstore.NewCaptures); nil
	// refuses the browser's capture and a merchant-chosen ddcId.
	Captures state.Captures
	// Callbacks keeps the result callbacks' registrations and deliveries
	// (memstore.NewCallbacks, redisstore.NewCallbacks); nil sends none.
	Callbacks state.Callbacks
	// DefaultCallbackURL receives the results of the namespaces that
	// registered no URL of their own; empty: none.
	DefaultCallbackURL string
	// CallbackAttempts bounds the attempts of one delivery
	// (DefaultCallbackAttempts when zero); CallbackBackoff is the wait
	// before the second, doubling after each (DefaultCallbackBackoff when
	// zero), at most MaxCallbackBackoff.
	CallbackAttempts int
	CallbackBackoff  time.Duration
	// CallbackInFlightPerToken bounds the attempts of one namespace in
	// flight at once, across replicas (DefaultCallbackInFlightPerToken
	// when zero): a receiver that never answers holds no more of the
	// delivery slots.
	CallbackInFlightPerToken int
}

// Engine runs the 3DS flows. It is safe for concurrent use. It is also the
// one value the transport is wired with: the catalogue, the runtime
// scenarios and the event sink are reached through it.
type Engine struct {
	cfg Config
	// store is raw as the engine sees it: without the transactions their
	// namespaces forgot (scopedStore).
	store  state.Store
	raw    state.Store
	urls   URLs
	cavv   *cavvHashes
	now    func() time.Time
	chance *chance
	acs    *acsDirectory
	// seal seals and opens the app channel's exchange keys.
	seal *keySeal
	// delaySlots bounds the requests held in scenario delays.
	delaySlots chan struct{}
	// writes keeps the outcome of the last store writes, for readiness.
	writes *writeWatch
}

// New returns an Engine over store.
func New(cfg Config, store state.Store) (*Engine, error) {
	if cfg.Catalogue == nil {
		return nil, errors.New("emulator: config needs a scenario catalogue")
	}
	if store == nil {
		return nil, errors.New("emulator: New needs a store")
	}
	if cfg.Schemes == nil {
		t, err := NewSchemeTable(nil)
		if err != nil {
			return nil, err
		}
		cfg.Schemes = t
	}
	if cfg.Directory == nil {
		d, err := directory.Default()
		if err != nil {
			return nil, fmt.Errorf("emulator: the embedded directory servers: %w", err)
		}
		cfg.Directory = d
	}
	if cfg.Runtime == nil {
		return nil, errors.New("emulator: config needs the runtime scenarios of its state store")
	}
	if cfg.Namespaces == nil {
		return nil, errors.New("emulator: config needs the namespace states of its state store")
	}
	if cfg.MaxClockOffset <= 0 {
		cfg.MaxClockOffset = state.DefaultMaxClockOffset
	}
	if cfg.FirstCReqTimeout <= 0 {
		cfg.FirstCReqTimeout = DefaultFirstCReqTimeout
	}
	if cfg.ChallengeTimeout <= 0 {
		cfg.ChallengeTimeout = DefaultChallengeTimeout
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.MaxDelayed <= 0 {
		cfg.MaxDelayed = DefaultMaxDelayed
	}
	seal, err := newKeySeal(cfg.AppKey, cfg.Seed)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:        cfg,
		seal:       seal,
		raw:        store,
		urls:       NewURLs(cfg.PublicURL),
		cavv:       newCAVVHashes(cavvKey(cfg.Seed)),
		now:        now,
		chance:     newChance(cfg.Seed),
		acs:        &acsDirectory{seed: cfg.Seed},
		delaySlots: make(chan struct{}, cfg.MaxDelayed),
		writes:     &writeWatch{},
	}
	e.store = scopedStore{Store: store, e: e}
	return e, nil
}

// Schemes returns the engine's BIN table.
func (e *Engine) Schemes() *SchemeTable { return e.cfg.Schemes }

// Directory returns the app channel's directory servers.
func (e *Engine) Directory() *directory.Directory { return e.cfg.Directory }

// Catalogue returns the active scenario catalogue.
func (e *Engine) Catalogue() *scenarios.Catalogue { return e.cfg.Catalogue() }

// Runtime returns the runtime scenarios, which the admin API changes and
// lookups match first.
func (e *Engine) Runtime() state.RuntimeScenarios { return e.cfg.Runtime }

// Ping tells whether the state behind the engine takes writes now: nil
// for a store in memory. It fails while the store refused more than half
// of the engine's recent writes (Writes), whatever a probe of the store
// says, and else when the store's own probe fails.
func (e *Engine) Ping(ctx context.Context) error {
	if err := e.Writes(); err != nil {
		return err
	}
	if p, ok := e.raw.(state.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Events returns the sink the engine records its events into; nil when
// none is configured.
func (e *Engine) Events() state.EventSink { return e.cfg.Events }

// URLs returns the absolute URLs of the browser flows.
func (e *Engine) URLs() URLs { return e.urls }

// ChallengeTimeout is how long an opened challenge waits for a decision.
func (e *Engine) ChallengeTimeout() time.Duration { return e.cfg.ChallengeTimeout }

// APICall is what the engine learns of the API request behind a call,
// besides its decoded body.
type APICall struct {
	// ScenarioID forces a scenario whatever the card (the X-Scenario
	// header; lookups only); empty: match by the request.
	ScenarioID string
	// Body is the request body as it came, for the event. The engine keeps
	// only a redacted copy (compact, card numbers masked, long values
	// cut); nil keeps none.
	Body []byte
	// KnownMembers tells that every member of a lookup's Body is a field
	// of the lookup: its decoder read them all and ignored none.
	KnownMembers bool
	// Note is what the call's event notes of its credential, e.g. a
	// token of a client no configuration names; empty for none.
	Note string
	// CaptureTenant is the namespace of the unverified captures the
	// call's credential may continue beside its own and the claimable
	// ones: for an access token of an OAuth client no configuration names,
	// the namespace of the captures whose JWT names that client as iss.
	// Empty for none.
	CaptureTenant string
}

// Lookup runs an authentication request for namespace ns: it picks the
// scenario of the card, applies the scenario's lookup delay and fault,
// stores the new transaction and returns the frictionless result or the
// challenge indication (as data, in LookupResponse.Challenge). A scenario
// error comes back as *Error, an injected transport fault as *Fault.
func (e *Engine) Lookup(ctx context.Context, ns string, req message.LookupRequest, call APICall) (message.LookupResponse, error) {
	resp, _, err := e.LookupEncoded(ctx, ns, req, call)
	return resp, err
}

// LookupEncoded is Lookup that also returns the answer's JSON body as the
// API writes it without a challengeHtml (wire.AppendLookupResponse, its
// newline included) when it encoded one for the lookup's event, nil
// otherwise: the transport writes those bytes rather than encoding the
// answer a second time. The journal keeps the same bytes: read-only.
func (e *Engine) LookupEncoded(ctx context.Context, ns string, req message.LookupRequest, call APICall) (message.LookupResponse, []byte, error) {
	channel, _ := state.ChannelOf(req.DeviceChannel)
	link, err := e.linkCollection(ctx, ns, req, call)
	if err != nil {
		return message.LookupResponse{}, nil, err
	}
	p, err := e.findPrior(ctx, ns, req)
	if err != nil {
		return message.LookupResponse{}, nil, err
	}
	scheme := e.cfg.Schemes.Scheme(req.Card.CardNumber)
	var app appLookup
	if req.App != nil {
		if app, err = e.openDevice(req.App, scheme); err != nil {
			return message.LookupResponse{}, nil, err
		}
	}
	var sc *scenarios.Scenario
	if call.ScenarioID != "" {
		if sc, err = e.scenarioByID(ctx, ns, call.ScenarioID); err != nil {
			return message.LookupResponse{}, nil, err
		}
		if sc == nil {
			return message.LookupResponse{}, nil, emv.NewError(emv.CodeUnknownScenario, emv.EMVInvalidFormat,
				fmt.Sprintf("no scenario with id %q (see GET /scenarios)", call.ScenarioID), "X-Scenario")
		}
	} else {
		sr := scenarioRequest(req, scheme)
		sr.ThreeDSCompInd = link.compInd
		sr.Channel, sr.PriorStatus = channel.String(), p.status
		if req.App != nil {
			sr.Platform = platformOf(app.device.Platform)
		}
		if sc, err = e.match(ctx, ns, sr); err != nil {
			return message.LookupResponse{}, nil, err
		}
	}
	if err := e.applyStep(ctx, sc, StepLookup, viaAPI); err != nil {
		return message.LookupResponse{}, nil, err
	}
	if sc.Error != nil {
		se := scenarioError(sc.Error)
		se.Scenario = sc.ID
		return message.LookupResponse{}, nil, se
	}
	if err := e.refusePrior(p, sc); err != nil {
		return message.LookupResponse{}, nil, err
	}

	st, err := e.state(ctx, ns)
	if err != nil {
		return message.LookupResponse{}, nil, err
	}
	t := e.newTransaction(ns, req, channel, scheme, sc, st)
	if link.id != "" {
		// The collection chose the threeDSServerTransID: the acsTransID
		// follows it.
		t.ThreeDSServerTransID, t.Method = link.id, link.method
		if acs, ok := acsTransIDOf(link.id); ok {
			t.ACSTransID = acs
		}
	}
	var rendering *message.RenderingType
	var signed string
	if req.App != nil {
		if rendering, signed, err = e.appTransaction(&t, req.App, sc, app); err != nil {
			return message.LookupResponse{}, nil, err
		}
	}
	if err := e.store.Put(ctx, t); err != nil {
		return message.LookupResponse{}, nil, fmt.Errorf("lookup: store transaction: %w", err)
	}
	resp := message.LookupResponse{
		Status:               t.Status,
		Version:              t.Version,
		DSTransID:            t.DSTransID,
		ACSTransID:           t.ACSTransID,
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		AuthenticationValue:  e.AuthenticationValue(t),
		ECI:                  t.ECI,
		CardScheme:           t.CardScheme,
		CardBIN:              t.CardBIN,
		ExternalReferenceID:  t.ExternalReferenceID,
		StatusReason:         t.StatusReason,
		ACSReferenceNumber:   t.ACSReferenceNumber,
		ACSOperatorID:        t.ACSOperatorID,
		AuthenticationType:   t.AuthenticationType,
		WhiteListStatus:      t.WhiteListStatus,
		WhiteListStatusSrc:   t.WhiteListStatusSrc,
		ScenarioID:           sc.ID,
		Fallback:             sc == e.cfg.Catalogue().Fallback(),
		SDKTransID:           t.App.SDKTransID,
		ACSRenderingType:     rendering,
		ACSSignedContent:     signed,
	}
	if t.Status == "C" && channel != state.ChannelApp {
		ind, err := e.challengeIndication(t)
		if err != nil {
			return message.LookupResponse{}, nil, fmt.Errorf("lookup: %w", err)
		}
		resp.Challenge = &ind
		resp.HostedChallengeURL = e.urls.Hosted(t.ThreeDSServerTransID)
	}
	var encoded []byte
	if e.cfg.Events != nil {
		summary := lookupSummary(t, req)
		summary.Fallback = resp.Fallback
		detail := link.detail()
		switch channel {
		case state.Channel3RI:
			detail = threeRIDetail(req, p, sc, t)
		case state.ChannelApp:
			detail = appDetail(req.App, app, t)
		}
		encoded = wire.AppendLookupResponse(make([]byte, 0, answerSize), &resp, "")
		request := e.redactLookup
		if channel == state.ChannelApp {
			request = e.redactAppLookup
		}
		e.emit(ctx, state.Event{Time: t.CreatedAt, Namespace: ns, Kind: state.EventLookup, Transaction: summary, Detail: withNote(detail, call.Note),
			Request: request(call), Answer: encoded, Challenge: resp.Challenge})
	}
	if e.cfg.Callbacks != nil {
		e.scheduleCallback(ctx, t, challengeRules(sc))
	}
	return resp, encoded, nil
}

// answerSize holds an encoded lookup answer in one allocation: a
// frictionless one takes about 600 bytes.
const answerSize = 768

// newTransaction builds the transaction of a lookup of channel for a card
// of scheme answered by sc, in namespace ns whose state is st. On the 3RI
// channel there is no cardholder to challenge: a challenge scenario gives
// its threeRI result at once.
func (e *Engine) newTransaction(ns string, req message.LookupRequest, channel state.Channel, scheme string, sc *scenarios.Scenario, st state.NamespaceState) state.Transaction {
	pan := req.Card.CardNumber
	server, acs, ds := transactionIDs()
	t := state.Transaction{
		Namespace:            ns,
		ThreeDSServerTransID: server,
		ACSTransID:           acs,
		DSTransID:            ds,
		ExternalReferenceID:  strings.Clone(req.ExternalReferenceID),
		CreatedAt:            e.now().Add(st.Offset),
		ScenarioID:           sc.ID,
		Generation:           st.Generation,
		Channel:              channel,
	}
	t.SetCard(pan, scheme)
	issuer := e.acs.lookup(t.CardBIN)
	t.ACSReferenceNumber, t.ACSOperatorID = issuer.ReferenceNumber, issuer.OperatorID

	switch ch := sc.Challenge; {
	case ch != nil && channel == state.Channel3RI:
		t.Version = negotiateVersion(req.MessageVersion, ch.Version)
		o := sc.ThreeRIResult()
		finish(&t, o.Status, o.Reason, o.ECI, "")
	case ch != nil:
		t.Version = negotiateVersion(req.MessageVersion, ch.Version)
		t.Phase = state.PhaseChallengePending
		t.Status = "C"
		t.AuthenticationType = ch.AuthenticationType
		// Copies: the request's strings may share the request body's memory.
		t.Challenge = state.ChallengeState{
			NotificationURL: strings.Clone(req.NotificationURL),
			Session:         strings.Clone(req.Session),
			WindowSize:      req.ChallengeWindowSize,
			MerchantName:    strings.Clone(req.MerchantName),
			Language:        strings.Clone(req.Browser.Language),
		}

		if p := req.Purchase; p != nil {
			t.Challenge.Amount, t.Challenge.Currency = strings.Clone(p.Amount), strings.Clone(p.CurrencyCode)
			t.Challenge.PurchaseDate = strings.Clone(p.Date)
		}
	default:
		f := sc.Frictionless
		t.Version = negotiateVersion(req.MessageVersion, f.Version)
		t.Phase = state.PhaseFinal
		t.AuthenticationType = f.AuthenticationType
		status, reason, eci := f.Status, f.Reason, f.ECI
		if o := f.On210; o != nil && t.Version < "2.2.0" {
			status, reason, eci = o.Status, o.Reason, o.ECI
		}
		finish(&t, status, reason, eci, "")
	}
	if req.RequestFeatures == 2 && t.Version >= "2.2.0" {
		t.WhiteListStatus, t.WhiteListStatusSrc = "U", "03"
		if w := sc.WhiteList; w != nil {
			t.WhiteListStatus, t.WhiteListStatusSrc = w.Status, w.Source
		}
	}
	return t
}

// challengeIndication is the challenge of a new transaction as data: the
// initial CReq and the Requestor's session, to be posted to the ACS.
func (e *Engine) challengeIndication(t state.Transaction) (message.ChallengeIndication, error) {
	creq, err := message.EncodeMessage(message.CReq{
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ACSTransID:           t.ACSTransID,
		MessageType:          "CReq",
		MessageVersion:       t.Version,
		ChallengeWindowSize:  message.WindowSizeCode(t.Challenge.WindowSize),
	})
	if err != nil {
		return message.ChallengeIndication{}, err
	}
	return message.ChallengeIndication{
		ACSURL:      e.urls.ACSChallenge(),
		CReq:        creq,
		SessionData: t.Challenge.Session,
		WindowSize:  t.Challenge.WindowSize,
		Language:    t.Challenge.Language,
	}, nil
}

// finish sets the final result of t: status, reason, ECI (the override, or
// the scheme table) and the authentication value for Y and A.
func finish(t *state.Transaction, status, reason, eciOverride, cancel string) {
	if t.Version < "2.2.0" {
		status, reason = downgrade210(status, reason)
		if t.AuthenticationType == "04" {
			t.AuthenticationType = ""
		}
	}
	t.Phase = state.PhaseFinal
	t.Status = status
	t.StatusReason = reason
	t.ChallengeCancel = cancel
	t.ECI = eciOverride
	if t.ECI == "" {
		t.ECI = ECIFor(t.CardScheme, status)
	}
}
