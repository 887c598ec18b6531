package wire

import (
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// TestMissingFieldHints: a required field that is missing while its
// object holds the same name spelt another way (case, separators, or the
// EMV name) gets a reason that names both.
func TestMissingFieldHints(t *testing.T) {
	tests := []struct {
		name   string
		edits  []wiretest.Edit
		field  string
		reason string // "" for no hint
	}{
		{"EMV name at the top", []wiretest.Edit{del("threeDsRequestorAuthInd"), set("threeDSRequestorAuthenticationInd", "01")},
			"threeDsRequestorAuthInd", "is required; did you mean threeDsRequestorAuthInd? (the body has threeDSRequestorAuthenticationInd)"},
		{"case", []wiretest.Edit{del("externalReferenceId"), set("externalReferenceID", "ORD-1")},
			"externalReferenceId", "is required; did you mean externalReferenceId? (the body has externalReferenceID)"},
		{"snake case", []wiretest.Edit{del("messageCategory"), set("message_category", "01")},
			"messageCategory", "is required; did you mean messageCategory? (the body has message_category)"},
		{"an alias's case", []wiretest.Edit{del("acquirerBin"), set("AcquirerBin", "412345")},
			"acquirerBIN", "is required; did you mean acquirerBIN? (the body has AcquirerBin)"},
		{"merchant id", []wiretest.Edit{del("merchantCode"), set("acquirerMerchantID", "M-1")},
			"merchantCode", "is required; did you mean merchantCode? (the body has acquirerMerchantID)"},
		{"card number under acctNumber", []wiretest.Edit{del("card.cardNumber"), set("card.acctNumber", "4000000000009003")},
			"card.cardNumber", "is required; did you mean cardNumber? (the body has card.acctNumber)"},
		{"EMV browser name", []wiretest.Edit{del("browserInfo.language"), set("browserInfo.browserLanguage", "en-GB")},
			"browserInfo.language", "is required; did you mean language? (the body has browserInfo.browserLanguage)"},
		{"EMV time zone", []wiretest.Edit{del("browserInfo.timeZone"), set("browserInfo.browserTZ", "-60")},
			"browserInfo.timeZone", "is required; did you mean timeZone? (the body has browserInfo.browserTZ)"},
		{"EMV currency", []wiretest.Edit{del("purchase.currencyCode"), set("purchase.purchaseCurrency", "978")},
			"purchase.currencyCode", "is required; did you mean currencyCode? (the body has purchase.purchaseCurrency)"},
		{"EMV phone", []wiretest.Edit{del("mobilePhone.countryCode"), set("mobilePhone.cc", "44")},
			"mobilePhone.countryCode", "is required; did you mean countryCode? (the body has mobilePhone.cc)"},
		{"conditional field", []wiretest.Edit{set("threeDsRequestorAuthInd", "03"), set("installmentData", num("3")),
			set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})},
			"instalmentData", "is required; did you mean instalmentData? (the body has installmentData)"},
		{"unrelated unknown key", []wiretest.Edit{del("ddcId"), set("ddc", "x")}, "ddcId", ""},
		{"right name in another object", []wiretest.Edit{del("browserInfo.language"), set("language", "en-GB")}, "browserInfo.language", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeLookup(edited(t, tt.edits...))
			e := asError(t, err)
			if len(e.Problems) != 1 || e.Problems[0].Field != tt.field || e.Problems[0].EMVCode != "201" {
				t.Fatalf("problems = %+v, want one 201 on %s", e.Problems, tt.field)
			}
			want := tt.reason
			if want == "" {
				want = "is required"
			}
			if got := e.Problems[0].Reason; got != want {
				t.Errorf("reason = %q, want %q", got, want)
			}
		})
	}
}

func TestEnquiryHints(t *testing.T) {
	const id = `"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"`
	tests := []struct {
		body, hint string
	}{
		{`{"threeDSServerTransID": ` + id + `}`, "did you mean threeDsServerTransId? (the body has threeDSServerTransID)"},
		{`{"threeDSServerTransactionId": ` + id + `}`, "did you mean threeDsServerTransId? (the body has threeDSServerTransactionId)"},
		{`{"three_ds_server_trans_id": ` + id + `}`, "did you mean threeDsServerTransId? (the body has three_ds_server_trans_id)"},
		{`{"externalReferenceID": "ORD-1"}`, "did you mean externalReferenceId? (the body has externalReferenceID)"},
		{`{"orderId": "ORD-1"}`, ""},
	}
	for _, tt := range tests {
		_, _, err := DecodeEnquiry([]byte(tt.body))
		e := asError(t, err)
		if len(e.Problems) != 1 || e.Problems[0].EMVCode != "201" {
			t.Fatalf("%s: problems = %+v, want one 201", tt.body, e.Problems)
		}
		reason := e.Problems[0].Reason
		if tt.hint == "" && strings.Contains(reason, "did you mean") || !strings.HasSuffix(reason, tt.hint) {
			t.Errorf("%s: reason = %q, want it to end with %q", tt.body, reason, tt.hint)
		}
		if !strings.HasPrefix(reason, "one of threeDsServerTransId and externalReferenceId is required") {
			t.Errorf("%s: reason = %q does not use the spec's spelling", tt.body, reason)
		}
	}
}
