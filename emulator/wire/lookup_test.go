package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire/wiretest"
)

func TestDecodeLookupBase(t *testing.T) {
	got, ignored, err := DecodeLookup(baseBody(t))
	if err != nil {
		t.Fatalf("DecodeLookup(base) error: %v (%+v)", err, asError(t, err).Problems)
	}
	if len(ignored) != 0 {
		t.Errorf("ignored = %v, want none", ignored)
	}
	want := message.LookupRequest{
		ExternalReferenceID:     "ORD-20240611-000123",
		DDCID:                   "0_6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10",
		ThreeDSRequestorAuthInd: "01",
		Session:                 "eyJvcmRlciI6IjAwMDEyMyJ9",
		Browser: message.BrowserInfo{
			AcceptHeader:      "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
			IP:                "203.0.113.42",
			JavascriptEnabled: true,
			JavaEnabled:       false,
			Language:          "en-GB",
			ColorDepth:        "24",
			ScreenHeight:      "1080",
			ScreenWidth:       "1920",
			TimeZone:          "-60",
			UserAgent:         "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36",
		},
		NotificationURL:              "https://shop.example.com/checkout/3ds/notify",
		ChallengeWindowSize:          3,
		AcquirerCode:                 "3DS Requestor",
		AcquirerBIN:                  "412345",
		MerchantCode:                 "MERCHANT-0042",
		DeviceChannel:                2,
		MessageCategory:              "01",
		ThreeDSRequestorChallengeInd: 1,
		MessageVersion:               "2.2.0",
		RequestFeatures:              0,
		ThreeDSRequestorDecMaxTime:   15,
		Card:                         message.Card{ExpiryDate: "2812", CardNumber: "4000000000009003", CardholderName: "Jane A. Doe"},
		MerchantName:                 "Example Shop",
		Purchase:                     &message.Purchase{Date: "2024-06-11 14:03:27", Amount: "129.99", CurrencyCode: "EUR"},
		Requestor:                    &message.Requestor{ID: "REQ-0042", Name: "Example Shop", URL: "https://shop.example.com", CardholderAccountID: "cust-7781"},
		BillingAddress: &message.Address{CountryCode: "GBR", City: "London", PostCode: "SW1A 1AA",
			Line1: "10 Example Street", Line2: "Flat 3", State: "LND"},
		ShippingAddress: &message.Address{CountryCode: "826", City: "London", PostCode: "SW1A 1AA", Line1: "10 Example Street"},
		Email:           "jane.doe@example.com",
		MobilePhone:     &message.Phone{CountryCode: "44", Subscriber: "7700900123"},
		AccountInfo: &message.AccountInfo{
			ChAccAgeInd: "05", ChAccChange: "20240102", ChAccChangeInd: "04", ChAccDate: "20190315",
			ChAccPwChange: "20231120", ChAccPwChangeInd: "05", NbPurchaseAccount: "12", ProvisionAttemptsDay: "0",
			TxnActivityDay: "1", TxnActivityYear: "15", PaymentAccAge: "20200601", PaymentAccInd: "05",
			ShipAddressUsage: "20190315", ShipAddressUsageInd: "04", ShipNameIndicator: "01", SuspiciousAccActivity: "01",
		},
		AdditionalAccountInfo: &message.AdditionalAccountInfo{AccountType: 2, AuthenticationMethod: 2, AuthenticationTimeStamp: "20240611140012"},
		MerchantRiskInfo: &message.MerchantRiskIndicator{
			DeliveryEmailAddress: "jane.doe@example.com", DeliveryTimeframe: "04", GiftCardAmount: "0", GiftCardCount: "00",
			GiftCardCurr: "EUR", PreOrderPurchaseInd: "01", ReorderItemsInd: "02", ShipIndicator: "01",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeLookup(base)\n got %+v\nwant %+v", got, want)
	}
}

// TestDecodeLookupRules runs every row of wiretest.LookupRules, one per
// rule of spec 2.2-2.12: the base request with one change must fail with
// exactly one problem.
func TestDecodeLookupRules(t *testing.T) {
	for _, tt := range wiretest.LookupRules() {
		t.Run(tt.Name, func(t *testing.T) {
			body, err := tt.Apply(baseBody(t))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = DecodeLookup(body)
			e := asError(t, err)
			if len(e.Problems) != 1 || !hasProblem(e, tt.EMVCode, tt.Field) {
				t.Fatalf("problems = %+v, want one %s on %s", e.Problems, tt.EMVCode, tt.Field)
			}
			if got, want := e.EMVCode, tt.EMVCode; got != want {
				t.Errorf("EMVCode = %s, want %s", got, want)
			}
			if got, want := e.Detail, tt.Field; got != want {
				t.Errorf("Detail = %q, want %q", got, want)
			}
			if e.Message == "" || e.Problems[0].Reason == "" {
				t.Errorf("error %+v lacks a message or reason", e)
			}
		})
	}
}

func TestDecodeLookupDeviceChannel(t *testing.T) {
	tests := []struct {
		name  string
		edits []wiretest.Edit
		code  emv.ErrorCode
	}{
		{"app alone", []wiretest.Edit{set("deviceChannel", num("1"))}, emv.CodeDeviceChannel},
		{"3RI alone", []wiretest.Edit{set("deviceChannel", num("3"))}, emv.CodeDeviceChannel},
		{"app among other problems", []wiretest.Edit{set("deviceChannel", num("1")), del("ddcId")}, emv.CodeMissingField},
		{"out of range", []wiretest.Edit{set("deviceChannel", num("7"))}, emv.CodeInvalidField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeLookup(edited(t, tt.edits...))
			e := asError(t, err)
			if got, want := e.Code, tt.code; got != want {
				t.Errorf("Code = %s, want %s (%+v)", got, want, e.Problems)
			}
			if !hasProblem(e, "203", "deviceChannel") {
				t.Errorf("problems = %+v, want a 203 on deviceChannel", e.Problems)
			}
		})
	}
}

