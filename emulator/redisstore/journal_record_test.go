package redisstore

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// FuzzDecodeRecord: whatever Redis hands back, decoding never panics, and
// what decodes encodes back to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	e := journal.Event{Kind: state.EventLookup, Time: time.Unix(1700000000, 5).UTC(), Status: "C", Detail: "d",
		Request: []byte(`{"a":1}`), Response: []byte(`{"status":"C"}`),
		Challenge: &message.ChallengeIndication{ACSURL: "https://a", CReq: "x", SessionData: "s", WindowSize: 2}}
	f.Add(appendRecord(nil, &e))
	e.Challenge, e.Request = nil, nil
	f.Add(appendRecord(nil, &e))
	f.Add([]byte("E"))
	f.Add([]byte{})
	f.Add([]byte("E\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeRecord(b)
		if err != nil {
			return
		}
		if again := appendRecord(nil, &e); !bytes.Equal(again, b) {
			// Varints have one shortest form; a longer one decodes the same.
			if e2, err := decodeRecord(again); err != nil || !sameEvent(e, e2) {
				t.Fatalf("decode(encode(decode(b))) differs: %+v vs %+v (%v)", e, e2, err)
			}
		}
	})
}

func sameEvent(a, b journal.Event) bool {
	if (a.Challenge == nil) != (b.Challenge == nil) || (a.Challenge != nil && *a.Challenge != *b.Challenge) {
		return false
	}
	return a.Kind == b.Kind && a.Time.Equal(b.Time) && a.Status == b.Status && a.Detail == b.Detail &&
		bytes.Equal(a.Request, b.Request) && bytes.Equal(a.Response, b.Response)
}

// FuzzUnpackSummary: whatever Redis hands back as a packed summary,
// unpacking never panics, keeps the fields already set, and what
// appendSummary packs unpacks to the values it packed.
func FuzzUnpackSummary(f *testing.F) {
	ev := state.Event{Kind: state.EventLookup, Time: time.Unix(1700000000, 5),
		Transaction: state.Summary{ThreeDSServerTransID: "tx=1:", Status: "C", CardholderName: "Jane\x00 Doe=3:",
			MerchantName: "Shop", Fallback: true}}
	f.Add(string(appendSummary(nil, ev)), "x")
	f.Add("st=1:Y", "")
	f.Add("st=9:Y", "")
	f.Add("st=-1:Y", "")
	f.Fuzz(func(t *testing.T, packed, cc string) {
		m := map[string]string{"cc": cc}
		unpackSummary(m, packed)
		if m["cc"] != cc {
			t.Errorf("cc = %q after unpacking, want the field set before, %q", m["cc"], cc)
		}
		ev.Transaction.StatusReason = packed
		m = map[string]string{}
		unpackSummary(m, string(appendSummary(nil, ev)))
		if m["sr"] != packed || m["id"] != ev.Transaction.ThreeDSServerTransID || m["chn"] != ev.Transaction.CardholderName ||
			m["fb"] != "true" || m["le"] != "lookup" || m["c"] != "1700000000000000005" {
			t.Errorf("unpacked %q", m)
		}
	})
}

