package wire

import (
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios/iso"
)

// This file holds the field rules of the lookup request (spec 2.2-2.12).

// DecodeLookup parses and validates the body of a browser-channel lookup
// (spec 2.2-2.12). It returns the typed request with the spec's defaults
// applied, and the dotted paths of the fields it ignored because the
// interface does not define them. The error, when not nil, is an
// *emv.Error: EMV 101 for a body that is not one JSON object, else a
// validation error listing every problem of the request.
//
// The request's strings share memory with body, which must not be changed
// afterwards; copy what is kept beyond the request.
func DecodeLookup(body []byte) (message.LookupRequest, []string, error) {
	return decodeLookup(body, bodyLimits)
}

// decodeLookup is DecodeLookup within lim.
func decodeLookup(body []byte, lim limits) (message.LookupRequest, []string, error) {
	d := new(lookupDecoding)
	d.c.parts = &d.parts
	d.req = message.LookupRequest{
		ChallengeWindowSize:          3,
		ThreeDSRequestorChallengeInd: 1,
		ThreeDSRequestorDecMaxTime:   15,
		RequestFeatures:              -1,
	}
	if err := decodeBody(&d.decoding, body, lim, lookupRules); err != nil {
		return message.LookupRequest{}, nil, malformed(err)
	}
	c, req := &d.c, &d.req

	checkInstalments(c, req)
	return lookupResult(c, req, 2)
}

// lookupResult is the outcome of a lookup's decoding on the path of
// deviceChannel served: the request, or the error of its problems. A
// deviceChannel of another channel is a 203 problem among the others;
// when it is the only one, the error code is emv.CodeDeviceChannel.
func lookupResult(c *checker, req *message.LookupRequest, served int) (message.LookupRequest, []string, error) {
	channelOnly := false
	if ch := req.DeviceChannel; ch != 0 && ch != served {
		c.add("deviceChannel", emvFormat, channelReason(ch, served))
		channelOnly = len(c.problems) == 1
	}
	if len(c.problems) == 0 {
		return *req, c.ignored, nil
	}
	if channelOnly {
		e := emv.NewError(emv.CodeDeviceChannel, emvFormat, channelReason(req.DeviceChannel, served), "deviceChannel")
		e.Problems = c.problems
		return message.LookupRequest{}, c.ignored, e
	}
	return message.LookupRequest{}, c.ignored, emv.ValidationError(c.problems)
}

// lookupDecoding is a lookup's decoding with room for the objects a
// lookup may hold, so that one allocation holds all a decoding needs.
// The request returned points into it: a few hundred bytes kept alive
// for as long as the request is, and the engine copies what it keeps.
type lookupDecoding struct {
	decoding[message.LookupRequest]
	parts lookupParts
}

// lookupParts holds the objects of a lookup request that are pointers in
// message.LookupRequest, set when the body has them.
type lookupParts struct {
	purchase          message.Purchase
	recurring         message.Recurring
	requestor         message.Requestor
	billing, shipping message.Address
	home, mobile      message.Phone
	work              message.Phone
	account           message.AccountInfo
	additional        message.AdditionalAccountInfo
	merchantRisk      message.MerchantRiskIndicator
	prior             message.PriorAuthInfo
}

// checkInstalments holds instalmentData (2.2) and purchase.instalData
// (2.7) to the same rules, as both give the one EMV element
// purchaseInstalData: either one is enough for an instalment (their rules
// make instalmentData required only when instalData is absent), both must
// agree, and neither belongs to a valid threeDsRequestorAuthInd other than
// 03 (decodePurchase reports instalData).
func checkInstalments(c *checker, req *message.LookupRequest) {
	if req.InstalmentData == 0 {
		return
	}
	switch code, _ := authIndCode(c.authInd); {
	case code == "" && c.authInd != "03":
		c.add("instalmentData", emvFormat, "must be omitted unless threeDsRequestorAuthInd is 03 (instalment)")
	case c.instalData != 0 && c.instalData != req.InstalmentData:
		c.add("instalmentData", emvFormat, fmt.Sprintf("is %d but purchase.instalData is %d: both give the maximum number of authorisations and must agree",
			req.InstalmentData, c.instalData))
	}
}

