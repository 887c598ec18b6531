package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// withCaptures gives the fixture's engine the captures of the memory
// store, on the fixture's clock.
func withCaptures(c *emulator.Config) {
	c.Captures = memstore.NewCaptures(memstore.CapturesOptions{Now: c.Now})
}

// captureRequest is a capture of card by merchant shop-1, its JWT
// verified and owned by namespace ns.
func (f *fixture) captureRequest(ddcID, bin, jti string) message.CaptureRequest {
	return message.CaptureRequest{
		DDCID: ddcID, BIN: bin, CallbackURL: "https://merchant.example/ddc-callback", JWTLength: 300,
		Credential: message.CaptureCredential{Merchant: "shop-1", Namespace: ns, JTI: jti, Expires: f.clock.Now().Add(time.Hour)},
	}
}

// capture runs a capture that must start.
func (f *fixture) capture(req message.CaptureRequest) message.CaptureOutcome {
	f.t.Helper()
	out := f.Capture(context.Background(), req)
	if out.Err != nil {
		f.t.Fatalf("capture: %v", out.Err)
	}
	return out
}

// TestCapture: the browser's capture with the merchant's ddcId, its 3DS
// Method and the ten-second rule, then the lookup that continues it.
func TestCapture(t *testing.T) {
	ctx := context.Background()
	t.Run("method in time: Y, kept for the lookup", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		out := f.capture(f.captureRequest("6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10", "4000000000009409", "j1"))
		if out.MethodURL != "https://sandbox.example/3ds/acs/method" || out.CompInd != "" || out.ThreeDSServerTransID == "" {
			t.Fatalf("outcome %+v", out)
		}
		md, err := message.DecodeMethodData(out.MethodData, true)
		if err != nil || md.NotificationURL != "https://sandbox.example/3ds/V2/ddcCollect/method-notification" {
			t.Fatalf("threeDSMethodData %+v, %v: want the 3DS server's own notification URL", md, err)
		}
		page, err := f.StartMethod(ctx, out.MethodData)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
		if _, err := f.CompleteMethod(ctx, page.NotificationData); err != nil {
			t.Fatal(err)
		}
		done := f.FinishCapture(ctx, out.ThreeDSServerTransID)
		if done.Err != nil || done.CompInd != "Y" || done.DDCID != "6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10" {
			t.Fatalf("finish %+v", done)
		}
		if again := f.FinishCapture(ctx, out.ThreeDSServerTransID); again.CompInd != "Y" {
			t.Errorf("a second finish %+v", again)
		}
		resp := f.lookup("4000000000009409", func(r *message.LookupRequest) { r.DDCID, r.ThreeDSCompInd = done.DDCID, "" })
		if resp.ThreeDSServerTransID != out.ThreeDSServerTransID {
			t.Fatalf("lookup %s, want the capture's %s", resp.ThreeDSServerTransID, out.ThreeDSServerTransID)
		}
		enq := f.enquiry(resp.ThreeDSServerTransID)
		if enq.ThreeDSCompInd != "Y" || enq.DDCID != done.DDCID {
			t.Errorf("enquiry threeDSCompInd %q ddcId %q", enq.ThreeDSCompInd, enq.DDCID)
		}
		if got := f.events.kinds(resp.ThreeDSServerTransID); got != "ddc,method,method-done,ddc,lookup,enquiry" {
			t.Errorf("events %s", got)
		}
	})
	t.Run("no notification within ten seconds: N, even when the method ends later", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		out := f.capture(f.captureRequest("slow", "4000000000009417", "j1"))
		page, _ := f.StartMethod(ctx, out.MethodData)
		f.clock.Advance(message.MethodTimeout)
		if done := f.FinishCapture(ctx, out.ThreeDSServerTransID); done.CompInd != "N" {
			t.Fatalf("finish after 10s without a notification: %+v", done)
		}
		f.clock.Advance(5 * time.Second)
		if _, err := f.CompleteMethod(ctx, page.NotificationData); err != nil {
			t.Fatal(err)
		}
		resp := f.lookup("4000000000009417", func(r *message.LookupRequest) { r.DDCID, r.ThreeDSCompInd = "slow", "Y" })
		if enq := f.enquiry(resp.ThreeDSServerTransID); enq.ThreeDSCompInd != "N" || enq.ThreeDSMethod.RequestorCompInd != "Y" {
			t.Errorf("enquiry %+v", enq)
		}
	})
	t.Run("no method: U at once", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		out := f.capture(f.captureRequest("none", "4000000000009425", "j1"))
		if out.MethodURL != "" || out.CompInd != "U" {
			t.Errorf("outcome %+v", out)
		}
	})
	t.Run("refusals, each recorded", func(t *testing.T) {
		f := newFixture(t, withCaptures)
		f.capture(f.captureRequest("taken", "4000000000009409", "j1"))
		for _, tt := range []struct {
			name string
			req  message.CaptureRequest
			code emv.ErrorCode
		}{
			{"reused jti", f.captureRequest("fresh", "4000000000009409", "j1"), emv.CodeCaptureReplay},
			{"ddcId in use", f.captureRequest("taken", "4000000000009409", "j2"), emv.CodeCaptureInUse},
			{"the transport's problem", func() message.CaptureRequest {
				r := f.captureRequest("x", "400000", "j3")
				r.Problem = emv.NewError(emv.CodeCaptureJWT, emv.EMVAccessDenied, "jwt: bad signature", "jwt")
				return r
			}(), emv.CodeCaptureJWT},
		} {
			out := f.Capture(ctx, tt.req)
			if out.Err == nil || out.Err.Code != tt.code || out.ThreeDSServerTransID != "" {
				t.Errorf("%s: outcome %+v, want %s", tt.name, out, tt.code)
			}
			f.events.mu.Lock()
			ev := f.events.events[len(f.events.events)-1]
			f.events.mu.Unlock()
			if ev.Kind != state.EventDDC || ev.Namespace != ns || !strings.Contains(ev.Detail, "refused") || !strings.Contains(ev.Detail, string(tt.code)) {
				t.Errorf("%s: event %+v", tt.name, ev)
			}
			if strings.Contains(string(ev.Request), "4000000000009409") {
				t.Errorf("%s: the event keeps the whole card number: %s", tt.name, ev.Request)
			}
		}
	})
	t.Run("without captures: refused, not a crash", func(t *testing.T) {
		f := newFixture(t)
		if out := f.Capture(ctx, f.captureRequest("x", "400000", "j")); out.Err == nil {
			t.Error("a capture without captures state started")
		}
	})
}

