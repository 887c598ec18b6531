package wire

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// This file holds the field rules of the app lookup: the browser lookup's
// fields without a browser or a device data collection, plus the fields
// the app's 3DS SDK made (sdkAppId ... sdkEncData) and those the merchant
// adds for it (sdkMaxTimeout, deviceRenderOptions).

// DecodeApp parses and validates the body of an app lookup (deviceChannel
// 1, POST {base}/authentication/app): the fields every lookup shares
// (lookupFields) and the payment's, validated as on the browser path, and
// the SDK's (appFields). It returns the typed request, whose App is set,
// and the dotted paths of the fields it ignored; the error, when not nil,
// is an *emv.Error as DecodeLookup's. The request shares memory with body.
func DecodeApp(body []byte) (message.LookupRequest, []string, error) {
	return decodeApp(body, bodyLimits)
}

// appDecoding is an app lookup's decoding: a lookup's, with room for the
// SDK's fields.
type appDecoding struct {
	lookupDecoding
	app message.AppRequest
}

// decodeApp is DecodeApp within lim.
func decodeApp(body []byte, lim limits) (message.LookupRequest, []string, error) {
	d := new(appDecoding)
	d.c.parts = &d.parts
	d.req = message.LookupRequest{
		ThreeDSRequestorChallengeInd: 1,
		ThreeDSRequestorDecMaxTime:   15,
		RequestFeatures:              -1,
		App:                          &d.app,
	}
	if err := decodeBody(&d.decoding, body, lim, appRules); err != nil {
		return message.LookupRequest{}, nil, malformed(err)
	}
	checkInstalments(&d.c, &d.req)
	return lookupResult(&d.c, &d.req, 1)
}

// appRules read the app lookup: the shared fields, the SDK's, then the
// payment's.
var appRules = newRuleSet(lookupFields, appFields, paymentFields)

// appFields are the rules of the app lookup's own fields. EMV spells the
// ids with a capital D (sdkAppID, sdkTransID): named as hints.
var appFields = []rule[*lookup]{
	{names: []string{"sdkAppId"}, required: always, check: uuid, hints: []string{"sdkAppID"},
		setString: func(r *lookup, s string) { r.App.SDKAppID = s }},
	{names: []string{"sdkTransId"}, required: always, check: uuid, hints: []string{"sdkTransID"},
		setString: func(r *lookup, s string) { r.App.SDKTransID = s }},
	{names: []string{"sdkReferenceNumber"}, required: always, min: 1, max: 32, hints: []string{"sdkReferenceNo"},
		setString: func(r *lookup, s string) { r.App.SDKReferenceNumber = s }},
	{names: []string{"sdkEphemPubKey"}, kind: fieldRaw, required: always, check: ephemPubKey, hints: []string{"sdkEphemeralPublicKey"},
		setString: func(r *lookup, s string) { r.App.SDKEphemPubKey = jwkJSON(s) }},
	{names: []string{"sdkEncData"}, required: always, max: message.MaxSDKEncData, check: compactJWE,
		hints:     []string{"sdkEncryptedData"},
		setString: func(r *lookup, s string) { r.App.SDKEncData = s }},
	{names: []string{"sdkMaxTimeout"}, kind: fieldNumeric, required: always, check: maxTimeout,
		setString: func(r *lookup, s string) { r.App.SDKMaxTimeout, _ = strconv.Atoi(s) }},
	{names: []string{"deviceRenderOptions"}, kind: fieldObject, required: always, hints: []string{"deviceRenderOptionsIF"},
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			return decodeObject(rd, c, path, renderOptionsRules, &r.App.RenderOptions)
		}},
}

// renderOptionsRules read deviceRenderOptions: what the SDK can show.
var renderOptionsRules = newRuleSet([]rule[*message.DeviceRenderOptions]{
	{names: []string{"sdkInterface"}, required: always, check: code2('3'),
		setString: func(o *message.DeviceRenderOptions, s string) { o.Interface = s }},
	{names: []string{"sdkUiType"}, kind: fieldRaw, required: always, check: uiTypes,
		setString: func(o *message.DeviceRenderOptions, s string) { _ = json.Unmarshal([]byte(s), &o.UITypes) }},
})

// maxTimeout checks sdkMaxTimeout: two digits, at least 05 (minutes).
func maxTimeout(s string) (string, string) {
	if len(s) == 2 && isDigits(s) && s >= "05" {
		return "", ""
	}
	return emvFormat, "must be two digits, minutes, at least 05, got " + quote(s)
}

// compactJWE checks the shape of sdkEncData: five base64url parts, as a
// compact JWE has. Whether it decrypts is the engine's to say.
func compactJWE(s string) (string, string) {
	if strings.Count(s, ".") != 4 {
		return emvFormat, "must be a compact JWE: five base64url parts separated by dots, got " + strconv.Itoa(strings.Count(s, ".")+1) + " parts"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return emvFormat, "must be a compact JWE of base64url parts without padding, got " + quote(string(c)) + " at byte " + strconv.Itoa(i)
		}
	}
	return "", ""
}

// jwkJSON is the JSON of the JWK in raw, the raw JSON of sdkEphemPubKey:
// raw itself for an object, the content of a string.
func jwkJSON(raw string) string {
	if !strings.HasPrefix(raw, `"`) {
		return raw
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// ephemPubKey checks sdkEphemPubKey: a JWK object of an EC key on P-256
// whose point is on the curve, or a string holding that object's JSON.
func ephemPubKey(raw string) (string, string) {
	if !strings.HasPrefix(raw, "{") && !strings.HasPrefix(raw, `"`) {
		return emvFormat, "must be a JWK object (kty EC, crv P-256, x, y), or a string holding its JSON"
	}
	text := jwkJSON(raw)
	if !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") {
		return emvFormat, "must be a JWK object (kty EC, crv P-256, x, y), or a string holding its JSON: the string holds no JSON object"
	}
	k, err := jose.ParseJWK([]byte(text))
	if err != nil {
		return emvFormat, "must be a JWK object (kty EC, crv P-256, x, y): " + err.Error()
	}
	if _, err := k.ECPublicKey(); err != nil {
		return emvFormat, "must be the SDK's ephemeral key on P-256: " + err.Error()
	}
	return "", ""
}

// uiTypes checks deviceRenderOptions.sdkUiType: a non-empty array of the
// UI types 01 to 05, each once.
func uiTypes(raw string) (string, string) {
	var types []string
	if !strings.HasPrefix(raw, "[") || json.Unmarshal([]byte(raw), &types) != nil {
		return emvFormat, "must be an array of UI types, strings 01 text, 02 single select, 03 multi select, 04 OOB, 05 HTML"
	}
	if len(types) == 0 {
		return emvFormat, "must name at least one UI type (01 to 05)"
	}
	for i, t := range types {
		if code, _ := code2('5')(t); code != "" {
			return emvFormat, "must hold UI types 01 to 05, got " + quote(t) + " at index " + strconv.Itoa(i)
		}
		for _, earlier := range types[:i] {
			if earlier == t {
				return emvFormat, "must name each UI type once, got " + quote(t) + " twice"
			}
		}
	}
	return "", ""
}
