package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// The engine's own tests: every entry point driven directly, with a
// settable clock, the in-memory store and a sink that records the events.
// No HTTP.

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

const ns = "ns-test"

// recorder keeps the events it is given.
type recorder struct {
	mu     sync.Mutex
	events []state.Event
}

func (r *recorder) Record(_ context.Context, ev state.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

// kinds lists the kinds of the events of transaction id, in order.
func (r *recorder) kinds(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if ev.Transaction.ThreeDSServerTransID == id {
			out = append(out, string(ev.Kind))
		}
	}
	return strings.Join(out, ",")
}

// last returns the latest event of transaction id.
func (r *recorder) last(id string) state.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].Transaction.ThreeDSServerTransID == id {
			return r.events[i]
		}
	}
	return state.Event{}
}

// fixture is an engine over the embedded catalogue.
type fixture struct {
	*emulator.Engine
	t      *testing.T
	clock  *testkit.Clock
	events *recorder
	cat    *scenarios.Catalogue
	store  *memstore.Store
	body   []byte
	// shared, when set, is the store the engine was made with instead
	// of store (a Redis store two engines share).
	shared state.Store
	// cfg is the engine's configuration.
	cfg emulator.Config
}

// config is the fixture's engine configuration changed by configure, for
// another engine beside it.
func (f *fixture) config(configure ...func(*emulator.Config)) emulator.Config {
	cfg := f.cfg
	for _, c := range configure {
		c(&cfg)
	}
	return cfg
}

func newFixture(t *testing.T, configure ...func(*emulator.Config)) *fixture {
	t.Helper()
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.NewClock(t0)
	store, err := memstore.New(memstore.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	body := testkit.LookupJSON()
	rec := &recorder{}
	cfg := emulator.Config{
		PublicURL:  "https://sandbox.example/3ds/",
		Seed:       3,
		Catalogue:  func() *scenarios.Catalogue { return cat },
		Runtime:    memstore.NewRuntime(scenarios.RuntimeLimits{}),
		Namespaces: memstore.NewNamespaces(memstore.NamespacesOptions{Now: c.Now}),
		Events:     rec,
		Now:        c.Now,
	}
	for _, f := range configure {
		f(&cfg)
	}
	e, err := emulator.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{Engine: e, t: t, clock: c, events: rec, cat: cat, store: store, body: body, cfg: cfg}
}

// card is the magic card number of a catalogue scenario.
func (f *fixture) card(id string) string {
	f.t.Helper()
	sc, ok := f.cat.ByID(id)
	if !ok || sc.Match.CardNumber == "" {
		f.t.Fatalf("no scenario %q with a card number", id)
	}
	return sc.Match.CardNumber
}

// request is the realistic lookup of the wire testdata for card.
func (f *fixture) request(card string) message.LookupRequest {
	f.t.Helper()
	req, _, err := wire.DecodeLookup(f.body)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Card.CardNumber = card
	return req
}

// lookup runs a lookup of card in ns that must succeed.
func (f *fixture) lookup(card string, change func(*message.LookupRequest)) message.LookupResponse {
	f.t.Helper()
	req := f.request(card)
	if change != nil {
		change(&req)
	}
	resp, err := f.Lookup(context.Background(), ns, req, emulator.APICall{Body: f.body})
	if err != nil {
		f.t.Fatalf("lookup %s: %v", card, err)
	}
	return resp
}

// enquiry asks for a transaction by id in ns.
func (f *fixture) enquiry(id string) message.EnquiryResponse {
	f.t.Helper()
	resp, err := f.Enquiry(context.Background(), ns, message.EnquiryRequest{ThreeDSServerTransID: id}, emulator.APICall{})
	if err != nil {
		f.t.Fatalf("enquiry %s: %v", id, err)
	}
	return resp
}

// open posts the initial CReq of a challenge lookup.
func (f *fixture) open(resp message.LookupResponse) emulator.ChallengeView {
	f.t.Helper()
	creq, err := message.ParseCReq(resp.Challenge.CReq)
	if err != nil {
		f.t.Fatal(err)
	}
	v, err := f.OpenChallenge(context.Background(), creq)
	if err != nil {
		f.t.Fatalf("open challenge: %v", err)
	}
	return v
}

// emvCode is the EMV error code of an engine error, "" for nil, "?" for
// an error that is not an *emv.Error.
func emvCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := emulator.AsError(err); ok {
		return e.EMVCode
	}
	return "?"
}