// TestCaptureBinding: a capture continues only a lookup of its namespace
// (or, claimable, the first lookup naming it) and of its card.
func TestCaptureBinding(t *testing.T) {
	ctx := context.Background()
	strict := func(c *emulator.Config) { c.StrictDDC = true }
	t.Run("a verified capture is its merchant's only", func(t *testing.T) {
		f := newFixture(t, withCaptures, strict)
		out := f.capture(f.captureRequest("mine", "4000000000009409", "j1"))
		req := f.request("4000000000009409")
		req.DDCID = "mine"
		if _, err := f.Lookup(ctx, "other-ns", req, emulator.APICall{}); emvCode(err) != "301" {
			t.Errorf("another namespace's lookup: %v, want 301 under --strict-ddc", err)
		}
		if resp := f.lookup("4000000000009409", func(r *message.LookupRequest) { r.DDCID = "mine" }); resp.ThreeDSServerTransID != out.ThreeDSServerTransID {
			t.Errorf("its own namespace's lookup did not continue it")
		}
	})
	t.Run("an open capture is claimed by the first lookup with a card of its BIN", func(t *testing.T) {
		f := newFixture(t, withCaptures, strict)
		req := f.captureRequest("open-1", "400000", "j1")
		req.Credential.Namespace, req.Credential.Claimable = "merchant-ns", true
		out := f.capture(req)
		wrong := f.request("5100000000000016")
		wrong.DDCID = "open-1"
		if _, err := f.Lookup(ctx, "team-a", wrong, emulator.APICall{}); emvCode(err) != "305" {
			t.Errorf("another BIN: %v, want 305", err)
		}
		resp := f.lookup("4000000000009409", func(r *message.LookupRequest) { r.DDCID = "open-1" })
		if resp.ThreeDSServerTransID != out.ThreeDSServerTransID {
			t.Fatalf("the first lookup with a card of the BIN did not claim it")
		}
		if ev := f.events.last(resp.ThreeDSServerTransID); ev.Kind != state.EventLookup || ev.Namespace != ns {
			t.Errorf("last event %+v", ev)
		}
		claimed := false
		f.events.mu.Lock()
		for _, ev := range f.events.events {
			claimed = claimed || ev.Kind == state.EventDDC && ev.Namespace == ns && strings.Contains(ev.Detail, "claims")
		}
		f.events.mu.Unlock()
		if !claimed {
			t.Error("no event tells the claiming namespace where the capture came from")
		}
		again := f.request("4000000000009409")
		again.DDCID = "open-1"
		if _, err := f.Lookup(ctx, "team-b", again, emulator.APICall{}); emvCode(err) != "301" {
			t.Errorf("a claimed capture, another namespace: %v, want 301", err)
		}
		if enq := f.enquiry(resp.ThreeDSServerTransID); enq.ThreeDSCompInd != "N" {
			t.Errorf("method never opened: threeDSCompInd %q, want N", enq.ThreeDSCompInd)
		}
	})
	t.Run("the JSON collection takes a merchant's ddcId", func(t *testing.T) {
		f := newFixture(t, withCaptures, strict)
		c, err := f.Collect(ctx, ns, message.DDCRequest{Card: message.Card{CardNumber: "4000000000009409"},
			NotificationURL: "https://merchant.example/m", DDCID: "order-42-ddc"}, emulator.APICall{})
		if err != nil || c.DDCID != "order-42-ddc" {
			t.Fatalf("collect %+v, %v", c, err)
		}
		if _, err := f.Collect(ctx, ns, message.DDCRequest{Card: message.Card{CardNumber: "4000000000009409"},
			NotificationURL: "https://merchant.example/m", DDCID: "order-42-ddc"}, emulator.APICall{}); !hasCode(err, emv.CodeCaptureInUse) {
			t.Errorf("the same ddcId again: %v, want DC03", err)
		}
		resp := f.lookup("4000000000009409", func(r *message.LookupRequest) { r.DDCID = "order-42-ddc" })
		if resp.ThreeDSServerTransID != c.ThreeDSServerTransID {
			t.Errorf("lookup %s, want the collection's %s", resp.ThreeDSServerTransID, c.ThreeDSServerTransID)
		}
	})
}

func hasCode(err error, code emv.ErrorCode) bool {
	e, ok := emulator.AsError(err)
	return ok && e.Code == code
}
