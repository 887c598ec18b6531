// Package statetest is the contract of the state ports (package state) as
// test suites, one Run function per port: every backend (in memory,
// Redis) runs the same tests, so the engine can rely on the same
// semantics whichever keeps its state. Run is the suite of state.Store.
package statetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Factory returns a new, empty store that keeps transactions for maxAge.
type Factory func(t *testing.T, maxAge time.Duration) state.Store

// Run runs the contract against the stores newStore makes.
func Run(t *testing.T, newStore Factory) {
	tests := []struct {
		name string
		fn   func(*testing.T, Factory)
	}{
		{"PutGet", testPutGet},
		{"Unknown", testUnknown},
		{"ByReference", testByReference},
		{"Update", testUpdate},
		{"UpdateError", testUpdateError},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"OneDecisionWins", testOneDecisionWins},
		{"Expiry", testExpiry},
		{"Method", testMethod},
		{"App", testApp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore) })
	}
}

var ctx = context.Background()

// Transaction returns a full transaction, every field set, with id and
// reference ref in namespace ns.
func Transaction(ns, id, ref string) state.Transaction {
	created := time.Now().UTC().Truncate(time.Millisecond)
	return state.Transaction{
		Namespace: ns, ThreeDSServerTransID: id, ExternalReferenceID: ref,
		ACSTransID: "d7c1ee99-9478-44a6-b1f2-391e29c6b340", DSTransID: "0b6c7b9e-52f0-4a24-9a0b-6f2b0d0e9a11",
		CreatedAt: created, ScenarioID: "visa-challenge", CardScheme: "VISA", CardBIN: "400000", Version: "2.2.0",
		Phase: state.PhaseChallengeOpened, Channel: state.Channel3RI, PANLength: 16, PANLast4: [4]byte{'9', '1', '0', '2'},
		Status: "C", AuthenticationType: "02", WhiteListStatus: "U", WhiteListStatusSrc: "03",
		ACSReferenceNumber: "3DS_LOA_ACS_PRIC_020200_17135", ACSOperatorID: "ACS-PRIC-9444-7396",
		Challenge: state.ChallengeState{
			NotificationURL: "https://shop.example.com/notify", Session: "c2Vzc2lvbg", WindowSize: 2,
			MerchantName: "Example Shop — ünïcode", Amount: "49.99", Currency: "EUR", PurchaseDate: "2026-11-24 09:00:00",
			OpenedAt: created.Add(time.Second), Interactions: 1, WrongOTPs: 1, Language: "th-TH",
		},
	}
}

// same compares two transactions field by field, times with Equal.
func same(a, b state.Transaction) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.Challenge.OpenedAt.Equal(b.Challenge.OpenedAt) || !a.Challenge.DecidedAt.Equal(b.Challenge.DecidedAt) {
		return false
	}
	a.CreatedAt, b.CreatedAt = time.Time{}, time.Time{}
	a.Challenge.OpenedAt, b.Challenge.OpenedAt = time.Time{}, time.Time{}
	a.Challenge.DecidedAt, b.Challenge.DecidedAt = time.Time{}, time.Time{}
	am, bm := &a.Method, &b.Method
	for _, p := range [][2]*time.Time{{&am.RequestedAt, &bm.RequestedAt}, {&am.StartedAt, &bm.StartedAt}, {&am.CompletedAt, &bm.CompletedAt}} {
		if !p[0].Equal(*p[1]) {
			return false
		}
		*p[0], *p[1] = time.Time{}, time.Time{}
	}
	return a == b
}