func TestLookupFrictionless(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		scenario, status, reason, eci, scheme, version string
		cavv                                           bool
	}{
		{"visa-frictionless-y", "Y", "", "05", "VISA", "2.2.0", true},
		{"visa-frictionless-a", "A", "", "06", "VISA", "2.2.0", true},
		{"visa-frictionless-n", "N", "01", "07", "VISA", "2.2.0", false},
		{"visa-frictionless-u", "U", "08", "07", "VISA", "2.2.0", false},
		{"visa-frictionless-r", "R", "", "07", "VISA", "2.2.0", false},
		{"mastercard-frictionless-n", "N", "", "00", "MASTERCARD", "2.2.0", false},
		{"visa-frictionless-i", "I", "", "07", "VISA", "2.2.0", false},
		{"mastercard-frictionless-y", "Y", "", "02", "MASTERCARD", "2.2.0", true},
		{"mastercard-frictionless-a", "A", "", "01", "MASTERCARD", "2.2.0", true},
		{"mastercard-frictionless-i", "I", "", "06", "MASTERCARD", "2.2.0", false},
		{"visa-frictionless-y-2.1.0", "Y", "", "05", "VISA", "2.1.0", true},
		{"amex-frictionless-y", "Y", "", "05", "AMEX", "2.2.0", true},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			card := f.card(tt.scenario)
			resp := f.lookup(card, nil)
			if resp.Status != tt.status || resp.ECI != tt.eci || resp.CardScheme != tt.scheme || resp.Version != tt.version {
				t.Errorf("status %s eci %q scheme %s version %s; want %s %q %s %s", resp.Status, resp.ECI, resp.CardScheme, resp.Version, tt.status, tt.eci, tt.scheme, tt.version)
			}
			if tt.reason != "" && resp.StatusReason != tt.reason {
				t.Errorf("statusReason %q, want %q", resp.StatusReason, tt.reason)
			}
			if got := resp.AuthenticationValue != ""; got != tt.cavv || (got && len(resp.AuthenticationValue) != 28) {
				t.Errorf("authenticationValue %q, want present %v", resp.AuthenticationValue, tt.cavv)
			}
			if resp.Challenge != nil || resp.HostedChallengeURL != "" {
				t.Error("a frictionless answer carries a challenge")
			}
			if resp.CardBIN != card[:6] || resp.ExternalReferenceID != "ORD-20240611-000123" || resp.ACSReferenceNumber == "" || resp.ACSOperatorID == "" {
				t.Errorf("identity fields: %+v", resp)
			}
			// The enquiry answers the same truth.
			enq := f.enquiry(resp.ThreeDSServerTransID)
			if enq.TransactionStatus != resp.Status || enq.ECI != resp.ECI || enq.AuthenticationValue != resp.AuthenticationValue ||
				enq.DSTransID != resp.DSTransID || enq.ACSTransactionID != resp.ACSTransID || enq.ThreeDSServerTransactionID != resp.ThreeDSServerTransID {
				t.Errorf("enquiry %+v disagrees with lookup %+v", enq, resp)
			}
			if resp.StatusReason != "" && (enq.ReasonCode != resp.StatusReason || enq.ReasonDesc != emv.ReasonText[resp.StatusReason]) {
				t.Errorf("reasonCode/Desc = %q/%q", enq.ReasonCode, enq.ReasonDesc)
			}
		})
	}
}

func TestLookupEvent(t *testing.T) {
	f := newFixture(t)
	card := f.card("visa-frictionless-y")
	resp := f.lookup(card, func(r *message.LookupRequest) { r.Card.CardholderName = "Jane Doe" })
	ev := f.events.last(resp.ThreeDSServerTransID)
	if ev.Kind != state.EventLookup || ev.Namespace != ns || !ev.Time.Equal(t0) || !strings.HasPrefix(string(ev.Answer), `{"status":"Y",`) {
		t.Fatalf("lookup event = %+v", ev)
	}
	s := ev.Transaction
	if s.MaskedPAN != card[:6]+"******"+card[12:] || s.CardholderName != "Jane Doe" || s.Amount == "" || s.Currency == "" ||
		s.ScenarioID != "visa-frictionless-y" || s.Status != "Y" || s.ECI != "05" || s.MerchantName == "" {
		t.Errorf("summary = %+v", s)
	}
	if strings.Contains(string(ev.Request), card) || !strings.Contains(string(ev.Request), card[:6]+"******") {
		t.Errorf("event request keeps the card number: %s", ev.Request)
	}
	// Without a sink nothing is redacted or recorded, and nothing fails.
	quiet := newFixture(t, func(c *emulator.Config) { c.Events = nil })
	if quiet.Events() != nil {
		t.Error("Events() of an engine without a sink is not nil")
	}
	quiet.lookup(card, nil)
}

func TestLookupChallenge(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup(f.card("visa-challenge"), func(r *message.LookupRequest) {
		r.Session, r.ChallengeWindowSize = "c2Vzc2lvbg", 2
	})
	if resp.Status != "C" || resp.ECI != "" || resp.AuthenticationValue != "" {
		t.Fatalf("challenge answer = %+v", resp)
	}
	c := resp.Challenge
	if c == nil {
		t.Fatal("no challenge indication")
	}
	if c.ACSURL != "https://sandbox.example/3ds/acs/challenge" || c.WindowSize != 2 || c.SessionData != "c2Vzc2lvbg" {
		t.Errorf("indication = %+v", c)
	}
	if want := "https://sandbox.example/3ds/acs/hosted/" + resp.ThreeDSServerTransID; resp.HostedChallengeURL != want {
		t.Errorf("hostedChallengeUrl = %s, want %s", resp.HostedChallengeURL, want)
	}
	creq, err := message.ParseCReq(c.CReq)
	if err != nil {
		t.Fatal(err)
	}
	if creq.ThreeDSServerTransID != resp.ThreeDSServerTransID || creq.ACSTransID != resp.ACSTransID ||
		creq.MessageType != "CReq" || creq.MessageVersion != "2.2.0" || creq.ChallengeWindowSize != "02" {
		t.Errorf("CReq = %+v", creq)
	}
	fields := c.Fields()
	if len(fields) != 2 || fields[0] != (message.FormField{Name: "creq", Value: c.CReq}) || fields[1].Name != "threeDSSessionData" {
		t.Errorf("fields = %+v", fields)
	}
	if enq := f.enquiry(resp.ThreeDSServerTransID); enq.TransactionStatus != "C" {
		t.Errorf("enquiry during the challenge: %s, want C", enq.TransactionStatus)
	}
	if got := (message.ChallengeIndication{CReq: "x"}).Fields(); len(got) != 1 {
		t.Errorf("no session gives %d fields, want 1", len(got))
	}
}

func TestLookupErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, card, scenarioID, code, emv string
		status                            int
	}{
		{"version not supported", f.card("visa-error-version"), "", "SC12", "102", 422},
		{"ACS unavailable", f.card("visa-error-acs-unavailable"), "", "SC03", "403", 503},
		{"DS unreachable", f.card("visa-error-ds-unreachable"), "", "SC05", "405", 502},
		{"unknown X-Scenario", f.card("visa-frictionless-y"), "no-such-scenario", "SC01", "203", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Lookup(context.Background(), ns, f.request(tt.card), emulator.APICall{ScenarioID: tt.scenarioID})
			e, ok := emulator.AsError(err)
			if !ok || string(e.Code) != tt.code || e.EMVCode != tt.emv || e.HTTPStatus != tt.status {
				t.Fatalf("error = %#v, want %s / EMV %s / HTTP %d", err, tt.code, tt.emv, tt.status)
			}
			if e.Status == "" || e.Component == "" || e.Description == "" || e.Message == "" {
				t.Errorf("error body fields missing: %+v", e)
			}
		})
	}
	// A lookup answered with an error stores nothing and records nothing.
	if n := len(f.events.events); n != 0 {
		t.Errorf("%d events recorded for failed lookups", n)
	}
}

func TestLookupScenarioChoice(t *testing.T) {
	f := newFixture(t)
	// X-Scenario forces a catalogue scenario whatever the card.
	resp, err := f.Lookup(context.Background(), ns, f.request(f.card("visa-frictionless-y")), emulator.APICall{ScenarioID: "visa-frictionless-n"})
	if err != nil || resp.Status != "N" {
		t.Fatalf("X-Scenario visa-frictionless-n: %v %+v", err, resp)
	}
	// A runtime scenario of the namespace wins over the catalogue, and no
	// other namespace sees it.
	if _, err := f.Runtime().Add(context.Background(), ns, []byte("scenarios:\n  - id: mine\n    match: {cardNumber: \"4000000000009003\"}\n    frictionless: {status: R, reason: \"11\"}\n")); err != nil {
		t.Fatal(err)
	}
	if got := f.lookup("4000000000009003", nil); got.Status != "R" || got.StatusReason != "11" {
		t.Errorf("runtime scenario: %s/%s, want R/11", got.Status, got.StatusReason)
	}
	other, err := f.Lookup(context.Background(), "another-ns", f.request("4000000000009003"), emulator.APICall{})
	if err != nil || other.Status != "Y" {
		t.Errorf("another namespace: %v %+v, want the catalogue's Y", err, other)
	}
	if got, err := f.Lookup(context.Background(), ns, f.request("4111111111111111"), emulator.APICall{ScenarioID: "mine"}); err != nil || got.Status != "R" {
		t.Errorf("X-Scenario of a runtime scenario: %v %+v", err, got)
	}
}

func TestLookupVersionAndWhiteList(t *testing.T) {
	f := newFixture(t)
	// The lower of the request's messageVersion and the ACS's.
	if got := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.MessageVersion = "2.1.0" }); got.Version != "2.1.0" {
		t.Errorf("version = %s, want 2.1.0", got.Version)
	}
	// Whitelisting asked (requestFeatures 2) on 2.2.0: U / 03 unless the
	// scenario says otherwise; not on 2.1.0.
	got := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.RequestFeatures = 2 })
	if got.WhiteListStatus != "U" || got.WhiteListStatusSrc != "03" {
		t.Errorf("whiteList = %s/%s, want U/03", got.WhiteListStatus, got.WhiteListStatusSrc)
	}
	if enq := f.enquiry(got.ThreeDSServerTransID); enq.WhiteListStatus != "U" || enq.WhiteListStatusSource != "03" {
		t.Errorf("enquiry whiteList = %s/%s", enq.WhiteListStatus, enq.WhiteListStatusSource)
	}
	old := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.RequestFeatures, r.MessageVersion = 2, "2.1.0" })
	if old.WhiteListStatus != "" {
		t.Errorf("2.1.0 answer has whiteListStatus %q", old.WhiteListStatus)
	}
	if _, err := f.Runtime().Add(context.Background(), ns, []byte("scenarios:\n  - id: wl\n    match: {cardNumber: \"4111111111111111\"}\n    frictionless: {status: Y}\n    whiteList: {status: Y, source: \"03\"}\n")); err != nil {
		t.Fatal(err)
	}
	if w := f.lookup("4111111111111111", func(r *message.LookupRequest) { r.RequestFeatures = 2 }); w.WhiteListStatus != "Y" {
		t.Errorf("scenario whiteList = %q, want Y", w.WhiteListStatus)
	}
}

