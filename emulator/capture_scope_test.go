package emulator_test

import (
	"context"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// TestCaptureTenants: a ddcId and a JWT id are a tenant's own: another
// tenant using the same ones is neither refused nor told, and each
// lookup continues its own tenant's capture.
func TestCaptureTenants(t *testing.T) {
	ctx := context.Background()
	strict := func(c *emulator.Config) { c.StrictDDC = true }
	const card = "4000000000009409"
	t.Run("verified captures", func(t *testing.T) {
		f := newFixture(t, withCaptures, strict)
		mine := f.capture(f.captureRequest("order-1", card, "j1"))
		other := f.captureRequest("order-1", card, "j1") // the same ddcId and jti
		other.Credential.Namespace, other.Credential.Merchant = "other-ns", "shop-2"
		theirs := f.capture(other)
		if theirs.ThreeDSServerTransID == mine.ThreeDSServerTransID {
			t.Fatal("two tenants' captures share a transaction")
		}
		req := f.request(card)
		req.DDCID = "order-1"
		got, err := f.Lookup(ctx, "other-ns", req, emulator.APICall{})
		if err != nil || got.ThreeDSServerTransID != theirs.ThreeDSServerTransID {
			t.Errorf("the other tenant's lookup: %+v, %v, want its own capture", got.ThreeDSServerTransID, err)
		}
		if resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = "order-1" }); resp.ThreeDSServerTransID != mine.ThreeDSServerTransID {
			t.Errorf("the first tenant's lookup continued %s, want its own %s", resp.ThreeDSServerTransID, mine.ThreeDSServerTransID)
		}
	})
	t.Run("unverified captures of two issuers", func(t *testing.T) {
		f := newFixture(t, withCaptures, strict)
		open := func(issuerNS, merchant string) message.CaptureOutcome {
			r := f.captureRequest("order-9", "400000", "j1")
			r.Credential.Namespace, r.Credential.Merchant, r.Credential.Claimable = issuerNS, merchant, true
			return f.capture(r)
		}
		first := open("issuer-1-ns", "issuer-1")
		second := open("issuer-2-ns", "issuer-2")
		// An open OAuth client of issuer-2 continues issuer-2's capture,
		// though issuer-1 offered the ddcId to every token first.
		req := f.request(card)
		req.DDCID = "order-9"
		got, err := f.Lookup(ctx, "client-2-ns", req, emulator.APICall{CaptureTenant: "issuer-2-ns"})
		if err != nil || got.ThreeDSServerTransID != second.ThreeDSServerTransID {
			t.Errorf("issuer-2's client: %s, %v, want its capture %s", got.ThreeDSServerTransID, err, second.ThreeDSServerTransID)
		}
		// Any other token claims the one offered first.
		if resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = "order-9" }); resp.ThreeDSServerTransID != first.ThreeDSServerTransID {
			t.Errorf("a static token's lookup continued %s, want the first offered %s", resp.ThreeDSServerTransID, first.ThreeDSServerTransID)
		}
	})
}

// TestCaptureAfterForgetting: a forgetting (DELETE /admin/transactions)
// leaves every capture flow working: a capture made after it runs its 3DS
// Method and continues its lookup, its ddcId may be used again, and a
// namespace that forgot its transactions still claims an open capture.
func TestCaptureAfterForgetting(t *testing.T) {
	ctx := context.Background()
	const card = "4000000000009409"
	t.Run("a verified capture", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		f.capture(f.captureRequest("order-1", card, "j1"))
		f.clock.Advance(1)
		if err := f.Forget(ctx, ns); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(1)
		out := f.capture(f.captureRequest("order-1", card, "j2")) // the same ddcId, a new generation
		page, err := f.StartMethod(ctx, out.MethodData)
		if err != nil {
			t.Fatalf("the 3DS Method after a forgetting: %v", err)
		}
		if _, err := f.CompleteMethod(ctx, page.NotificationData); err != nil {
			t.Fatal(err)
		}
		if done := f.FinishCapture(ctx, out.ThreeDSServerTransID); done.Err != nil || done.CompInd != "Y" {
			t.Fatalf("finish %+v", done)
		}
		resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = "order-1" })
		if resp.ThreeDSServerTransID != out.ThreeDSServerTransID {
			t.Errorf("lookup %s, want the capture's %s", resp.ThreeDSServerTransID, out.ThreeDSServerTransID)
		}
		if enq := f.enquiry(resp.ThreeDSServerTransID); enq.ThreeDSCompInd != "Y" {
			t.Errorf("threeDSCompInd %q, want Y", enq.ThreeDSCompInd)
		}
	})
	t.Run("an open capture claimed by a namespace that forgot", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		f.clock.Advance(1)
		if err := f.Forget(ctx, ns); err != nil {
			t.Fatal(err)
		}
		r := f.captureRequest("open-1", "400000", "j1")
		r.Credential.Namespace, r.Credential.Claimable = "merchant-ns", true
		out := f.capture(r)
		resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = "open-1" })
		if resp.ThreeDSServerTransID != out.ThreeDSServerTransID {
			t.Fatalf("lookup %s, want the capture's %s", resp.ThreeDSServerTransID, out.ThreeDSServerTransID)
		}
		if _, err := f.StartMethod(ctx, out.MethodData); err != nil {
			t.Errorf("the claimed capture's 3DS Method: %v", err)
		}
	})
}