// lookupPaths are the paths of the lookups, by deviceChannel; a channel
// without one is not served.
var lookupPaths = map[int]string{1: "/authentication/app", 2: "/authentication/brw", 3: "/authentication/3ri"}

// channelNames name the device channels in messages.
var channelNames = map[int]string{1: "1 (app)", 2: "2 (browser)", 3: "3 (3RI)"}

// channelReason explains why a valid deviceChannel ch is refused on the
// path of the channel served: it names the path that serves ch.
func channelReason(ch, served int) string {
	here := "; " + lookupPaths[served] + " serves deviceChannel " + channelNames[served]
	if path, ok := lookupPaths[ch]; ok {
		return "deviceChannel " + channelNames[ch] + " is served on " + path + here
	}
	return "deviceChannel " + channelNames[ch] + " is not served by the sandbox" + here
}

// authIndIs returns a required func true when threeDsRequestorAuthInd is
// one of codes.
func authIndIs(codes ...string) func(*checker) bool {
	return func(c *checker) bool {
		for _, code := range codes {
			if c.authInd == code {
				return true
			}
		}
		return false
	}
}

// instalmentWithoutInstalData is the required func of instalmentData: an
// instalment (threeDsRequestorAuthInd 03) needs it unless
// purchase.instalData gives the same number.
func instalmentWithoutInstalData(c *checker) bool { return c.authInd == "03" && c.instalData == 0 }

// unlessJSDisabled is the required func of the browser properties that
// EMV 2.2.0 lets a browser without JavaScript leave out. EMV 2.1.0 has
// no such exception: on messageVersion 2.1.0 they stay required, as the
// interface (section 2.3) marks them.
func unlessJSDisabled(c *checker) bool { return !c.jsDisabled || c.messageVersion == "2.1.0" }

type lookup = message.LookupRequest

// normalDDCID reads a ddcId: one the sandbox handed out ("ddc-" and a
// transaction id) in any case, as every transaction id; any other as sent.
func normalDDCID(s string) string {
	if len(s) > len(message.DDCPrefix) && strings.EqualFold(s[:len(message.DDCPrefix)], message.DDCPrefix) {
		return strings.ToLower(s)
	}
	return s
}

// compInd checks threeDSCompInd: Y, N or U.
func compInd(s string) (string, string) {
	if s == "Y" || s == "N" || s == "U" {
		return "", ""
	}
	return emvFormat, "must be one of Y, N and U, got " + quote(s)
}

// authIndCode checks threeDsRequestorAuthInd: 01 to 06.
var authIndCode = code2('6')

// lookupRules read the browser's lookup (2.2): the fields every channel
// shares, then the browser's own and the payment's, the order in which
// missing fields are reported.
var lookupRules = newRuleSet(lookupFields, browserFields, paymentFields)

