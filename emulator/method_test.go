package emulator_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// collect makes a device data collection of card in ns that must succeed.
func (f *fixture) collect(card string) message.DDCResponse {
	f.t.Helper()
	resp, err := f.Collect(context.Background(), ns, message.DDCRequest{
		Card:                message.Card{CardNumber: card},
		NotificationURL:     "https://merchant.example/3ds/method-done",
		ExternalReferenceID: "order-ddc",
	}, emulator.APICall{})
	if err != nil {
		f.t.Fatalf("collect %s: %v", card, err)
	}
	return resp
}

// runMethod opens the method page of a collection, waits took on the
// clock and completes it (took < 0: opens only).
func (f *fixture) runMethod(c message.DDCResponse, took time.Duration) {
	f.t.Helper()
	page, err := f.StartMethod(context.Background(), c.MethodData)
	if err != nil {
		f.t.Fatalf("start method: %v", err)
	}
	if page.ThreeDSServerTransID != c.ThreeDSServerTransID || page.DoneURL != "https://sandbox.example/3ds/acs/method/done" {
		f.t.Fatalf("method page %+v", page)
	}
	if took < 0 {
		return
	}
	f.clock.Advance(took)
	n, err := f.CompleteMethod(context.Background(), page.NotificationData)
	if err != nil {
		f.t.Fatalf("complete method: %v", err)
	}
	if n.NotificationURL != "https://merchant.example/3ds/method-done" {
		f.t.Errorf("notification URL %q", n.NotificationURL)
	}
	md, err := message.DecodeMethodData(n.Data, false)
	if err != nil || md != (message.MethodData{ThreeDSServerTransID: c.ThreeDSServerTransID}) {
		f.t.Errorf("notification threeDSMethodData %+v, %v: want only the transaction id", md, err)
	}
}

func TestCollect(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		card       string
		method     bool
		hint, scen string
	}{
		{"4000000000009409", true, "", "visa-method-y"},
		{"4000000000009425", false, "U", "visa-method-none"},
		{"4000000000009433", true, "", "visa-method-complete-frictionless"},
		{"4000000000009003", true, "", "visa-frictionless-y"}, // no threeDSMethod: a method that completes at once
	}
	for _, tt := range tests {
		c := f.collect(tt.card)
		if c.DDCID != "ddc-"+c.ThreeDSServerTransID || len(c.ThreeDSServerTransID) != 36 || c.ScenarioID != tt.scen {
			t.Errorf("%s: ids %q %q, scenario %s", tt.card, c.DDCID, c.ThreeDSServerTransID, c.ScenarioID)
		}
		if got := c.MethodURL != ""; got != tt.method || c.CompIndHint != tt.hint {
			t.Errorf("%s: method URL %q, hint %q; want method %v, hint %q", tt.card, c.MethodURL, c.CompIndHint, tt.method, tt.hint)
		}
		if tt.method {
			md, err := message.DecodeMethodData(c.MethodData, true)
			if err != nil || md.ThreeDSServerTransID != c.ThreeDSServerTransID || md.NotificationURL != "https://merchant.example/3ds/method-done" {
				t.Errorf("%s: threeDSMethodData %+v, %v", tt.card, md, err)
			}
			if c.MethodURL != "https://sandbox.example/3ds/acs/method" {
				t.Errorf("method URL %q", c.MethodURL)
			}
		}
		if ev := f.events.last(c.ThreeDSServerTransID); ev.Kind != state.EventDDC {
			t.Errorf("%s: last event %q, want ddc", tt.card, ev.Kind)
		}
	}
}

