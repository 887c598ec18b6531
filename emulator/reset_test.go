package emulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// TestReset: one call returns a token to where a new one starts: its
// transactions and references forgotten, its clock at real time, its
// runtime scenarios gone, its result callback unregistered; another
// token keeps all of it.
func TestReset(t *testing.T) {
	ctx := context.Background()
	callbacks := memstore.NewCallbacks(state.CallbackBounds{})
	f := newFixture(t, func(c *emulator.Config) { c.Callbacks = callbacks })
	const other = "ns-other"
	doc := []byte("scenarios:\n  - id: mine\n    match: {cardNumber: \"4000000000009003\"}\n    frictionless: {status: R, reason: \"11\"}\n")
	var ids []string
	for _, space := range []string{ns, other} {
		req := f.request(challengeCard)
		resp, err := f.Lookup(ctx, space, req, emulator.APICall{Body: f.body})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.ThreeDSServerTransID)
		if _, err := f.Runtime().Add(ctx, space, doc); err != nil {
			t.Fatal(err)
		}
		if _, err := f.AdvanceClock(ctx, space, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := callbacks.Register(ctx, space, "https://merchant.example/results"); err != nil {
			t.Fatal(err)
		}
	}

	if err := f.Reset(ctx, ns); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	for i, space := range []string{ns, other} {
		kept := space == other
		_, err := f.Enquiry(ctx, space, message.EnquiryRequest{ThreeDSServerTransID: ids[i]}, emulator.APICall{})
		if (err == nil) != kept {
			t.Errorf("%s: enquiry of its transaction after the reset: %v", space, err)
		}
		if byRef, err := f.Enquiry(ctx, space, message.EnquiryRequest{ExternalReferenceID: "ORD-20240611-000123"}, emulator.APICall{}); (err == nil) != kept {
			t.Errorf("%s: enquiry by reference after the reset: %+v, %v", space, byRef, err)
		}
		if c, err := f.Clock(ctx, space); err != nil || (c.Offset == time.Hour) != kept {
			t.Errorf("%s: clock %+v, %v", space, c, err)
		}
		if list, err := f.Runtime().List(ctx, space); err != nil || (len(list) == 1) != kept {
			t.Errorf("%s: runtime scenarios %d, %v", space, len(list), err)
		}
		if u, err := callbacks.Registered(ctx, space); err != nil || (u != "") != kept {
			t.Errorf("%s: callback URL %q, %v", space, u, err)
		}
	}
	if err := f.Reset(ctx, ns); err != nil {
		t.Errorf("a second Reset: %v", err)
	}
	if resp := f.lookup("4000000000009003", nil); resp.Status != "Y" {
		t.Errorf("a lookup after the reset: %s, want the default scenario's Y", resp.Status)
	}
}