// lookupFields are the rules of the lookup's top level that every channel
// shares. threeDsRequestorAuthInd, messageCategory and messageVersion,
// when strings, are request-wide values that other rules depend on
// (recurring, instalmentData, purchase, purchase.instalData, the browser
// properties, threeRIInd): their watch funcs take them from the first
// member of their key. A channel builds its set from this list and its
// own, as newRuleSet(lookupFields, own) (threeRIRules); its objects reuse
// the sets below (cardRules, purchaseRules, ...).
var lookupFields = []rule[*lookup]{
	{names: []string{"externalReferenceId"}, required: always, max: 50,
		setString: func(r *lookup, s string) { r.ExternalReferenceID = s }},
	{names: []string{"threeDsRequestorAuthInd"}, required: always, check: authIndCode,
		hints: []string{"threeDSRequestorAuthenticationInd"},
		watch: func(c *checker, v value) {
			if v.kind == kindString {
				c.authInd = v.text
			}
		},
		setString: func(r *lookup, s string) { r.ThreeDSRequestorAuthInd = s }},
	{names: []string{"session"}, max: 1024,
		setString: func(r *lookup, s string) { r.Session = s }},
	{names: []string{"acquirerCode"}, required: always, max: 15,
		setString: func(r *lookup, s string) { r.AcquirerCode = s }},
	{names: []string{"acquirerBIN", "acquirerBin"}, required: always, max: 11, sameAlias: true,
		setString: func(r *lookup, s string) { r.AcquirerBIN = s }},
	{names: []string{"merchantCode"}, required: always, max: 35, hints: []string{"acquirerMerchantID", "merchantId"},
		setString: func(r *lookup, s string) { r.MerchantCode = s }},
	{names: []string{"deviceChannel"}, kind: fieldInt, required: always, min: 1, max: 3, maxLen: 2,
		setInt: func(r *lookup, n int) { r.DeviceChannel = n }},
	{names: []string{"messageCategory"}, required: always, check: code2('2'),
		watch: func(c *checker, v value) {
			if v.kind == kindString {
				c.messageCategory = v.text
			}
		},
		setString: func(r *lookup, s string) { r.MessageCategory = s }},
	{names: []string{"threeDsRequestorChallengeInd"}, kind: fieldInt, min: 1, max: 4, maxLen: 2,
		setInt: func(r *lookup, n int) { r.ThreeDSRequestorChallengeInd = n }},
	{names: []string{"messageVersion"}, check: messageVersion,
		watch: func(c *checker, v value) {
			if v.kind == kindString {
				c.messageVersion = v.text
			}
		},
		setString: func(r *lookup, s string) { r.MessageVersion = s }},
	{names: []string{"requestFeatures"}, kind: fieldInt, min: 0, max: 99,
		setInt: func(r *lookup, n int) { r.RequestFeatures = n }},
	{names: []string{"threeDSRequestorDecMaxTime", "threeDsRequestorDecMaxTime"}, kind: fieldInt, min: 1, max: 10080, maxLen: 5,
		setInt: func(r *lookup, n int) { r.ThreeDSRequestorDecMaxTime = n }},
	{names: []string{"card"}, kind: fieldObject, required: always,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			return decodeObject(rd, c, path, cardRules, &r.Card)
		}},
	{names: []string{"merchantName"}, max: 50,
		setString: func(r *lookup, s string) { r.MerchantName = s }},
	{names: []string{"requestor"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.Requestor = &c.parts.requestor
			return decodeObject(rd, c, path, requestorRules, r.Requestor)
		}},
	{names: []string{"billingAddress"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.BillingAddress = &c.parts.billing
			return decodeObject(rd, c, path, addressRules, r.BillingAddress)
		}},
	{names: []string{"shippingAddress"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.ShippingAddress = &c.parts.shipping
			return decodeObject(rd, c, path, addressRules, r.ShippingAddress)
		}},
	{names: []string{"email"}, max: 254, check: email,
		setString: func(r *lookup, s string) { r.Email = s }},
	{names: []string{"homePhone"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.HomePhone = &c.parts.home
			return decodeObject(rd, c, path, phoneRules, r.HomePhone)
		}},
	{names: []string{"mobilePhone"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.MobilePhone = &c.parts.mobile
			return decodeObject(rd, c, path, phoneRules, r.MobilePhone)
		}},
	{names: []string{"workPhone"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.WorkPhone = &c.parts.work
			return decodeObject(rd, c, path, phoneRules, r.WorkPhone)
		}},
	{names: []string{"accountInfo"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.AccountInfo = &c.parts.account
			return decodeObject(rd, c, path, accountInfoRules, r.AccountInfo)
		}},
	{names: []string{"additionalAccountInfo"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.AdditionalAccountInfo = &c.parts.additional
			return decodeObject(rd, c, path, additionalInfoRules, r.AdditionalAccountInfo)
		}},
	{names: []string{"merchantRiskInfo"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.MerchantRiskInfo = &c.parts.merchantRisk
			return decodeObject(rd, c, path, merchantRiskRules, r.MerchantRiskInfo)
		}},
}

