package wire

import (
	"reflect"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios/iso"
)

// validEMV are the EMV codes the decoders may report.
var validEMV = map[string]bool{"101": true, "102": true, "201": true, "203": true, "204": true, "304": true}

// checkError fails unless err is a complete *emv.Error.
func checkError(t *testing.T, body []byte, err error) {
	t.Helper()
	e, ok := err.(*emv.Error)
	if !ok {
		t.Fatalf("body %q: error %T (%v), want *emv.Error", body, err, err)
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
	// Text, amounts, time zones, languages, currencies, instalments, hints.
	f.Add(edited(f, set("merchantName", "a\x00b"), set("session", wiretest.Raw(`"\udc00\ud800\ud83d\ude00"`)), set("card.cardholderName", "<J>\x7f")))
	f.Add(edited(f, set("purchase.amount", num("1.5e2")), set("purchase.currencyCode", "JPY")))
	f.Add(edited(f, set("purchase.amount", num("1E-400")), set("purchase.currencyCode", "XTS"), set("merchantRiskInfo.giftCardCurr", "999")))
	f.Add(edited(f, set("purchase.amount", "10.001"), set("purchase.currencyCode", "414")))
	f.Add(edited(f, set("browserInfo.timeZone", num("-840")), set("browserInfo.language", "zh-Hant")))
	f.Add(edited(f, set("browserInfo.timeZone", "99999"), set("browserInfo.language", "en_GB")))
	f.Add(edited(f, set("threeDsRequestorAuthInd", "03"), set("purchase.instalData", "6"), set("instalmentData", "7"),
		set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})))
	f.Add(edited(f, del("card.cardNumber"), set("card.acctNumber", "4000000000009003"), del("ddcId"), set("DDC_ID", "x")))
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
		if p := r1.Purchase; p != nil {
			if code, _ := decimal(p.Amount); code != "" {
				t.Fatalf("body %q: accepted amount %q is not plain decimal text", body, p.Amount)
			}
			if units, ok := iso.MinorUnits(p.CurrencyCode); ok && decimalPlaces(p.Amount) > units {
				t.Fatalf("body %q: accepted amount %q beyond the minor unit of %s", body, p.Amount, p.CurrencyCode)
			}
		}
		if tz := r1.Browser.TimeZone; tz != "" {
			if code, _ := timeZoneOffset(tz); code != "" {
				t.Fatalf("body %q: accepted timeZone %q", body, tz)
			}
		}
		r2, ig2, err := DecodeLookup(body)
		if err != nil || !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(ig1, ig2) {
			t.Fatalf("body %q: second decode differs: %+v, %v", body, r2, err)
		}
	})
}

func FuzzDecodeThreeRI(f *testing.F) {
	lookupSeeds(f)
	prior := "threeDsRequestorPriorAuthenticationInfo"
	f.Add(threeRIBody(f))
	f.Add(threeRIBody(f, set("messageVersion", "2.1.0"), set("threeRIInd", "06"), set("deviceChannel", "2")))
	f.Add(threeRIBody(f, set("purchase", map[string]any{"amount": num("1")}), set("recurring", "x"), set("instalmentData", num("3"))))
	f.Add(threeRIBody(f, set(prior, map[string]any{"threeDsReqPriorRef": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
		"threeDsReqPriorAuthMethod": "02", "threeDsReqPriorAuthTimestamp": "202402291159", "threeDsReqPriorAuthData": "x"})))
	f.Add(threeRIBody(f, set("threeDSRequestorPriorAuthenticationInfo", map[string]any{"threeDSReqPriorRef": "x", "threeDsReqPriorRef": "y"}),
		set(prior, []any{1})))
	f.Fuzz(func(t *testing.T, body []byte) {
		r1, ig1, err := DecodeThreeRI(body)
		if err != nil {
			checkError(t, body, err)
			return
		}
		if r1.DeviceChannel != 3 || r1.Purchase != nil || r1.Recurring != nil || r1.InstalmentData != 0 || r1.Browser != (message.BrowserInfo{}) {
			t.Fatalf("body %q: accepted %+v", body, r1)
		}
		known := false
		for _, ind := range scenarios.ThreeRIInds(r1.MessageVersion) {
			known = known || ind.Code == r1.ThreeRIInd
		}
		if !known || r1.PriorAuth != nil && len(r1.PriorAuth.Ref) != 36 {
			t.Fatalf("body %q: accepted threeRIInd %q, prior %+v", body, r1.ThreeRIInd, r1.PriorAuth)
		}
		r2, ig2, err := DecodeThreeRI(body)
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
		`{"threeDSServerTransID": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`,
		`{"externalReferenceId": "a\u0000", "EXTERNAL_REFERENCE_ID": "b"}`,
		`{"externalReferenceId": "\ud800", "k": {"a": [1, {"b": 2, "b": 3}]}}`,
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
