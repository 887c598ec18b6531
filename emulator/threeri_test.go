package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// threeRIRequest is the sample 3RI lookup for card.
func (f *fixture) threeRIRequest(card string) message.LookupRequest {
	f.t.Helper()
	req, _, err := wire.DecodeThreeRI(examples.ThreeRI())
	if err != nil {
		f.t.Fatal(err)
	}
	req.Card.CardNumber = card
	return req
}

// threeRI runs a 3RI lookup of card in namespace n, changed by change.
func (f *fixture) threeRI(n, card string, change func(*message.LookupRequest)) (message.LookupResponse, error) {
	f.t.Helper()
	req := f.threeRIRequest(card)
	if change != nil {
		change(&req)
	}
	return f.Lookup(context.Background(), n, req, emulator.APICall{Body: examples.ThreeRI()})
}

// withPrior names ref as the prior authentication.
func withPrior(ref string) func(*message.LookupRequest) {
	return func(r *message.LookupRequest) { r.PriorAuth = &message.PriorAuthInfo{Ref: ref, Method: "02"} }
}

// TestThreeRIOutcomes: a 3RI lookup answers at once, without a
// challenge: a frictionless card as on the browser, a challenge card its
// threeRI result (U 21 by default), an error card its error; a when block
// picks a 3RI indicator. The enquiry answers the same.
func TestThreeRIOutcomes(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, scenario, ind, version string
		status, reason, eci          string
		scenarioID                   string
	}{
		{"frictionless Y", "visa-frictionless-y", "01", "", "Y", "", "05", "visa-frictionless-y"},
		{"frictionless N", "visa-frictionless-n", "02", "", "N", "01", "07", "visa-frictionless-n"},
		{"a challenge card, no threeRI key", "visa-challenge", "01", "", "U", "21", "07", "visa-challenge"},
		{"a challenge card on 2.1.0", "visa-challenge", "04", "2.1.0", "U", "21", "07", "visa-challenge"},
		{"a challenge card with its threeRI", "visa-3ri-challenge-n", "01", "", "N", "01", "07", "visa-3ri-challenge-n"},
		{"Mastercard challenge", "mastercard-challenge", "03", "", "U", "21", "00", "mastercard-challenge"},
		{"when: not an account check", "visa-3ri-y", "01", "", "Y", "", "05", "visa-3ri-y"},
		{"when: an account check", "visa-3ri-y", "05", "", "N", "01", "07", "visa-3ri-account-check-n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.threeRI(ns, f.card(tt.scenario), func(r *message.LookupRequest) {
				r.ThreeRIInd = tt.ind
				if tt.version != "" {
					r.MessageVersion = tt.version
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.status || resp.StatusReason != tt.reason || resp.ECI != tt.eci || resp.ScenarioID != tt.scenarioID {
				t.Errorf("got %s %q eci %s by %s, want %s %q eci %s by %s", resp.Status, resp.StatusReason, resp.ECI, resp.ScenarioID,
					tt.status, tt.reason, tt.eci, tt.scenarioID)
			}
			if resp.Challenge != nil || resp.HostedChallengeURL != "" {
				t.Error("a 3RI answer carries a challenge")
			}
			if (resp.AuthenticationValue != "") != (tt.status == "Y") {
				t.Errorf("authenticationValue %q with status %s", resp.AuthenticationValue, tt.status)
			}
			if tt.version != "" && resp.Version != tt.version {
				t.Errorf("version %s, want %s", resp.Version, tt.version)
			}
			stored, err := f.store.Get(context.Background(), resp.ThreeDSServerTransID)
			if err != nil || stored.Channel != state.Channel3RI || stored.Phase != state.PhaseFinal {
				t.Errorf("stored %s, phase %s, %v", stored.Channel, stored.Phase, err)
			}
			enq := f.enquiry(resp.ThreeDSServerTransID)
			if enq.TransactionStatus != resp.Status || enq.StatusReason != resp.StatusReason || enq.ECI != resp.ECI ||
				enq.ACSTransactionID != resp.ACSTransID || enq.InteractionCounter != "" || enq.AuthenticationValue != resp.AuthenticationValue {
				t.Errorf("enquiry %+v differs from the lookup %+v", enq, resp)
			}
			ev := f.events.last(resp.ThreeDSServerTransID)
			lookup := f.events.kinds(resp.ThreeDSServerTransID)
			if !strings.HasPrefix(lookup, "lookup,enquiry") {
				t.Errorf("events %s", lookup)
			}
			if ev.Transaction.Channel != state.Channel3RI {
				t.Errorf("enquiry event of channel %s", ev.Transaction.Channel)
			}
		})
	}
	resp, err := f.threeRI(ns, f.card("visa-error-acs-unavailable"), nil)
	if e, ok := emulator.AsError(err); !ok || e.Code != emv.CodeScenarioTransient || resp.ThreeDSServerTransID != "" {
		t.Errorf("error card: %+v, %v", resp, err)
	}
}

