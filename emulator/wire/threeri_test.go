package wire

import (
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

// threeRIBody returns the 3RI lookup of the browser lookup's base, every
// shared field kept, with the edits applied.
func threeRIBody(tb testing.TB, edits ...wiretest.Edit) []byte {
	tb.Helper()
	return channelBody(tb, wiretest.ThreeRIBase, edits...)
}

func TestDecodeThreeRISample(t *testing.T) {
	got, ignored, err := DecodeThreeRI(examples.ThreeRI())
	if err != nil {
		t.Fatalf("DecodeThreeRI(sample): %v (%+v)", err, asError(t, err).Problems)
	}
	if len(ignored) != 0 {
		t.Errorf("ignored = %v, want none", ignored)
	}
	want := message.LookupRequest{
		ExternalReferenceID: examples.ThreeRIReference, ThreeDSRequestorAuthInd: "02", ThreeRIInd: "01",
		AcquirerCode: "3DS Requestor", AcquirerBIN: "412345", MerchantCode: "MERCHANT-0042", DeviceChannel: 3,
		MessageCategory: "01", ThreeDSRequestorChallengeInd: 1, MessageVersion: "2.2.0", RequestFeatures: -1,
		ThreeDSRequestorDecMaxTime: 15, MerchantName: "Example Shop", Email: "jane.doe@example.com",
		Card: message.Card{ExpiryDate: "2812", CardNumber: examples.FrictionlessCard, CardholderName: "Jane A. Doe"},
	}
	if got.Requestor == nil || got.Requestor.ID != "REQ-0042" || got.AccountInfo == nil || got.AccountInfo.PaymentAccInd != "05" {
		t.Errorf("objects = %+v, %+v", got.Requestor, got.AccountInfo)
	}
	got.Requestor, got.AccountInfo = nil, nil
	if got != want {
		t.Errorf("DecodeThreeRI(sample) =\n%+v\nwant\n%+v", got, want)
	}
}

// TestDecodeThreeRIRules: the rules the 3RI lookup shares with the
// browser's, row for row, and its own.
func TestDecodeThreeRIRules(t *testing.T) {
	if _, ignored, err := DecodeThreeRI(threeRIBody(t)); err != nil || len(ignored) != 0 {
		t.Fatalf("the 3RI base: %v, ignored %v", err, ignored)
	}
	checkRows(t, wiretest.ThreeRIRules(), threeRIBody(t), DecodeThreeRI)
}

// checkRows applies each row of a rule table to base and checks that
// decode reports its one problem, as the error's code and detail too.
func checkRows(t *testing.T, rows []wiretest.Case, base []byte, decode func([]byte) (message.LookupRequest, []string, error)) {
	t.Helper()
	if len(rows) < 150 {
		t.Fatalf("%d rows: the shared rows are missing", len(rows))
	}
	for _, tt := range rows {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(base)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = decode(body)
			e := asError(t, err)
			if len(e.Problems) != 1 || !hasProblem(e, tt.EMVCode, tt.Field) {
				t.Fatalf("problems = %+v, want one %s on %s", e.Problems, tt.EMVCode, tt.Field)
			}
			if e.EMVCode != tt.EMVCode || e.Detail != tt.Field || e.Problems[0].Reason == "" {
				t.Errorf("error %s %q %+v, want %s on %s with a reason", e.EMVCode, e.Detail, e.Problems, tt.EMVCode, tt.Field)
			}
		})
	}
}

