// Package wire turns the raw JSON bodies of the interface into the typed,
// validated requests of package emulator.
//
// It reads a body token by token with jsontext (the syntax layer of
// encoding/json/v2), checking each field against its rule as it is read,
// so that it can tell JSON kinds apart, find a key sent twice in any
// object (EMV 204) and report every problem of a request at once rather
// than the first one, in one pass over the bytes. A field's rule (rules.go)
// gives its names, kind, bounds, check and when it is required; the rules
// of an object form a rule set, and a request kind is a set of rule sets
// (lookup.go, threeri.go, enquiry.go, ddc.go); the lookups of the
// channels share the rules of the fields they share. A body that
// is not exactly one JSON object is EMV 101, and so is one beyond the
// decoder's bounds (maxMembers members in an object, maxKeys keys in the
// body, maxDepth levels of nesting): it is not read past the bound, and
// its one problem names the object. Field problems are collected as
// emv.Problem values and returned as one emv.ValidationError:
// 201 for a required field that is absent, null or "", 203 for a bad type,
// length, format or value, 204 for a duplicate key, 304 for a well-formed
// ISO 4217 / 3166-1 code that does not exist, and 102 for a well-formed
// messageVersion that is not served.
//
// Leniencies, each chosen to accept what real integrations send:
//
//   - Optional fields sent as null or "" count as absent.
//   - Unknown fields, at any level, are ignored (as EMV 3-D Secure ignores
//     unrecognised non-critical elements); their paths are returned so the
//     caller can log them. A duplicate key inside them is still a 204.
//   - acquirerBIN is also accepted as acquirerBin; both with different
//     values is a 203 on acquirerBIN.
//   - threeDSRequestorDecMaxTime is also accepted as
//     threeDsRequestorDecMaxTime.
//   - accountInfo accepts the spec table's short names and the example
//     payload's long names (accountAgeIndicator, accountChangeDate, ...);
//     both names of one field is a 204.
//   - Int fields accept a string of digits ("2", "05").
//   - String fields that hold a count or measure (browser colorDepth,
//     screenHeight, screenWidth, timeZone; phone countryCode, subscriber;
//     accountInfo counters; giftCardAmount) accept a JSON number, kept as
//     written.
//   - purchase.amount takes a JSON number in any form, one with an
//     exponent kept as plain decimal text ("1.5e2" as "150"), or a decimal
//     string; it may not be more precise than its currency's ISO 4217
//     minor unit (trailing zeros do not count).
//   - When browserInfo.javascriptEnabled is false, javaEnabled, colorDepth,
//     screenHeight, screenWidth and timeZone are optional, as in EMV 2.2.0;
//     not on messageVersion 2.1.0, whose EMV version has no such
//     exception (they stay required, as the interface marks them).
//   - card.cardNumber is checked for 13 to 19 digits only, not the Luhn
//     check, so tokens and test numbers pass.
//   - threeDsRequestorPriorAuthenticationInfo of a 3RI lookup and its
//     members are also accepted under EMV's spellings
//     (threeDSRequestorPriorAuthenticationInfo, threeDSReqPriorRef, ...);
//     both spellings of one is a 204.
//
// Strictness beyond the spec tables:
//
//   - Text fields hold text: a control character (U+0000 to U+001F, DEL,
//     U+0080 to U+009F), escaped or DEL sent as is, or an escaped UTF-16
//     surrogate without its other half is a 203. (A raw control below
//     U+0020 is not JSON at all: 101.)
//   - instalmentData and purchase.instalData, the same number, follow the
//     same rules: with a valid threeDsRequestorAuthInd other than 03 either
//     is a 203 (the spec: omitted when not an instalment); an instalment
//     needs one of them (201 on instalmentData); both must agree (203).
//   - recurring is required (201) when threeDsRequestorAuthInd is 02 or 03.
//   - ISO codes are case-sensitive: "eur" is a 203, "XYZ" a 304.
//   - Currencies EMV excludes (955 to 964, 999, in either form: XAU, XTS,
//     XXX, ...) are a 203.
//   - browserInfo.timeZone is an offset in use: -840 (UTC+14) to 720
//     (UTC-12) minutes, as getTimezoneOffset() gives it.
//   - browserInfo.language is a well-formed BCP 47 tag, its subtags
//     registered or not (golang.org/x/text/language): en-GB and zz pass,
//     123 does not; "en_GB" is refused with a hint.
//   - cardholderName is printable ASCII (the EMV common character set),
//     '<' and '>' included.
//   - notificationUrl and requestor.url are absolute http or https URLs of
//     at most 2048 characters; acquirerBIN is at most 11 characters (EMV).
//   - Dates are checked against the calendar (no 30 February) but not
//     against the clock, so the same request always gives the same result.
//
// A required field that is missing while its object has an unknown key
// spelling it another way (case, separators, or a name of rule.hints such
// as EMV's acctNumber) gets a reason that names that key.
//
// On the 3RI lookup, purchase, recurring and instalmentData are a 203
// (the interface: not usable for 3RI), and threeRIInd must be one of its
// messageVersion's (01-05 on 2.1.0, 01-11 on 2.2.0 or none).
//
// A deviceChannel of another channel than the path's (3 on the browser's,
// 2 on the 3RI's, 1 on both) is a 203 problem among the others, whose
// reason names the path that serves it; when it is the only problem the
// error code is emv.CodeDeviceChannel.
package wire

import (
	"strconv"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// malformed builds the EMV 101 error of a body that is not one JSON
// object, or is one beyond the decoder's bounds (see limitError): the
// latter names the object in emvErrorDetail and in a problem.
func malformed(err error) *emv.Error {
	if le, ok := err.(*limitError); ok {
		e := emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "request body beyond the decoder's limits: "+le.Error(), le.field)
		e.Problems = []emv.Problem{{Field: le.field, EMVCode: emv.EMVMessageInvalid,
			Reason: le.reason + "; the body is not read beyond byte offset " + strconv.Itoa(le.offset)}}
		return e
	}
	msg := "request body is not a valid JSON object: " + err.Error()
	detail := "body"
	if se, ok := err.(*syntaxError); ok {
		detail = "body, byte offset " + strconv.Itoa(se.offset)
	}
	return emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, msg, detail)
}