// TestDecodeLookupAccepts covers the leniencies, defaults and conditional
// rules that let a request through.
func TestDecodeLookupAccepts(t *testing.T) {
	tests := []struct {
		name  string
		edits []wiretest.Edit
		check func(t *testing.T, r message.LookupRequest)
	}{
		{"defaults when absent", []wiretest.Edit{del("challengeWindowSize"), del("threeDsRequestorChallengeInd"),
			del("threeDSRequestorDecMaxTime"), del("requestFeatures"), del("messageVersion")},
			func(t *testing.T, r message.LookupRequest) {
				if r.ChallengeWindowSize != 3 || r.ThreeDSRequestorChallengeInd != 1 || r.ThreeDSRequestorDecMaxTime != 15 ||
					r.RequestFeatures != -1 || r.MessageVersion != "" {
					t.Errorf("defaults = %d, %d, %d, %d, %q; want 3, 1, 15, -1, \"\"", r.ChallengeWindowSize,
						r.ThreeDSRequestorChallengeInd, r.ThreeDSRequestorDecMaxTime, r.RequestFeatures, r.MessageVersion)
				}
			}},
		{"int fields as digit strings", []wiretest.Edit{set("deviceChannel", "2"), set("challengeWindowSize", "05"),
			set("threeDsRequestorChallengeInd", "04"), set("requestFeatures", "99"), set("threeDSRequestorDecMaxTime", "10080")},
			func(t *testing.T, r message.LookupRequest) {
				if r.DeviceChannel != 2 || r.ChallengeWindowSize != 5 || r.ThreeDSRequestorChallengeInd != 4 ||
					r.RequestFeatures != 99 || r.ThreeDSRequestorDecMaxTime != 10080 {
					t.Errorf("got %d, %d, %d, %d, %d; want 2, 5, 4, 99, 10080", r.DeviceChannel, r.ChallengeWindowSize,
						r.ThreeDSRequestorChallengeInd, r.RequestFeatures, r.ThreeDSRequestorDecMaxTime)
				}
			}},
		{"browser numbers as JSON numbers", []wiretest.Edit{set("browserInfo.colorDepth", num("32")), set("browserInfo.screenHeight", num("900")),
			set("browserInfo.screenWidth", num("1440")), set("browserInfo.timeZone", "+120")},
			func(t *testing.T, r message.LookupRequest) {
				b := r.Browser
				if b.ColorDepth != "32" || b.ScreenHeight != "900" || b.ScreenWidth != "1440" || b.TimeZone != "+120" {
					t.Errorf("browser = %+v", b)
				}
			}},
		{"cardholderName with < and >", []wiretest.Edit{set("card.cardholderName", "<Jane> O'Brien & Co. #1 ~{x}")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Card.CardholderName, "<Jane> O'Brien & Co. #1 ~{x}"; got != want {
					t.Errorf("CardholderName = %q, want %q", got, want)
				}
			}},
		{"language tags", []wiretest.Edit{set("browserInfo.language", "zh-Hant")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Browser.Language, "zh-Hant"; got != want {
					t.Errorf("Language = %q, want %q", got, want)
				}
			}},
		{"timeZone at its bounds", []wiretest.Edit{set("browserInfo.timeZone", num("-840"))},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Browser.TimeZone, "-840"; got != want {
					t.Errorf("TimeZone = %q, want %q", got, want)
				}
			}},
		{"timeZone at its other bound", []wiretest.Edit{set("browserInfo.timeZone", "0720")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Browser.TimeZone, "0720"; got != want {
					t.Errorf("TimeZone = %q, want %q", got, want)
				}
			}},
		{"timeZone zero with a sign", []wiretest.Edit{set("browserInfo.timeZone", "-0")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Browser.TimeZone, "-0"; got != want {
					t.Errorf("TimeZone = %q, want %q", got, want)
				}
			}},
		{"acquirerBIN spelling", []wiretest.Edit{del("acquirerBin"), set("acquirerBIN", "400000")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.AcquirerBIN, "400000"; got != want {
					t.Errorf("AcquirerBIN = %q, want %q", got, want)
				}
			}},
		{"acquirerBIN both spellings equal", []wiretest.Edit{set("acquirerBIN", "412345")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.AcquirerBIN, "412345"; got != want {
					t.Errorf("AcquirerBIN = %q, want %q", got, want)
				}
			}},
		{"decMaxTime lower-case s spelling", []wiretest.Edit{del("threeDSRequestorDecMaxTime"), set("threeDsRequestorDecMaxTime", num("60"))},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.ThreeDSRequestorDecMaxTime, 60; got != want {
					t.Errorf("ThreeDSRequestorDecMaxTime = %d, want %d", got, want)
				}
			}},
		{"amount as string", []wiretest.Edit{set("purchase.amount", "0010.50")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Amount, "0010.50"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"amount zero integer", []wiretest.Edit{set("purchase.amount", num("0"))},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Amount, "0"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"amount with an exponent", []wiretest.Edit{set("purchase.amount", num("1.5e2"))},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Amount, "150"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"amount at the minor units of its currency", []wiretest.Edit{set("purchase.currencyCode", "BHD"), set("purchase.amount", num("1.234"))},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Amount, "1.234"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"amount with trailing zeros past the minor units", []wiretest.Edit{set("purchase.currencyCode", "JPY"), set("purchase.amount", "1500.000")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Amount, "1500.000"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"currencies next to the EMV exclusions", []wiretest.Edit{set("purchase.currencyCode", "951"), set("merchantRiskInfo.giftCardCurr", "XUA")},
			func(t *testing.T, r message.LookupRequest) {
				if r.Purchase.CurrencyCode != "951" || r.MerchantRiskInfo.GiftCardCurr != "XUA" {
					t.Errorf("codes = %q, %q", r.Purchase.CurrencyCode, r.MerchantRiskInfo.GiftCardCurr)
				}
			}},
		{"numeric currency and country", []wiretest.Edit{set("purchase.currencyCode", "978"), set("billingAddress.countryCode", "840")},
			func(t *testing.T, r message.LookupRequest) {
				if r.Purchase.CurrencyCode != "978" || r.BillingAddress.CountryCode != "840" {
					t.Errorf("codes = %q, %q", r.Purchase.CurrencyCode, r.BillingAddress.CountryCode)
				}
			}},
		{"optional fields null or empty", []wiretest.Edit{set("notificationUrl", nil), set("session", ""), set("requestor", nil),
			set("card.cardholderName", ""), set("browserInfo.ip", nil), set("email", "")},
			func(t *testing.T, r message.LookupRequest) {
				if r.NotificationURL != "" || r.Session != "" || r.Requestor != nil || r.Card.CardholderName != "" ||
					r.Browser.IP != "" || r.Email != "" {
					t.Errorf("request = %+v, want the optional fields empty", r)
				}
			}},
		{"http notificationUrl", []wiretest.Edit{set("notificationUrl", "http://localhost:8080/3ds")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.NotificationURL, "http://localhost:8080/3ds"; got != want {
					t.Errorf("NotificationURL = %q, want %q", got, want)
				}
			}},
		{"IPv6", []wiretest.Edit{set("browserInfo.ip", "2001:db8::8a2e:370:7334")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Browser.IP, "2001:db8::8a2e:370:7334"; got != want {
					t.Errorf("IP = %q, want %q", got, want)
				}
			}},
		{"non-payment without purchase", []wiretest.Edit{set("messageCategory", "02"), del("purchase"), set("threeDsRequestorAuthInd", "04")},
			func(t *testing.T, r message.LookupRequest) {
				if r.Purchase != nil {
					t.Errorf("Purchase = %+v, want nil", r.Purchase)
				}
			}},
		{"recurring", []wiretest.Edit{set("threeDsRequestorAuthInd", "02"), set("recurring", map[string]any{"expiry": "20251231", "frequency": "30"})},
			func(t *testing.T, r message.LookupRequest) {
				if r.Recurring == nil || *r.Recurring != (message.Recurring{Expiry: "20251231", Frequency: 30}) {
					t.Errorf("Recurring = %+v", r.Recurring)
				}
			}},
		{"instalment", []wiretest.Edit{set("threeDsRequestorAuthInd", "03"), set("instalmentData", num("12")),
			set("purchase.instalData", "012"), set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})},
			func(t *testing.T, r message.LookupRequest) {
				if r.InstalmentData != 12 || r.Purchase.InstalData != 12 {
					t.Errorf("InstalmentData, InstalData = %d, %d; want 12, 12", r.InstalmentData, r.Purchase.InstalData)
				}
			}},
		{"instalment by purchase.instalData alone", []wiretest.Edit{set("threeDsRequestorAuthInd", "03"), set("purchase.instalData", num("6")),
			set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})},
			func(t *testing.T, r message.LookupRequest) {
				if r.InstalmentData != 0 || r.Purchase.InstalData != 6 {
					t.Errorf("InstalmentData, InstalData = %d, %d; want 0, 6", r.InstalmentData, r.Purchase.InstalData)
				}
			}},
		{"instalmentData as a string of digits", []wiretest.Edit{set("threeDsRequestorAuthInd", "03"), set("instalmentData", "002"),
			set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})},
			func(t *testing.T, r message.LookupRequest) {
				if r.InstalmentData != 2 {
					t.Errorf("InstalmentData = %d, want 2", r.InstalmentData)
				}
			}},
		{"no JavaScript", []wiretest.Edit{set("browserInfo.javascriptEnabled", false), del("browserInfo.javaEnabled"),
			del("browserInfo.colorDepth"), del("browserInfo.screenHeight"), del("browserInfo.screenWidth"), del("browserInfo.timeZone")},
			func(t *testing.T, r message.LookupRequest) {
				if r.Browser.JavascriptEnabled || r.Browser.ColorDepth != "" {
					t.Errorf("Browser = %+v", r.Browser)
				}
			}},
		{"a ddcId of the sandbox in upper case", []wiretest.Edit{set("ddcId", "DDC-8A880DC0-D2D2-4067-BCB1-B08D1690B26E")},
			func(t *testing.T, r message.LookupRequest) {
				if r.DDCID != "ddc-8a880dc0-d2d2-4067-bcb1-b08d1690b26e" {
					t.Errorf("DDCID = %q, want it in lower case", r.DDCID)
				}
			}},
		{"another ddcId as sent", []wiretest.Edit{set("ddcId", "Order-DDC-7")},
			func(t *testing.T, r message.LookupRequest) {
				if r.DDCID != "Order-DDC-7" {
					t.Errorf("DDCID = %q, want it as sent", r.DDCID)
				}
			}},
		{"phones", []wiretest.Edit{set("homePhone", map[string]any{"countryCode": num("1"), "subscriber": num("2125550100")}),
			set("workPhone", map[string]any{"countryCode": "33", "subscriber": "142685300"})},
			func(t *testing.T, r message.LookupRequest) {
				if *r.HomePhone != (message.Phone{CountryCode: "1", Subscriber: "2125550100"}) ||
					*r.WorkPhone != (message.Phone{CountryCode: "33", Subscriber: "142685300"}) {
					t.Errorf("phones = %+v, %+v", r.HomePhone, r.WorkPhone)
				}
			}},
		{"leap day", []wiretest.Edit{set("purchase.date", "2024-02-29 23:59:59")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Purchase.Date, "2024-02-29 23:59:59"; got != want {
					t.Errorf("Date = %q, want %q", got, want)
				}
			}},
		{"Unicode text, escaped or not", []wiretest.Edit{set("merchantName", wiretest.Raw(`"Caf\u00e9 \ud83d\ude00 \/ \ufffd Zoë"`)),
			set("billingAddress.city", long("é", 50)), set("session", "tab\u2009and\u00a0spaces")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.MerchantName, "Café 😀 / \ufffd Zoë"; got != want {
					t.Errorf("MerchantName = %q, want %q", got, want)
				}
				if got, want := r.BillingAddress.City, long("é", 50); got != want {
					t.Errorf("City = %q, want %q", got, want)
				}
			}},
		{"test PAN failing Luhn", []wiretest.Edit{set("card.cardNumber", "4000000000001001")},
			func(t *testing.T, r message.LookupRequest) {
				if got, want := r.Card.CardNumber, "4000000000001001"; got != want {
					t.Errorf("CardNumber = %q, want %q", got, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := DecodeLookup(edited(t, tt.edits...))
			if err != nil {
				t.Fatalf("DecodeLookup error: %v (%+v)", err, asError(t, err).Problems)
			}
			tt.check(t, r)
		})
	}
}