// TestThreeRILookupEvent: the lookup event names the channel, the 3RI
// indicator and what the lookup relied on, in words.
func TestThreeRILookupEvent(t *testing.T) {
	f := newFixture(t)
	prior := f.lookup(f.card("visa-frictionless-y"), nil)
	resp, err := f.threeRI(ns, f.card("visa-challenge"), withPrior(prior.ACSTransID))
	if err != nil {
		t.Fatal(err)
	}
	var ev state.Event
	for _, e := range f.events.events {
		if e.Transaction.ThreeDSServerTransID == resp.ThreeDSServerTransID && e.Kind == state.EventLookup {
			ev = e
		}
	}
	if ev.Transaction.Channel != state.Channel3RI || ev.Transaction.ThreeRIInd != "01" || ev.Transaction.Status != "U" {
		t.Errorf("summary %+v", ev.Transaction)
	}
	for _, want := range []string{"3RI lookup, threeRIInd 01 (recurring transaction)",
		"prior authentication: transaction " + prior.ThreeDSServerTransID + ", status Y",
		"with no cardholder to challenge answers its threeRI result (U, reason 21)"} {
		if !strings.Contains(ev.Detail, want) {
			t.Errorf("detail %q lacks %q", ev.Detail, want)
		}
	}
	if len(ev.Answer) == 0 || len(ev.Request) == 0 {
		t.Error("the lookup event keeps no request or answer")
	}
	// A browser lookup's event says nothing of a channel.
	b := f.lookup(f.card("visa-frictionless-y"), nil)
	if ev := f.events.last(b.ThreeDSServerTransID); ev.Transaction.Channel != state.ChannelBrowser || ev.Transaction.ThreeRIInd != "" || strings.Contains(ev.Detail, "3RI") {
		t.Errorf("browser event %+v", ev)
	}
}

// TestThreeRIPrior: the prior authentication is found by its acsTransId
// or its threeDsServerTransId, in any case, among the token's own; an
// unknown one is refused with 301, one not authenticated with 305,
// unless the scenario's when sets priorStatus and answers it.
func TestThreeRIPrior(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	y := f.lookup(f.card("visa-frictionless-y"), nil)
	a := f.lookup(f.card("visa-frictionless-a"), nil)
	n := f.lookup(f.card("visa-frictionless-n"), nil)
	c := f.lookup(f.card("visa-challenge"), nil)
	other, err := f.Lookup(ctx, "another-token", f.request(f.card("visa-frictionless-y")), emulator.APICall{})
	if err != nil {
		t.Fatal(err)
	}
	card := f.card("visa-frictionless-y")
	unknown := "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	tests := []struct {
		name, card, ref string
		code            emv.ErrorCode // "" for an answer
		status          string
	}{
		{"Y by acsTransId", card, y.ACSTransID, "", "Y"},
		{"Y by threeDsServerTransId", card, y.ThreeDSServerTransID, "", "Y"},
		{"Y by acsTransId in upper case", card, strings.ToUpper(y.ACSTransID), "", "Y"},
		{"A", card, a.ACSTransID, "", "Y"},
		{"a 3RI transaction", card, "", "", "Y"}, // filled in below: the first 3RI answer
		{"N", card, n.ACSTransID, emv.CodeTransactionState, ""},
		{"a challenge not decided", card, c.ThreeDSServerTransID, emv.CodeTransactionState, ""},
		{"unknown", card, unknown, emv.CodeUnknownTransaction, ""},
		{"not a transaction id", card, strings.Repeat("x", 36), emv.CodeUnknownTransaction, ""},
		{"another token's", card, other.ACSTransID, emv.CodeUnknownTransaction, ""},
		{"unknown, answered by the card's when", f.card("visa-3ri-prior-y"), unknown, "", "N"},
		{"known, the card's when does not apply", f.card("visa-3ri-prior-y"), y.ACSTransID, "", "Y"},
	}
	first, err := f.threeRI(ns, card, withPrior(y.ACSTransID))
	if err != nil {
		t.Fatal(err)
	}
	tests[4].ref = first.ACSTransID
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.threeRI(ns, tt.card, withPrior(tt.ref))
			if tt.code == "" {
				if err != nil || resp.Status != tt.status {
					t.Fatalf("got %s, %v; want status %s", resp.Status, err, tt.status)
				}
				return
			}
			e, ok := emulator.AsError(err)
			if !ok || e.Code != tt.code || e.Detail != "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef" || !strings.Contains(e.Message, tt.ref) {
				t.Fatalf("got %+v, %v; want %s on the prior's reference", resp, err, tt.code)
			}
			if !strings.Contains(e.Message, "when: {priorStatus: ") {
				t.Errorf("message %q does not say how a scenario answers it", e.Message)
			}
		})
	}

	// A scenario that sets priorStatus answers what it matches.
	doc := "scenarios:\n  - id: after-n\n    match: {cardNumber: \"" + card + "\"}\n    when: {priorStatus: [N, R]}\n    frictionless: {status: R, reason: \"12\"}\n"
	if _, err := f.Runtime().Add(ctx, ns, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if resp, err := f.threeRI(ns, card, withPrior(n.ACSTransID)); err != nil || resp.Status != "R" || resp.ScenarioID != "after-n" {
		t.Errorf("after N: %+v, %v", resp, err)
	}
	if _, err := f.threeRI(ns, card, withPrior(c.ACSTransID)); emvCode(err) != "305" {
		t.Errorf("after C, which the scenario does not name: %v", err)
	}
}