// browserFields are the rules of the browser lookup's own fields: its
// browser and its device data collection.
var browserFields = []rule[*lookup]{
	{names: []string{"ddcId"}, required: always, max: 50,
		setString: func(r *lookup, s string) { r.DDCID = normalDDCID(s) }},
	{names: []string{"threeDSCompInd"}, check: compInd, hints: []string{"threeDsCompInd"},
		setString: func(r *lookup, s string) { r.ThreeDSCompInd = s }},
	{names: []string{"browserInfo"}, kind: fieldObject, required: always,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			return decodeObject(rd, c, path, browserRules, &r.Browser)
		}},
	{names: []string{"notificationUrl"}, max: 2048, check: webURL,
		setString: func(r *lookup, s string) { r.NotificationURL = s }},
	{names: []string{"challengeWindowSize"}, kind: fieldInt, min: 1, max: 5, maxLen: 2,
		setInt: func(r *lookup, n int) { r.ChallengeWindowSize = n }},
}

// paymentFields are the rules of the purchase, recurring and instalment
// data of a lookup with a cardholder (the browser's; 3RI refuses them,
// see threeRIFields).
var paymentFields = []rule[*lookup]{
	{names: []string{"purchase"}, kind: fieldObject, required: func(c *checker) bool { return c.messageCategory == "01" },
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.Purchase = &c.parts.purchase
			return decodePurchase(c, rd, path, r.Purchase)
		}},
	{names: []string{"recurring"}, kind: fieldObject, required: authIndIs("02", "03"),
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.Recurring = &c.parts.recurring
			return decodeObject(rd, c, path, recurringRules, r.Recurring)
		}},
	{names: []string{"instalmentData"}, kind: fieldInt, required: instalmentWithoutInstalData, min: 2, max: 999, maxLen: 3,
		hints:  []string{"installmentData", "purchaseInstalData"},
		setInt: func(r *lookup, n int) { r.InstalmentData = n }},
}

// browserRules read browserInfo (2.3). When javascriptEnabled is false,
// the properties only a script can read become optional, as in EMV 2.2.0,
// but on messageVersion 2.1.0, whose EMV version has no such exception.
var browserRules = newRuleSet([]rule[*message.BrowserInfo]{
	{names: []string{"acceptHeader"}, required: always, max: 2048, hints: []string{"browserAcceptHeader"},
		setString: func(b *message.BrowserInfo, s string) { b.AcceptHeader = s }},
	{names: []string{"ip"}, max: 45, check: ipAddress,
		setString: func(b *message.BrowserInfo, s string) { b.IP = s }},
	{names: []string{"javascriptEnabled"}, kind: fieldBool, required: always, hints: []string{"browserJavascriptEnabled"},
		watch:   func(c *checker, v value) { c.jsDisabled = v.kind == kindBool && !v.boolean },
		setBool: func(b *message.BrowserInfo, v bool) { b.JavascriptEnabled = v }},
	{names: []string{"javaEnabled"}, kind: fieldBool, required: unlessJSDisabled, hints: []string{"browserJavaEnabled"},
		setBool: func(b *message.BrowserInfo, v bool) { b.JavaEnabled = v }},
	{names: []string{"language"}, required: always, min: 1, max: 8, check: languageTag, hints: []string{"browserLanguage"},
		setString: func(b *message.BrowserInfo, s string) { b.Language = s }},
	{names: []string{"colorDepth"}, kind: fieldNumeric, required: unlessJSDisabled, min: 1, max: 2, check: digits,
		hints:     []string{"browserColorDepth", "colourDepth"},
		setString: func(b *message.BrowserInfo, s string) { b.ColorDepth = s }},
	{names: []string{"screenHeight"}, kind: fieldNumeric, required: unlessJSDisabled, min: 1, max: 6, check: digits,
		hints:     []string{"browserScreenHeight"},
		setString: func(b *message.BrowserInfo, s string) { b.ScreenHeight = s }},
	{names: []string{"screenWidth"}, kind: fieldNumeric, required: unlessJSDisabled, min: 1, max: 6, check: digits,
		hints:     []string{"browserScreenWidth"},
		setString: func(b *message.BrowserInfo, s string) { b.ScreenWidth = s }},
	{names: []string{"timeZone"}, kind: fieldNumeric, required: unlessJSDisabled, min: 1, max: 5, check: timeZoneOffset,
		hints:     []string{"browserTZ"},
		setString: func(b *message.BrowserInfo, s string) { b.TimeZone = s }},
	{names: []string{"userAgent"}, required: always, max: 2048, hints: []string{"browserUserAgent"},
		setString: func(b *message.BrowserInfo, s string) { b.UserAgent = s }},
})

