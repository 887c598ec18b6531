package wiretest

import "encoding/json"

// notOnApp are the fields of the browser lookup an app lookup has not
// (its browser and device data collection), and deviceChannel, whose
// rows differ.
var notOnApp = []string{"ddcId", "threeDSCompInd", "browserInfo", "notificationUrl", "challengeWindowSize", "deviceChannel"}

// EphemPubKey is a well-formed SDK ephemeral key: a P-256 JWK whose
// point is on the curve (its private half is not kept: no test derives a
// key from it).
const EphemPubKey = `{"kty":"EC","crv":"P-256","x":"stfH5HO673l1L5OrEafpJcwDxETj7MjiWHVUfLqE9Jk","y":"StdgCFWhBlD4jNR-dZO8_3fKfKrK4so8WshzYuVQW7c"}`

// EncDataShape is a value of sdkEncData of the right shape: five
// base64url parts. It does not decrypt.
const EncDataShape = "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMTI4Q0JDLUhTMjU2In0.a2V5.aXY.Y3Q.dGFn"

// SDK ids of the app base.
const (
	SDKAppID   = "3f6d2b1c-7a44-4b8e-9d0e-2c51f0a6b7e1"
	SDKTransID = "b2d7c0a4-5e1f-4c3a-8b9d-6e0f1a2b3c4d"
	SDKRef     = "3DS_LOA_SDK_STIN_020200_00961"
)

// AppBase returns the app lookup of the browser lookup base: without its
// browser and device data collection, with deviceChannel 1 and the SDK's
// fields, every other field kept, so that the rules the two lookups share
// meet the same request.
func AppBase(base []byte) ([]byte, error) {
	edits := []Edit{set("deviceChannel", num("1")),
		set("sdkAppId", SDKAppID), set("sdkTransId", SDKTransID), set("sdkReferenceNumber", SDKRef),
		set("sdkEphemPubKey", json.RawMessage(EphemPubKey)), set("sdkEncData", EncDataShape), set("sdkMaxTimeout", "05"),
		set("deviceRenderOptions", map[string]any{"sdkInterface": "03", "sdkUiType": []string{"01", "02", "03", "04", "05"}})}
	for _, f := range notOnApp[:len(notOnApp)-1] {
		edits = append(edits, del(f))
	}
	return Edited(base, edits...)
}

// AppRules returns the rows of the app lookup, to apply to AppBase: the
// lookup's rows of the fields both lookups share (the same rules, so the
// same rows), then the app's own. Every call returns a fresh slice.
func AppRules() []Case {
	var out []Case
	for _, c := range lookupRules {
		if !c.touches(notOnApp) {
			out = append(out, c)
		}
	}
	return append(out, appRules...)
}

// ro is deviceRenderOptions.
const ro = "deviceRenderOptions"