func TestDecodeLookupLongAccountInfoNames(t *testing.T) {
	long := map[string]any{
		"accountAgeIndicator":           "05",
		"accountChangeDate":             "20240102",
		"accountChangeIndicator":        "04",
		"accountDate":                   "20190315",
		"passwordChangeDate":            "20231120",
		"passwordChangeIndicator":       "05",
		"accountPurchaseNumber":         "12",
		"provisionAttemptsPerDay":       "0",
		"transactionActivityDay":        "1",
		"transactionActivityYear":       num("15"),
		"paymentAccountAge":             "20200601",
		"paymentAccountIndicator":       "05",
		"shippingAddressUsageDate":      "20190315",
		"shippingAddressUsageIndicator": "04",
		"shippingNameIndicator":         "01",
		"suspiciousAccountActivity":     "01",
	}
	base, _, err := DecodeLookup(baseBody(t))
	if err != nil {
		t.Fatalf("DecodeLookup(base): %v", err)
	}
	got, ignored, err := DecodeLookup(edited(t, set("accountInfo", long)))
	if err != nil {
		t.Fatalf("DecodeLookup(long names): %v (%+v)", err, asError(t, err).Problems)
	}
	if len(ignored) != 0 {
		t.Errorf("ignored = %v, want none", ignored)
	}
	if !reflect.DeepEqual(got.AccountInfo, base.AccountInfo) {
		t.Errorf("AccountInfo = %+v, want %+v", got.AccountInfo, base.AccountInfo)
	}

	// purchaseCount is a second long name of nbPurchaseAccount.
	got, _, err = DecodeLookup(edited(t, set("accountInfo", map[string]any{"purchaseCount": "7"})))
	if err != nil {
		t.Fatalf("DecodeLookup(purchaseCount): %v", err)
	}
	if want := "7"; got.AccountInfo.NbPurchaseAccount != want {
		t.Errorf("NbPurchaseAccount = %q, want %q", got.AccountInfo.NbPurchaseAccount, want)
	}
}