var cardRules = newRuleSet([]rule[*message.Card]{
	{names: []string{"expiryDate"}, check: expiryYYMM,
		setString: func(c *message.Card, s string) { c.ExpiryDate = s }},
	{names: []string{"cardNumber"}, required: always, check: cardNumber, hints: []string{"acctNumber", "pan"},
		setString: func(c *message.Card, s string) { c.CardNumber = s }},
	{names: []string{"cardholderName"}, min: 2, max: 45, check: cardholderName,
		setString: func(c *message.Card, s string) { c.CardholderName = s }},
})

var requestorRules = newRuleSet([]rule[*message.Requestor]{
	{names: []string{"id"}, required: always, max: 35, hints: []string{"threeDSRequestorID"},
		setString: func(r *message.Requestor, s string) { r.ID = s }},
	{names: []string{"name"}, required: always, max: 40, hints: []string{"threeDSRequestorName"},
		setString: func(r *message.Requestor, s string) { r.Name = s }},
	{names: []string{"url"}, required: always, max: 2048, check: webURL, hints: []string{"threeDSRequestorURL"},
		setString: func(r *message.Requestor, s string) { r.URL = s }},
	{names: []string{"cardholderAccountId"}, max: 64,
		setString: func(r *message.Requestor, s string) { r.CardholderAccountID = s }},
})

var addressRules = newRuleSet([]rule[*message.Address]{
	{names: []string{"countryCode"}, required: always, check: country, hints: []string{"country", "billAddrCountry", "shipAddrCountry"},
		setString: func(a *message.Address, s string) { a.CountryCode = s }},
	{names: []string{"city"}, max: 50,
		setString: func(a *message.Address, s string) { a.City = s }},
	{names: []string{"postCode"}, max: 16,
		setString: func(a *message.Address, s string) { a.PostCode = s }},
	{names: []string{"line1"}, max: 50,
		setString: func(a *message.Address, s string) { a.Line1 = s }},
	{names: []string{"line2"}, max: 50,
		setString: func(a *message.Address, s string) { a.Line2 = s }},
	{names: []string{"line3"}, max: 50,
		setString: func(a *message.Address, s string) { a.Line3 = s }},
	{names: []string{"state"}, max: 3, check: alphanumeric,
		setString: func(a *message.Address, s string) { a.State = s }},
})

// decodePurchase reads purchase (2.7) into dst. The amount may not be
// more precise than the minor unit of its currency (ISO 4217: 2 decimals
// for EUR, none for JPY, 3 for KWD); trailing zeros do not count. instalData
// belongs to instalment authentications only: with a valid
// threeDsRequestorAuthInd other than 03 it is refused (203), once the whole
// request is read.
func decodePurchase(c *checker, rd *reader, path string, dst *message.Purchase) error {
	if err := decodeObject(rd, c, path, purchaseRules, dst); err != nil {
		return err
	}
	// Both set means both valid.
	if dst.Amount != "" && dst.CurrencyCode != "" {
		if units, ok := iso.MinorUnits(dst.CurrencyCode); ok {
			if places := decimalPlaces(dst.Amount); places > units {
				c.add(join(path, "amount"), emvFormat, fmt.Sprintf("has %d decimal places, more than the %d of %s (ISO 4217 minor unit), got %s",
					places, units, dst.CurrencyCode, quote(dst.Amount)))
			}
		}
	}
	if dst.InstalData != 0 {
		c.instalData = dst.InstalData
		c.later(func(c *checker) {
			if code, _ := authIndCode(c.authInd); code == "" && c.authInd != "03" {
				c.add(join(path, "instalData"), emvFormat, "must be omitted unless threeDsRequestorAuthInd is 03 (instalment)")
			}
		})
	}
	return nil
}

