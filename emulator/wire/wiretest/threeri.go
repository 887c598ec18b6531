package wiretest

import (
	"slices"
	"strings"
)

// notOn3RI are the fields of the browser lookup a 3RI lookup has not
// (its browser and device data collection) or may not send (the payment's),
// and deviceChannel, whose rows differ.
var notOn3RI = []string{"ddcId", "threeDSCompInd", "browserInfo", "notificationUrl", "challengeWindowSize",
	"purchase", "recurring", "instalmentData", "deviceChannel"}

// ThreeRIBase returns the 3RI lookup of the browser lookup base: without
// its browser, device data collection and payment, with deviceChannel 3
// and threeRIInd 01 (recurring), every other field kept, so that the
// rules the two lookups share meet the same request.
func ThreeRIBase(base []byte) ([]byte, error) {
	edits := []Edit{set("deviceChannel", num("3")), set("threeRIInd", "01")}
	for _, f := range notOn3RI[:len(notOn3RI)-1] {
		edits = append(edits, del(f))
	}
	return Edited(base, edits...)
}

// ThreeRIRules returns the rows of the 3RI lookup, to apply to
// ThreeRIBase: the lookup's rows of the fields both lookups share (the
// same rules, so the same rows), then the 3RI's own. Every call returns a
// fresh slice.
func ThreeRIRules() []Case {
	var out []Case
	for _, c := range lookupRules {
		if !c.touches(notOn3RI) {
			out = append(out, c)
		}
	}
	return append(out, threeRIRules...)
}

// touches tells whether the case changes or expects a problem on one of
// the top-level fields.
func (c Case) touches(fields []string) bool {
	top := func(path string) string { return strings.SplitN(path, ".", 2)[0] }
	if slices.Contains(fields, top(c.Field)) {
		return true
	}
	for _, e := range c.edits {
		if slices.Contains(fields, top(e.path)) {
			return true
		}
	}
	return false
}

// prior is the member of the 3RI lookup naming its prior authentication.
const prior = "threeDsRequestorPriorAuthenticationInfo"

// priorRef is a well-formed prior reference: a transaction id.
const priorRef = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"

// withPrior sets a valid prior authentication, then e.
func withPrior(e ...Edit) []Edit {
	return append([]Edit{set(prior, map[string]any{"threeDsReqPriorRef": priorRef, "threeDsReqPriorAuthMethod": "02",
		"threeDsReqPriorAuthTimestamp": "202406111403", "threeDsReqPriorAuthData": "cavv=AJkBBkhgQQAAAE4gSEJydQAAAAA="})}, e...)
}

var threeRIRules = []Case{
	{"deviceChannel absent", []Edit{del("deviceChannel")}, "201", "deviceChannel"},
	{"deviceChannel browser", []Edit{set("deviceChannel", num("2"))}, "203", "deviceChannel"},
	{"deviceChannel app", []Edit{set("deviceChannel", "1")}, "203", "deviceChannel"},
	{"deviceChannel 4", []Edit{set("deviceChannel", num("4"))}, "203", "deviceChannel"},
	{"deviceChannel letters", []Edit{set("deviceChannel", "3ri")}, "203", "deviceChannel"},

	{"threeRIInd absent", []Edit{del("threeRIInd")}, "201", "threeRIInd"},
	{"threeRIInd null", []Edit{set("threeRIInd", nil)}, "201", "threeRIInd"},
	{"threeRIInd empty", []Edit{set("threeRIInd", "")}, "201", "threeRIInd"},
	{"threeRIInd 12", []Edit{set("threeRIInd", "12")}, "203", "threeRIInd"},
	{"threeRIInd 00", []Edit{set("threeRIInd", "00")}, "203", "threeRIInd"},
	{"threeRIInd one digit", []Edit{set("threeRIInd", "1")}, "203", "threeRIInd"},
	{"threeRIInd number", []Edit{set("threeRIInd", num("1"))}, "203", "threeRIInd"},
	{"threeRIInd 2.2.0's on 2.1.0", []Edit{set("messageVersion", "2.1.0"), set("threeRIInd", "06")}, "203", "threeRIInd"},
	{"threeRIInd 11 on 2.1.0", []Edit{set("messageVersion", "2.1.0"), set("threeRIInd", "11")}, "203", "threeRIInd"},
	{"threeRIInd under another spelling", []Edit{del("threeRIInd"), set("threeRiInd", "01")}, "201", "threeRIInd"},

	{"purchase", []Edit{set("purchase", map[string]any{"date": "2024-06-11 14:03:27", "amount": "1.00", "currencyCode": "EUR"})}, "203", "purchase"},
	{"purchase not an object", []Edit{set("purchase", "1.00 EUR")}, "203", "purchase"},
	{"recurring", []Edit{set("recurring", map[string]any{"expiry": "20251231", "frequency": num("30")})}, "203", "recurring"},
	{"instalmentData", []Edit{set("instalmentData", num("3"))}, "203", "instalmentData"},

	{"prior not an object", []Edit{set(prior, priorRef)}, "203", prior},
	{"prior without its reference", withPrior(del(prior + ".threeDsReqPriorRef")), "201", prior + ".threeDsReqPriorRef"},
	{"prior reference null", withPrior(set(prior+".threeDsReqPriorRef", nil)), "201", prior + ".threeDsReqPriorRef"},
	{"prior reference 35 characters", withPrior(set(prior+".threeDsReqPriorRef", priorRef[1:])), "203", prior + ".threeDsReqPriorRef"},
	{"prior reference 37 characters", withPrior(set(prior+".threeDsReqPriorRef", priorRef+"0")), "203", prior + ".threeDsReqPriorRef"},
	{"prior reference a number", withPrior(set(prior+".threeDsReqPriorRef", num("12"))), "203", prior + ".threeDsReqPriorRef"},
	{"prior reference control character", withPrior(set(prior+".threeDsReqPriorRef", "\t"+priorRef[1:])), "203", prior + ".threeDsReqPriorRef"},
	{"prior method 05", withPrior(set(prior+".threeDsReqPriorAuthMethod", "05")), "203", prior + ".threeDsReqPriorAuthMethod"},
	{"prior method one digit", withPrior(set(prior+".threeDsReqPriorAuthMethod", "2")), "203", prior + ".threeDsReqPriorAuthMethod"},
	{"prior timestamp with seconds", withPrior(set(prior+".threeDsReqPriorAuthTimestamp", "20240611140327")), "203", prior + ".threeDsReqPriorAuthTimestamp"},
	{"prior timestamp month 13", withPrior(set(prior+".threeDsReqPriorAuthTimestamp", "202413111403")), "203", prior + ".threeDsReqPriorAuthTimestamp"},
	{"prior timestamp hour 24", withPrior(set(prior+".threeDsReqPriorAuthTimestamp", "202406112403")), "203", prior + ".threeDsReqPriorAuthTimestamp"},
	{"prior timestamp 30 February", withPrior(set(prior+".threeDsReqPriorAuthTimestamp", "202402301403")), "203", prior + ".threeDsReqPriorAuthTimestamp"},
	{"prior data too long", withPrior(set(prior+".threeDsReqPriorAuthData", long("d", 2049))), "203", prior + ".threeDsReqPriorAuthData"},
	{"prior reference under both spellings", withPrior(set(prior+".threeDSReqPriorRef", priorRef)), "204", prior + ".threeDsReqPriorRef"},
	{"prior under both spellings", withPrior(set("threeDSRequestorPriorAuthenticationInfo", map[string]any{"threeDSReqPriorRef": priorRef})),
		"204", prior},
}