// TestCompIndRule checks the threeDSCompInd the server settles and the
// scenario each value selects.
func TestCompIndRule(t *testing.T) {
	tests := []struct {
		name       string
		card       string
		took       time.Duration // <0: the method page opened but never completed
		start      bool          // false: the browser never opened the method page
		sent       string
		compInd    string
		status     string
		noteSuffix string
	}{
		{"completed in time", "4000000000009433", 2 * time.Second, true, "Y", "Y", "Y", ""},
		{"completed at exactly 10s", "4000000000009433", 10 * time.Second, true, "Y", "Y", "Y", ""},
		{"completed after 12s", "4000000000009433", 12 * time.Second, true, "N", "N", "C", ""},
		{"never completed", "4000000000009433", -1, true, "N", "N", "C", ""},
		{"never started", "4000000000009433", 0, false, "N", "N", "C", ""},
		{"requestor claims Y, server saw N", "4000000000009433", -1, true, "Y", "N", "C", "threeDSCompInd Y sent, N seen by the server"},
		{"no method", "4000000000009425", 0, false, "U", "U", "Y", ""},
		{"slow method card", "4000000000009417", 15 * time.Second, true, "N", "N", "A", ""},
		{"fast method card", "4000000000009409", time.Second, true, "Y", "Y", "Y", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			c := f.collect(tt.card)
			if tt.start {
				f.runMethod(c, tt.took)
			}
			resp := f.lookup(tt.card, func(r *message.LookupRequest) { r.DDCID, r.ThreeDSCompInd = c.DDCID, tt.sent })
			if resp.ThreeDSServerTransID != c.ThreeDSServerTransID {
				t.Fatalf("lookup id %s, want the collection's %s", resp.ThreeDSServerTransID, c.ThreeDSServerTransID)
			}
			if resp.Status != tt.status {
				t.Errorf("status %s (scenario %s), want %s", resp.Status, resp.ScenarioID, tt.status)
			}
			ev := f.events.last(resp.ThreeDSServerTransID)
			if !strings.Contains(ev.Detail, "threeDSCompInd "+tt.compInd) || !strings.Contains(ev.Detail, tt.noteSuffix) {
				t.Errorf("lookup event detail %q, want threeDSCompInd %s and %q", ev.Detail, tt.compInd, tt.noteSuffix)
			}
			enq := f.enquiry(resp.ThreeDSServerTransID)
			if enq.DDCID != c.DDCID || enq.ThreeDSCompInd != tt.compInd || enq.ThreeDSMethod == nil {
				t.Fatalf("enquiry ddcId %q, threeDSCompInd %q, method %+v", enq.DDCID, enq.ThreeDSCompInd, enq.ThreeDSMethod)
			}
			m := enq.ThreeDSMethod
			if m.RequestedAt != "2026-11-24T09:00:00.000Z" || (m.StartedAt != "") != tt.start || (m.CompletedAt != "") != (tt.start && tt.took >= 0) || m.RequestorCompInd != tt.sent {
				t.Errorf("timeline %+v", m)
			}
		})
	}
}