// TestDowngrade210: on a 2.1.0 transaction nothing 2.1.0 lacks is sent:
// reasons 22-26 become their closest 2.1.0 code, authenticationType 04 is
// dropped, and status I, informational, becomes U/07 (never Y with an
// authentication value), unless the scenario says what 2.1.0 answers.
func TestDowngrade210(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		doc                         string
		wantStatus, wantReason, typ string
	}{
		{`frictionless: {status: U, reason: "22"}`, "U", "07", ""},
		{`frictionless: {status: N, reason: "26"}`, "N", "01", ""},
		{`frictionless: {status: R, reason: "24"}`, "R", "12", ""},
		{`frictionless: {status: Y, authenticationType: "04"}`, "Y", "", ""},
		{`frictionless: {status: Y, authenticationType: "02"}`, "Y", "", "02"},
		{`frictionless: {status: I}`, "U", "07", ""},
		{`frictionless: {status: I, on210: {status: Y}}`, "Y", "", ""},
		{`frictionless: {status: U, reason: "22", on210: {status: N, reason: "11", eci: "07"}}`, "N", "11", ""},
	}
	for i, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			card := luhn(fmt.Sprintf("41111111111110%d", i))
			doc := fmt.Sprintf("scenarios:\n  - id: down-%d\n    match: {cardNumber: %q}\n    %s\n", i, card, tt.doc)
			if _, err := f.Runtime().Add(context.Background(), ns, []byte(doc)); err != nil {
				t.Fatal(err)
			}
			got := f.lookup(card, func(r *message.LookupRequest) { r.MessageVersion = "2.1.0" })
			if (got.AuthenticationValue != "") != (got.Status == "Y" || got.Status == "A") {
				t.Errorf("status %s with authenticationValue %q", got.Status, got.AuthenticationValue)
			}
			if got.Version != "2.1.0" || got.Status != tt.wantStatus || got.StatusReason != tt.wantReason || got.AuthenticationType != tt.typ {
				t.Errorf("got %s %s/%s type %q, want 2.1.0 %s/%s type %q", got.Version, got.Status, got.StatusReason, got.AuthenticationType, tt.wantStatus, tt.wantReason, tt.typ)
			}
			// The same scenario on 2.2.0 keeps its codes.
			if now := f.lookup(card, nil); now.Version != "2.2.0" || (tt.wantReason != "" && now.StatusReason == tt.wantReason) {
				t.Errorf("2.2.0 answer %s/%s was downgraded", now.Status, now.StatusReason)
			}
		})
	}
}

func TestEnquiry(t *testing.T) {
	f := newFixture(t)
	first := f.lookup(f.card("visa-frictionless-y"), nil)
	f.clock.Advance(time.Second)
	newest := f.lookup(f.card("visa-frictionless-n"), nil) // the same externalReferenceId
	ctx := context.Background()
	tests := []struct {
		name   string
		ns     string
		req    message.EnquiryRequest
		wantID string
		emv    string
	}{
		{"by id", ns, message.EnquiryRequest{ThreeDSServerTransID: first.ThreeDSServerTransID}, first.ThreeDSServerTransID, ""},
		{"by reference: the newest", ns, message.EnquiryRequest{ExternalReferenceID: "ORD-20240611-000123"}, newest.ThreeDSServerTransID, ""},
		{"the id wins over the reference", ns, message.EnquiryRequest{ThreeDSServerTransID: first.ThreeDSServerTransID, ExternalReferenceID: "ORD-20240611-000123"}, first.ThreeDSServerTransID, ""},
		{"another namespace's id", "other", message.EnquiryRequest{ThreeDSServerTransID: first.ThreeDSServerTransID}, "", "301"},
		{"another namespace's reference", "other", message.EnquiryRequest{ExternalReferenceID: "ORD-20240611-000123"}, "", "301"},
		{"unknown id", ns, message.EnquiryRequest{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}, "", "301"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Enquiry(ctx, tt.ns, tt.req, emulator.APICall{Body: []byte(`{"x":1}`)})
			if emvCode(err) != tt.emv {
				t.Fatalf("error %v, want EMV %q", err, tt.emv)
			}
			if err == nil && got.ThreeDSServerTransID != tt.wantID {
				t.Errorf("answered %s, want %s", got.ThreeDSServerTransID, tt.wantID)
			}
			if err == nil && f.events.last(tt.wantID).Kind != state.EventEnquiry {
				t.Error("no enquiry event")
			}
		})
	}
}

