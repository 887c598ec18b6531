package wire

import (
	"reflect"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// validEMV are the EMV codes the decoders may report.
var validEMV = map[string]bool{"101": true, "102": true, "201": true, "203": true, "204": true, "304": true}

// checkError fails unless err is a complete *emulator.Error.
func checkError(t *testing.T, body []byte, err error) {
	t.Helper()
	e, ok := err.(*emulator.Error)
	if !ok {
		t.Fatalf("body %q: error %T (%v), want *emulator.Error", body, err, err)
	}
	if e.Code == "" || !validEMV[e.EMVCode] || e.Message == "" || e.Detail == "" || e.Description == "" {
		t.Fatalf("body %q: incomplete error %+v", body, e)
	}
	if e.EMVCode != "101" && len(e.Problems) == 0 {
		t.Fatalf("body %q: error %+v lists no problems", body, e)
	}
	for _, p := range e.Problems {
		if p.Field == "" || !validEMV[p.EMVCode] || p.Reason == "" {
			t.Fatalf("body %q: incomplete problem %+v", body, p)
		}
	}
}

func lookupSeeds(f *testing.F) {
	f.Add(baseBody(f))
	f.Add(edited(f, set("acquirerBIN", "412345"), set("deviceChannel", "2"), set("browserInfo.screenWidth", num("1920"))))
	f.Add(edited(f, set("threeDsRequestorAuthInd", "03"), set("instalmentData", num("3")),
		set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})))
	f.Add(edited(f, set("messageVersion", "2.0.0"), set("deviceChannel", num("1"))))
	f.Add(edited(f, set("purchase.amount", "0.00"), set("purchase.currencyCode", "978"), set("card.cardNumber", "4000000000000000002")))
	f.Add([]byte(`{"card": {"cardNumber": "4000000000001000", "cardNumber": ""}, "a": {"b": [{"c": 1, "c": 2}]}}`))
	f.Add([]byte(`{"purchase": {"date": "2024-02-29 23:59:59", "amount": 1e2}, "browserInfo": {"timeZone": "-0"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"x": "\ud800", "y": 18446744073709551616}`))
	f.Add([]byte(`[`))
}

func FuzzDecodeLookup(f *testing.F) {
	lookupSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		r1, ig1, err := DecodeLookup(body)
		if err != nil {
			checkError(t, body, err)
			return
		}
		if r1.DeviceChannel != 2 {
			t.Fatalf("body %q: accepted with deviceChannel %d", body, r1.DeviceChannel)
		}
		r2, ig2, err := DecodeLookup(body)
		if err != nil || !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(ig1, ig2) {
			t.Fatalf("body %q: second decode differs: %+v, %v", body, r2, err)
		}
	})
}

func FuzzDecodeEnquiry(f *testing.F) {
	for _, s := range []string{
		`{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`,
		`{"externalReferenceId": "ORD-1", "threeDsServerTransId": null}`,
		`{"threeDsServerTransId": "8A880DC0-D2D2-4067-BCB1-B08D1690B26E", "externalReferenceId": "x", "other": [1]}`,
		`{"externalReferenceId": "a", "externalReferenceId": "a"}`,
		`{}`, `null`, ``, `{"threeDsServerTransId": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r1, ig1, err := DecodeEnquiry(body)
		if err != nil {
			checkError(t, body, err)
			return
		}
		if r1.ThreeDSServerTransID == "" && r1.ExternalReferenceID == "" {
			t.Fatalf("body %q: accepted without an identifier", body)
		}
		r2, ig2, err := DecodeEnquiry(body)
		if err != nil || r1 != r2 || !reflect.DeepEqual(ig1, ig2) {
			t.Fatalf("body %q: second decode differs: %+v, %v", body, r2, err)
		}
	})
}