var purchaseRules = newRuleSet([]rule[*message.Purchase]{
	{names: []string{"date"}, required: always, check: purchaseDate, hints: []string{"purchaseDate"},
		setString: func(p *message.Purchase, s string) { p.Date = s }},
	{names: []string{"instalData"}, kind: fieldInt, min: 2, max: 999, maxLen: 3,
		setInt: func(p *message.Purchase, n int) { p.InstalData = n }},
	{names: []string{"amount"}, kind: fieldDecimal, required: always, max: 48, check: decimal, hints: []string{"purchaseAmount"},
		setString: func(p *message.Purchase, s string) { p.Amount = s }},
	{names: []string{"currencyCode"}, required: always, check: currency, hints: []string{"purchaseCurrency", "currency"},
		setString: func(p *message.Purchase, s string) { p.CurrencyCode = s }},
})

var recurringRules = newRuleSet([]rule[*message.Recurring]{
	{names: []string{"expiry"}, required: authIndIs("02", "03"), check: dateYYYYMMDD, hints: []string{"recurringExpiry"},
		setString: func(r *message.Recurring, s string) { r.Expiry = s }},
	{names: []string{"frequency"}, kind: fieldInt, required: authIndIs("02", "03"), min: 1, max: 9999, hints: []string{"recurringFrequency"},
		setInt: func(r *message.Recurring, n int) { r.Frequency = n }},
})

var phoneRules = newRuleSet([]rule[*message.Phone]{
	{names: []string{"countryCode"}, kind: fieldNumeric, required: always, min: 1, max: 3, check: digits, hints: []string{"cc"},
		setString: func(p *message.Phone, s string) { p.CountryCode = s }},
	{names: []string{"subscriber"}, kind: fieldNumeric, required: always, max: 15, check: digits,
		setString: func(p *message.Phone, s string) { p.Subscriber = s }},
})

// accountInfoRules accept the short names of the spec table and the long
// names of the example payload for the same fields.
var accountInfoRules = newRuleSet([]rule[*message.AccountInfo]{
	{names: []string{"chAccAgeInd", "accountAgeIndicator"}, check: code2('5'),
		setString: func(a *message.AccountInfo, s string) { a.ChAccAgeInd = s }},
	{names: []string{"chAccChange", "accountChangeDate"}, check: dateYYYYMMDD,
		setString: func(a *message.AccountInfo, s string) { a.ChAccChange = s }},
	{names: []string{"chAccChangeInd", "accountChangeIndicator"}, check: code2('4'),
		setString: func(a *message.AccountInfo, s string) { a.ChAccChangeInd = s }},
	{names: []string{"chAccDate", "accountDate"}, check: dateYYYYMMDD,
		setString: func(a *message.AccountInfo, s string) { a.ChAccDate = s }},
	{names: []string{"chAccPwChange", "passwordChangeDate"}, check: dateYYYYMMDD,
		setString: func(a *message.AccountInfo, s string) { a.ChAccPwChange = s }},
	{names: []string{"chAccPwChangeInd", "passwordChangeIndicator"}, check: code2('5'),
		setString: func(a *message.AccountInfo, s string) { a.ChAccPwChangeInd = s }},
	{names: []string{"nbPurchaseAccount", "accountPurchaseNumber", "purchaseCount"}, kind: fieldNumeric, max: 4, check: digits,
		setString: func(a *message.AccountInfo, s string) { a.NbPurchaseAccount = s }},
	{names: []string{"provisionAttemptsDay", "provisionAttemptsPerDay"}, kind: fieldNumeric, max: 3, check: digits,
		setString: func(a *message.AccountInfo, s string) { a.ProvisionAttemptsDay = s }},
	{names: []string{"txnActivityDay", "transactionActivityDay"}, kind: fieldNumeric, max: 3, check: digits,
		setString: func(a *message.AccountInfo, s string) { a.TxnActivityDay = s }},
	{names: []string{"txnActivityYear", "transactionActivityYear"}, kind: fieldNumeric, max: 3, check: digits,
		setString: func(a *message.AccountInfo, s string) { a.TxnActivityYear = s }},
	{names: []string{"paymentAccAge", "paymentAccountAge"}, check: dateYYYYMMDD,
		setString: func(a *message.AccountInfo, s string) { a.PaymentAccAge = s }},
	{names: []string{"paymentAccInd", "paymentAccountIndicator"}, check: code2('5'),
		setString: func(a *message.AccountInfo, s string) { a.PaymentAccInd = s }},
	{names: []string{"shipAddressUsage", "shippingAddressUsageDate"}, check: dateYYYYMMDD,
		setString: func(a *message.AccountInfo, s string) { a.ShipAddressUsage = s }},
	{names: []string{"shipAddressUsageInd", "shippingAddressUsageIndicator"}, check: code2('4'),
		setString: func(a *message.AccountInfo, s string) { a.ShipAddressUsageInd = s }},
	{names: []string{"shipNameIndicator", "shippingNameIndicator"}, check: code2('2'),
		setString: func(a *message.AccountInfo, s string) { a.ShipNameIndicator = s }},
	{names: []string{"suspiciousAccActivity", "suspiciousAccountActivity"}, check: code2('2'),
		setString: func(a *message.AccountInfo, s string) { a.SuspiciousAccActivity = s }},
})