func TestOpenChallenge(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	resp := f.lookup(f.card("visa-challenge"), func(r *message.LookupRequest) { r.ChallengeWindowSize = 2 })
	good, _ := message.ParseCReq(resp.Challenge.CReq)

	wrongACS := good
	wrongACS.ACSTransID = "d7c1ee99-9478-44a6-b1f2-391e29c6b340"
	wrongVersion := good
	wrongVersion.MessageVersion = "2.1.0"
	unknown := good
	unknown.ThreeDSServerTransID = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	for _, tt := range []struct {
		name string
		c    message.CReq
		emv  string
	}{
		{"acsTransID of another transaction", wrongACS, "305"},
		{"messageVersion other than the transaction's", wrongVersion, "203"},
		{"unknown transaction", unknown, "301"},
	} {
		if _, err := f.OpenChallenge(ctx, tt.c); emvCode(err) != tt.emv {
			t.Errorf("%s: error %v, want EMV %s", tt.name, err, tt.emv)
		}
	}

	f.clock.Advance(30 * time.Second)
	v, err := f.OpenChallenge(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	card := f.card("visa-challenge")
	if v.ThreeDSServerTransID != resp.ThreeDSServerTransID || v.ACSTransID != resp.ACSTransID || v.WindowSize != 2 ||
		v.MaskedPAN != card[:6]+"******"+card[12:] || v.Scheme != "VISA" || v.Version != "2.2.0" || v.MerchantName == "" ||
		v.Amount == "" || v.Currency == "" || v.Style.(emulator.OTPView).Hint != "Sandbox: code 1234 passes" || v.AttemptsLeft != 3 || v.Message != "" {
		t.Errorf("view = %+v", v)
	}
	if want := t0.Add(30 * time.Second).Add(emulator.DefaultChallengeTimeout); !v.ExpiresAt.Equal(want) || v.ExpiresIn != emulator.DefaultChallengeTimeout {
		t.Errorf("expires at %v in %v, want %v in %v", v.ExpiresAt, v.ExpiresIn, want, emulator.DefaultChallengeTimeout)
	}
	if v.PurchaseDate.IsZero() {
		t.Error("no purchase date")
	}
	// A reload (the same CReq again) shows the page again, the window
	// still running from the first CReq.
	f.clock.Advance(time.Minute)
	again, err := f.OpenChallenge(ctx, good)
	if err != nil || !again.ExpiresAt.Equal(v.ExpiresAt) {
		t.Errorf("reload: %v, expires %v (first %v)", err, again.ExpiresAt, v.ExpiresAt)
	}
	// The hosted URL opens the same challenge with the lookup's size.
	hosted, err := f.OpenHostedChallenge(ctx, resp.ThreeDSServerTransID)
	if err != nil || hosted.ThreeDSServerTransID != resp.ThreeDSServerTransID {
		t.Errorf("hosted: %v %+v", err, hosted)
	}
	if _, err := f.OpenHostedChallenge(ctx, "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"); emvCode(err) != "301" {
		t.Errorf("hosted unknown: %v, want 301", err)
	}
	if got := f.events.kinds(resp.ThreeDSServerTransID); got != "lookup,creq,code-sent,creq,creq" { // the code is sent once, when the page first opens
		t.Errorf("events = %s", got)
	}
	// A frictionless transaction has no challenge to open.
	done := f.lookup(f.card("visa-frictionless-y"), nil)
	if _, err := f.OpenHostedChallenge(ctx, done.ThreeDSServerTransID); emvCode(err) != "305" {
		t.Errorf("open a final transaction: %v, want 305", err)
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name                         string
		choices                      []emulator.Choice
		status, reason, cancel, cres string
		interactions                 string
	}{
		{"pass", []emulator.Choice{{Action: "pass"}}, "Y", "", "", "Y", "01"},
		{"fail", []emulator.Choice{{Action: "fail"}}, "N", "01", "", "N", "01"},
		{"cancel", []emulator.Choice{{Action: "cancel"}}, "N", "01", "01", "N", "00"},
		{"a wrong code, then cancel", []emulator.Choice{{Action: "otp", OTP: "9999"}, {Action: "cancel"}}, "N", "01", "01", "N", "01"},
		{"the right code", []emulator.Choice{{Action: "otp", OTP: " 1234 "}}, "Y", "", "", "Y", "01"},
		{"a wrong code, then the right one", []emulator.Choice{{Action: "otp", OTP: "9999"}, {Action: "otp", OTP: "1234"}}, "Y", "", "", "Y", "02"},
		{"three wrong codes", []emulator.Choice{{Action: "otp", OTP: "1"}, {Action: "otp", OTP: "2"}, {Action: "otp", OTP: "3"}}, "N", "19", "", "N", "03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			resp := f.lookup(f.card("visa-challenge"), func(r *message.LookupRequest) { r.Session = "s-1" })
			f.open(resp)
			var d emulator.Decision
			for i, c := range tt.choices {
				var err error
				if d, err = f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, c); err != nil {
					t.Fatal(err)
				}
				if last := i == len(tt.choices)-1; d.Final != last {
					t.Fatalf("choice %d: Final %v", i, d.Final)
				}
				if !d.Final {
					left := 3 - (i + 1)
					if d.View.AttemptsLeft != left || !strings.Contains(d.View.Message, fmt.Sprintf("%d attempt", left)) || d.TransStatus != "C" {
						t.Errorf("after a wrong code: %+v", d.View)
					}
				}
			}
			c := d.Delivery.CRes
			if d.TransStatus != tt.status || c.TransStatus != tt.cres || c.MessageType != "CRes" || c.ChallengeCompletionInd != "Y" ||
				c.ThreeDSServerTransID != resp.ThreeDSServerTransID || c.ACSTransID != resp.ACSTransID || c.MessageVersion != "2.2.0" {
				t.Errorf("decision %+v", d)
			}
			if d.Delivery.NotificationURL != "https://shop.example.com/checkout/3ds/notify" || d.Delivery.SessionData != "s-1" {
				t.Errorf("delivery goes to %q with session %q", d.Delivery.NotificationURL, d.Delivery.SessionData)
			}
			if got, _ := message.ParseCRes(d.Delivery.Encoded); got != c {
				t.Errorf("encoded CRes decodes to %+v", got)
			}
			if f := d.Delivery.Fields(); len(f) != 2 || f[0].Name != "cres" || f[1].Value != "s-1" {
				t.Errorf("fields %+v", f)
			}
			enq := f.enquiry(resp.ThreeDSServerTransID)
			if enq.TransactionStatus != tt.status || enq.StatusReason != tt.reason || enq.ChallengeCancel != tt.cancel || enq.InteractionCounter != tt.interactions {
				t.Errorf("enquiry %s/%s cancel %q interactions %q; want %s/%s %q %q", enq.TransactionStatus, enq.StatusReason, enq.ChallengeCancel, enq.InteractionCounter, tt.status, tt.reason, tt.cancel, tt.interactions)
			}
			if (enq.AuthenticationValue != "") != (tt.status == "Y") || (tt.status == "Y" && enq.ECI != "05") {
				t.Errorf("enquiry eci %q cavv %q", enq.ECI, enq.AuthenticationValue)
			}
			// A decision is accepted once.
			if _, err := f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: "pass"}); emvCode(err) != "305" {
				t.Errorf("second decision: %v, want 305", err)
			}
			if kinds := f.events.kinds(resp.ThreeDSServerTransID); !strings.HasSuffix(kinds, "decision,cres,enquiry") {
				t.Errorf("events = %s", kinds)
			}
		})
	}
}

