package message_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// emvCode is the EMV code of a failure: "" for none, "?" for an error
// that is not an *emv.Error.
func emvCode(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := emv.As(err); ok {
		return e.EMVCode
	}
	return "?"
}

func TestParseMessages(t *testing.T) {
	enc := func(s string) string {
		m, _ := message.EncodeMessage(jsonRaw(s))
		return m
	}
	const ids = `"threeDSServerTransID":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e","acsTransID":"D7C1EE99-9478-44A6-B1F2-391E29C6B340"`
	good := `{` + ids + `,"messageType":"CReq","messageVersion":"2.2.0","challengeWindowSize":"05"}`
	with := func(extra string) string { return strings.TrimSuffix(good, "}") + "," + extra + "}" }
	for _, tt := range []struct {
		name, creq, emv, detail string
	}{
		{"valid", enc(good), "", ""},
		{"an unknown element is ignored", enc(with(`"sdkCounterStoA":"001","future":{"x":[1,2]}`)), "", ""},
		{"a non-critical extension is ignored", enc(with(`"messageExtension":[{"name":"x","id":"ID-1","criticalityIndicator":false,"data":{"a":1}}]`)), "", ""},
		{"a critical extension is refused", enc(with(`"messageExtension":[{"name":"x","id":"ID-9","criticalityIndicator":true,"data":{}}]`)), "202", "messageExtension.ID-9"},
		{"a duplicate key", enc(with(`"messageType":"CReq"`)), "204", "messageType"},
		{"a duplicate key in an extension", enc(with(`"messageExtension":[{"id":"a","id":"b"}]`)), "204", "messageExtension.id"},
		{"missing", "", "201", "creq"},
		{"not Base64", "%%%", "203", "creq"},
		{"not JSON", enc(`[1]`), "203", "creq"},
		{"a field missing", enc(`{"threeDSServerTransID":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e","messageType":"CReq","messageVersion":"2.2.0","challengeWindowSize":"05"}`), "201", "acsTransID"},
		{"a malformed threeDSServerTransID", enc(strings.Replace(good, "8a880dc0-d2d2", "8a880dc0xd2d2", 1)), "203", "threeDSServerTransID"},
		{"a malformed acsTransID", enc(strings.Replace(good, "D7C1EE99-9478-44A6-B1F2-391E29C6B340", "../../etc", 1)), "203", "acsTransID"},
		{"wrong messageType", enc(strings.Replace(good, `"CReq"`, `"CRes"`, 1)), "203", "messageType"},
		{"window size 06", enc(strings.Replace(good, `"05"`, `"06"`, 1)), "203", "challengeWindowSize"},
	} {
		_, err := message.ParseCReq(tt.creq)
		if emvCode(err) != tt.emv {
			t.Errorf("ParseCReq %s: %v, want %q", tt.name, err, tt.emv)
			continue
		}
		if e, ok := emv.As(err); ok && e.Detail != tt.detail {
			t.Errorf("ParseCReq %s: detail %q, want %q", tt.name, e.Detail, tt.detail)
		}
	}
	for _, tt := range []struct{ name, cres, emv string }{
		{"valid", enc(`{"threeDSServerTransID":"a","transStatus":"Y"}`), ""},
		{"empty", "", "201"},
		{"not Base64", "***", "203"},
		{"no id", enc(`{"transStatus":"Y"}`), "203"},
	} {
		if _, err := message.ParseCRes(tt.cres); emvCode(err) != tt.emv {
			t.Errorf("ParseCRes %s: %v, want %q", tt.name, err, tt.emv)
		}
	}
}

// jsonRaw is a message already in JSON.
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }

func TestDecodeBase64Variants(t *testing.T) {
	raw := []byte{0xfb, 0xff, 0xfe, 'a'}
	for _, s := range []string{
		base64.RawURLEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw),
		base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw),
	} {
		got, err := message.DecodeBase64(s)
		if err != nil || string(got) != string(raw) {
			t.Errorf("DecodeBase64(%q) = %v, %v", s, got, err)
		}
	}
}

// FuzzParseCReq: any creq field gets a CReq or an *Error with an EMV code,
// never a panic; a valid CReq round-trips.
func FuzzParseCReq(f *testing.F) {
	good, _ := message.EncodeMessage(message.CReq{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", ACSTransID: "d7c1ee99-9478-44a6-b1f2-391e29c6b340", MessageType: "CReq", MessageVersion: "2.2.0", ChallengeWindowSize: "05"})
	for _, s := range []string{good, "", "e30", "eyJ4IjoxfQ", "%%%", good + "==", strings.ReplaceAll(good, "_", "/")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := message.ParseCReq(s)
		if err != nil {
			e, ok := emv.As(err)
			if !ok || !strings.Contains("201 202 203 204", e.EMVCode) || len(e.EMVCode) != 3 || e.Detail == "" {
				t.Fatalf("ParseCReq(%q) error %v is not a 201-204 *emv.Error with detail", s, err)
			}
			return
		}
		again, err := message.EncodeMessage(c)
		if err != nil {
			t.Fatal(err)
		}
		if c2, err := message.ParseCReq(again); err != nil || c2 != c {
			t.Fatalf("round trip: %+v vs %+v (%v)", c, c2, err)
		}
	})
}

// FuzzDecodeMethodData checks that the threeDSMethodData decoder never
// panics, fails only with *emv.Error, and that what it accepts
// encodes back to data it accepts the same.
func FuzzDecodeMethodData(f *testing.F) {
	f.Add(message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: "5d5e5a1c-0000-4000-8000-000000000000", NotificationURL: "https://m.example/n"}), true)
	f.Add(message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: "5D5E5A1C-0000-4000-8000-000000000000"}), false)
	f.Add("eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6MX0=", true)
	f.Add("%%", false)
	f.Add("", true)
	f.Fuzz(func(t *testing.T, s string, needURL bool) {
		m, err := message.DecodeMethodData(s, needURL)
		if err != nil {
			if _, ok := emv.As(err); !ok {
				t.Fatalf("failure %v is not an *emv.Error", err)
			}
			return
		}
		if needURL && m.NotificationURL == "" || len(m.ThreeDSServerTransID) != 36 || m.ThreeDSServerTransID != strings.ToLower(m.ThreeDSServerTransID) {
			t.Fatalf("accepted %+v", m)
		}
		again, err := message.DecodeMethodData(message.EncodeMethodData(m), needURL)
		if err != nil || again != m {
			t.Fatalf("round trip of %+v: %+v, %v", m, again, err)
		}
	})
}