func TestDecodeThreeRIAccepts(t *testing.T) {
	ref := "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	tests := []struct {
		name  string
		edits []wiretest.Edit
		check func(message.LookupRequest) bool
	}{
		{"a payment without purchase", []wiretest.Edit{set("messageCategory", "01")},
			func(r message.LookupRequest) bool { return r.Purchase == nil && r.MessageCategory == "01" }},
		{"purchase, recurring and instalmentData null count as absent",
			[]wiretest.Edit{set("purchase", nil), set("recurring", nil), set("instalmentData", "")},
			func(r message.LookupRequest) bool {
				return r.Purchase == nil && r.Recurring == nil && r.InstalmentData == 0
			}},
		{"recurring authentication without recurring", []wiretest.Edit{set("threeDsRequestorAuthInd", "02")},
			func(r message.LookupRequest) bool { return r.ThreeDSRequestorAuthInd == "02" }},
		{"instalment without instalmentData", []wiretest.Edit{set("threeDsRequestorAuthInd", "03")},
			func(r message.LookupRequest) bool { return r.ThreeDSRequestorAuthInd == "03" }},
		{"threeRIInd 11 without messageVersion", []wiretest.Edit{del("messageVersion"), set("threeRIInd", "11")},
			func(r message.LookupRequest) bool { return r.ThreeRIInd == "11" }},
		{"threeRIInd 05 on 2.1.0", []wiretest.Edit{set("messageVersion", "2.1.0"), set("threeRIInd", "05")},
			func(r message.LookupRequest) bool { return r.ThreeRIInd == "05" && r.MessageVersion == "2.1.0" }},
		{"deviceChannel as a string", []wiretest.Edit{set("deviceChannel", "3")},
			func(r message.LookupRequest) bool { return r.DeviceChannel == 3 }},
		{"a prior by its reference alone", []wiretest.Edit{set("threeDsRequestorPriorAuthenticationInfo", map[string]any{"threeDsReqPriorRef": ref})},
			func(r message.LookupRequest) bool {
				return r.PriorAuth != nil && r.PriorAuth.Ref == ref && r.PriorAuth.Method == ""
			}},
		{"a prior in EMV's spelling", []wiretest.Edit{set("threeDSRequestorPriorAuthenticationInfo", map[string]any{
			"threeDSReqPriorRef": strings.ToUpper(ref), "threeDSReqPriorAuthMethod": "01", "threeDSReqPriorAuthTimestamp": "202402291159",
			"threeDSReqPriorAuthData": strings.Repeat("d", 2048)})},
			func(r message.LookupRequest) bool {
				p := r.PriorAuth
				return p != nil && p.Ref == strings.ToUpper(ref) && p.Method == "01" && p.Timestamp == "202402291159" && len(p.Data) == 2048
			}},
		{"unknown members ignored, the browser's among them", []wiretest.Edit{set("browserInfo", map[string]any{"language": "en"}), set("ddcId", "x")},
			func(r message.LookupRequest) bool {
				return r.Browser == (message.BrowserInfo{}) && r.DDCID == "" && r.ChallengeWindowSize == 0
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := DecodeThreeRI(threeRIBody(t, tt.edits...))
			if err != nil {
				t.Fatalf("refused: %v (%+v)", err, asError(t, err).Problems)
			}
			if !tt.check(r) {
				t.Errorf("decoded %+v", r)
			}
		})
	}
}

// TestDecodeThreeRIAllProblems: every problem at once, the 3RI's own
// among the shared ones.
func TestDecodeThreeRIAllProblems(t *testing.T) {
	body := threeRIBody(t,
		del("externalReferenceId"),
		set("card.cardNumber", "1234"),
		set("threeRIInd", "12"),
		set("purchase", map[string]any{"amount": "1"}),
		set("threeDsRequestorPriorAuthenticationInfo", map[string]any{"threeDsReqPriorAuthMethod": "09"}),
		set("mobilePhone.subscriber", "12ab"),
	)
	_, _, err := DecodeThreeRI(body)
	e := asError(t, err)
	want := []struct{ code, field string }{
		{"201", "externalReferenceId"},
		{"203", "card.cardNumber"},
		{"203", "threeRIInd"},
		{"203", "purchase"},
		{"201", "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef"},
		{"203", "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorAuthMethod"},
		{"203", "mobilePhone.subscriber"},
	}
	if len(e.Problems) != len(want) {
		t.Errorf("got %d problems %+v, want %d", len(e.Problems), e.Problems, len(want))
	}
	for _, w := range want {
		if !hasProblem(e, w.code, w.field) {
			t.Errorf("problems %+v lack %s on %s", e.Problems, w.code, w.field)
		}
	}
	if e.Code != emv.CodeMissingField {
		t.Errorf("Code = %s, want %s", e.Code, emv.CodeMissingField)
	}
}