func TestDecideRefuses(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	resp := f.lookup(f.card("visa-challenge"), nil)
	if _, err := f.Decide(ctx, resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: "pass"}); emvCode(err) != "305" {
		t.Errorf("decision before the CReq: %v, want 305", err)
	}
	f.open(resp)
	for _, tt := range []struct {
		name, id, acs string
		c             emulator.Choice
		emv           string
	}{
		{"unknown action", resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: "maybe"}, "203"},
		{"another transaction's acsTransID", resp.ThreeDSServerTransID, "d7c1ee99-9478-44a6-b1f2-391e29c6b340", emulator.Choice{Action: "pass"}, "305"},
		{"unknown transaction", "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", resp.ACSTransID, emulator.Choice{Action: "pass"}, "301"},
	} {
		if _, err := f.Decide(ctx, tt.id, tt.acs, tt.c); emvCode(err) != tt.emv {
			t.Errorf("%s: %v, want EMV %s", tt.name, err, tt.emv)
		}
	}
	if got := f.enquiry(resp.ThreeDSServerTransID); got.TransactionStatus != "C" {
		t.Errorf("refused decisions changed the status to %s", got.TransactionStatus)
	}
}

func TestCompleteChallenge(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	resp := f.lookup(f.card("visa-challenge"), func(r *message.LookupRequest) { r.NotificationURL = "" })
	if _, err := f.CompleteChallenge(ctx, "other", resp.ThreeDSServerTransID, emulator.Choice{Action: "pass"}); emvCode(err) != "301" {
		t.Errorf("another namespace: %v, want 301", err)
	}
	// Headless, no CReq needed; without a notificationUrl the CRes goes to
	// the emulator's own notification page.
	d, err := f.CompleteChallenge(ctx, ns, resp.ThreeDSServerTransID, emulator.Choice{Action: "cancel"})
	if err != nil || !d.Final || d.TransStatus != "N" || d.NotificationURL != "" || d.Delivery.NotificationURL != "https://sandbox.example/3ds/acs/notification" {
		t.Fatalf("complete: %v %+v", err, d)
	}
	ev := f.events.last(resp.ThreeDSServerTransID)
	if ev.Kind != state.EventCRes || ev.CRes == nil || ev.CRes.TransStatus != "N" || !strings.Contains(ev.Detail, "headless") {
		t.Errorf("cres event = %+v", ev)
	}
	// The emulator's own notification page learns the result from the CRes.
	res, err := f.Notification(ctx, d.Delivery.CRes)
	if err != nil || res.Status != "N" || res.ChallengeCancel != "01" || res.StatusReason != "01" || res.CRes != d.Delivery.CRes {
		t.Errorf("notification: %v %+v", err, res)
	}
	// Only a CRes this ACS could have issued shows a result.
	frictionless := f.lookup(f.card("visa-frictionless-y"), nil)
	pending := f.lookup(f.card("visa-challenge"), nil)
	for _, tt := range []struct {
		name string
		c    message.CRes
		emv  string
	}{
		{"unknown transaction", message.CRes{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}, "301"},
		{"no acsTransID", message.CRes{ThreeDSServerTransID: resp.ThreeDSServerTransID}, "305"},
		{"another transaction's acsTransID", message.CRes{ThreeDSServerTransID: resp.ThreeDSServerTransID, ACSTransID: pending.ACSTransID}, "305"},
		{"a frictionless transaction", message.CRes{ThreeDSServerTransID: frictionless.ThreeDSServerTransID, ACSTransID: frictionless.ACSTransID}, "305"},
		{"a challenge not finished", message.CRes{ThreeDSServerTransID: pending.ThreeDSServerTransID, ACSTransID: pending.ACSTransID}, "305"},
	} {
		if _, err := f.Notification(ctx, tt.c); emvCode(err) != tt.emv {
			t.Errorf("notification, %s: %v, want EMV %s", tt.name, err, tt.emv)
		}
	}
}

// TestTimeouts: a challenge nobody opens ends N / 14 / 05 after the first
// CReq timeout; an opened one nobody decides N / 14 / 04 after the
// challenge timeout. The enquiry reports them with nobody coming back, and
// the timeout is recorded once.
func TestTimeouts(t *testing.T) {
	tests := []struct {
		name    string
		open    bool
		wait    time.Duration
		status  string
		cancel  string
		decided string
	}{
		{"first CReq not received", false, 2*time.Minute + time.Second, "N", "05", "timeout-first-creq"},
		{"first CReq not yet due", false, 2 * time.Minute, "C", "", ""},
		{"no decision", true, 5*time.Minute + time.Second, "N", "04", "timeout-challenge"},
		{"no decision yet due", true, 5 * time.Minute, "C", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *emulator.Config) { c.FirstCReqTimeout, c.ChallengeTimeout = 2*time.Minute, 5*time.Minute })
			if f.ChallengeTimeout() != 5*time.Minute {
				t.Errorf("ChallengeTimeout() = %v", f.ChallengeTimeout())
			}
			resp := f.lookup(f.card("visa-challenge"), nil)
			if tt.open {
				f.open(resp)
			}
			f.clock.Advance(tt.wait)
			enq := f.enquiry(resp.ThreeDSServerTransID)
			if enq.TransactionStatus != tt.status || enq.ChallengeCancel != tt.cancel {
				t.Fatalf("enquiry %s cancel %q, want %s %q", enq.TransactionStatus, enq.ChallengeCancel, tt.status, tt.cancel)
			}
			if tt.status == "C" {
				return
			}
			if enq.StatusReason != "14" || enq.ECI != "07" {
				t.Errorf("reason %s eci %q, want 14 and 07", enq.StatusReason, enq.ECI)
			}
			f.enquiry(resp.ThreeDSServerTransID)
			if got := strings.Count(f.events.kinds(resp.ThreeDSServerTransID), "timeout"); got != 1 {
				t.Errorf("%d timeout events, want 1", got)
			}
			if ev := f.events.last(resp.ThreeDSServerTransID); ev.Kind != state.EventEnquiry {
				t.Errorf("last event %s", ev.Kind)
			}
			// A timed-out challenge cannot be decided any more.
			_, err := f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: "pass"})
			if e, ok := emulator.AsError(err); !ok || e.EMVCode != "305" || !strings.Contains(e.Message, "timed out") {
				t.Errorf("decide after the timeout: %v", err)
			}
		})
	}
}