func TestDecodeLookupIgnored(t *testing.T) {
	body := edited(t, set("messageExtension", []any{map[string]any{"id": "x"}}), set("card.nickname", "work"),
		set("browserInfo.platform", "Win32"))
	r, ignored, err := DecodeLookup(body)
	if err != nil {
		t.Fatalf("DecodeLookup error: %v", err)
	}
	if r.Card.CardNumber != "4000000000009003" {
		t.Errorf("CardNumber = %q", r.Card.CardNumber)
	}
	// edited re-encodes with sorted keys, so the order is the sorted one.
	want := []string{"browserInfo.platform", "card.nickname", "messageExtension"}
	if !reflect.DeepEqual(ignored, want) {
		t.Errorf("ignored = %v, want %v", ignored, want)
	}
}

func TestDecodeLookupAllProblems(t *testing.T) {
	body := edited(t,
		del("ddcId"),
		set("card.cardNumber", "1234"),
		set("purchase.currencyCode", "ABC"),
		set("messageVersion", "2.0.0"),
		set("browserInfo.language", nil),
		set("mobilePhone.subscriber", "12ab"),
	)
	_, _, err := DecodeLookup(body)
	e := asError(t, err)
	want := []struct{ code, field string }{
		{"201", "ddcId"},
		{"203", "card.cardNumber"},
		{"304", "purchase.currencyCode"},
		{"102", "messageVersion"},
		{"201", "browserInfo.language"},
		{"203", "mobilePhone.subscriber"},
	}
	if got := len(e.Problems); got != len(want) {
		t.Errorf("got %d problems %+v, want %d", got, e.Problems, len(want))
	}
	for _, w := range want {
		if !hasProblem(e, w.code, w.field) {
			t.Errorf("problems %+v lack %s on %s", e.Problems, w.code, w.field)
		}
	}
	// The unsupported version comes first (TestDecodeLookupVersionFirst).
	if got, want := e.EMVCode, "102"; got != want {
		t.Errorf("EMVCode = %s, want %s", got, want)
	}
	if got, want := e.Detail, "messageVersion"; got != want {
		t.Errorf("Detail = %q, want %q", got, want)
	}
	for _, f := range []string{"card.cardNumber", "purchase.currencyCode", "ddcId", "browserInfo.language"} {
		if !strings.Contains(e.Message, f) {
			t.Errorf("Message %q does not name %s", e.Message, f)
		}
	}
}

