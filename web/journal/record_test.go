package journal

import (
	"bytes"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// FuzzDecodeRecord: whatever Redis hands back, decoding never panics, and
// what decodes encodes back to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	e := Event{Kind: emulator.EventLookup, Time: time.Unix(1700000000, 5).UTC(), Status: "C", Detail: "d",
		Request: []byte(`{"a":1}`), Response: []byte(`{"status":"C"}`),
		Challenge: &emulator.ChallengeIndication{ACSURL: "https://a", CReq: "x", SessionData: "s", WindowSize: 2}}
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

func sameEvent(a, b Event) bool {
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
	ev := emulator.Event{Kind: emulator.EventLookup, Time: time.Unix(1700000000, 5),
		Transaction: emulator.Summary{ThreeDSServerTransID: "tx=1:", Status: "C", CardholderName: "Jane\x00 Doe=3:",
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