// TestAutoChallenges: a scenario resolves its challenge by itself after
// autoAfter, with no browser.
func TestAutoChallenges(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct{ scenario, status, cancel string }{
		{"visa-challenge-auto-pass", "Y", ""},
		{"visa-challenge-auto-fail", "N", ""},
		{"visa-challenge-auto-cancel", "N", "01"},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			resp := f.lookup(f.card(tt.scenario), nil)
			if got := f.enquiry(resp.ThreeDSServerTransID); got.TransactionStatus != "C" {
				t.Fatalf("before autoAfter: %s", got.TransactionStatus)
			}
			f.clock.Advance(time.Second)
			got := f.enquiry(resp.ThreeDSServerTransID)
			if got.TransactionStatus != tt.status || got.ChallengeCancel != tt.cancel {
				t.Errorf("after autoAfter: %s cancel %q, want %s %q", got.TransactionStatus, got.ChallengeCancel, tt.status, tt.cancel)
			}
			if kinds := f.events.kinds(resp.ThreeDSServerTransID); !strings.Contains(kinds, "auto") {
				t.Errorf("events %s lack auto", kinds)
			}
		})
	}
}

// TestOneDecisionWins: many concurrent decisions on one transaction, one
// wins and every other is told the transaction is complete.
func TestOneDecisionWins(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup(f.card("visa-challenge"), nil)
	f.open(resp)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, refused := 0, 0
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			action := []string{"pass", "fail", "cancel"}[i%3]
			d, err := f.Decide(context.Background(), resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: action})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && d.Final:
				wins++
			case emvCode(err) == "305":
				refused++
			default:
				t.Errorf("decision: %v %+v", err, d)
			}
		}()
	}
	wg.Wait()
	if wins != 1 || refused != 49 {
		t.Errorf("%d wins, %d refused; want 1 and 49", wins, refused)
	}
	if got := strings.Count(f.events.kinds(resp.ThreeDSServerTransID), "decision"); got != 1 {
		t.Errorf("%d decision events, want 1", got)
	}
}

func TestStepFaults(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.MaxDelayed = 1 })
	ctx := context.Background()
	doc := `scenarios:
  - id: emv
    match: {cardNumber: "4111111111111111"}
    steps: {lookup: {fault: {kind: emvError, emvErrorCode: "403", component: A}}}
    frictionless: {status: Y}
  - id: http
    match: {cardNumber: "4111111111111129"}
    steps: {enquiry: {fault: {kind: httpError, httpStatus: 502}}}
    frictionless: {status: Y}
  - id: drop
    match: {cardNumber: "4111111111111137"}
    steps: {challenge: {fault: {kind: drop}}}
    challenge: {}
  - id: malformed
    match: {cardNumber: "4111111111111145"}
    steps: {lookup: {fault: {kind: malformed}}}
    frictionless: {status: Y}
  - id: slow
    match: {cardNumber: "4111111111111152"}
    delay: 50ms
    frictionless: {status: Y}
`
	if _, err := f.Runtime().Add(context.Background(), ns, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	_, err := f.Lookup(ctx, ns, f.request("4111111111111111"), emulator.APICall{})
	if e, ok := emulator.AsError(err); !ok || e.Code != emv.CodeScenarioTransient || e.Component != "A" {
		t.Errorf("emvError fault: %v", err)
	}
	resp := f.lookup("4111111111111129", nil)
	_, err = f.Enquiry(ctx, ns, message.EnquiryRequest{ThreeDSServerTransID: resp.ThreeDSServerTransID}, emulator.APICall{})
	if e, ok := emulator.AsError(err); !ok || e.HTTPStatus != 502 {
		t.Errorf("httpError fault: %v", err)
	}
	ch := f.lookup("4111111111111137", nil)
	var fault *emulator.Fault
	_, err = f.CompleteChallenge(ctx, ns, ch.ThreeDSServerTransID, emulator.Choice{Action: "pass"})
	if !errors.As(err, &fault) || fault.Step != emulator.StepChallenge || fault.Scenario != "drop" || !strings.Contains(fault.Error(), "drop") {
		t.Errorf("drop fault: %v", err)
	}
	if got := f.enquiry(ch.ThreeDSServerTransID); got.TransactionStatus != "C" {
		t.Errorf("a faulted step changed the transaction: %s", got.TransactionStatus)
	}
	_, err = f.Lookup(ctx, ns, f.request("4111111111111145"), emulator.APICall{})
	if !errors.As(err, &fault) || fault.Step != emulator.StepLookup {
		t.Errorf("malformed fault: %v", err)
	}
	// Delays: one slot. Of four delayed lookups started together, one
	// holds it and the others get SY03 at once, without waiting.
	var wg sync.WaitGroup
	var mu sync.Mutex
	served, busy := 0, 0
	start := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			<-start
			_, err := f.Lookup(ctx, ns, f.request("4111111111111152"), emulator.APICall{})
			mu.Lock()
			defer mu.Unlock()
			switch e, ok := emulator.AsError(err); {
			case err == nil:
				served++
			case ok && e.Code == emv.CodeBusy:
				busy++
			default:
				t.Errorf("delayed lookup: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	if served < 1 || busy < 1 || served+busy != 4 {
		t.Errorf("%d served and %d busy of 4 delayed lookups with one slot", served, busy)
	}
	// A delay ends early with its context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Lookup(cctx, ns, f.request("4111111111111152"), emulator.APICall{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled delay: %v", err)
	}
}

