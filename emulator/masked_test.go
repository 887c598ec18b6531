package emulator_test

import (
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// TestEventsMaskFreeText: the summary every event carries, and its
// detail, show no card number in a free-text field (reference, cardholder
// and merchant names), while the lookup's answer carries what the
// merchant sent; a stored transaction's summary is masked the same way.
func TestEventsMaskFreeText(t *testing.T) {
	f := newFixture(t)
	resp := f.lookup("4000000000009003", func(r *message.LookupRequest) {
		r.ExternalReferenceID = "4111111111111111"
		r.Card.CardholderName = "Jane 4000 0000 0000 9003"
		r.MerchantName = "Shop 5200000000001005"
	})
	if resp.ExternalReferenceID != "4111111111111111" {
		t.Errorf("the answer's reference = %q, want it as sent", resp.ExternalReferenceID)
	}
	s := f.events.last(resp.ThreeDSServerTransID).Transaction
	want := state.Summary{ExternalReferenceID: "411111******1111", CardholderName: "Jane 4000 00** **** 9003", MerchantName: "Shop 520000******1005"}
	if s.ExternalReferenceID != want.ExternalReferenceID || s.CardholderName != want.CardholderName || s.MerchantName != want.MerchantName {
		t.Errorf("the event's summary = %+v, want the free text masked as %+v", s, want)
	}
	stored, err := f.store.Get(t.Context(), resp.ThreeDSServerTransID)
	if err != nil {
		t.Fatal(err)
	}
	if got := emulator.StoredSummary(stored); got.ExternalReferenceID != want.ExternalReferenceID || strings.Contains(got.MerchantName, "5200000000001005") {
		t.Errorf("StoredSummary = %+v, want it masked", got)
	}
}