// TestDecodeLookupVersionFirst: an unsupported messageVersion answers 102
// (VR02) at the top whatever else is wrong, as EMV checks the version
// first; the other problems stay in the list.
func TestDecodeLookupVersionFirst(t *testing.T) {
	base := string(baseBody(t))
	tests := []struct {
		name   string
		body   []byte
		code   emv.ErrorCode
		emv    string
		detail string
		others []string // the other problems, as "code field"
	}{
		{"version alone", edited(t, set("messageVersion", "2.0.0")),
			emv.CodeUnsupportedVersion, "102", "messageVersion", nil},
		{"with a missing field", edited(t, set("messageVersion", "2.3.0"), del("ddcId")),
			emv.CodeUnsupportedVersion, "102", "messageVersion", []string{"201 ddcId"}},
		{"with a format and an ISO problem", edited(t, set("messageVersion", "9.9.9"), set("email", "x"), set("purchase.currencyCode", "XYZ")),
			emv.CodeUnsupportedVersion, "102", "messageVersion", []string{"203 email", "304 purchase.currencyCode"}},
		{"with a duplicate", []byte(strings.Replace(base, `"messageVersion": "2.2.0"`, `"messageVersion": "2.0.0", "ddcId": "x"`, 1)),
			emv.CodeUnsupportedVersion, "102", "messageVersion", []string{"204 ddcId"}},
		{"with the app channel", edited(t, set("messageVersion", "2.0.0"), set("deviceChannel", num("1"))),
			emv.CodeUnsupportedVersion, "102", "messageVersion", []string{"203 deviceChannel"}},
		{"malformed version is a format problem", edited(t, set("messageVersion", "2.2"), del("ddcId")),
			emv.CodeMissingField, "201", "ddcId", []string{"203 messageVersion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeLookup(tt.body)
			e := asError(t, err)
			if e.Code != tt.code || e.EMVCode != tt.emv || e.Detail != tt.detail {
				t.Errorf("got %s/%s on %q, want %s/%s on %q (%s)", e.Code, e.EMVCode, e.Detail, tt.code, tt.emv, tt.detail, e.Message)
			}
			if got, want := len(e.Problems), 1+len(tt.others); got != want {
				t.Errorf("problems = %+v, want %d", e.Problems, want)
			}
			for _, o := range tt.others {
				code, field, _ := strings.Cut(o, " ")
				if !hasProblem(e, code, field) {
					t.Errorf("problems = %+v, lack %s", e.Problems, o)
				}
			}
		})
	}
}