var appRules = []Case{
	{"deviceChannel absent", []Edit{del("deviceChannel")}, "201", "deviceChannel"},
	{"deviceChannel browser", []Edit{set("deviceChannel", num("2"))}, "203", "deviceChannel"},
	{"deviceChannel 3RI", []Edit{set("deviceChannel", "3")}, "203", "deviceChannel"},
	{"deviceChannel 0", []Edit{set("deviceChannel", num("0"))}, "203", "deviceChannel"},
	{"deviceChannel letters", []Edit{set("deviceChannel", "app")}, "203", "deviceChannel"},

	{"sdkAppId absent", []Edit{del("sdkAppId")}, "201", "sdkAppId"},
	{"sdkAppId in EMV's spelling", []Edit{del("sdkAppId"), set("sdkAppID", SDKAppID)}, "201", "sdkAppId"},
	{"sdkAppId not a UUID", []Edit{set("sdkAppId", "my-app")}, "203", "sdkAppId"},
	{"sdkAppId a number", []Edit{set("sdkAppId", num("7"))}, "203", "sdkAppId"},
	{"sdkTransId absent", []Edit{del("sdkTransId")}, "201", "sdkTransId"},
	{"sdkTransId in EMV's spelling", []Edit{del("sdkTransId"), set("sdkTransID", SDKTransID)}, "201", "sdkTransId"},
	{"sdkTransId one character short", []Edit{set("sdkTransId", SDKTransID[1:])}, "203", "sdkTransId"},
	{"sdkReferenceNumber absent", []Edit{del("sdkReferenceNumber")}, "201", "sdkReferenceNumber"},
	{"sdkReferenceNumber empty", []Edit{set("sdkReferenceNumber", "")}, "201", "sdkReferenceNumber"},
	{"sdkReferenceNumber 33 characters", []Edit{set("sdkReferenceNumber", long("R", 33))}, "203", "sdkReferenceNumber"},
	{"sdkReferenceNumber control character", []Edit{set("sdkReferenceNumber", "3DS\tSDK")}, "203", "sdkReferenceNumber"},

	{"sdkEphemPubKey absent", []Edit{del("sdkEphemPubKey")}, "201", "sdkEphemPubKey"},
	{"sdkEphemPubKey null", []Edit{set("sdkEphemPubKey", nil)}, "201", "sdkEphemPubKey"},
	{"sdkEphemPubKey a number", []Edit{set("sdkEphemPubKey", num("1"))}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey an array", []Edit{set("sdkEphemPubKey", []string{EphemPubKey})}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey a string not JSON", []Edit{set("sdkEphemPubKey", "kty=EC")}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey an RSA key", []Edit{set("sdkEphemPubKey", map[string]any{"kty": "RSA", "n": "AQAB", "e": "AQAB"})}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey on P-384", []Edit{set("sdkEphemPubKey", map[string]any{"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"})}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey a point off the curve", []Edit{set("sdkEphemPubKey", map[string]any{"kty": "EC", "crv": "P-256",
		"x": "stfH5HO673l1L5OrEafpJcwDxETj7MjiWHVUfLqE9Jk", "y": "StdgCFWhBlD4jNR-dZO8_3fKfKrK4so8WshzYuVQW7A"})}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey without y", []Edit{set("sdkEphemPubKey", map[string]any{"kty": "EC", "crv": "P-256",
		"x": "stfH5HO673l1L5OrEafpJcwDxETj7MjiWHVUfLqE9Jk"})}, "203", "sdkEphemPubKey"},
	{"sdkEphemPubKey too long", []Edit{set("sdkEphemPubKey", map[string]any{"kty": "EC", "crv": "P-256", "pad": long("p", 3000)})}, "203", "sdkEphemPubKey"},

	{"sdkEncData absent", []Edit{del("sdkEncData")}, "201", "sdkEncData"},
	{"sdkEncData empty", []Edit{set("sdkEncData", "")}, "201", "sdkEncData"},
	{"sdkEncData three parts (a JWS)", []Edit{set("sdkEncData", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln")}, "203", "sdkEncData"},
	{"sdkEncData with padding", []Edit{set("sdkEncData", EncDataShape+"==")}, "203", "sdkEncData"},
	{"sdkEncData an object", []Edit{set("sdkEncData", map[string]any{"alg": "RSA-OAEP-256"})}, "203", "sdkEncData"},

	{"sdkMaxTimeout absent", []Edit{del("sdkMaxTimeout")}, "201", "sdkMaxTimeout"},
	{"sdkMaxTimeout 04", []Edit{set("sdkMaxTimeout", "04")}, "203", "sdkMaxTimeout"},
	{"sdkMaxTimeout one digit", []Edit{set("sdkMaxTimeout", "5")}, "203", "sdkMaxTimeout"},
	{"sdkMaxTimeout three digits", []Edit{set("sdkMaxTimeout", "060")}, "203", "sdkMaxTimeout"},
	{"sdkMaxTimeout letters", []Edit{set("sdkMaxTimeout", "1h")}, "203", "sdkMaxTimeout"},

	{"deviceRenderOptions absent", []Edit{del(ro)}, "201", ro},
	{"deviceRenderOptions not an object", []Edit{set(ro, "03")}, "203", ro},
	{"sdkInterface absent", []Edit{del(ro + ".sdkInterface")}, "201", ro + ".sdkInterface"},
	{"sdkInterface 04", []Edit{set(ro+".sdkInterface", "04")}, "203", ro + ".sdkInterface"},
	{"sdkUiType absent", []Edit{del(ro + ".sdkUiType")}, "201", ro + ".sdkUiType"},
	{"sdkUiType empty", []Edit{set(ro+".sdkUiType", []string{})}, "203", ro + ".sdkUiType"},
	{"sdkUiType a string", []Edit{set(ro+".sdkUiType", "01")}, "203", ro + ".sdkUiType"},
	{"sdkUiType 06", []Edit{set(ro+".sdkUiType", []string{"01", "06"})}, "203", ro + ".sdkUiType"},
	{"sdkUiType numbers", []Edit{set(ro+".sdkUiType", []int{1, 2})}, "203", ro + ".sdkUiType"},
	{"sdkUiType twice the same", []Edit{set(ro+".sdkUiType", []string{"01", "01"})}, "203", ro + ".sdkUiType"},
	{"sdkUiType an object", []Edit{set(ro+".sdkUiType", map[string]any{"01": true})}, "203", ro + ".sdkUiType"},
}