func TestLookupDDCID(t *testing.T) {
	const card = "4000000000009409"
	t.Run("unknown ddcId is a new transaction, flagged", func(t *testing.T) {
		f := newFixture(t)
		resp := f.lookup(card, func(r *message.LookupRequest) { r.DDCID, r.ThreeDSCompInd = "ddc-nothing", "Y" })
		if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "the ddcId names no device data collection") {
			t.Errorf("detail %q", ev.Detail)
		}
		if enq := f.enquiry(resp.ThreeDSServerTransID); enq.ThreeDSMethod != nil || enq.DDCID != "" {
			t.Errorf("enquiry of an unlinked lookup shows a method: %+v", enq)
		}
	})
	t.Run("reused ddcId is a new transaction, flagged", func(t *testing.T) {
		f := newFixture(t)
		c := f.collect(card)
		first := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = c.DDCID })
		again := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = c.DDCID })
		if first.ThreeDSServerTransID != c.ThreeDSServerTransID || again.ThreeDSServerTransID == c.ThreeDSServerTransID {
			t.Fatalf("ids %s, %s for collection %s", first.ThreeDSServerTransID, again.ThreeDSServerTransID, c.ThreeDSServerTransID)
		}
		if ev := f.events.last(again.ThreeDSServerTransID); !strings.Contains(ev.Detail, "an earlier lookup used") {
			t.Errorf("detail %q", ev.Detail)
		}
	})
	t.Run("another token's ddcId is unknown", func(t *testing.T) {
		f := newFixture(t)
		c := f.collect(card)
		req := f.request(card)
		req.DDCID = c.DDCID
		resp, err := f.Lookup(context.Background(), "other-ns", req, emulator.APICall{})
		if err != nil || resp.ThreeDSServerTransID == c.ThreeDSServerTransID {
			t.Fatalf("lookup %+v, %v", resp, err)
		}
	})
	strict := func(c *emulator.Config) { c.StrictDDC = true }
	t.Run("strict refuses an unknown ddcId", func(t *testing.T) {
		f := newFixture(t, strict)
		for _, id := range []string{"0_6b0cbd4f", "ddc-00000000-0000-0000-0000-000000000000"} {
			req := f.request(card)
			req.DDCID = id
			_, err := f.Lookup(context.Background(), ns, req, emulator.APICall{})
			if e, ok := emulator.AsError(err); !ok || e.EMVCode != "301" || e.Detail != "ddcId" {
				t.Errorf("%s: %v, want 301 ddcId", id, err)
			}
		}
	})
	t.Run("strict refuses a reused ddcId", func(t *testing.T) {
		f := newFixture(t, strict)
		c := f.collect(card)
		f.lookup(card, func(r *message.LookupRequest) { r.DDCID = c.DDCID })
		req := f.request(card)
		req.DDCID = c.DDCID
		_, err := f.Lookup(context.Background(), ns, req, emulator.APICall{})
		if e, ok := emulator.AsError(err); !ok || e.EMVCode != "305" || e.Code != emv.CodeTransactionState {
			t.Errorf("%v, want 305", err)
		}
	})
	t.Run("another card's ddcId is a new transaction, flagged; the collection stays open", func(t *testing.T) {
		f := newFixture(t)
		c := f.collect(card)
		const other = "4000000000009433" // same BIN and length, other last four
		resp := f.lookup(other, func(r *message.LookupRequest) { r.DDCID = c.DDCID })
		if resp.ThreeDSServerTransID == c.ThreeDSServerTransID {
			t.Fatalf("another card's lookup continued collection %s", c.ThreeDSServerTransID)
		}
		if ev := f.events.last(resp.ThreeDSServerTransID); !strings.Contains(ev.Detail, "made for another card") {
			t.Errorf("detail %q", ev.Detail)
		}
		if own := f.lookup(card, func(r *message.LookupRequest) { r.DDCID = c.DDCID }); own.ThreeDSServerTransID != c.ThreeDSServerTransID {
			t.Errorf("the card's own lookup after it: %s, want the collection's %s", own.ThreeDSServerTransID, c.ThreeDSServerTransID)
		}
	})
	t.Run("strict refuses another card's ddcId, naming the masked card", func(t *testing.T) {
		f := newFixture(t, strict)
		c := f.collect(card)
		req := f.request("4000000000009433")
		req.DDCID = c.DDCID
		_, err := f.Lookup(context.Background(), ns, req, emulator.APICall{})
		e, ok := emulator.AsError(err)
		if !ok || e.EMVCode != "305" || e.Detail != "card.cardNumber,ddcId" || !strings.Contains(e.Message, "400000******9409") {
			t.Errorf("%v, want 305 naming 400000******9409 and card.cardNumber,ddcId", err)
		}
		if strings.Contains(err.Error(), card) {
			t.Errorf("the error carries the full card number: %v", err)
		}
	})
	t.Run("method completing after the lookup shows in the enquiry", func(t *testing.T) {
		f := newFixture(t)
		c := f.collect("4000000000009417")
		f.runMethod(c, -1)
		f.clock.Advance(10 * time.Second)
		resp := f.lookup("4000000000009417", func(r *message.LookupRequest) { r.DDCID, r.ThreeDSCompInd = c.DDCID, "N" })
		if enq := f.enquiry(resp.ThreeDSServerTransID); enq.ThreeDSMethod.CompletedAt != "" {
			t.Fatalf("completed before it did: %+v", enq.ThreeDSMethod)
		}
		f.clock.Advance(5 * time.Second)
		page, _ := f.StartMethod(context.Background(), c.MethodData) // a reload: keeps the first start
		if _, err := f.CompleteMethod(context.Background(), page.NotificationData); err != nil {
			t.Fatal(err)
		}
		enq := f.enquiry(resp.ThreeDSServerTransID)
		if m := enq.ThreeDSMethod; m.StartedAt != "2026-11-24T09:00:00.000Z" || m.CompletedAt != "2026-11-24T09:00:15.000Z" || enq.ThreeDSCompInd != "N" {
			t.Errorf("timeline %+v, threeDSCompInd %s", m, enq.ThreeDSCompInd)
		}
		if got := f.events.kinds(resp.ThreeDSServerTransID); got != "ddc,method,lookup,enquiry,method-done,enquiry" {
			t.Errorf("events %s", got)
		}
	})
	t.Run("enquiry of a collection without a lookup", func(t *testing.T) {
		f := newFixture(t)
		f.collect(card)
		_, err := f.Enquiry(context.Background(), ns, message.EnquiryRequest{ExternalReferenceID: "order-ddc"}, emulator.APICall{})
		if emvCode(err) != "301" || !strings.Contains(err.Error(), "without a lookup yet") {
			t.Errorf("%v, want 301 without a lookup yet", err)
		}
	})
}