// FuzzUnpackEvent: whatever Redis hands back as an event of a stream
// entry, splitting it never panics and never reads beyond it; what
// packEvent packs splits back into the record and the summary it packed,
// and the summary folds back into the event it came from.
func FuzzUnpackEvent(f *testing.F) {
	ev := state.Event{Namespace: "ns", Kind: state.EventEnquiry, Time: time.Unix(1700000000, 5).UTC(),
		Transaction: state.Summary{ThreeDSServerTransID: "tx-1", Status: "Y", ECI: "05", MerchantName: "Shop"}}
	e := journal.Event{Kind: ev.Kind, Time: ev.Time, Status: "Y", Response: []byte(`{"transactionStatus":"Y"}`)}
	f.Add(string(packEvent(nil, &e, ev)), "Shop")
	f.Add("\x00\x00\x00\x05E", "")
	f.Add("\xff\xff\xff\xff", "")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, v, merchant string) {
		if rec, sum, ok := unpackEvent(v); ok && len(rec)+len(sum)+4 != len(v) {
			t.Fatalf("split %d bytes into %d and %d", len(v), len(rec), len(sum))
		}
		ev.Transaction.MerchantName = merchant
		rec, sum, ok := unpackEvent(string(packEvent(nil, &e, ev)))
		if !ok {
			t.Fatal("packEvent's value does not split")
		}
		got, err := decodeRecord([]byte(rec))
		if err != nil || !sameEvent(got, e) {
			t.Fatalf("record = %+v, %v; want %+v", got, err, e)
		}
		back, ok := eventOf("ns", "tx-1", sum)
		if !ok || back.Kind != ev.Kind || !back.Time.Equal(ev.Time) || back.Transaction != ev.Transaction {
			t.Fatalf("event folded back = %+v, %v; want %+v", back, ok, ev)
		}
	})
}

// FuzzReadChunk: whatever Redis hands back as a stream entry's events,
// reading it never panics, never decompresses beyond its bound, and calls
// back only for a whole entry; what the writer packs reads back the same.
func FuzzReadChunk(f *testing.F) {
	plain := appendChunkEvent(appendChunkEvent(nil, "tx-1", "\x00\x00\x00\x01Ec=19:"), "tx-2", "")
	f.Add(string(s2.Encode(nil, plain)), "tx-3", "value")
	f.Add(string(s2.Encode(nil, []byte{0x05, 'a'})), "", "")
	f.Add("\xff\xff\xff\xff\x0f", "x", "y")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, z, id, value string) {
		n := 0
		if err := readChunk(z, func([]byte, []byte) { n++ }); err != nil && n > 0 {
			t.Fatalf("%d events called back from an entry that fails: %v", n, err)
		}
		var got []string
		b := appendChunkEvent(appendChunkEvent(nil, id, value), "tx-1", value)
		err := readChunk(string(s2.Encode(nil, b)), func(id, value []byte) { got = append(got, string(id), string(value)) })
		if len(b) > maxChunkPlain {
			return
		}
		if err != nil || len(got) != 4 || got[0] != id || got[1] != value || got[2] != "tx-1" || got[3] != value {
			t.Fatalf("read back %q, %v; want %q and tx-1, each with %q", got, err, id, value)
		}
	})
}

// TestPackedSize: packEvent fits in the buffer packedSize asks for, so a
// recorded event takes one allocation.
func TestPackedSize(t *testing.T) {
	t.Parallel()
	sum := state.Summary{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-000000000001", ExternalReferenceID: strings.Repeat("R", 64),
		ScenarioID: "visa-challenge-long-name", MaskedPAN: "400000******1109", CardBIN: "400000", CardScheme: "MASTERCARD",
		Version: "2.2.0", Status: "C", StatusReason: "01", ECI: "05", ChallengeCancel: "01", Fallback: true,
		CardholderName: strings.Repeat("N", 45), MerchantName: strings.Repeat("M", 40), Amount: "1234567.89", Currency: "EUR"}
	for _, kind := range []state.EventKind{state.EventLookup, state.EventEnquiry, state.EventDecision} {
		ev := state.Event{Namespace: "ns", Kind: kind, Time: time.Now(), Detail: "pass -> Y", Transaction: sum,
			Request: []byte(`{"a":1}`)}
		e := journal.Event{Kind: kind, Time: ev.Time, Status: "C", Detail: ev.Detail, Request: ev.Request, Response: []byte(`{"status":"C"}`),
			Challenge: &message.ChallengeIndication{ACSURL: "https://acs.example/c", CReq: strings.Repeat("c", 300), SessionData: "sd", WindowSize: 5}}
		n := packedSize(&e, sum)
		if got := len(packEvent(make([]byte, 0, n), &e, ev)); got > n {
			t.Errorf("%s: packEvent took %d bytes, packedSize said %d", kind, got, n)
		}
	}
}