// TestThreeRIPriorSettles: a prior challenge that passed by itself since
// counts as authenticated, by the token's clock.
func TestThreeRIPriorSettles(t *testing.T) {
	f := newFixture(t)
	c := f.lookup(f.card("visa-challenge-auto-pass"), nil)
	if c.Status != "C" {
		t.Fatalf("status %s", c.Status)
	}
	if _, err := f.threeRI(ns, f.card("visa-frictionless-y"), withPrior(c.ACSTransID)); emvCode(err) != "305" {
		t.Fatalf("before the automatic pass: %v", err)
	}
	f.clock.Advance(2 * time.Second)
	if resp, err := f.threeRI(ns, f.card("visa-frictionless-y"), withPrior(c.ACSTransID)); err != nil || resp.Status != "Y" {
		t.Fatalf("after the automatic pass: %+v, %v", resp, err)
	}
	if got := f.enquiry(c.ThreeDSServerTransID); got.TransactionStatus != "Y" {
		t.Errorf("the prior is %s", got.TransactionStatus)
	}
}

// TestThreeRIHasNoChallenge: the challenge steps refuse a 3RI
// transaction, saying why.
func TestThreeRIHasNoChallenge(t *testing.T) {
	f := newFixture(t)
	resp, err := f.threeRI(ns, f.card("visa-challenge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.CompleteChallenge(context.Background(), ns, resp.ThreeDSServerTransID, emulator.Choice{Action: "pass"})
	if e, ok := emulator.AsError(err); !ok || e.EMVCode != "305" || !strings.Contains(e.Message, "3RI transaction") {
		t.Errorf("headless challenge of a 3RI transaction: %v", err)
	}
}

// TestThreeRICallback: a 3RI result is final at once: its callback is due
// at once, with the enquiry's answer.
func TestThreeRICallback(t *testing.T) {
	var cb *memstore.Callbacks
	f := newFixture(t, withCallbacks(&cb))
	resp, err := f.threeRI(ns, f.card("visa-challenge"), nil)
	if err != nil {
		t.Fatal(err)
	}
	job := f.due(1)[0]
	if job.Result.ThreeDSServerTransID != resp.ThreeDSServerTransID || job.Result.TransactionStatus != "U" || job.Result.StatusReason != "21" ||
		job.Transaction.Channel != state.Channel3RI {
		t.Errorf("job %+v", job)
	}
}

// TestThreeRIScenarioHeader: X-Scenario forces a scenario on 3RI as on
// the browser; the prior check still applies.
func TestThreeRIScenarioHeader(t *testing.T) {
	f := newFixture(t)
	req := f.threeRIRequest("4111111111111111")
	resp, err := f.Lookup(context.Background(), ns, req, emulator.APICall{ScenarioID: "visa-3ri-challenge-n"})
	if err != nil || resp.Status != "N" || resp.ScenarioID != "visa-3ri-challenge-n" {
		t.Fatalf("forced: %+v, %v", resp, err)
	}
	req.PriorAuth = &message.PriorAuthInfo{Ref: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}
	if _, err := f.Lookup(context.Background(), ns, req, emulator.APICall{ScenarioID: "visa-3ri-challenge-n"}); emvCode(err) != "301" {
		t.Errorf("forced with an unknown prior: %v", err)
	}
}