func TestMethodErrors(t *testing.T) {
	f := newFixture(t)
	c := f.collect("4000000000009409")
	none := f.collect("4000000000009425")
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	enc := message.EncodeMethodData
	unknown := "5d5e5a1c-0000-4000-8000-000000000000"
	tests := []struct {
		name, data, emv, detail string
	}{
		{"missing", "", "201", "threeDSMethodData"},
		{"not Base64", "%%%not-base64%%%", "203", "threeDSMethodData"},
		{"not JSON", b64("threeDSServerTransID=x"), "203", "threeDSMethodData"},
		{"JSON array", b64(`["x"]`), "203", "threeDSMethodData"},
		{"duplicate key", b64(`{"threeDSServerTransID":"` + c.ThreeDSServerTransID + `","threeDSServerTransID":"x"}`), "204", "threeDSServerTransID"},
		{"no transaction id", b64(`{"threeDSMethodNotificationURL":"https://m.example/n"}`), "201", "threeDSServerTransID"},
		{"transaction id not a UUID", enc(message.MethodData{ThreeDSServerTransID: "ddc-1", NotificationURL: "https://m.example/n"}), "203", "threeDSServerTransID"},
		{"no notification URL", enc(message.MethodData{ThreeDSServerTransID: c.ThreeDSServerTransID}), "201", "threeDSMethodNotificationURL"},
		{"relative notification URL", enc(message.MethodData{ThreeDSServerTransID: c.ThreeDSServerTransID, NotificationURL: "/n"}), "203", "threeDSMethodNotificationURL"},
		{"javascript notification URL", enc(message.MethodData{ThreeDSServerTransID: c.ThreeDSServerTransID, NotificationURL: "javascript:alert(1)"}), "203", "threeDSMethodNotificationURL"},
		{"too long", strings.Repeat("A", message.MaxMethodData+1), "203", "threeDSMethodData"},
		{"unknown transaction", enc(message.MethodData{ThreeDSServerTransID: unknown, NotificationURL: "https://m.example/n"}), "301", "threeDSServerTransID"},
		{"ACS without a method", enc(message.MethodData{ThreeDSServerTransID: none.ThreeDSServerTransID, NotificationURL: "https://m.example/n"}), "305", "threeDSMethodData"},
	}
	for _, tt := range tests {
		_, err := f.StartMethod(context.Background(), tt.data)
		e, ok := emulator.AsError(err)
		if !ok || e.EMVCode != tt.emv || e.Detail != tt.detail {
			t.Errorf("%s: %v (detail %q), want EMV %s detail %s", tt.name, err, e.Detail, tt.emv, tt.detail)
		}
	}
	// The completion needs a started method, and no notification URL.
	_, err := f.CompleteMethod(context.Background(), enc(message.MethodData{ThreeDSServerTransID: c.ThreeDSServerTransID}))
	if emvCode(err) != "305" {
		t.Errorf("completion before the start: %v, want 305", err)
	}
	_, err = f.CompleteMethod(context.Background(), enc(message.MethodData{ThreeDSServerTransID: unknown}))
	if emvCode(err) != "301" {
		t.Errorf("completion of an unknown transaction: %v, want 301", err)
	}
}
