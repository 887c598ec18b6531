package wire

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// stdEncode is what encoding/json writes for v with HTML left unescaped,
// the reference the hand-written encoders must match byte for byte.
func stdEncode(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// fill sets every string field of the struct *p to value(i) for field i,
// so a missing or misnamed member shows up.
func fill(p any, value func(i int) string) {
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			f.SetString(value(i))
		}
	}
}

// withHTML is a lookup answer as encoding/json writes it with its
// challengeHtml member, which the engine's struct leaves to the transport.
type withHTML struct {
	Status        string `json:"status"`
	ChallengeHTML string `json:"challengeHtml,omitempty"`
}

// tricky are values that exercise every escape of appendString.
var tricky = []string{
	"", "Y", "05", "plain ascii", `quote " and backslash \`, "<form action=\"x\">&amp;</form>",
	"line\nbreak\r\ttab", "\b\f\x00\x01\x1f\x7f", "héllo wörld €", "\u2028\u2029", "bad \xff\xfe utf8",
	"emoji 😀", "\xed\xa0\x80 surrogate", "end\\",
}

func TestAppendResponsesMatchEncodingJSON(t *testing.T) {
	for _, s := range tricky {
		for _, empty := range []bool{false, true} {
			value := func(i int) string {
				if empty && i%2 == 1 {
					return "" // omitempty members left out
				}
				return s + string(rune('a'+i))
			}
			var l message.LookupResponse
			fill(&l, value)
			if got, want := AppendLookupResponse(nil, &l, ""), stdEncode(t, l); !bytes.Equal(got, want) {
				t.Errorf("AppendLookupResponse(%q):\n got %s\nwant %s", s, got, want)
			}
			// challengeHtml follows status, as spec 2.13 lists it.
			html := value(1)
			head := stdEncode(t, withHTML{Status: l.Status, ChallengeHTML: html})
			head = head[:len(head)-2] // without "}\n"
			if got := AppendLookupResponse(nil, &l, html); !bytes.HasPrefix(got, head) {
				t.Errorf("AppendLookupResponse with challengeHtml %q:\n got %s\nwant prefix %s", html, got, head)
			}
			var e message.EnquiryResponse
			fill(&e, value)
			if got, want := AppendEnquiryResponse(nil, &e), stdEncode(t, e); !bytes.Equal(got, want) {
				t.Errorf("AppendEnquiryResponse(%q):\n got %s\nwant %s", s, got, want)
			}
		}
	}
	if got, want := AppendLookupResponse(nil, &message.LookupResponse{}, ""), stdEncode(t, message.LookupResponse{}); !bytes.Equal(got, want) {
		t.Errorf("zero LookupResponse:\n got %s\nwant %s", got, want)
	}
}

// FuzzAppendString checks the string encoder against encoding/json on any
// input, valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := stdEncode(t, s)
		want = want[:len(want)-1] // the Encoder's newline
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q):\n got %s\nwant %s", s, got, want)
		}
	})
}

// BenchmarkAppendLookupResponse encodes a frictionless answer into a
// reused buffer; BenchmarkEncodeLookupResponseStd is encoding/json's cost
// of the same body, for comparison.
func BenchmarkAppendLookupResponse(b *testing.B) {
	r := sampleLookupResponse()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendLookupResponse(buf[:0], &r, "")
	}
}

func BenchmarkEncodeLookupResponseStd(b *testing.B) {
	r := sampleLookupResponse()
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			b.Fatal(err)
		}
	}
}

func sampleLookupResponse() message.LookupResponse {
	return message.LookupResponse{
		Status: "Y", Version: "2.2.0", DSTransID: "f1e2d3c4-b5a6-4978-8a6b-5c4d3e2f1a0b",
		ACSTransID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
		AuthenticationValue: "AJkBBkhgQQAAAE4gSEJydQAAAAA=", ECI: "05", CardScheme: "VISA", CardBIN: "400000",
		ExternalReferenceID: "ORD-20240611-000123", ACSReferenceNumber: "3DS_LOA_ACS_PRIC_020200_17135",
		ACSOperatorID: "ACS-PRIC-9444-7396", AuthenticationType: "01",
	}
}

// TestPlainWord checks the eight-bytes-at-once test of appendString
// against a byte by byte one: a plain word with each byte value at each
// position, and random words.
func TestPlainWord(t *testing.T) {
	check := func(w []byte) {
		want := true
		for _, c := range w {
			want = want && c >= 0x20 && c < 0x7F && c != '"' && c != '\\'
		}
		if got := plainWord(string(w)); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			check(w)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				w[i] = byte(0x20 + rng.IntN(0x60)) // mostly printable ASCII
			}
		}
		check(w[:])
	}
}