// testMethod stores a device data collection, as the engine does under
// its ddcId, and records its method's timeline with Update.
func testMethod(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	created := time.Now().UTC().Truncate(time.Millisecond)
	c := state.Transaction{
		Namespace: "ns", ThreeDSServerTransID: "ddc-8a880dc0-d2d2-4067-bcb1-b08d1690b26e", ExternalReferenceID: "ORD-M",
		CreatedAt: created, ScenarioID: "visa-method-y", CardScheme: "VISA", CardBIN: "400000",
		Phase: state.PhaseMethod, PANLength: 16, PANLast4: [4]byte{'9', '4', '0', '9'},
		Method: state.MethodState{
			DDCID: "ddc-8a880dc0-d2d2-4067-bcb1-b08d1690b26e", NotificationURL: "https://shop.example.com/method",
			Available: true, Duration: 1500 * time.Millisecond, RequestedAt: created,
		},
	}
	if err := s.Put(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, c.ThreeDSServerTransID); err != nil || !same(got, c) {
		t.Fatalf("Get = %+v, %v\nwant %+v", got, err, c)
	}
	started, completed := created.Add(time.Second), created.Add(2500*time.Millisecond)
	got, err := s.Update(ctx, c.ThreeDSServerTransID, func(t *state.Transaction) error {
		t.Method.StartedAt, t.Method.CompletedAt, t.Method.CompInd, t.Method.RequestorCompInd = started, completed, "Y", "N"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Get(ctx, c.ThreeDSServerTransID)
	if err != nil || !same(again, got) || !again.Method.CompletedAt.Equal(completed) || again.Method.CompInd != "Y" || again.Phase != state.PhaseMethod {
		t.Errorf("Get after Update = %+v, %v; want the timeline", again.Method, err)
	}
}

// testApp stores an app challenge, its sealed key of raw bytes among
// its fields, and counts a CReq with Update, as the ACS endpoint does.
func testApp(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	c := Transaction("ns", "5b7f3c1e-2a4d-4e8f-9b6a-0c1d2e3f4a5b", "ORD-APP")
	c.Channel = state.ChannelApp
	c.App = state.AppState{
		SDKTransID: "b2d7c0a4-5e1f-4c3a-8b9d-6e0f1a2b3c4d", SDKAppID: "3f6d2b1c-7a44-4b8e-9d0e-2c51f0a6b7e1",
		SDKReferenceNumber: "3DS_LOA_SDK_STIN_020200_00961", SealedKey: "\x00\xff sealed \x01\x80 key\x00",
		UIType: "04", Interface: "01", MaxTimeout: 5,
		Device: state.DeviceInfo{Platform: "Android", Model: "Pixel 8", OSName: "Android", OSVersion: "15", Locale: "th-TH", TimeZone: "Asia/Bangkok"},
	}
	if err := s.Put(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, c.ThreeDSServerTransID); err != nil || !same(got, c) {
		t.Fatalf("Get = %+v, %v\nwant %+v", got.App, err, c.App)
	}
	got, err := s.Update(ctx, c.ThreeDSServerTransID, func(t *state.Transaction) error {
		t.App.Counter, t.App.Enc = 1, "A128GCM"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Get(ctx, c.ThreeDSServerTransID)
	if err != nil || !same(again, got) || again.App.Counter != 1 || again.App.Enc != "A128GCM" || again.App.SealedKey != c.App.SealedKey {
		t.Errorf("Get after Update = %+v, %v; want the counter and enc", again.App, err)
	}
}

func testPutGet(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	want := Transaction("ns", "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "ORD-1")
	if err := s.Put(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, want.ThreeDSServerTransID)
	if err != nil {
		t.Fatal(err)
	}
	if !same(got, want) {
		t.Errorf("Get =\n%+v\nwant\n%+v", got, want)
	}
	// A transaction without a reference is stored too.
	bare := Transaction("ns", "8a880dc0-d2d2-4067-bcb1-b08d1690b26f", "")
	if err := s.Put(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, bare.ThreeDSServerTransID); err != nil || !same(got, bare) {
		t.Errorf("Get without a reference: %v", err)
	}
}

func testUnknown(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	if _, err := s.Get(ctx, "no-such-id"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Get unknown: %v, want ErrNotFound", err)
	}
	if _, err := s.GetByExternalRef(ctx, "ns", "no-such-ref"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("GetByExternalRef unknown: %v, want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "no-such-id", func(*state.Transaction) error { return nil }); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Update unknown: %v, want ErrNotFound", err)
	}
}

func testByReference(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	older := Transaction("ns-a", "id-older", "ORD-7")
	newer := Transaction("ns-a", "id-newer", "ORD-7")
	other := Transaction("ns-b", "id-other", "ORD-7")
	for _, tx := range []state.Transaction{older, newer, other} {
		if err := s.Put(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.GetByExternalRef(ctx, "ns-a", "ORD-7"); err != nil || got.ThreeDSServerTransID != "id-newer" {
		t.Errorf("ns-a ORD-7 = %s, %v; want the newest, id-newer", got.ThreeDSServerTransID, err)
	}
	if got, err := s.GetByExternalRef(ctx, "ns-b", "ORD-7"); err != nil || got.ThreeDSServerTransID != "id-other" {
		t.Errorf("ns-b ORD-7 = %s, %v; want id-other", got.ThreeDSServerTransID, err)
	}
	if got, err := s.Get(ctx, "id-older"); err != nil || got.ExternalReferenceID != "ORD-7" {
		t.Errorf("the older transaction stays reachable by id: %v", err)
	}
	// A reference with the separator in it stays apart from others.
	odd := Transaction("ns-a", "id-odd", "x:y")
	if err := s.Put(ctx, odd); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetByExternalRef(ctx, "ns-a:x", "y"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("namespace ns-a:x reached ns-a's reference x:y: %v", err)
	}
}

func testUpdate(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	tx := Transaction("ns", "id-up", "ORD-U")
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	decided := tx.CreatedAt.Add(time.Minute)
	got, err := s.Update(ctx, "id-up", func(t *state.Transaction) error {
		t.Phase, t.Status, t.ECI = state.PhaseFinal, "Y", "05"
		t.Challenge.Decision, t.Challenge.DecidedAt = "pass", decided
		t.Challenge.Interactions++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "Y" || got.Challenge.Interactions != 2 || !got.Challenge.DecidedAt.Equal(decided) {
		t.Errorf("Update returned %+v", got)
	}
	again, err := s.Get(ctx, "id-up")
	if err != nil || !same(again, got) {
		t.Errorf("Get after Update = %+v, %v; want what Update returned", again, err)
	}
	if byRef, err := s.GetByExternalRef(ctx, "ns", "ORD-U"); err != nil || byRef.Status != "Y" {
		t.Errorf("by reference after Update: %s, %v", byRef.Status, err)
	}
	// A change that makes no difference is fine too.
	if _, err := s.Update(ctx, "id-up", func(*state.Transaction) error { return nil }); err != nil {
		t.Errorf("no-op Update: %v", err)
	}
}

func testUpdateError(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	tx := Transaction("ns", "id-err", "")
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	_, err := s.Update(ctx, "id-err", func(t *state.Transaction) error {
		t.Status = "N"
		return refused
	})
	if !errors.Is(err, refused) {
		t.Errorf("Update error = %v, want fn's", err)
	}
	if got, _ := s.Get(ctx, "id-err"); got.Status != "C" {
		t.Errorf("a refused Update stored status %s", got.Status)
	}
}

// testConcurrentUpdates: each of many concurrent Updates sees the result
// of the one before, so no increment is lost.
func testConcurrentUpdates(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	tx := Transaction("ns", "id-count", "")
	tx.Challenge.Interactions = 0
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Update(ctx, "id-count", func(t *state.Transaction) error {
				t.Challenge.Interactions++
				return nil
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Update: %v", err)
		}
	}
	if got, _ := s.Get(ctx, "id-count"); got.Challenge.Interactions != n {
		t.Errorf("Interactions = %d after %d concurrent increments", got.Challenge.Interactions, n)
	}
}

// testOneDecisionWins: of many concurrent Updates that finish a pending
// transaction only if it is not final yet, exactly one succeeds.
func testOneDecisionWins(t *testing.T, newStore Factory) {
	s := newStore(t, time.Hour)
	tx := Transaction("ns", "id-race", "")
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	final := errors.New("already final")
	const n = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := []string{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			decision := fmt.Sprintf("d%d", i)
			_, err := s.Update(ctx, "id-race", func(t *state.Transaction) error {
				if t.Phase == state.PhaseFinal {
					return final
				}
				t.Phase, t.Challenge.Decision = state.PhaseFinal, decision
				return nil
			})
			switch {
			case err == nil:
				mu.Lock()
				winners = append(winners, decision)
				mu.Unlock()
			case !errors.Is(err, final):
				t.Errorf("Update: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d decisions won (%s), want exactly one", len(winners), strings.Join(winners, ","))
	}
	if got, _ := s.Get(ctx, "id-race"); got.Challenge.Decision != winners[0] {
		t.Errorf("stored decision %s, the winner was %s", got.Challenge.Decision, winners[0])
	}
}

// testExpiry: a transaction older than the store's max age is gone, by id
// and by reference.
func testExpiry(t *testing.T, newStore Factory) {
	s := newStore(t, 300*time.Millisecond)
	tx := Transaction("ns", "id-old", "ORD-OLD")
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "id-old"); err != nil {
		t.Fatalf("fresh transaction: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := s.Get(ctx, "id-old")
		if errors.Is(err, state.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction still there 5s after a max age of 300ms: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := s.GetByExternalRef(ctx, "ns", "ORD-OLD"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("by reference after expiry: %v, want ErrNotFound", err)
	}
}
