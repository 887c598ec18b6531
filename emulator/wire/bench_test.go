package wire

import (
	"testing"
)

// Allocation budgets of the decoding hot paths (BenchmarkDecodeLookup in
// lookup_test.go, BenchmarkDecodeEnquiry below), in allocations per call:
// about twice what a call allocates today, so that only a real regression
// (a second decoding pass, a copy per field) trips TestAllocBudgets.
const (
	budgetDecodeLookup  = 35 // measured 17
	budgetDecodeEnquiry = 10 // measured 4
)

// enquiryBody is a realistic enquiry: both keys, as SDKs send them.
const enquiryBody = `{"threeDsServerTransId":"8A880DC0-D2D2-4067-BCB1-B08D1690B26E","externalReferenceId":"ORD-20240611-000123"}`

// decodeLookupOnce decodes and validates body, failing tb on any problem.
// Call it only from the test's own goroutine.
func decodeLookupOnce(tb testing.TB, body []byte) {
	if _, _, err := DecodeLookup(body); err != nil {
		tb.Fatalf("DecodeLookup: %v", err)
	}
}

// decodeEnquiryOnce is decodeLookupOnce for an enquiry.
func decodeEnquiryOnce(tb testing.TB, body []byte) {
	if _, _, err := DecodeEnquiry(body); err != nil {
		tb.Fatalf("DecodeEnquiry: %v", err)
	}
}

// BenchmarkDecodeLookupParallel is BenchmarkDecodeLookup (lookup_test.go)
// on every CPU at once: decoding shares nothing, so it should scale.
func BenchmarkDecodeLookupParallel(b *testing.B) {
	body := baseBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := DecodeLookup(body); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkDecodeEnquiry decodes an enquiry by transaction id and reference.
func BenchmarkDecodeEnquiry(b *testing.B) {
	body := []byte(enquiryBody)
	b.ReportAllocs()
	for b.Loop() {
		decodeEnquiryOnce(b, body)
	}
}

// TestAllocBudgets fails when a decoding path allocates far beyond its
// budget. Allocation counts, not timings: the check is stable on any
// machine. It is skipped under the race detector, which changes them.
func TestAllocBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector; run go test -run TestAllocBudgets without -race")
	}
	lookup, enquiry := baseBody(t), []byte(enquiryBody)
	tests := []struct {
		name   string
		budget float64
		fn     func()
	}{
		{"DecodeLookup", budgetDecodeLookup, func() { decodeLookupOnce(t, lookup) }},
		{"DecodeEnquiry", budgetDecodeEnquiry, func() { decodeEnquiryOnce(t, enquiry) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testing.AllocsPerRun(50, tt.fn)
			if got > tt.budget {
				t.Errorf("got %.0f allocs/op, want at most %.0f (the budget in bench_test.go)", got, tt.budget)
			}
			t.Logf("%.0f allocs/op (budget %.0f)", got, tt.budget)
		})
	}
}
