package emulator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// TestScenarioWindows: the default cards ...914 and ...915 time out after
// 3s by their scenario's own windows, whatever the server's.
func TestScenarioWindows(t *testing.T) {
	tests := []struct {
		scenario       string
		open           bool
		status, cancel string
	}{
		{"visa-challenge-timeout-first-creq", false, "N", "05"},
		{"mastercard-challenge-timeout-undecided", true, "N", "04"},
		// The other window is the server's: still open after 3s.
		{"visa-challenge-timeout-first-creq", true, "C", ""},
		{"visa-challenge-timeout-undecided", false, "C", ""},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			f := newFixture(t)
			resp := f.lookup(f.card(tt.scenario), nil)
			if tt.open {
				v := f.open(resp)
				if v.ExpiresIn != time.Minute*15 && tt.status == "C" || v.ExpiresIn != 3*time.Second && tt.status == "N" {
					t.Errorf("challenge page expires in %s", v.ExpiresIn)
				}
			}
			f.clock.Advance(3 * time.Second)
			if got := f.enquiry(resp.ThreeDSServerTransID); got.TransactionStatus != "C" {
				t.Fatalf("at 3s exactly: %s, want C", got.TransactionStatus)
			}
			f.clock.Advance(time.Millisecond)
			got := f.enquiry(resp.ThreeDSServerTransID)
			if got.TransactionStatus != tt.status || got.ChallengeCancel != tt.cancel {
				t.Errorf("after 3s: %s cancel %q, want %s %q", got.TransactionStatus, got.ChallengeCancel, tt.status, tt.cancel)
			}
		})
	}
}

