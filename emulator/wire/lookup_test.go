package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

func TestDecodeLookupBase(t *testing.T) {
	got, ignored, err := DecodeLookup(baseBody(t))
	if err != nil {
		t.Fatalf("DecodeLookup(base) error: %v (%+v)", err, asError(t, err).Problems)
	}
	if len(ignored) != 0 {
		t.Errorf("ignored = %v, want none", ignored)
	}
	want := emulator.LookupRequest{
		ExternalReferenceID:     "ORD-20240611-000123",
		DDCID:                   "0_6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10",
		ThreeDSRequestorAuthInd: "01",
		Session:                 "eyJvcmRlciI6IjAwMDEyMyJ9",
		Browser: emulator.BrowserInfo{
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
		Card:                         emulator.Card{ExpiryDate: "2812", CardNumber: "4000000000009003", CardholderName: "Jane A. Doe"},
		MerchantName:                 "Example Shop",
		Purchase:                     &emulator.Purchase{Date: "2024-06-11 14:03:27", Amount: "129.99", CurrencyCode: "EUR"},
		Requestor:                    &emulator.Requestor{ID: "REQ-0042", Name: "Example Shop", URL: "https://shop.example.com", CardholderAccountID: "cust-7781"},
		BillingAddress: &emulator.Address{CountryCode: "GBR", City: "London", PostCode: "SW1A 1AA",
			Line1: "10 Example Street", Line2: "Flat 3", State: "LND"},
		ShippingAddress: &emulator.Address{CountryCode: "826", City: "London", PostCode: "SW1A 1AA", Line1: "10 Example Street"},
		Email:           "jane.doe@example.com",
		MobilePhone:     &emulator.Phone{CountryCode: "44", Subscriber: "7700900123"},
		AccountInfo: &emulator.AccountInfo{
			ChAccAgeInd: "05", ChAccChange: "20240102", ChAccChangeInd: "04", ChAccDate: "20190315",
			ChAccPwChange: "20231120", ChAccPwChangeInd: "05", NbPurchaseAccount: "12", ProvisionAttemptsDay: "0",
			TxnActivityDay: "1", TxnActivityYear: "15", PaymentAccAge: "20200601", PaymentAccInd: "05",
			ShipAddressUsage: "20190315", ShipAddressUsageInd: "04", ShipNameIndicator: "01", SuspiciousAccActivity: "01",
		},
		AdditionalAccountInfo: &emulator.AdditionalAccountInfo{AccountType: 2, AuthenticationMethod: 2, AuthenticationTimeStamp: "20240611140012"},
		MerchantRiskInfo: &emulator.MerchantRiskIndicator{
			DeliveryEmailAddress: "jane.doe@example.com", DeliveryTimeframe: "04", GiftCardAmount: "0", GiftCardCount: "00",
			GiftCardCurr: "EUR", PreOrderPurchaseInd: "01", ReorderItemsInd: "02", ShipIndicator: "01",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeLookup(base)\n got %+v\nwant %+v", got, want)
	}
}

// TestDecodeLookupRules has one row per rule of spec 2.2-2.12: the base
// request with one change must fail with exactly one problem.
func TestDecodeLookupRules(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
		code  string // EMV code of the problem
		field string
	}{
		// 2.2 lookup body
		{"externalReferenceId absent", []edit{del("externalReferenceId")}, "201", "externalReferenceId"},
		{"externalReferenceId null", []edit{set("externalReferenceId", nil)}, "201", "externalReferenceId"},
		{"externalReferenceId empty", []edit{set("externalReferenceId", "")}, "201", "externalReferenceId"},
		{"externalReferenceId too long", []edit{set("externalReferenceId", long("r", 51))}, "203", "externalReferenceId"},
		{"externalReferenceId number", []edit{set("externalReferenceId", num("12"))}, "203", "externalReferenceId"},
		{"ddcId absent", []edit{del("ddcId")}, "201", "ddcId"},
		{"ddcId too long", []edit{set("ddcId", long("d", 51))}, "203", "ddcId"},
		{"threeDsRequestorAuthInd absent", []edit{del("threeDsRequestorAuthInd")}, "201", "threeDsRequestorAuthInd"},
		{"threeDsRequestorAuthInd 07", []edit{set("threeDsRequestorAuthInd", "07")}, "203", "threeDsRequestorAuthInd"},
		{"threeDsRequestorAuthInd one digit", []edit{set("threeDsRequestorAuthInd", "1")}, "203", "threeDsRequestorAuthInd"},
		{"threeDsRequestorAuthInd number", []edit{set("threeDsRequestorAuthInd", num("1"))}, "203", "threeDsRequestorAuthInd"},
		{"session too long", []edit{set("session", long("s", 1025))}, "203", "session"},
		{"session object", []edit{set("session", map[string]any{})}, "203", "session"},
		{"browserInfo absent", []edit{del("browserInfo")}, "201", "browserInfo"},
		{"browserInfo string", []edit{set("browserInfo", "x")}, "203", "browserInfo"},
		{"notificationUrl ftp", []edit{set("notificationUrl", "ftp://shop.example.com/n")}, "203", "notificationUrl"},
		{"notificationUrl relative", []edit{set("notificationUrl", "/3ds/notify")}, "203", "notificationUrl"},
		{"notificationUrl no host", []edit{set("notificationUrl", "https:///notify")}, "203", "notificationUrl"},
		{"notificationUrl too long", []edit{set("notificationUrl", "https://example.com/"+long("p", 2029))}, "203", "notificationUrl"},
		{"challengeWindowSize 0", []edit{set("challengeWindowSize", num("0"))}, "203", "challengeWindowSize"},
		{"challengeWindowSize 6", []edit{set("challengeWindowSize", num("6"))}, "203", "challengeWindowSize"},
		{"challengeWindowSize fraction", []edit{set("challengeWindowSize", num("2.5"))}, "203", "challengeWindowSize"},
		{"challengeWindowSize letters", []edit{set("challengeWindowSize", "big")}, "203", "challengeWindowSize"},
		{"challengeWindowSize bool", []edit{set("challengeWindowSize", true)}, "203", "challengeWindowSize"},
		{"acquirerCode absent", []edit{del("acquirerCode")}, "201", "acquirerCode"},
		{"acquirerCode too long", []edit{set("acquirerCode", long("a", 16))}, "203", "acquirerCode"},
		{"acquirerBIN absent", []edit{del("acquirerBin")}, "201", "acquirerBIN"},
		{"acquirerBIN too long", []edit{set("acquirerBin", long("4", 12))}, "203", "acquirerBin"},
		{"acquirerBIN both names differ", []edit{set("acquirerBIN", "499999")}, "203", "acquirerBIN"},
		{"merchantCode absent", []edit{del("merchantCode")}, "201", "merchantCode"},
		{"merchantCode too long", []edit{set("merchantCode", long("m", 36))}, "203", "merchantCode"},
		{"deviceChannel absent", []edit{del("deviceChannel")}, "201", "deviceChannel"},
		{"deviceChannel 4", []edit{set("deviceChannel", num("4"))}, "203", "deviceChannel"},
		{"deviceChannel app", []edit{set("deviceChannel", num("1"))}, "203", "deviceChannel"},
		{"deviceChannel 3RI", []edit{set("deviceChannel", "3")}, "203", "deviceChannel"},
		{"deviceChannel letters", []edit{set("deviceChannel", "browser")}, "203", "deviceChannel"},
		{"messageCategory absent", []edit{del("messageCategory")}, "201", "messageCategory"},
		{"messageCategory 03", []edit{set("messageCategory", "03")}, "203", "messageCategory"},
		{"threeDsRequestorChallengeInd 0", []edit{set("threeDsRequestorChallengeInd", num("0"))}, "203", "threeDsRequestorChallengeInd"},
		{"threeDsRequestorChallengeInd 5", []edit{set("threeDsRequestorChallengeInd", num("5"))}, "203", "threeDsRequestorChallengeInd"},
		{"messageVersion deprecated", []edit{set("messageVersion", "2.0.0")}, "102", "messageVersion"},
		{"messageVersion pending", []edit{set("messageVersion", "2.3.0")}, "102", "messageVersion"},
		{"messageVersion unknown", []edit{set("messageVersion", "3.0.0")}, "102", "messageVersion"},
		{"messageVersion not a version", []edit{set("messageVersion", "2.2")}, "203", "messageVersion"},
		{"messageVersion number", []edit{set("messageVersion", num("2.2"))}, "203", "messageVersion"},
		{"requestFeatures 100", []edit{set("requestFeatures", num("100"))}, "203", "requestFeatures"},
		{"requestFeatures negative", []edit{set("requestFeatures", num("-1"))}, "203", "requestFeatures"},
		{"threeDSRequestorDecMaxTime 0", []edit{set("threeDSRequestorDecMaxTime", num("0"))}, "203", "threeDSRequestorDecMaxTime"},
		{"threeDSRequestorDecMaxTime 10081", []edit{set("threeDSRequestorDecMaxTime", num("10081"))}, "203", "threeDSRequestorDecMaxTime"},
		{"threeDSRequestorDecMaxTime 6 digits", []edit{set("threeDSRequestorDecMaxTime", "000015")}, "203", "threeDSRequestorDecMaxTime"},
		{"threeDSRequestorDecMaxTime huge", []edit{set("threeDSRequestorDecMaxTime", num("99999999999999999999999"))}, "203", "threeDSRequestorDecMaxTime"},
		{"card absent", []edit{del("card")}, "201", "card"},
		{"card array", []edit{set("card", []any{})}, "203", "card"},
		{"merchantName too long", []edit{set("merchantName", long("n", 51))}, "203", "merchantName"},
		{"purchase absent for payment", []edit{del("purchase")}, "201", "purchase"},
		{"recurring absent for recurring", []edit{set("threeDsRequestorAuthInd", "02")}, "201", "recurring"},
		{"instalmentData absent for instalment", []edit{set("threeDsRequestorAuthInd", "03"),
			set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})}, "201", "instalmentData"},
		{"instalmentData 1", []edit{set("instalmentData", num("1"))}, "203", "instalmentData"},
		{"instalmentData 4 digits", []edit{set("instalmentData", num("1000"))}, "203", "instalmentData"},
		{"email too long", []edit{set("email", long("e", 243)+"@example.com")}, "203", "email"},
		{"email no at", []edit{set("email", "jane.example.com")}, "203", "email"},
		{"email no domain dot", []edit{set("email", "jane@example")}, "203", "email"},
		{"email space", []edit{set("email", "jane doe@example.com")}, "203", "email"},
		{"email two ats", []edit{set("email", "jane@doe@example.com")}, "203", "email"},

		// 2.3 browser
		{"acceptHeader absent", []edit{del("browserInfo.acceptHeader")}, "201", "browserInfo.acceptHeader"},
		{"acceptHeader too long", []edit{set("browserInfo.acceptHeader", long("a", 2049))}, "203", "browserInfo.acceptHeader"},
		{"ip invalid", []edit{set("browserInfo.ip", "999.1.1.1")}, "203", "browserInfo.ip"},
		{"ip too long", []edit{set("browserInfo.ip", long("1", 46))}, "203", "browserInfo.ip"},
		{"ip with zone", []edit{set("browserInfo.ip", "fe80::1%eth0")}, "203", "browserInfo.ip"},
		{"javascriptEnabled absent", []edit{del("browserInfo.javascriptEnabled")}, "201", "browserInfo.javascriptEnabled"},
		{"javascriptEnabled string", []edit{set("browserInfo.javascriptEnabled", "true")}, "203", "browserInfo.javascriptEnabled"},
		{"javaEnabled absent", []edit{del("browserInfo.javaEnabled")}, "201", "browserInfo.javaEnabled"},
		{"javaEnabled number", []edit{set("browserInfo.javaEnabled", num("0"))}, "203", "browserInfo.javaEnabled"},
		{"language absent", []edit{del("browserInfo.language")}, "201", "browserInfo.language"},
		{"language too long", []edit{set("browserInfo.language", "en-GB-oxe")}, "203", "browserInfo.language"},
		{"language underscore", []edit{set("browserInfo.language", "en_GB")}, "203", "browserInfo.language"},
		{"colorDepth absent", []edit{del("browserInfo.colorDepth")}, "201", "browserInfo.colorDepth"},
		{"colorDepth too long", []edit{set("browserInfo.colorDepth", "128")}, "203", "browserInfo.colorDepth"},
		{"colorDepth letters", []edit{set("browserInfo.colorDepth", "2a")}, "203", "browserInfo.colorDepth"},
		{"screenHeight absent", []edit{del("browserInfo.screenHeight")}, "201", "browserInfo.screenHeight"},
		{"screenHeight too long", []edit{set("browserInfo.screenHeight", "1234567")}, "203", "browserInfo.screenHeight"},
		{"screenWidth absent", []edit{del("browserInfo.screenWidth")}, "201", "browserInfo.screenWidth"},
		{"screenWidth letters", []edit{set("browserInfo.screenWidth", "19x0")}, "203", "browserInfo.screenWidth"},
		{"screenWidth fraction", []edit{set("browserInfo.screenWidth", num("1920.5"))}, "203", "browserInfo.screenWidth"},
		{"timeZone absent", []edit{del("browserInfo.timeZone")}, "201", "browserInfo.timeZone"},
		{"timeZone too long", []edit{set("browserInfo.timeZone", "-12345")}, "203", "browserInfo.timeZone"},
		{"timeZone two signs", []edit{set("browserInfo.timeZone", "+-60")}, "203", "browserInfo.timeZone"},
		{"userAgent absent", []edit{del("browserInfo.userAgent")}, "201", "browserInfo.userAgent"},
		{"userAgent too long", []edit{set("browserInfo.userAgent", long("u", 2049))}, "203", "browserInfo.userAgent"},

		// 2.4 card
		{"expiryDate month 13", []edit{set("card.expiryDate", "2813")}, "203", "card.expiryDate"},
		{"expiryDate month 00", []edit{set("card.expiryDate", "2800")}, "203", "card.expiryDate"},
		{"expiryDate short", []edit{set("card.expiryDate", "281")}, "203", "card.expiryDate"},
		{"expiryDate slash", []edit{set("card.expiryDate", "12/28")}, "203", "card.expiryDate"},
		{"cardNumber absent", []edit{del("card.cardNumber")}, "201", "card.cardNumber"},
		{"cardNumber 12 digits", []edit{set("card.cardNumber", "400000000000")}, "203", "card.cardNumber"},
		{"cardNumber 20 digits", []edit{set("card.cardNumber", "40000000000010000000")}, "203", "card.cardNumber"},
		{"cardNumber spaces", []edit{set("card.cardNumber", "4000 0000 0000 1000")}, "203", "card.cardNumber"},
		{"cardNumber number", []edit{set("card.cardNumber", num("4000000000001000"))}, "203", "card.cardNumber"},
		{"cardholderName one char", []edit{set("card.cardholderName", "J")}, "203", "card.cardholderName"},
		{"cardholderName too long", []edit{set("card.cardholderName", long("J", 46))}, "203", "card.cardholderName"},
		{"cardholderName markup", []edit{set("card.cardholderName", "<b>Jane</b>")}, "203", "card.cardholderName"},
		{"cardholderName control", []edit{set("card.cardholderName", "Jane\tDoe")}, "203", "card.cardholderName"},
		{"cardholderName non-ASCII", []edit{set("card.cardholderName", "Zoë Doe")}, "203", "card.cardholderName"},

		// 2.5 requestor
		{"requestor id absent", []edit{del("requestor.id")}, "201", "requestor.id"},
		{"requestor id too long", []edit{set("requestor.id", long("i", 36))}, "203", "requestor.id"},
		{"requestor name absent", []edit{del("requestor.name")}, "201", "requestor.name"},
		{"requestor name too long", []edit{set("requestor.name", long("n", 41))}, "203", "requestor.name"},
		{"requestor url absent", []edit{del("requestor.url")}, "201", "requestor.url"},
		{"requestor url not absolute", []edit{set("requestor.url", "shop.example.com")}, "203", "requestor.url"},
		{"requestor url too long", []edit{set("requestor.url", "https://example.com/"+long("p", 2029))}, "203", "requestor.url"},
		{"cardholderAccountId too long", []edit{set("requestor.cardholderAccountId", long("c", 65))}, "203", "requestor.cardholderAccountId"},

		// 2.6 addresses
		{"billing countryCode absent", []edit{del("billingAddress.countryCode")}, "201", "billingAddress.countryCode"},
		{"billing countryCode alpha-2", []edit{set("billingAddress.countryCode", "GB")}, "203", "billingAddress.countryCode"},
		{"billing countryCode lower case", []edit{set("billingAddress.countryCode", "gbr")}, "203", "billingAddress.countryCode"},
		{"billing countryCode unknown", []edit{set("billingAddress.countryCode", "XYZ")}, "304", "billingAddress.countryCode"},
		{"billing countryCode unknown numeric", []edit{set("billingAddress.countryCode", "999")}, "304", "billingAddress.countryCode"},
		{"billing city too long", []edit{set("billingAddress.city", long("c", 51))}, "203", "billingAddress.city"},
		{"billing postCode too long", []edit{set("billingAddress.postCode", long("1", 17))}, "203", "billingAddress.postCode"},
		{"billing line1 too long", []edit{set("billingAddress.line1", long("l", 51))}, "203", "billingAddress.line1"},
		{"billing line2 too long", []edit{set("billingAddress.line2", long("l", 51))}, "203", "billingAddress.line2"},
		{"billing line3 too long", []edit{set("billingAddress.line3", long("l", 51))}, "203", "billingAddress.line3"},
		{"billing state too long", []edit{set("billingAddress.state", "ABCD")}, "203", "billingAddress.state"},
		{"billing state punctuation", []edit{set("billingAddress.state", "A-")}, "203", "billingAddress.state"},
		{"shipping countryCode unknown", []edit{set("shippingAddress.countryCode", "ZZZ")}, "304", "shippingAddress.countryCode"},
		{"shipping countryCode absent", []edit{del("shippingAddress.countryCode")}, "201", "shippingAddress.countryCode"},

		// 2.7 purchase
		{"purchase date absent", []edit{del("purchase.date")}, "201", "purchase.date"},
		{"purchase date not a day", []edit{set("purchase.date", "2023-02-29 10:00:00")}, "203", "purchase.date"},
		{"purchase date ISO T", []edit{set("purchase.date", "2024-06-11T14:03:27")}, "203", "purchase.date"},
		{"purchase date hour 24", []edit{set("purchase.date", "2024-06-11 24:00:00")}, "203", "purchase.date"},
		{"purchase date one-digit hour", []edit{set("purchase.date", "2024-06-11 4:03:27")}, "203", "purchase.date"},
		{"instalData outside instalment", []edit{set("purchase.instalData", num("3"))}, "203", "purchase.instalData"},
		{"instalData 1", []edit{set("purchase.instalData", num("1"))}, "203", "purchase.instalData"},
		{"instalData 4 characters", []edit{set("purchase.instalData", "0002")}, "203", "purchase.instalData"},
		{"amount absent", []edit{del("purchase.amount")}, "201", "purchase.amount"},
		{"amount negative", []edit{set("purchase.amount", num("-1"))}, "203", "purchase.amount"},
		{"amount exponent", []edit{set("purchase.amount", num("1e3"))}, "203", "purchase.amount"},
		{"amount letters", []edit{set("purchase.amount", "ten")}, "203", "purchase.amount"},
		{"amount comma", []edit{set("purchase.amount", "10,99")}, "203", "purchase.amount"},
		{"amount bool", []edit{set("purchase.amount", true)}, "203", "purchase.amount"},
		{"currencyCode absent", []edit{del("purchase.currencyCode")}, "201", "purchase.currencyCode"},
		{"currencyCode unknown", []edit{set("purchase.currencyCode", "XYZ")}, "304", "purchase.currencyCode"},
		{"currencyCode unknown numeric", []edit{set("purchase.currencyCode", "001")}, "304", "purchase.currencyCode"},
		{"currencyCode lower case", []edit{set("purchase.currencyCode", "eur")}, "203", "purchase.currencyCode"},
		{"currencyCode number", []edit{set("purchase.currencyCode", num("978"))}, "203", "purchase.currencyCode"},

		// 2.8 recurring
		{"recurring expiry absent", []edit{set("threeDsRequestorAuthInd", "02"),
			set("recurring", map[string]any{"frequency": num("30")})}, "201", "recurring.expiry"},
		{"recurring frequency absent", []edit{set("threeDsRequestorAuthInd", "02"),
			set("recurring", map[string]any{"expiry": "20251231"})}, "201", "recurring.frequency"},
		{"recurring expiry not a day", []edit{set("recurring.expiry", "20250631")}, "203", "recurring.expiry"},
		{"recurring expiry short", []edit{set("recurring.expiry", "251231")}, "203", "recurring.expiry"},
		{"recurring frequency 0", []edit{set("recurring.frequency", num("0"))}, "203", "recurring.frequency"},
		{"recurring frequency 10000", []edit{set("recurring.frequency", num("10000"))}, "203", "recurring.frequency"},

		// 2.9 phones
		{"homePhone countryCode absent", []edit{set("homePhone", map[string]any{"subscriber": "2079460000"})}, "201", "homePhone.countryCode"},
		{"workPhone subscriber absent", []edit{set("workPhone", map[string]any{"countryCode": "1"})}, "201", "workPhone.subscriber"},
		{"mobilePhone countryCode plus", []edit{set("mobilePhone.countryCode", "+44")}, "203", "mobilePhone.countryCode"},
		{"mobilePhone countryCode too long", []edit{set("mobilePhone.countryCode", "4444")}, "203", "mobilePhone.countryCode"},
		{"mobilePhone subscriber too long", []edit{set("mobilePhone.subscriber", long("7", 16))}, "203", "mobilePhone.subscriber"},
		{"mobilePhone subscriber spaces", []edit{set("mobilePhone.subscriber", "7700 900123")}, "203", "mobilePhone.subscriber"},

		// 2.10 accountInfo
		{"chAccAgeInd 06", []edit{set("accountInfo.chAccAgeInd", "06")}, "203", "accountInfo.chAccAgeInd"},
		{"chAccChange not a date", []edit{set("accountInfo.chAccChange", "2024-01-02")}, "203", "accountInfo.chAccChange"},
		{"chAccChangeInd 05", []edit{set("accountInfo.chAccChangeInd", "05")}, "203", "accountInfo.chAccChangeInd"},
		{"chAccDate not a day", []edit{set("accountInfo.chAccDate", "20190229")}, "203", "accountInfo.chAccDate"},
		{"chAccPwChange month 13", []edit{set("accountInfo.chAccPwChange", "20231320")}, "203", "accountInfo.chAccPwChange"},
		{"chAccPwChangeInd 00", []edit{set("accountInfo.chAccPwChangeInd", "00")}, "203", "accountInfo.chAccPwChangeInd"},
		{"nbPurchaseAccount too long", []edit{set("accountInfo.nbPurchaseAccount", "12345")}, "203", "accountInfo.nbPurchaseAccount"},
		{"provisionAttemptsDay too long", []edit{set("accountInfo.provisionAttemptsDay", "1000")}, "203", "accountInfo.provisionAttemptsDay"},
		{"txnActivityDay letters", []edit{set("accountInfo.txnActivityDay", "one")}, "203", "accountInfo.txnActivityDay"},
		{"txnActivityYear too long", []edit{set("accountInfo.txnActivityYear", num("1000"))}, "203", "accountInfo.txnActivityYear"},
		{"paymentAccAge not a date", []edit{set("accountInfo.paymentAccAge", "2020060")}, "203", "accountInfo.paymentAccAge"},
		{"paymentAccInd 6", []edit{set("accountInfo.paymentAccInd", "6")}, "203", "accountInfo.paymentAccInd"},
		{"shipAddressUsage day 32", []edit{set("accountInfo.shipAddressUsage", "20190132")}, "203", "accountInfo.shipAddressUsage"},
		{"shipAddressUsageInd 05", []edit{set("accountInfo.shipAddressUsageInd", "05")}, "203", "accountInfo.shipAddressUsageInd"},
		{"shipNameIndicator 03", []edit{set("accountInfo.shipNameIndicator", "03")}, "203", "accountInfo.shipNameIndicator"},
		{"suspiciousAccActivity 03", []edit{set("accountInfo.suspiciousAccActivity", "03")}, "203", "accountInfo.suspiciousAccActivity"},
		{"accountInfo long name bad value", []edit{del("accountInfo.chAccAgeInd"), set("accountInfo.accountAgeIndicator", "09")}, "203", "accountInfo.accountAgeIndicator"},
		{"accountInfo both names", []edit{set("accountInfo.suspiciousAccountActivity", "01")}, "204", "accountInfo.suspiciousAccountActivity"},

		// 2.11 additionalAccountInfo
		{"accountType 0", []edit{set("additionalAccountInfo.accountType", num("0"))}, "203", "additionalAccountInfo.accountType"},
		{"accountType 4", []edit{set("additionalAccountInfo.accountType", "4")}, "203", "additionalAccountInfo.accountType"},
		{"authenticationMethod 7", []edit{set("additionalAccountInfo.authenticationMethod", num("7"))}, "203", "additionalAccountInfo.authenticationMethod"},
		{"authenticationTimeStamp month 13", []edit{set("additionalAccountInfo.authenticationTimeStamp", "20241311140012")}, "203", "additionalAccountInfo.authenticationTimeStamp"},
		{"authenticationTimeStamp minute 60", []edit{set("additionalAccountInfo.authenticationTimeStamp", "20240611146012")}, "203", "additionalAccountInfo.authenticationTimeStamp"},
		{"authenticationTimeStamp short", []edit{set("additionalAccountInfo.authenticationTimeStamp", "202406111400")}, "203", "additionalAccountInfo.authenticationTimeStamp"},

		// 2.12 merchantRiskInfo
		{"deliveryEmailAddress invalid", []edit{set("merchantRiskInfo.deliveryEmailAddress", "@example.com")}, "203", "merchantRiskInfo.deliveryEmailAddress"},
		{"deliveryTimeframe 05", []edit{set("merchantRiskInfo.deliveryTimeframe", "05")}, "203", "merchantRiskInfo.deliveryTimeframe"},
		{"giftCardAmount too long", []edit{set("merchantRiskInfo.giftCardAmount", long("9", 16))}, "203", "merchantRiskInfo.giftCardAmount"},
		{"giftCardAmount decimal", []edit{set("merchantRiskInfo.giftCardAmount", "1.5")}, "203", "merchantRiskInfo.giftCardAmount"},
		{"giftCardCount one digit", []edit{set("merchantRiskInfo.giftCardCount", "1")}, "203", "merchantRiskInfo.giftCardCount"},
		{"giftCardCount letters", []edit{set("merchantRiskInfo.giftCardCount", "ab")}, "203", "merchantRiskInfo.giftCardCount"},
		{"giftCardCurr unknown", []edit{set("merchantRiskInfo.giftCardCurr", "ABC")}, "304", "merchantRiskInfo.giftCardCurr"},
		{"giftCardCurr two letters", []edit{set("merchantRiskInfo.giftCardCurr", "EU")}, "203", "merchantRiskInfo.giftCardCurr"},
		{"preOrderDate not a day", []edit{set("merchantRiskInfo.preOrderDate", "20240230")}, "203", "merchantRiskInfo.preOrderDate"},
		{"preOrderPurchaseInd 03", []edit{set("merchantRiskInfo.preOrderPurchaseInd", "03")}, "203", "merchantRiskInfo.preOrderPurchaseInd"},
		{"reorderItemsInd 03", []edit{set("merchantRiskInfo.reorderItemsInd", "03")}, "203", "merchantRiskInfo.reorderItemsInd"},
		{"shipIndicator 08", []edit{set("merchantRiskInfo.shipIndicator", "08")}, "203", "merchantRiskInfo.shipIndicator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeLookup(edited(t, tt.edits...))
			e := asError(t, err)
			if len(e.Problems) != 1 || !hasProblem(e, tt.code, tt.field) {
				t.Fatalf("problems = %+v, want one %s on %s", e.Problems, tt.code, tt.field)
			}
			if got, want := e.EMVCode, tt.code; got != want {
				t.Errorf("EMVCode = %s, want %s", got, want)
			}
			if got, want := e.Detail, tt.field; got != want {
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
		edits []edit
		code  emulator.ErrorCode
	}{
		{"app alone", []edit{set("deviceChannel", num("1"))}, emulator.CodeDeviceChannel},
		{"3RI alone", []edit{set("deviceChannel", num("3"))}, emulator.CodeDeviceChannel},
		{"app among other problems", []edit{set("deviceChannel", num("1")), del("ddcId")}, emulator.CodeMissingField},
		{"out of range", []edit{set("deviceChannel", num("7"))}, emulator.CodeInvalidField},
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
		edits []edit
		check func(t *testing.T, r emulator.LookupRequest)
	}{
		{"defaults when absent", []edit{del("challengeWindowSize"), del("threeDsRequestorChallengeInd"),
			del("threeDSRequestorDecMaxTime"), del("requestFeatures"), del("messageVersion")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.ChallengeWindowSize != 3 || r.ThreeDSRequestorChallengeInd != 1 || r.ThreeDSRequestorDecMaxTime != 15 ||
					r.RequestFeatures != -1 || r.MessageVersion != "" {
					t.Errorf("defaults = %d, %d, %d, %d, %q; want 3, 1, 15, -1, \"\"", r.ChallengeWindowSize,
						r.ThreeDSRequestorChallengeInd, r.ThreeDSRequestorDecMaxTime, r.RequestFeatures, r.MessageVersion)
				}
			}},
		{"int fields as digit strings", []edit{set("deviceChannel", "2"), set("challengeWindowSize", "05"),
			set("threeDsRequestorChallengeInd", "04"), set("requestFeatures", "99"), set("threeDSRequestorDecMaxTime", "10080")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.DeviceChannel != 2 || r.ChallengeWindowSize != 5 || r.ThreeDSRequestorChallengeInd != 4 ||
					r.RequestFeatures != 99 || r.ThreeDSRequestorDecMaxTime != 10080 {
					t.Errorf("got %d, %d, %d, %d, %d; want 2, 5, 4, 99, 10080", r.DeviceChannel, r.ChallengeWindowSize,
						r.ThreeDSRequestorChallengeInd, r.RequestFeatures, r.ThreeDSRequestorDecMaxTime)
				}
			}},
		{"browser numbers as JSON numbers", []edit{set("browserInfo.colorDepth", num("32")), set("browserInfo.screenHeight", num("900")),
			set("browserInfo.screenWidth", num("1440")), set("browserInfo.timeZone", "+120")},
			func(t *testing.T, r emulator.LookupRequest) {
				b := r.Browser
				if b.ColorDepth != "32" || b.ScreenHeight != "900" || b.ScreenWidth != "1440" || b.TimeZone != "+120" {
					t.Errorf("browser = %+v", b)
				}
			}},
		{"acquirerBIN spelling", []edit{del("acquirerBin"), set("acquirerBIN", "400000")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.AcquirerBIN, "400000"; got != want {
					t.Errorf("AcquirerBIN = %q, want %q", got, want)
				}
			}},
		{"acquirerBIN both spellings equal", []edit{set("acquirerBIN", "412345")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.AcquirerBIN, "412345"; got != want {
					t.Errorf("AcquirerBIN = %q, want %q", got, want)
				}
			}},
		{"decMaxTime lower-case s spelling", []edit{del("threeDSRequestorDecMaxTime"), set("threeDsRequestorDecMaxTime", num("60"))},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.ThreeDSRequestorDecMaxTime, 60; got != want {
					t.Errorf("ThreeDSRequestorDecMaxTime = %d, want %d", got, want)
				}
			}},
		{"amount as string", []edit{set("purchase.amount", "0010.50")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.Purchase.Amount, "0010.50"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"amount zero integer", []edit{set("purchase.amount", num("0"))},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.Purchase.Amount, "0"; got != want {
					t.Errorf("Amount = %q, want %q", got, want)
				}
			}},
		{"numeric currency and country", []edit{set("purchase.currencyCode", "978"), set("billingAddress.countryCode", "840")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.Purchase.CurrencyCode != "978" || r.BillingAddress.CountryCode != "840" {
					t.Errorf("codes = %q, %q", r.Purchase.CurrencyCode, r.BillingAddress.CountryCode)
				}
			}},
		{"optional fields null or empty", []edit{set("notificationUrl", nil), set("session", ""), set("requestor", nil),
			set("card.cardholderName", ""), set("browserInfo.ip", nil), set("email", "")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.NotificationURL != "" || r.Session != "" || r.Requestor != nil || r.Card.CardholderName != "" ||
					r.Browser.IP != "" || r.Email != "" {
					t.Errorf("request = %+v, want the optional fields empty", r)
				}
			}},
		{"http notificationUrl", []edit{set("notificationUrl", "http://localhost:8080/3ds")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.NotificationURL, "http://localhost:8080/3ds"; got != want {
					t.Errorf("NotificationURL = %q, want %q", got, want)
				}
			}},
		{"IPv6", []edit{set("browserInfo.ip", "2001:db8::8a2e:370:7334")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.Browser.IP, "2001:db8::8a2e:370:7334"; got != want {
					t.Errorf("IP = %q, want %q", got, want)
				}
			}},
		{"non-payment without purchase", []edit{set("messageCategory", "02"), del("purchase"), set("threeDsRequestorAuthInd", "04")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.Purchase != nil {
					t.Errorf("Purchase = %+v, want nil", r.Purchase)
				}
			}},
		{"recurring", []edit{set("threeDsRequestorAuthInd", "02"), set("recurring", map[string]any{"expiry": "20251231", "frequency": "30"})},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.Recurring == nil || *r.Recurring != (emulator.Recurring{Expiry: "20251231", Frequency: 30}) {
					t.Errorf("Recurring = %+v", r.Recurring)
				}
			}},
		{"instalment", []edit{set("threeDsRequestorAuthInd", "03"), set("instalmentData", num("12")),
			set("purchase.instalData", "012"), set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.InstalmentData != 12 || r.Purchase.InstalData != 12 {
					t.Errorf("InstalmentData, InstalData = %d, %d; want 12, 12", r.InstalmentData, r.Purchase.InstalData)
				}
			}},
		{"no JavaScript", []edit{set("browserInfo.javascriptEnabled", false), del("browserInfo.javaEnabled"),
			del("browserInfo.colorDepth"), del("browserInfo.screenHeight"), del("browserInfo.screenWidth"), del("browserInfo.timeZone")},
			func(t *testing.T, r emulator.LookupRequest) {
				if r.Browser.JavascriptEnabled || r.Browser.ColorDepth != "" {
					t.Errorf("Browser = %+v", r.Browser)
				}
			}},
		{"phones", []edit{set("homePhone", map[string]any{"countryCode": num("1"), "subscriber": num("2125550100")}),
			set("workPhone", map[string]any{"countryCode": "33", "subscriber": "142685300"})},
			func(t *testing.T, r emulator.LookupRequest) {
				if *r.HomePhone != (emulator.Phone{CountryCode: "1", Subscriber: "2125550100"}) ||
					*r.WorkPhone != (emulator.Phone{CountryCode: "33", Subscriber: "142685300"}) {
					t.Errorf("phones = %+v, %+v", r.HomePhone, r.WorkPhone)
				}
			}},
		{"leap day", []edit{set("purchase.date", "2024-02-29 23:59:59")},
			func(t *testing.T, r emulator.LookupRequest) {
				if got, want := r.Purchase.Date, "2024-02-29 23:59:59"; got != want {
					t.Errorf("Date = %q, want %q", got, want)
				}
			}},
		{"test PAN failing Luhn", []edit{set("card.cardNumber", "4000000000001001")},
			func(t *testing.T, r emulator.LookupRequest) {
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
	if got, want := e.EMVCode, "201"; got != want {
		t.Errorf("EMVCode = %s, want %s", got, want)
	}
	if got, want := e.Detail, "browserInfo.language,ddcId"; got != want {
		t.Errorf("Detail = %q, want %q", got, want)
	}
	for _, f := range []string{"card.cardNumber", "purchase.currencyCode", "messageVersion"} {
		if !strings.Contains(e.Message, f) {
			t.Errorf("Message %q does not name %s", e.Message, f)
		}
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
			if got, want := e.Code, emulator.CodeDuplicateField; got != want {
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
				if e.Code != emulator.CodeMalformedJSON || e.EMVCode != "101" {
					t.Errorf("%s: got %s/%s, want %s/101", name, e.Code, e.EMVCode, emulator.CodeMalformedJSON)
				}
				if !strings.Contains(e.Message, "byte offset") || !strings.HasPrefix(e.Detail, "body") {
					t.Errorf("%s: message %q / detail %q should locate the problem", name, e.Message, e.Detail)
				}
			}
		})
	}
}

func BenchmarkDecodeLookup(b *testing.B) {
	body := baseBody(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := DecodeLookup(body); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeLookupCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"ext": [`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"k": 1, "k": 2}`)
	}
	b.WriteString(`]`)
	for i := range 1000 {
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