// TestDeviceChannelOnTheOtherPath: a lookup of one channel sent to the
// other's path is CH01 when nothing else is wrong, with a reason that
// names the right path; among other problems, it is one of them.
func TestDeviceChannelOnTheOtherPath(t *testing.T) {
	tests := []struct {
		name   string
		decode func([]byte) (message.LookupRequest, []string, error)
		body   []byte
		code   emv.ErrorCode
		reason string
	}{
		{"3RI on the browser path", DecodeLookup, edited(t, set("deviceChannel", num("3"))), emv.CodeDeviceChannel,
			"deviceChannel 3 (3RI) is served on /authentication/3ri; /authentication/brw serves deviceChannel 2 (browser)"},
		{"app on the browser path", DecodeLookup, edited(t, set("deviceChannel", num("1"))), emv.CodeDeviceChannel,
			"deviceChannel 1 (app) is served on /authentication/app; /authentication/brw serves deviceChannel 2 (browser)"},
		{"browser on the 3RI path", DecodeThreeRI, threeRIBody(t, set("deviceChannel", num("2"))), emv.CodeDeviceChannel,
			"deviceChannel 2 (browser) is served on /authentication/brw; /authentication/3ri serves deviceChannel 3 (3RI)"},
		{"app on the 3RI path", DecodeThreeRI, threeRIBody(t, set("deviceChannel", num("1"))), emv.CodeDeviceChannel,
			"deviceChannel 1 (app) is served on /authentication/app; /authentication/3ri serves deviceChannel 3 (3RI)"},
		{"browser on the 3RI path among other problems", DecodeThreeRI, threeRIBody(t, set("deviceChannel", num("2")), del("threeRIInd")),
			emv.CodeMissingField, "deviceChannel 2 (browser) is served on /authentication/brw"},
		{"a browser body on the 3RI path", DecodeThreeRI, edited(t), emv.CodeMissingField, "is not usable on the 3RI channel (interface section 2.2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.decode(tt.body)
			e := asError(t, err)
			if e.Code != tt.code {
				t.Errorf("Code = %s, want %s (%+v)", e.Code, tt.code, e.Problems)
			}
			found := false
			for _, p := range e.Problems {
				found = found || strings.Contains(p.Reason, tt.reason)
			}
			if !found {
				t.Errorf("problems %+v, want one saying %q", e.Problems, tt.reason)
			}
			if tt.code == emv.CodeDeviceChannel && (e.Detail != "deviceChannel" || !strings.Contains(e.Message, tt.reason)) {
				t.Errorf("CH01 detail %q message %q", e.Detail, e.Message)
			}
		})
	}
}

// TestThreeRIIndMessageNamesTheVersion: a threeRIInd outside the list of
// the request's messageVersion names that version's values.
func TestThreeRIIndMessageNamesTheVersion(t *testing.T) {
	_, _, err := DecodeThreeRI(threeRIBody(t, set("messageVersion", "2.1.0"), set("threeRIInd", "07")))
	e := asError(t, err)
	reason := e.Problems[0].Reason
	for _, want := range []string{"01 (recurring transaction)", "05 (account verification)", "on messageVersion 2.1.0", `got "07"`, "07 (top-up) needs messageVersion 2.2.0"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q lacks %q", reason, want)
		}
	}
	if strings.Contains(reason, "06 (") {
		t.Errorf("reason %q offers a 2.2.0 value on 2.1.0", reason)
	}
	_, _, err = DecodeThreeRI(threeRIBody(t, set("threeRIInd", "12")))
	if reason := asError(t, err).Problems[0].Reason; !strings.Contains(reason, "11 (other payment)") || !strings.Contains(reason, "on messageVersion 2.2.0") {
		t.Errorf("2.2.0 reason %q", reason)
	}
}
