package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Allocation budgets of the decoding hot paths (BenchmarkDecodeLookup in
// lookup_test.go, BenchmarkDecodeEnquiry below), in allocations per call:
// about twice what a call allocates today, so that only a real regression
// (a second decoding pass, a copy per field) trips TestAllocBudgets.
const (
	budgetDecodeLookup  = 2 // measured 1: the decoding with the lookup's objects
	budgetDecodeEnquiry = 4 // measured 2: the decoding, and the lower-cased id
	budgetDecodeThreeRI = 2 // measured 1: the decoding, as the browser lookup's
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

// BenchmarkValidStd is the baseline of BenchmarkDecodeLookup
// (lookup_test.go): the standard library's json.Valid on the same body,
// a syntax check and nothing else, the least any JSON API does with a
// body. DecodeLookup also fills the lookup and judges every field.
func BenchmarkValidStd(b *testing.B) {
	body := baseBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(body) {
			b.Fatal("json.Valid refused the lookup body")
		}
	}
}

// BenchmarkDecodeLookupCompact is BenchmarkDecodeLookup (lookup_test.go)
// on the body without white space, as most clients send it.
func BenchmarkDecodeLookupCompact(b *testing.B) {
	var body bytes.Buffer
	if err := json.Compact(&body, baseBody(b)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	testkit.ReportCPU(b, func() {
		for b.Loop() {
			decodeLookupOnce(b, body.Bytes())
		}
	})
}

// BenchmarkDecodeEnquiry decodes an enquiry by transaction id and reference.
func BenchmarkDecodeEnquiry(b *testing.B) {
	body := []byte(enquiryBody)
	b.ReportAllocs()
	testkit.ReportCPU(b, func() {
		for b.Loop() {
			decodeEnquiryOnce(b, body)
		}
	})
}

// TestAllocBudgets fails when a decoding path allocates far beyond its
// budget. Allocation counts, not timings: the check is stable on any
// machine. It is skipped under the race detector, which changes them.
func TestAllocBudgets(t *testing.T) {
	lookup, enquiry, threeRI := baseBody(t), []byte(enquiryBody), threeRIBody(t)
	testkit.CheckBudgets(t, 50,
		testkit.Budget{Name: "DecodeLookup", Max: budgetDecodeLookup, Fn: func() error { decodeLookupOnce(t, lookup); return nil }},
		testkit.Budget{Name: "DecodeEnquiry", Max: budgetDecodeEnquiry, Fn: func() error { decodeEnquiryOnce(t, enquiry); return nil }},
		testkit.Budget{Name: "DecodeThreeRI", Max: budgetDecodeThreeRI, Fn: func() error {
			if _, _, err := DecodeThreeRI(threeRI); err != nil {
				t.Fatalf("DecodeThreeRI: %v", err)
			}
			return nil
		}},
	)
}

// withUnknownKeys returns the base lookup with n extra top-level members
// that no rule knows ("u00000": 0, ...), as a hostile or badly generated
// body sends them.
func withUnknownKeys(tb testing.TB, n int) []byte {
	tb.Helper()
	base := baseBody(tb)
	var b bytes.Buffer
	b.Grow(len(base) + n*12)
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"u%05d":0,`, i)
	}
	b.Write(base[bytes.IndexByte(base, '{')+1:])
	return b.Bytes()
}

// BenchmarkDecodeLookupUnknownKeys decodes a lookup carrying many unknown
// top-level keys: the cost must grow linearly with their number, and a
// body beyond the decoder's bounds must be refused early.
func BenchmarkDecodeLookupUnknownKeys(b *testing.B) {
	for _, n := range []int{200, 1000, 8000, 16000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			body := withUnknownKeys(b, n)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				DecodeLookup(body) // accepted, or refused by a bound: both are fine here
			}
		})
	}
}