func TestChaos(t *testing.T) {
	for _, kind := range emulator.ChaosKinds() {
		t.Run(kind, func(t *testing.T) {
			chaos, err := emulator.NewChaos(1, []string{kind}, 1)
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, func(c *emulator.Config) { c.Chaos = chaos })
			ctx := context.Background()
			_, err = f.Lookup(ctx, ns, f.request(f.card("visa-frictionless-y")), emulator.APICall{})
			var fault *emulator.Fault
			switch {
			case errors.As(err, &fault):
				if fault.Scenario != "chaos" || string(fault.Kind) != kind {
					t.Errorf("fault %+v", fault)
				}
			case emvCode(err) == "" || emvCode(err) == "?":
				t.Errorf("chaos %s: lookup %v", kind, err)
			}
			_, err = f.Enquiry(ctx, ns, message.EnquiryRequest{ExternalReferenceID: "x"}, emulator.APICall{})
			if err == nil || emvCode(err) == "301" {
				t.Errorf("chaos %s spared the enquiry: %v", kind, err)
			}
		})
	}
	// The browser steps are never touched: an engine with chaos on every
	// request, over the store of a calm one, opens and decides a challenge.
	calm := newFixture(t)
	resp := calm.lookup(calm.card("visa-challenge"), nil)
	chaos, _ := emulator.NewChaos(1, nil, 1)
	wild, err := emulator.New(emulator.Config{
		Catalogue: calm.Catalogue, Runtime: calm.Runtime(), Namespaces: calm.Namespaces(), Chaos: chaos, Now: calm.clock.Now,
	}, calm.store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wild.OpenHostedChallenge(context.Background(), resp.ThreeDSServerTransID); err != nil {
		t.Errorf("open under chaos: %v", err)
	}
	if _, err := wild.Decide(context.Background(), resp.ThreeDSServerTransID, resp.ACSTransID, emulator.Choice{Action: "pass"}); err != nil {
		t.Errorf("decide under chaos: %v", err)
	}
	for _, bad := range []struct {
		p     float64
		kinds []string
	}{{-0.1, nil}, {1.5, nil}, {0.5, []string{"earthquake"}}} {
		if _, err := emulator.NewChaos(bad.p, bad.kinds, 1); err == nil {
			t.Errorf("NewChaos(%v, %v) accepted", bad.p, bad.kinds)
		}
	}
	off, _ := emulator.NewChaos(0, nil, 1)
	quiet := newFixture(t, func(c *emulator.Config) { c.Chaos = off })
	quiet.lookup(quiet.card("visa-frictionless-y"), nil)
}

// luhn appends the Luhn check digit to a card number's other digits.
func luhn(digits string) string {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return digits + string(rune('0'+(10-sum%10)%10))
}

func TestURLs(t *testing.T) {
	u := emulator.NewURLs("https://sandbox.example/3ds/")
	for got, want := range map[string]string{
		u.Public():                       "https://sandbox.example/3ds",
		u.ACSChallenge():                 "https://sandbox.example/3ds" + emulator.PathACSChallenge,
		u.Hosted("id-1"):                 "https://sandbox.example/3ds/acs/hosted/id-1",
		u.Decision():                     "https://sandbox.example/3ds" + emulator.PathACSDecision,
		u.Notification():                 "https://sandbox.example/3ds" + emulator.PathACSNotification,
		newFixture(t).URLs().Hosted("x"): "https://sandbox.example/3ds/acs/hosted/x",
	} {
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

func TestNewEngine(t *testing.T) {
	store, _ := memstore.New(memstore.Options{})
	if _, err := emulator.New(emulator.Config{}, store); err == nil {
		t.Error("an engine without a catalogue was built")
	}
	runtime := memstore.NewRuntime(scenarios.RuntimeLimits{})
	if _, err := emulator.New(emulator.Config{Catalogue: func() *scenarios.Catalogue { return nil }, Runtime: runtime}, nil); err == nil {
		t.Error("an engine without a store was built")
	}
	if _, err := emulator.New(emulator.Config{Catalogue: func() *scenarios.Catalogue { return nil }}, store); err == nil {
		t.Error("an engine without runtime scenarios was built")
	}
	if _, err := emulator.New(emulator.Config{Catalogue: func() *scenarios.Catalogue { return nil }, Runtime: runtime}, store); err == nil {
		t.Error("an engine without namespace states was built")
	}
	f := newFixture(t)
	if f.Schemes().Scheme("4000000000009003") != "VISA" || f.Catalogue().Len() == 0 || f.Runtime() == nil {
		t.Error("accessors")
	}
	for _, st := range []string{"Y", "A", "I", "U", "C", "N", "R"} {
		if emv.NextStep(st, "05") == "" {
			t.Errorf("NextStep(%s) empty", st)
		}
	}
}

// TestUnknownSchemeIsCatalogued: a card of no known scheme gets the
// catalogued rule for scheme UNKNOWN (U, 13), not silently the fallback's
// authentication.
func TestUnknownSchemeIsCatalogued(t *testing.T) {
	f := newFixture(t)
	unknown := luhn("999000000000000")
	got := f.lookup(unknown, nil)
	if got.CardScheme != "UNKNOWN" || got.Status != "U" || got.StatusReason != "13" || got.ECI != "07" || got.ScenarioID != "unknown-scheme" || got.Fallback {
		t.Errorf("unknown scheme: %+v", got)
	}
	if got := f.lookup("4111111111111111", nil); got.Status != "Y" || !got.Fallback {
		t.Errorf("a Visa card of no scenario: %s, fallback %v; want the fallback's Y", got.Status, got.Fallback)
	}
}
