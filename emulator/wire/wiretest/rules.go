// Package wiretest holds the table of lookup validation rules of spec
// 2.2-2.12, one row per rule: the realistic base request with one change,
// and the one problem it must cause. The wire package checks each row on
// DecodeLookup and the web package sends each through HTTP, so the spec's
// rules are tested at both levels from one table.
package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Case is one rule: the change to the base request, and the EMV code and
// field of the one problem it causes.
type Case struct {
	Name    string
	edits   []Edit
	EMVCode string
	Field   string
}

// Apply returns base (a valid lookup request) with the case's change.
func (c Case) Apply(base []byte) ([]byte, error) { return Edited(base, c.edits...) }

// LookupRules returns the rows; every call returns a fresh slice.
func LookupRules() []Case { return append([]Case(nil), lookupRules...) }

// Edit changes one field of a request: sets it to val, or deletes it.
type Edit struct {
	path string
	val  any
	del  bool
}

// Set returns an edit that sets the dotted path to val.
func Set(path string, val any) Edit { return Edit{path: path, val: val} }

// Del returns an edit that deletes the dotted path.
func Del(path string) Edit { return Edit{path: path, del: true} }

// Num is a JSON number written as is.
func Num(s string) json.Number { return json.Number(s) }

// Raw is JSON text written as is, for what a Go string cannot hold, such
// as the escape of a lone UTF-16 surrogate.
func Raw(s string) json.RawMessage { return json.RawMessage(s) }

// Long returns a string of n copies of c.
func Long(c string, n int) string { return strings.Repeat(c, n) }

// Edited returns base with the edits applied, re-encoded.
func Edited(base []byte, edits ...Edit) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(base))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode base request: %w", err)
	}
	for _, e := range edits {
		keys := strings.Split(e.path, ".")
		obj := m
		for _, k := range keys[:len(keys)-1] {
			next, ok := obj[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				obj[k] = next
			}
			obj = next
		}
		last := keys[len(keys)-1]
		if e.del {
			delete(obj, last)
		} else {
			obj[last] = e.val
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode edited request: %w", err)
	}
	return out, nil
}

// noJS210 is a 2.1.0 request from a browser without JavaScript, with
// one more change.
func noJS210(e Edit) []Edit {
	return []Edit{set("messageVersion", "2.1.0"), set("browserInfo.javascriptEnabled", false), e}
}

// set, del, num, raw and long keep the table short.
var (
	set  = Set
	del  = Del
	num  = Num
	raw  = Raw
	long = Long
)

