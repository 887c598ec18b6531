package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

func TestSchemeTable(t *testing.T) {
	tab, err := NewSchemeTable(map[string]string{"463208": "ITMX", "557755": "itmx", "9764": "TPN"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ pan, want string }{
		{"4000000000001000", scenarios.SchemeVisa},
		{"4632080000000001", scenarios.SchemeITMX}, // configured BIN inside the Visa range: longest prefix wins
		{"5577550000000000", scenarios.SchemeITMX},
		{"5100000000000000", scenarios.SchemeMastercard},
		{"5599999999999999", scenarios.SchemeMastercard},
		{"2221000000000000", scenarios.SchemeMastercard},
		{"2720990000000000", scenarios.SchemeMastercard},
		{"2721000000000000", scenarios.SchemeUnknown},
		{"340000000000000", scenarios.SchemeAmex},
		{"370000000000000", scenarios.SchemeAmex},
		{"6011000000000000", scenarios.SchemeDiscover},
		{"6440000000000000", scenarios.SchemeDiscover},
		{"6500000000000000", scenarios.SchemeDiscover},
		{"36000000000000", scenarios.SchemeDiscover},
		{"3528000000000000", scenarios.SchemeJCB},
		{"3589000000000000", scenarios.SchemeJCB},
		{"3590000000000000", scenarios.SchemeUnknown},
		{"6200000000000000", scenarios.SchemeUPI},
		{"8100000000000000", scenarios.SchemeUPI},
		{"9764000000000000", scenarios.SchemeTPN},
		// Maestro is Mastercard; the prefixes around its ranges keep their scheme.
		{"6759000000000000", scenarios.SchemeMastercard},
		{"675940000000000000", scenarios.SchemeMastercard},
		{"5018000000000000", scenarios.SchemeMastercard},
		{"5020000000000000", scenarios.SchemeMastercard},
		{"5038000000000000", scenarios.SchemeMastercard},
		{"5893000000000000", scenarios.SchemeMastercard},
		{"6304000000000000", scenarios.SchemeMastercard},
		{"6761000000000000", scenarios.SchemeMastercard},
		{"6762000000000000", scenarios.SchemeMastercard},
		{"6763000000000000", scenarios.SchemeMastercard},
		{"5019000000000000", scenarios.SchemeUnknown},
		{"6760000000000000", scenarios.SchemeUnknown},
		{"6764000000000000", scenarios.SchemeUnknown},
		{"6011000000000004", scenarios.SchemeDiscover},
		{"6500000000000002", scenarios.SchemeDiscover},
		{"6221260000000000", scenarios.SchemeUPI},
		{"1234567890123", scenarios.SchemeUnknown},
		{"", scenarios.SchemeUnknown},
	}
	for _, tt := range tests {
		if got := tab.Scheme(tt.pan); got != tt.want {
			t.Errorf("Scheme(%q) = %s, want %s", tt.pan, got, tt.want)
		}
	}
	for _, bad := range []map[string]string{{"12a": "VISA"}, {"": "VISA"}, {"4111": "DINERS"}} {
		if _, err := NewSchemeTable(bad); err == nil {
			t.Errorf("NewSchemeTable(%v) accepted", bad)
		}
	}
}

func TestParseBINList(t *testing.T) {
	m, err := ParseBINList(" 463208=itmx, 9764=TPN ,")
	if err != nil || m["463208"] != "ITMX" || m["9764"] != "TPN" || len(m) != 2 {
		t.Errorf("ParseBINList = %v, %v", m, err)
	}
	if _, err := ParseBINList("463208"); err == nil {
		t.Error("entry without = accepted")
	}
}

func TestECIFor(t *testing.T) {
	tests := []struct{ scheme, status, want string }{
		{scenarios.SchemeVisa, "Y", "05"}, {scenarios.SchemeVisa, "A", "06"}, {scenarios.SchemeVisa, "N", "07"}, {scenarios.SchemeVisa, "I", "07"},
		{scenarios.SchemeMastercard, "Y", "02"}, {scenarios.SchemeMastercard, "A", "01"}, {scenarios.SchemeMastercard, "U", "00"}, {scenarios.SchemeMastercard, "I", "06"},
		{scenarios.SchemeMastercard, "N", "00"}, {scenarios.SchemeMastercard, "R", "00"}, {scenarios.SchemeVisa, "R", "07"}, {scenarios.SchemeVisa, "U", "07"},
		{scenarios.SchemeAmex, "Y", "05"}, {scenarios.SchemeJCB, "A", "06"}, {scenarios.SchemeUPI, "R", "07"}, {scenarios.SchemeDiscover, "C", ""}, {scenarios.SchemeUnknown, "N", "07"},
	}
	for _, tt := range tests {
		if got := ECIFor(tt.scheme, tt.status); got != tt.want {
			t.Errorf("ECIFor(%s, %s) = %q, want %q", tt.scheme, tt.status, got, tt.want)
		}
	}
}

func TestNegotiateVersion(t *testing.T) {
	tests := []struct{ req, acs, want string }{
		{"", "", "2.2.0"}, {"2.1.0", "", "2.1.0"}, {"2.2.0", "2.1.0", "2.1.0"}, {"", "2.1.0", "2.1.0"}, {"2.2.0", "2.2.0", "2.2.0"},
	}
	for _, tt := range tests {
		if got := negotiateVersion(tt.req, tt.acs); got != tt.want {
			t.Errorf("negotiateVersion(%q, %q) = %s, want %s", tt.req, tt.acs, got, tt.want)
		}
	}
}

func TestIdentityHelpers(t *testing.T) {
	long := state.Transaction{CardBIN: "400000", PANLength: 16, PANLast4: [4]byte{'1', '0', '0', '0'}}
	if got := long.MaskedPAN(); got != "400000******1000" {
		t.Errorf("MaskedPAN = %s", got)
	}
	if got := (state.Transaction{CardBIN: "1234", PANLength: 4}).MaskedPAN(); got != "****" {
		t.Errorf("MaskedPAN short = %s", got)
	}
	k := cavvKey(1)
	cavv := func(id string) string { return cavvOf(&cavvState{m: hmac.New(sha256.New, k)}, id) }
	a, b := cavv("id-1"), cavv("id-2")
	if len(a) != 28 || a == b || a != cavv("id-1") {
		t.Errorf("authenticationValue: %q %q", a, b)
	}
	if raw, err := base64.StdEncoding.DecodeString(a); err != nil || len(raw) != 20 {
		t.Errorf("authenticationValue is not 20 bytes of Base64: %v", err)
	}
	x, y := acsIdentity(1, "400000"), acsIdentity(1, "400000")
	if x != y || !strings.HasPrefix(x.ReferenceNumber, "3DS_LOA_ACS_") || x.OperatorID == "" {
		t.Errorf("acsIdentity not reproducible or malformed: %+v %+v", x, y)
	}
	if acsIdentity(2, "400000") == x {
		t.Error("another seed gives the same ACS")
	}
	if u := newUUID(); len(u) != 36 || u[14] != '4' {
		t.Errorf("newUUID = %s", u)
	}
}

func TestValidationErrorOrdering(t *testing.T) {
	e := emv.ValidationError([]emv.Problem{
		{Field: "purchase.currencyCode", EMVCode: "304", Reason: "x"},
		{Field: "card.cardNumber", EMVCode: "201", Reason: "x"},
		{Field: "email", EMVCode: "203", Reason: "x"},
		{Field: "ddcId", EMVCode: "201", Reason: "x"},
	})
	if e.EMVCode != "201" || e.Code != emv.CodeMissingField || e.Detail != "card.cardNumber,ddcId" || len(e.Problems) != 4 {
		t.Errorf("emv.ValidationError = %+v", e)
	}
	if !strings.Contains(e.Message, "2 required fields missing") || !strings.Contains(e.Message, "1 invalid ISO code") {
		t.Errorf("message = %q", e.Message)
	}
	if emv.ValidationError(nil) != nil {
		t.Error("no problems gave an error")
	}
	long := emv.NewError(emv.CodeInvalidField, "203", strings.Repeat("é", 300), "")
	if len(long.Message) > 255 || !strings.HasSuffix(long.Message, "...") {
		t.Errorf("message not truncated to 255 bytes: %d", len(long.Message))
	}
}