// TestTokenClock: moving a namespace's clock forward brings its
// timeouts, automatic decisions and the 3DS Method's ten seconds at once;
// other namespaces keep real time.
func TestTokenClock(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	other := func(card string) message.LookupResponse {
		resp, err := f.Lookup(ctx, "ns-other", f.request(card), emulator.APICall{})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	pending := f.lookup(f.card("visa-challenge"), nil)
	opened := f.lookup(f.card("visa-challenge"), nil)
	f.open(opened)
	auto := f.lookup(f.card("visa-challenge-auto-fail"), nil)
	theirs := other(f.card("visa-challenge"))

	c, err := f.AdvanceClock(ctx, ns, 11*time.Minute)
	if err != nil || c.Offset != 11*time.Minute || !c.Now.Equal(t0.Add(11*time.Minute)) || c.Max != state.DefaultMaxClockOffset {
		t.Fatalf("AdvanceClock 11m = %+v, %v", c, err)
	}
	for _, tt := range []struct {
		id, status, reason, cancel string
	}{
		{pending.ThreeDSServerTransID, "N", "14", "05"},
		{opened.ThreeDSServerTransID, "C", "", ""}, // 15 minutes once opened
		{auto.ThreeDSServerTransID, "N", "01", ""},
	} {
		got := f.enquiry(tt.id)
		if got.TransactionStatus != tt.status || got.StatusReason != tt.reason || got.ChallengeCancel != tt.cancel {
			t.Errorf("%s: %s/%s/%s, want %s/%s/%s", tt.id, got.TransactionStatus, got.StatusReason, got.ChallengeCancel, tt.status, tt.reason, tt.cancel)
		}
	}
	if ev := f.events.last(pending.ThreeDSServerTransID); ev.Kind != state.EventEnquiry || !ev.Time.Equal(t0.Add(11*time.Minute)) {
		t.Errorf("the enquiry's event at %s, want the token's now %s", ev.Time, t0.Add(11*time.Minute))
	}
	q, err := f.Enquiry(ctx, "ns-other", message.EnquiryRequest{ThreeDSServerTransID: theirs.ThreeDSServerTransID}, emulator.APICall{})
	if err != nil || q.TransactionStatus != "C" {
		t.Errorf("another token's challenge: %s, %v; want C (its clock did not move)", q.TransactionStatus, err)
	}
	if _, err := f.AdvanceClock(ctx, ns, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := f.enquiry(opened.ThreeDSServerTransID); got.TransactionStatus != "N" || got.ChallengeCancel != "04" {
		t.Errorf("opened challenge after 16m: %s/%s, want N/04", got.TransactionStatus, got.ChallengeCancel)
	}

	// A new transaction is made at the token's now, so its windows run
	// from there.
	later := f.lookup(f.card("visa-challenge"), nil)
	if s, err := f.Settle(ctx, ns, later.ThreeDSServerTransID); err != nil || !s.CreatedAt.Equal(t0.Add(16*time.Minute)) ||
		!s.Pending || s.Due != 10*time.Minute+time.Nanosecond || s.Final {
		t.Errorf("Settle of a new challenge = %+v, %v", s, err)
	}

	// The 3DS Method's ten seconds follow the token's clock too.
	c2 := f.collect(f.card("visa-frictionless-y"))
	page, err := f.StartMethod(ctx, c2.MethodData)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AdvanceClock(ctx, ns, 11*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CompleteMethod(ctx, page.NotificationData); err != nil {
		t.Fatal(err)
	}
	l := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.DDCID = c2.DDCID })
	if got := f.enquiry(l.ThreeDSServerTransID); got.ThreeDSCompInd != "N" {
		t.Errorf("method completed 11s later by the token's clock: threeDSCompInd %s, want N", got.ThreeDSCompInd)
	}

	// Bounds and reset.
	if _, err := f.AdvanceClock(ctx, ns, 0); emvCode(err) != "203" {
		t.Errorf("advance 0: %v", err)
	}
	if _, err := f.AdvanceClock(ctx, ns, -time.Minute); emvCode(err) != "203" {
		t.Errorf("advance -1m: %v", err)
	}
	_, err = f.AdvanceClock(ctx, ns, state.DefaultMaxClockOffset)
	if e, ok := emulator.AsError(err); !ok || e.Code != emv.CodeClockLimit || e.Detail != "advance" {
		t.Errorf("advance beyond the bound: %v", err)
	}
	if c, err := f.ResetClock(ctx, ns); err != nil || c.Offset != 0 || !c.Now.Equal(t0) {
		t.Errorf("ResetClock = %+v, %v", c, err)
	}
	if c, err := f.Clock(ctx, "ns-other"); err != nil || c.Offset != 0 {
		t.Errorf("Clock of another token = %+v, %v", c, err)
	}
}

// TestTokenClockExpiry: a namespace whose clock runs ahead by more than
// the store's age bound no longer finds its transactions.
func TestTokenClockExpiry(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, func(c *emulator.Config) { c.StoreMaxAge = 24 * time.Hour })
	resp := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.ExternalReferenceID = "old" })
	if _, err := f.AdvanceClock(ctx, ns, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	f.enquiry(resp.ThreeDSServerTransID) // 24h exactly: still there
	if _, err := f.AdvanceClock(ctx, ns, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, req := range []message.EnquiryRequest{{ThreeDSServerTransID: resp.ThreeDSServerTransID}, {ExternalReferenceID: "old"}} {
		if _, err := f.Enquiry(ctx, ns, req, emulator.APICall{}); emvCode(err) != "301" {
			t.Errorf("enquiry %+v beyond the age bound by the token's clock: %v", req, err)
		}
	}
}

// TestForget: a namespace that forgets its transactions finds none of
// them, by id, by reference or by ddcId; another namespace's stay; new
// ones are found.
func TestForget(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	mine := f.lookup(f.card("visa-challenge"), func(r *message.LookupRequest) { r.ExternalReferenceID = "order-1" })
	collection := f.collect(f.card("visa-frictionless-y"))
	theirs, err := f.Lookup(ctx, "ns-other", f.request(f.card("visa-frictionless-y")), emulator.APICall{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Forget(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, req := range []message.EnquiryRequest{{ThreeDSServerTransID: mine.ThreeDSServerTransID}, {ExternalReferenceID: "order-1"}} {
		if _, err := f.Enquiry(ctx, ns, req, emulator.APICall{}); emvCode(err) != "301" {
			t.Errorf("enquiry %+v after forgetting: %v", req, err)
		}
	}
	if _, err := f.CompleteChallenge(ctx, ns, mine.ThreeDSServerTransID, emulator.Choice{Action: "pass"}); emvCode(err) != "301" {
		t.Errorf("decide a forgotten challenge: %v", err)
	}
	if _, err := f.OpenHostedChallenge(ctx, mine.ThreeDSServerTransID); emvCode(err) != "301" {
		t.Errorf("open a forgotten challenge: %v", err)
	}
	if _, err := f.StartMethod(ctx, collection.MethodData); emvCode(err) != "301" {
		t.Errorf("method of a forgotten collection: %v", err)
	}
	if _, err := f.Settle(ctx, ns, mine.ThreeDSServerTransID); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Settle of a forgotten transaction: %v", err)
	}
	l := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.DDCID = collection.DDCID })
	if l.ThreeDSServerTransID == collection.ThreeDSServerTransID {
		t.Error("a lookup continued a forgotten collection")
	}
	if _, err := f.Enquiry(ctx, "ns-other", message.EnquiryRequest{ThreeDSServerTransID: theirs.ThreeDSServerTransID}, emulator.APICall{}); err != nil {
		t.Errorf("another token's transaction after forgetting: %v", err)
	}
	again := f.lookup(f.card("visa-frictionless-y"), func(r *message.LookupRequest) { r.ExternalReferenceID = "order-1" })
	if got, err := f.Enquiry(ctx, ns, message.EnquiryRequest{ExternalReferenceID: "order-1"}, emulator.APICall{}); err != nil ||
		got.ThreeDSServerTransID != again.ThreeDSServerTransID {
		t.Errorf("a reference used again after forgetting: %+v, %v", got, err)
	}
}

// TestSettle: the admin API's read of a transaction tells whether it is
// final, whether this read settled it, and when it changes by itself.
func TestSettle(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	y := f.lookup(f.card("visa-frictionless-y"), nil)
	if s, err := f.Settle(ctx, ns, y.ThreeDSServerTransID); err != nil || !s.Final || s.Pending || s.Status != "Y" || s.Changed {
		t.Errorf("frictionless: %+v, %v", s, err)
	}
	auto := f.lookup(f.card("visa-challenge-auto-pass"), nil)
	s, err := f.Settle(ctx, ns, auto.ThreeDSServerTransID)
	if err != nil || s.Final || !s.Pending || s.Due != time.Second {
		t.Errorf("auto-pass before its time: %+v, %v", s, err)
	}
	f.clock.Advance(time.Second)
	if s, err = f.Settle(ctx, ns, auto.ThreeDSServerTransID); err != nil || !s.Final || !s.Changed || s.Status != "Y" {
		t.Errorf("auto-pass at its time: %+v, %v", s, err)
	}
	if s, err = f.Settle(ctx, ns, auto.ThreeDSServerTransID); err != nil || s.Changed {
		t.Errorf("settled twice: %+v, %v", s, err)
	}
	if !strings.HasSuffix(f.events.kinds(auto.ThreeDSServerTransID), "auto") {
		t.Errorf("events %s", f.events.kinds(auto.ThreeDSServerTransID))
	}
	c := f.collect(f.card("visa-frictionless-y"))
	if s, err = f.Settle(ctx, ns, c.ThreeDSServerTransID); err != nil || s.Phase != state.PhaseMethod || s.Final ||
		s.ThreeDSServerTransID != c.ThreeDSServerTransID {
		t.Errorf("a collection awaiting its lookup: %+v, %v", s, err)
	}
	for _, id := range []string{"8a880dc0-d2d2-4067-bcb1-b08d1690b26e", c.DDCID} {
		if _, err := f.Settle(ctx, "ns-other", id); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Settle(%s) of another namespace: %v", id, err)
		}
	}
	if _, err := f.Settle(ctx, "ns-other", y.ThreeDSServerTransID); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Settle of another namespace's transaction: %v", err)
	}
	if !emulator.ValidTransactionID(y.ThreeDSServerTransID) || emulator.ValidTransactionID("nope") {
		t.Error("ValidTransactionID")
	}
}