func TestDecodeLookupDuplicates(t *testing.T) {
	base := string(baseBody(t))
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"top level", strings.Replace(base, "{", `{"ddcId": "again",`, 1), []string{"ddcId"}},
		{"nested", strings.Replace(base, `"card": {`, `"card": {"cardNumber": "4000000000001000",`, 1), []string{"card.cardNumber"}},
		{"twice nested and top", strings.Replace(strings.Replace(base, `"purchase": {`, `"purchase": {"amount": 1, "amount": 2,`, 1),
			"{", `{"email": "a@b.co",`, 1), []string{"purchase.amount", "purchase.amount", "email"}},
		{"unknown object", strings.Replace(base, "{", `{"ext": {"a": [{"k": 1, "k": 2}]},`, 1), []string{"ext.a[0].k"}},
		{"alias pair", strings.Replace(base, `"accountInfo": {`, `"accountInfo": {"accountAgeIndicator": "05",`, 1), []string{"accountInfo.chAccAgeInd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeLookup([]byte(tt.body))
			e := asError(t, err)
			if got, want := e.EMVCode, "204"; got != want {
				t.Fatalf("EMVCode = %s, want %s (%+v)", got, want, e.Problems)
			}
			if got, want := e.Code, emv.CodeDuplicateField; got != want {
				t.Errorf("Code = %s, want %s", got, want)
			}
			if got, want := e.Detail, strings.Join(tt.fields, ","); got != want {
				t.Errorf("Detail = %q, want %q", got, want)
			}
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"empty", ""},
		{"blank", "  \n"},
		{"array", `[{"a": 1}]`},
		{"null", "null"},
		{"string", `"body"`},
		{"number", "42"},
		{"unterminated", `{"ddcId": "x"`},
		{"missing value", `{"ddcId": }`},
		{"trailing comma", `{"ddcId": "x",}`},
		{"single quotes", `{'ddcId': 'x'}`},
		{"trailing data", `{"ddcId": "x"} x`},
		{"two objects", `{} {}`},
		{"leading zero", `{"deviceChannel": 02}`},
		{"bad escape", `{"ddcId": "\x"}`},
		{"bad unicode escape", `{"ddcId": "\u12G4"}`},
		{"control character", "{\"ddcId\": \"a\nb\"}"},
		{"invalid UTF-8", "{\"ddcId\": \"\xff\"}"},
		{"bad literal", `{"javaEnabled": tru}`},
		{"plus number", `{"deviceChannel": +2}`},
		{"too deep", `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}"},
		{"form encoded", "ddcId=x&card=y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, decode := range map[string]func([]byte) error{
				"lookup":  func(b []byte) error { _, _, err := DecodeLookup(b); return err },
				"enquiry": func(b []byte) error { _, _, err := DecodeEnquiry(b); return err },
			} {
				e := asError(t, decode([]byte(tt.body)))
				if e.Code != emv.CodeMalformedJSON || e.EMVCode != "101" {
					t.Errorf("%s: got %s/%s, want %s/101", name, e.Code, e.EMVCode, emv.CodeMalformedJSON)
				}
				if !strings.Contains(e.Message, "byte offset") || !strings.HasPrefix(e.Detail, "body") {
					t.Errorf("%s: message %q / detail %q should locate the problem", name, e.Message, e.Detail)
				}
			}
		})
	}
}

// BenchmarkDecodeLookup decodes the example lookup; cpu-ns/op is the
// process's CPU time per decoding (testkit.ReportCPU), steadier than the
// time on a shared machine.
func BenchmarkDecodeLookup(b *testing.B) {
	body := baseBody(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	testkit.ReportCPU(b, func() {
		for b.Loop() {
			decodeLookupOnce(b, body)
		}
	})
}

// TestDecodeLookupCaps checks the caps on the problems and ignored fields
// reported, with a body within the decoder's bounds (limits_test.go).
func TestDecodeLookupCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"ext": [`)
	for i := range 2 * maxProblems {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"k": 1, "k": 2}`)
	}
	b.WriteString(`]`)
	for i := range maxMembers - 1 {
		b.WriteString(`, "x` + strings.Repeat("y", i) + `": 1`)
	}
	b.WriteString(`}`)
	_, ignored, err := DecodeLookup([]byte(b.String()))
	e := asError(t, err)
	if got, want := len(e.Problems), maxProblems; got != want {
		t.Errorf("len(Problems) = %d, want %d", got, want)
	}
	if got, want := len(ignored), maxIgnored; got != want {
		t.Errorf("len(ignored) = %d, want %d", got, want)
	}
}
