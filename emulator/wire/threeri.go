package wire

import (
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds the field rules of the 3RI lookup: the browser lookup's
// fields without a browser, a device data collection or a payment, plus
// threeRIInd and the prior authentication.

// DecodeThreeRI parses and validates the body of a 3RI lookup
// (deviceChannel 3, POST {base}/authentication/3ri): the fields every
// lookup shares (lookupFields), validated as on the browser path, and the
// 3RI's own (threeRIFields). It returns the typed request and the
// dotted paths of the fields it ignored; the error, when not nil, is an
// *emv.Error as DecodeLookup's. The request shares memory with body.
func DecodeThreeRI(body []byte) (message.LookupRequest, []string, error) {
	return decodeThreeRI(body, bodyLimits)
}

// decodeThreeRI is DecodeThreeRI within lim.
func decodeThreeRI(body []byte, lim limits) (message.LookupRequest, []string, error) {
	d := new(lookupDecoding)
	d.c.parts = &d.parts
	d.req = message.LookupRequest{
		ThreeDSRequestorChallengeInd: 1,
		ThreeDSRequestorDecMaxTime:   15,
		RequestFeatures:              -1,
	}
	if err := decodeBody(&d.decoding, body, lim, threeRIRules); err != nil {
		return message.LookupRequest{}, nil, malformed(err)
	}
	checkThreeRIInd(&d.c, &d.req)
	return lookupResult(&d.c, &d.req, 3)
}

// threeRIRules read the 3RI lookup: the shared fields, then the 3RI's.
var threeRIRules = newRuleSet(lookupFields, threeRIFields)

// notUsableOn3RI is the reason of a field the interface marks "not usable
// for 3RI".
const notUsableOn3RI = "is not usable on the 3RI channel (interface section 2.2)"

// threeRIFields are the rules of the 3RI lookup's own fields. purchase,
// recurring and instalmentData are refused: the interface marks them not
// usable for 3RI (a 3RI payment carries no amount, so messageCategory 01
// needs no purchase).
var threeRIFields = []rule[*lookup]{
	{names: []string{"threeRIInd"}, required: always,
		setString: func(r *lookup, s string) { r.ThreeRIInd = s }},
	{names: []string{"threeDsRequestorPriorAuthenticationInfo", "threeDSRequestorPriorAuthenticationInfo"}, kind: fieldObject,
		object: func(c *checker, rd *reader, path string, r *lookup) error {
			r.PriorAuth = &c.parts.prior
			return decodeObject(rd, c, path, priorAuthRules, r.PriorAuth)
		}},
	{names: []string{"purchase"}, kind: fieldRefused, refused: notUsableOn3RI},
	{names: []string{"recurring"}, kind: fieldRefused, refused: notUsableOn3RI},
	{names: []string{"instalmentData"}, kind: fieldRefused, refused: notUsableOn3RI},
}

// priorAuthRules read threeDsRequestorPriorAuthenticationInfo, under the
// interface's spelling or EMV's (threeDSReqPriorRef...). A prior is named
// by its reference: the object needs it.
var priorAuthRules = newRuleSet([]rule[*message.PriorAuthInfo]{
	{names: []string{"threeDsReqPriorRef", "threeDSReqPriorRef"}, required: always, min: 36, max: 36,
		setString: func(p *message.PriorAuthInfo, s string) { p.Ref = s }},
	{names: []string{"threeDsReqPriorAuthMethod", "threeDSReqPriorAuthMethod"}, check: code2('4'),
		setString: func(p *message.PriorAuthInfo, s string) { p.Method = s }},
	{names: []string{"threeDsReqPriorAuthTimestamp", "threeDSReqPriorAuthTimestamp"}, check: timestamp12,
		setString: func(p *message.PriorAuthInfo, s string) { p.Timestamp = s }},
	{names: []string{"threeDsReqPriorAuthData", "threeDSReqPriorAuthData"}, max: 2048,
		setString: func(p *message.PriorAuthInfo, s string) { p.Data = s }},
})

// checkThreeRIInd holds threeRIInd to the 3RI indicators of the
// request's messageVersion: 01-05 on 2.1.0, 01-11 on 2.2.0 (and when
// absent or not served, reported apart).
func checkThreeRIInd(c *checker, req *lookup) {
	ind := req.ThreeRIInd
	if ind == "" {
		return
	}
	version := scenarios.Version220
	if c.messageVersion == scenarios.Version210 {
		version = scenarios.Version210
	}
	inds := scenarios.ThreeRIInds(version)
	for _, known := range inds {
		if known.Code == ind {
			return
		}
	}
	var b strings.Builder
	b.WriteString("must be one of ")
	for i, known := range inds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(known.Code + " (" + known.Name + ")")
	}
	b.WriteString(" on messageVersion " + version + ", got " + quote(ind))
	if version == scenarios.Version210 {
		for _, later := range scenarios.ThreeRIInds(scenarios.Version220) {
			if later.Code == ind {
				b.WriteString(": " + ind + " (" + later.Name + ") needs messageVersion 2.2.0")
			}
		}
	}
	c.add("threeRIInd", emvFormat, b.String())
}