var lookupRules = []Case{
	// 2.2 lookup body
	{"externalReferenceId absent", []Edit{del("externalReferenceId")}, "201", "externalReferenceId"},
	{"externalReferenceId null", []Edit{set("externalReferenceId", nil)}, "201", "externalReferenceId"},
	{"externalReferenceId empty", []Edit{set("externalReferenceId", "")}, "201", "externalReferenceId"},
	{"externalReferenceId too long", []Edit{set("externalReferenceId", long("r", 51))}, "203", "externalReferenceId"},
	{"externalReferenceId number", []Edit{set("externalReferenceId", num("12"))}, "203", "externalReferenceId"},
	{"ddcId absent", []Edit{del("ddcId")}, "201", "ddcId"},
	{"ddcId too long", []Edit{set("ddcId", long("d", 51))}, "203", "ddcId"},
	{"threeDsRequestorAuthInd absent", []Edit{del("threeDsRequestorAuthInd")}, "201", "threeDsRequestorAuthInd"},
	{"threeDsRequestorAuthInd 07", []Edit{set("threeDsRequestorAuthInd", "07")}, "203", "threeDsRequestorAuthInd"},
	{"threeDsRequestorAuthInd one digit", []Edit{set("threeDsRequestorAuthInd", "1")}, "203", "threeDsRequestorAuthInd"},
	{"threeDsRequestorAuthInd number", []Edit{set("threeDsRequestorAuthInd", num("1"))}, "203", "threeDsRequestorAuthInd"},
	{"session too long", []Edit{set("session", long("s", 1025))}, "203", "session"},
	{"session object", []Edit{set("session", map[string]any{})}, "203", "session"},
	{"browserInfo absent", []Edit{del("browserInfo")}, "201", "browserInfo"},
	{"browserInfo string", []Edit{set("browserInfo", "x")}, "203", "browserInfo"},
	{"notificationUrl ftp", []Edit{set("notificationUrl", "ftp://shop.example.com/n")}, "203", "notificationUrl"},
	{"notificationUrl relative", []Edit{set("notificationUrl", "/3ds/notify")}, "203", "notificationUrl"},
	{"notificationUrl no host", []Edit{set("notificationUrl", "https:///notify")}, "203", "notificationUrl"},
	{"notificationUrl too long", []Edit{set("notificationUrl", "https://example.com/"+long("p", 2029))}, "203", "notificationUrl"},
	{"challengeWindowSize 0", []Edit{set("challengeWindowSize", num("0"))}, "203", "challengeWindowSize"},
	{"challengeWindowSize 6", []Edit{set("challengeWindowSize", num("6"))}, "203", "challengeWindowSize"},
	{"challengeWindowSize fraction", []Edit{set("challengeWindowSize", num("2.5"))}, "203", "challengeWindowSize"},
	{"challengeWindowSize letters", []Edit{set("challengeWindowSize", "big")}, "203", "challengeWindowSize"},
	{"challengeWindowSize bool", []Edit{set("challengeWindowSize", true)}, "203", "challengeWindowSize"},
	{"acquirerCode absent", []Edit{del("acquirerCode")}, "201", "acquirerCode"},
	{"acquirerCode too long", []Edit{set("acquirerCode", long("a", 16))}, "203", "acquirerCode"},
	{"acquirerBIN absent", []Edit{del("acquirerBin")}, "201", "acquirerBIN"},
	{"acquirerBIN too long", []Edit{set("acquirerBin", long("4", 12))}, "203", "acquirerBin"},
	{"acquirerBIN both names differ", []Edit{set("acquirerBIN", "499999")}, "203", "acquirerBIN"},
	{"merchantCode absent", []Edit{del("merchantCode")}, "201", "merchantCode"},
	{"merchantCode too long", []Edit{set("merchantCode", long("m", 36))}, "203", "merchantCode"},
	{"deviceChannel absent", []Edit{del("deviceChannel")}, "201", "deviceChannel"},
	{"deviceChannel 4", []Edit{set("deviceChannel", num("4"))}, "203", "deviceChannel"},
	{"deviceChannel app", []Edit{set("deviceChannel", num("1"))}, "203", "deviceChannel"},
	{"deviceChannel 3RI", []Edit{set("deviceChannel", "3")}, "203", "deviceChannel"},
	{"deviceChannel letters", []Edit{set("deviceChannel", "browser")}, "203", "deviceChannel"},
	{"messageCategory absent", []Edit{del("messageCategory")}, "201", "messageCategory"},
	{"messageCategory 03", []Edit{set("messageCategory", "03")}, "203", "messageCategory"},
	{"threeDsRequestorChallengeInd 0", []Edit{set("threeDsRequestorChallengeInd", num("0"))}, "203", "threeDsRequestorChallengeInd"},
	{"threeDsRequestorChallengeInd 5", []Edit{set("threeDsRequestorChallengeInd", num("5"))}, "203", "threeDsRequestorChallengeInd"},
	{"messageVersion deprecated", []Edit{set("messageVersion", "2.0.0")}, "102", "messageVersion"},
	{"messageVersion pending", []Edit{set("messageVersion", "2.3.0")}, "102", "messageVersion"},
	{"messageVersion unknown", []Edit{set("messageVersion", "3.0.0")}, "102", "messageVersion"},
	{"messageVersion not a version", []Edit{set("messageVersion", "2.2")}, "203", "messageVersion"},
	{"messageVersion number", []Edit{set("messageVersion", num("2.2"))}, "203", "messageVersion"},
	{"requestFeatures 100", []Edit{set("requestFeatures", num("100"))}, "203", "requestFeatures"},
	{"requestFeatures negative", []Edit{set("requestFeatures", num("-1"))}, "203", "requestFeatures"},
	{"threeDSRequestorDecMaxTime 0", []Edit{set("threeDSRequestorDecMaxTime", num("0"))}, "203", "threeDSRequestorDecMaxTime"},
	{"threeDSRequestorDecMaxTime 10081", []Edit{set("threeDSRequestorDecMaxTime", num("10081"))}, "203", "threeDSRequestorDecMaxTime"},
	{"threeDSRequestorDecMaxTime 6 digits", []Edit{set("threeDSRequestorDecMaxTime", "000015")}, "203", "threeDSRequestorDecMaxTime"},
	{"threeDSRequestorDecMaxTime huge", []Edit{set("threeDSRequestorDecMaxTime", num("99999999999999999999999"))}, "203", "threeDSRequestorDecMaxTime"},
	{"card absent", []Edit{del("card")}, "201", "card"},
	{"card array", []Edit{set("card", []any{})}, "203", "card"},
	{"merchantName too long", []Edit{set("merchantName", long("n", 51))}, "203", "merchantName"},
	{"purchase absent for payment", []Edit{del("purchase")}, "201", "purchase"},
	{"recurring absent for recurring", []Edit{set("threeDsRequestorAuthInd", "02")}, "201", "recurring"},
	{"instalmentData absent for instalment", []Edit{set("threeDsRequestorAuthInd", "03"),
		set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})}, "201", "instalmentData"},
	{"instalmentData 1", []Edit{set("instalmentData", num("1"))}, "203", "instalmentData"},
	{"instalmentData 4 digits", []Edit{set("instalmentData", num("1000"))}, "203", "instalmentData"},
	{"instalmentData 4 characters", []Edit{set("threeDsRequestorAuthInd", "03"), set("instalmentData", "0002"),
		set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})}, "203", "instalmentData"},
	{"instalmentData outside instalment", []Edit{set("instalmentData", num("3"))}, "203", "instalmentData"},
	{"instalmentData and instalData differ", []Edit{set("threeDsRequestorAuthInd", "03"), set("instalmentData", num("12")),
		set("purchase.instalData", "6"), set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})}, "203", "instalmentData"},
	{"email too long", []Edit{set("email", long("e", 243)+"@example.com")}, "203", "email"},
	{"email no at", []Edit{set("email", "jane.example.com")}, "203", "email"},
	{"email no domain dot", []Edit{set("email", "jane@example")}, "203", "email"},
	{"email space", []Edit{set("email", "jane doe@example.com")}, "203", "email"},
	{"email two ats", []Edit{set("email", "jane@doe@example.com")}, "203", "email"},
	{"threeDsRequestorAuthInd under its EMV name", []Edit{del("threeDsRequestorAuthInd"), set("threeDSRequestorAuthenticationInd", "01")},
		"201", "threeDsRequestorAuthInd"},
	{"cardNumber under acctNumber", []Edit{del("card.cardNumber"), set("card.acctNumber", "4000000000009003")}, "201", "card.cardNumber"},

	// text fields: no control characters, no lone UTF-16 surrogates
	{"merchantName NUL", []Edit{set("merchantName", "Example\x00Shop")}, "203", "merchantName"},
	{"externalReferenceId newline", []Edit{set("externalReferenceId", "ORD-1\n")}, "203", "externalReferenceId"},
	{"ddcId tab", []Edit{set("ddcId", "\t0_6b0c")}, "203", "ddcId"},
	{"userAgent DEL", []Edit{set("browserInfo.userAgent", "Mozilla/5.0\x7f")}, "203", "browserInfo.userAgent"},
	{"city C1 control", []Edit{set("billingAddress.city", "Lon\u0085don")}, "203", "billingAddress.city"},
	{"session lone high surrogate", []Edit{set("session", raw(`"eyJ\ud800"`))}, "203", "session"},
	{"line1 lone low surrogate", []Edit{set("billingAddress.line1", raw(`"\udc00 Example Street"`))}, "203", "billingAddress.line1"},
	{"requestor name surrogate then letter", []Edit{set("requestor.name", raw(`"Shop \ud83d\u0041"`))}, "203", "requestor.name"},

	// 2.3 browser
	{"acceptHeader absent", []Edit{del("browserInfo.acceptHeader")}, "201", "browserInfo.acceptHeader"},
	{"acceptHeader too long", []Edit{set("browserInfo.acceptHeader", long("a", 2049))}, "203", "browserInfo.acceptHeader"},
	{"ip invalid", []Edit{set("browserInfo.ip", "999.1.1.1")}, "203", "browserInfo.ip"},
	{"ip too long", []Edit{set("browserInfo.ip", long("1", 46))}, "203", "browserInfo.ip"},
	{"ip with zone", []Edit{set("browserInfo.ip", "fe80::1%eth0")}, "203", "browserInfo.ip"},
	{"javascriptEnabled absent", []Edit{del("browserInfo.javascriptEnabled")}, "201", "browserInfo.javascriptEnabled"},
	{"javascriptEnabled string", []Edit{set("browserInfo.javascriptEnabled", "true")}, "203", "browserInfo.javascriptEnabled"},
	{"javaEnabled absent", []Edit{del("browserInfo.javaEnabled")}, "201", "browserInfo.javaEnabled"},
	{"javaEnabled number", []Edit{set("browserInfo.javaEnabled", num("0"))}, "203", "browserInfo.javaEnabled"},
	{"language absent", []Edit{del("browserInfo.language")}, "201", "browserInfo.language"},
	{"language too long", []Edit{set("browserInfo.language", "en-GB-oxe")}, "203", "browserInfo.language"},
	{"language underscore", []Edit{set("browserInfo.language", "en_GB")}, "203", "browserInfo.language"},
	{"language digits", []Edit{set("browserInfo.language", "123")}, "203", "browserInfo.language"},
	{"language a word", []Edit{set("browserInfo.language", "english")}, "203", "browserInfo.language"},
	{"language trailing dash", []Edit{set("browserInfo.language", "en-")}, "203", "browserInfo.language"},
	{"language bad region", []Edit{set("browserInfo.language", "en-G")}, "203", "browserInfo.language"},
	{"colorDepth absent", []Edit{del("browserInfo.colorDepth")}, "201", "browserInfo.colorDepth"},
	{"colorDepth too long", []Edit{set("browserInfo.colorDepth", "128")}, "203", "browserInfo.colorDepth"},
	{"colorDepth letters", []Edit{set("browserInfo.colorDepth", "2a")}, "203", "browserInfo.colorDepth"},
	{"screenHeight absent", []Edit{del("browserInfo.screenHeight")}, "201", "browserInfo.screenHeight"},
	{"screenHeight too long", []Edit{set("browserInfo.screenHeight", "1234567")}, "203", "browserInfo.screenHeight"},
	{"screenWidth absent", []Edit{del("browserInfo.screenWidth")}, "201", "browserInfo.screenWidth"},
	{"screenWidth letters", []Edit{set("browserInfo.screenWidth", "19x0")}, "203", "browserInfo.screenWidth"},
	{"screenWidth fraction", []Edit{set("browserInfo.screenWidth", num("1920.5"))}, "203", "browserInfo.screenWidth"},
	{"timeZone absent", []Edit{del("browserInfo.timeZone")}, "201", "browserInfo.timeZone"},
	{"timeZone too long", []Edit{set("browserInfo.timeZone", "-12345")}, "203", "browserInfo.timeZone"},
	{"timeZone two signs", []Edit{set("browserInfo.timeZone", "+-60")}, "203", "browserInfo.timeZone"},
	// Without JavaScript, EMV 2.2.0 lets these go; 2.1.0 does not.
	{"2.1.0 no JavaScript, javaEnabled absent", noJS210(del("browserInfo.javaEnabled")), "201", "browserInfo.javaEnabled"},
	{"2.1.0 no JavaScript, colorDepth absent", noJS210(del("browserInfo.colorDepth")), "201", "browserInfo.colorDepth"},
	{"2.1.0 no JavaScript, screenHeight absent", noJS210(del("browserInfo.screenHeight")), "201", "browserInfo.screenHeight"},
	{"2.1.0 no JavaScript, screenWidth absent", noJS210(del("browserInfo.screenWidth")), "201", "browserInfo.screenWidth"},
	{"2.1.0 no JavaScript, timeZone absent", noJS210(del("browserInfo.timeZone")), "201", "browserInfo.timeZone"},
	{"2.1.0 no JavaScript, timeZone null", noJS210(set("browserInfo.timeZone", nil)), "201", "browserInfo.timeZone"},
	{"timeZone 99999", []Edit{set("browserInfo.timeZone", "99999")}, "203", "browserInfo.timeZone"},
	{"timeZone past UTC+14", []Edit{set("browserInfo.timeZone", num("-841"))}, "203", "browserInfo.timeZone"},
	{"timeZone past UTC-12", []Edit{set("browserInfo.timeZone", "+721")}, "203", "browserInfo.timeZone"},
	{"timeZone in hours", []Edit{set("browserInfo.timeZone", num("1.5"))}, "203", "browserInfo.timeZone"},
	{"userAgent absent", []Edit{del("browserInfo.userAgent")}, "201", "browserInfo.userAgent"},
	{"userAgent too long", []Edit{set("browserInfo.userAgent", long("u", 2049))}, "203", "browserInfo.userAgent"},

	// 2.4 card
	{"expiryDate month 13", []Edit{set("card.expiryDate", "2813")}, "203", "card.expiryDate"},
	{"expiryDate month 00", []Edit{set("card.expiryDate", "2800")}, "203", "card.expiryDate"},
	{"expiryDate short", []Edit{set("card.expiryDate", "281")}, "203", "card.expiryDate"},
	{"expiryDate slash", []Edit{set("card.expiryDate", "12/28")}, "203", "card.expiryDate"},
	{"cardNumber absent", []Edit{del("card.cardNumber")}, "201", "card.cardNumber"},
	{"cardNumber 12 digits", []Edit{set("card.cardNumber", "400000000000")}, "203", "card.cardNumber"},
	{"cardNumber 20 digits", []Edit{set("card.cardNumber", "40000000000010000000")}, "203", "card.cardNumber"},
	{"cardNumber spaces", []Edit{set("card.cardNumber", "4000 0000 0000 1000")}, "203", "card.cardNumber"},
	{"cardNumber number", []Edit{set("card.cardNumber", num("4000000000001000"))}, "203", "card.cardNumber"},
	{"cardholderName one char", []Edit{set("card.cardholderName", "J")}, "203", "card.cardholderName"},
	{"cardholderName too long", []Edit{set("card.cardholderName", long("J", 46))}, "203", "card.cardholderName"},
	{"cardholderName DEL", []Edit{set("card.cardholderName", "Jane\x7fDoe")}, "203", "card.cardholderName"},
	{"cardholderName control", []Edit{set("card.cardholderName", "Jane\tDoe")}, "203", "card.cardholderName"},
	{"cardholderName non-ASCII", []Edit{set("card.cardholderName", "Zoë Doe")}, "203", "card.cardholderName"},

	// 2.5 requestor
	{"requestor id absent", []Edit{del("requestor.id")}, "201", "requestor.id"},
	{"requestor id too long", []Edit{set("requestor.id", long("i", 36))}, "203", "requestor.id"},
	{"requestor name absent", []Edit{del("requestor.name")}, "201", "requestor.name"},
	{"requestor name too long", []Edit{set("requestor.name", long("n", 41))}, "203", "requestor.name"},
	{"requestor url absent", []Edit{del("requestor.url")}, "201", "requestor.url"},
	{"requestor url not absolute", []Edit{set("requestor.url", "shop.example.com")}, "203", "requestor.url"},
	{"requestor url too long", []Edit{set("requestor.url", "https://example.com/"+long("p", 2029))}, "203", "requestor.url"},
	{"cardholderAccountId too long", []Edit{set("requestor.cardholderAccountId", long("c", 65))}, "203", "requestor.cardholderAccountId"},

	// 2.6 addresses
	{"billing countryCode absent", []Edit{del("billingAddress.countryCode")}, "201", "billingAddress.countryCode"},
	{"billing countryCode alpha-2", []Edit{set("billingAddress.countryCode", "GB")}, "203", "billingAddress.countryCode"},
	{"billing countryCode lower case", []Edit{set("billingAddress.countryCode", "gbr")}, "203", "billingAddress.countryCode"},
	{"billing countryCode unknown", []Edit{set("billingAddress.countryCode", "XYZ")}, "304", "billingAddress.countryCode"},
	{"billing countryCode unknown numeric", []Edit{set("billingAddress.countryCode", "999")}, "304", "billingAddress.countryCode"},
	{"billing city too long", []Edit{set("billingAddress.city", long("c", 51))}, "203", "billingAddress.city"},
	{"billing postCode too long", []Edit{set("billingAddress.postCode", long("1", 17))}, "203", "billingAddress.postCode"},
	{"billing line1 too long", []Edit{set("billingAddress.line1", long("l", 51))}, "203", "billingAddress.line1"},
	{"billing line2 too long", []Edit{set("billingAddress.line2", long("l", 51))}, "203", "billingAddress.line2"},
	{"billing line3 too long", []Edit{set("billingAddress.line3", long("l", 51))}, "203", "billingAddress.line3"},
	{"billing state too long", []Edit{set("billingAddress.state", "ABCD")}, "203", "billingAddress.state"},
	{"billing state punctuation", []Edit{set("billingAddress.state", "A-")}, "203", "billingAddress.state"},
	{"shipping countryCode unknown", []Edit{set("shippingAddress.countryCode", "ZZZ")}, "304", "shippingAddress.countryCode"},
	{"shipping countryCode absent", []Edit{del("shippingAddress.countryCode")}, "201", "shippingAddress.countryCode"},

	// 2.7 purchase
	{"purchase date absent", []Edit{del("purchase.date")}, "201", "purchase.date"},
	{"purchase date not a day", []Edit{set("purchase.date", "2023-02-29 10:00:00")}, "203", "purchase.date"},
	{"purchase date ISO T", []Edit{set("purchase.date", "2024-06-11T14:03:27")}, "203", "purchase.date"},
	{"purchase date hour 24", []Edit{set("purchase.date", "2024-06-11 24:00:00")}, "203", "purchase.date"},
	{"purchase date one-digit hour", []Edit{set("purchase.date", "2024-06-11 4:03:27")}, "203", "purchase.date"},
	{"instalData outside instalment", []Edit{set("purchase.instalData", num("3"))}, "203", "purchase.instalData"},
	{"instalData 1", []Edit{set("purchase.instalData", num("1"))}, "203", "purchase.instalData"},
	{"instalData 4 characters", []Edit{set("purchase.instalData", "0002")}, "203", "purchase.instalData"},
	{"amount absent", []Edit{del("purchase.amount")}, "201", "purchase.amount"},
	{"amount negative", []Edit{set("purchase.amount", num("-1"))}, "203", "purchase.amount"},
	{"amount negative exponent", []Edit{set("purchase.amount", num("-1.5e2"))}, "203", "purchase.amount"},
	{"amount exponent too large", []Edit{set("purchase.amount", num("1e400"))}, "203", "purchase.amount"},
	{"amount exponent in a string", []Edit{set("purchase.amount", "1.5e2")}, "203", "purchase.amount"},
	{"amount beyond EUR cents", []Edit{set("purchase.amount", num("10.001"))}, "203", "purchase.amount"},
	{"amount string beyond EUR cents", []Edit{set("purchase.amount", "10.001")}, "203", "purchase.amount"},
	{"amount exponent beyond EUR cents", []Edit{set("purchase.amount", num("1e-3"))}, "203", "purchase.amount"},
	{"amount fraction of yen", []Edit{set("purchase.currencyCode", "JPY"), set("purchase.amount", num("100.5"))}, "203", "purchase.amount"},
	{"amount fraction of numeric yen", []Edit{set("purchase.currencyCode", "392"), set("purchase.amount", "100.5")}, "203", "purchase.amount"},
	{"amount beyond dinar fils", []Edit{set("purchase.currencyCode", "KWD"), set("purchase.amount", "1.0005")}, "203", "purchase.amount"},
	{"amount beyond CLF", []Edit{set("purchase.currencyCode", "CLF"), set("purchase.amount", num("1.00001"))}, "203", "purchase.amount"},
	{"amount letters", []Edit{set("purchase.amount", "ten")}, "203", "purchase.amount"},
	{"amount comma", []Edit{set("purchase.amount", "10,99")}, "203", "purchase.amount"},
	{"amount bool", []Edit{set("purchase.amount", true)}, "203", "purchase.amount"},
	{"currencyCode absent", []Edit{del("purchase.currencyCode")}, "201", "purchase.currencyCode"},
	{"currencyCode unknown", []Edit{set("purchase.currencyCode", "XYZ")}, "304", "purchase.currencyCode"},
	{"currencyCode unknown numeric", []Edit{set("purchase.currencyCode", "001")}, "304", "purchase.currencyCode"},
	{"currencyCode lower case", []Edit{set("purchase.currencyCode", "eur")}, "203", "purchase.currencyCode"},
	{"currencyCode 999 excluded by EMV", []Edit{set("purchase.currencyCode", "999")}, "203", "purchase.currencyCode"},
	{"currencyCode XXX excluded by EMV", []Edit{set("purchase.currencyCode", "XXX")}, "203", "purchase.currencyCode"},
	{"currencyCode 955 excluded by EMV", []Edit{set("purchase.currencyCode", "955")}, "203", "purchase.currencyCode"},
	{"currencyCode 964 excluded by EMV", []Edit{set("purchase.currencyCode", "964")}, "203", "purchase.currencyCode"},
	{"currencyCode XTS excluded by EMV", []Edit{set("purchase.currencyCode", "XTS")}, "203", "purchase.currencyCode"},
	{"currencyCode XAU excluded by EMV", []Edit{set("purchase.currencyCode", "XAU")}, "203", "purchase.currencyCode"},
	{"currencyCode number", []Edit{set("purchase.currencyCode", num("978"))}, "203", "purchase.currencyCode"},

	// 2.8 recurring
	{"recurring expiry absent", []Edit{set("threeDsRequestorAuthInd", "02"),
		set("recurring", map[string]any{"frequency": num("30")})}, "201", "recurring.expiry"},
	{"recurring frequency absent", []Edit{set("threeDsRequestorAuthInd", "02"),
		set("recurring", map[string]any{"expiry": "20251231"})}, "201", "recurring.frequency"},
	{"recurring expiry not a day", []Edit{set("recurring.expiry", "20250631")}, "203", "recurring.expiry"},
	{"recurring expiry short", []Edit{set("recurring.expiry", "251231")}, "203", "recurring.expiry"},
	{"recurring frequency 0", []Edit{set("recurring.frequency", num("0"))}, "203", "recurring.frequency"},
	{"recurring frequency 10000", []Edit{set("recurring.frequency", num("10000"))}, "203", "recurring.frequency"},

	// 2.9 phones
	{"homePhone countryCode absent", []Edit{set("homePhone", map[string]any{"subscriber": "2079460000"})}, "201", "homePhone.countryCode"},
	{"workPhone subscriber absent", []Edit{set("workPhone", map[string]any{"countryCode": "1"})}, "201", "workPhone.subscriber"},
	{"mobilePhone countryCode plus", []Edit{set("mobilePhone.countryCode", "+44")}, "203", "mobilePhone.countryCode"},
	{"mobilePhone countryCode too long", []Edit{set("mobilePhone.countryCode", "4444")}, "203", "mobilePhone.countryCode"},
	{"mobilePhone subscriber too long", []Edit{set("mobilePhone.subscriber", long("7", 16))}, "203", "mobilePhone.subscriber"},
	{"mobilePhone subscriber spaces", []Edit{set("mobilePhone.subscriber", "7700 900123")}, "203", "mobilePhone.subscriber"},

	// 2.10 accountInfo
	{"chAccAgeInd 06", []Edit{set("accountInfo.chAccAgeInd", "06")}, "203", "accountInfo.chAccAgeInd"},
	{"chAccChange not a date", []Edit{set("accountInfo.chAccChange", "2024-01-02")}, "203", "accountInfo.chAccChange"},
	{"chAccChangeInd 05", []Edit{set("accountInfo.chAccChangeInd", "05")}, "203", "accountInfo.chAccChangeInd"},
	{"chAccDate not a day", []Edit{set("accountInfo.chAccDate", "20190229")}, "203", "accountInfo.chAccDate"},
	{"chAccPwChange month 13", []Edit{set("accountInfo.chAccPwChange", "20231320")}, "203", "accountInfo.chAccPwChange"},
	{"chAccPwChangeInd 00", []Edit{set("accountInfo.chAccPwChangeInd", "00")}, "203", "accountInfo.chAccPwChangeInd"},
	{"nbPurchaseAccount too long", []Edit{set("accountInfo.nbPurchaseAccount", "12345")}, "203", "accountInfo.nbPurchaseAccount"},
	{"provisionAttemptsDay too long", []Edit{set("accountInfo.provisionAttemptsDay", "1000")}, "203", "accountInfo.provisionAttemptsDay"},
	{"txnActivityDay letters", []Edit{set("accountInfo.txnActivityDay", "one")}, "203", "accountInfo.txnActivityDay"},
	{"txnActivityYear too long", []Edit{set("accountInfo.txnActivityYear", num("1000"))}, "203", "accountInfo.txnActivityYear"},
	{"paymentAccAge not a date", []Edit{set("accountInfo.paymentAccAge", "2020060")}, "203", "accountInfo.paymentAccAge"},
	{"paymentAccInd 6", []Edit{set("accountInfo.paymentAccInd", "6")}, "203", "accountInfo.paymentAccInd"},
	{"shipAddressUsage day 32", []Edit{set("accountInfo.shipAddressUsage", "20190132")}, "203", "accountInfo.shipAddressUsage"},
	{"shipAddressUsageInd 05", []Edit{set("accountInfo.shipAddressUsageInd", "05")}, "203", "accountInfo.shipAddressUsageInd"},
	{"shipNameIndicator 03", []Edit{set("accountInfo.shipNameIndicator", "03")}, "203", "accountInfo.shipNameIndicator"},
	{"suspiciousAccActivity 03", []Edit{set("accountInfo.suspiciousAccActivity", "03")}, "203", "accountInfo.suspiciousAccActivity"},
	{"accountInfo long name bad value", []Edit{del("accountInfo.chAccAgeInd"), set("accountInfo.accountAgeIndicator", "09")}, "203", "accountInfo.accountAgeIndicator"},
	{"accountInfo both names", []Edit{set("accountInfo.suspiciousAccountActivity", "01")}, "204", "accountInfo.suspiciousAccountActivity"},

	// 2.11 additionalAccountInfo
	{"accountType 0", []Edit{set("additionalAccountInfo.accountType", num("0"))}, "203", "additionalAccountInfo.accountType"},
	{"accountType 4", []Edit{set("additionalAccountInfo.accountType", "4")}, "203", "additionalAccountInfo.accountType"},
	{"authenticationMethod 7", []Edit{set("additionalAccountInfo.authenticationMethod", num("7"))}, "203", "additionalAccountInfo.authenticationMethod"},
	{"authenticationTimeStamp month 13", []Edit{set("additionalAccountInfo.authenticationTimeStamp", "20241311140012")}, "203", "additionalAccountInfo.authenticationTimeStamp"},
	{"authenticationTimeStamp minute 60", []Edit{set("additionalAccountInfo.authenticationTimeStamp", "20240611146012")}, "203", "additionalAccountInfo.authenticationTimeStamp"},
	{"authenticationTimeStamp short", []Edit{set("additionalAccountInfo.authenticationTimeStamp", "202406111400")}, "203", "additionalAccountInfo.authenticationTimeStamp"},

	// 2.12 merchantRiskInfo
	{"deliveryEmailAddress invalid", []Edit{set("merchantRiskInfo.deliveryEmailAddress", "@example.com")}, "203", "merchantRiskInfo.deliveryEmailAddress"},
	{"deliveryTimeframe 05", []Edit{set("merchantRiskInfo.deliveryTimeframe", "05")}, "203", "merchantRiskInfo.deliveryTimeframe"},
	{"giftCardAmount too long", []Edit{set("merchantRiskInfo.giftCardAmount", long("9", 16))}, "203", "merchantRiskInfo.giftCardAmount"},
	{"giftCardAmount decimal", []Edit{set("merchantRiskInfo.giftCardAmount", "1.5")}, "203", "merchantRiskInfo.giftCardAmount"},
	{"giftCardCount one digit", []Edit{set("merchantRiskInfo.giftCardCount", "1")}, "203", "merchantRiskInfo.giftCardCount"},
	{"giftCardCount letters", []Edit{set("merchantRiskInfo.giftCardCount", "ab")}, "203", "merchantRiskInfo.giftCardCount"},
	{"giftCardCurr unknown", []Edit{set("merchantRiskInfo.giftCardCurr", "ABC")}, "304", "merchantRiskInfo.giftCardCurr"},
	{"giftCardCurr two letters", []Edit{set("merchantRiskInfo.giftCardCurr", "EU")}, "203", "merchantRiskInfo.giftCardCurr"},
	{"giftCardCurr XDR excluded by EMV", []Edit{set("merchantRiskInfo.giftCardCurr", "XDR")}, "203", "merchantRiskInfo.giftCardCurr"},
	{"giftCardCurr 999 excluded by EMV", []Edit{set("merchantRiskInfo.giftCardCurr", "999")}, "203", "merchantRiskInfo.giftCardCurr"},
	{"preOrderDate not a day", []Edit{set("merchantRiskInfo.preOrderDate", "20240230")}, "203", "merchantRiskInfo.preOrderDate"},
	{"preOrderPurchaseInd 03", []Edit{set("merchantRiskInfo.preOrderPurchaseInd", "03")}, "203", "merchantRiskInfo.preOrderPurchaseInd"},
	{"reorderItemsInd 03", []Edit{set("merchantRiskInfo.reorderItemsInd", "03")}, "203", "merchantRiskInfo.reorderItemsInd"},
	{"shipIndicator 08", []Edit{set("merchantRiskInfo.shipIndicator", "08")}, "203", "merchantRiskInfo.shipIndicator"},
}