var additionalInfoRules = newRuleSet([]rule[*message.AdditionalAccountInfo]{
	{names: []string{"accountType"}, kind: fieldInt, min: 1, max: 3, maxLen: 2,
		setInt: func(a *message.AdditionalAccountInfo, n int) { a.AccountType = n }},
	{names: []string{"authenticationMethod"}, kind: fieldInt, min: 1, max: 6, maxLen: 2,
		setInt: func(a *message.AdditionalAccountInfo, n int) { a.AuthenticationMethod = n }},
	{names: []string{"authenticationTimeStamp"}, check: timestamp14,
		setString: func(a *message.AdditionalAccountInfo, s string) { a.AuthenticationTimeStamp = s }},
})

var merchantRiskRules = newRuleSet([]rule[*message.MerchantRiskIndicator]{
	{names: []string{"deliveryEmailAddress"}, max: 254, check: email,
		setString: func(m *message.MerchantRiskIndicator, s string) { m.DeliveryEmailAddress = s }},
	{names: []string{"deliveryTimeframe"}, check: code2('4'),
		setString: func(m *message.MerchantRiskIndicator, s string) { m.DeliveryTimeframe = s }},
	{names: []string{"giftCardAmount"}, kind: fieldNumeric, max: 15, check: digits,
		setString: func(m *message.MerchantRiskIndicator, s string) { m.GiftCardAmount = s }},
	{names: []string{"giftCardCount"}, min: 2, max: 2, check: digits,
		setString: func(m *message.MerchantRiskIndicator, s string) { m.GiftCardCount = s }},
	{names: []string{"giftCardCurr"}, check: currency,
		setString: func(m *message.MerchantRiskIndicator, s string) { m.GiftCardCurr = s }},
	{names: []string{"preOrderDate"}, check: dateYYYYMMDD,
		setString: func(m *message.MerchantRiskIndicator, s string) { m.PreOrderDate = s }},
	{names: []string{"preOrderPurchaseInd"}, check: code2('2'),
		setString: func(m *message.MerchantRiskIndicator, s string) { m.PreOrderPurchaseInd = s }},
	{names: []string{"reorderItemsInd"}, check: code2('2'),
		setString: func(m *message.MerchantRiskIndicator, s string) { m.ReorderItemsInd = s }},
	{names: []string{"shipIndicator"}, check: code2('7'),
		setString: func(m *message.MerchantRiskIndicator, s string) { m.ShipIndicator = s }},
})
