package wire

import (
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// DecodeEnquiry parses and validates the body of an enquiry (spec 2.14).
// At least one of threeDsServerTransId (a UUID, returned lower-case) and
// externalReferenceId must be sent. It returns the dotted paths of the
// fields it ignored, and an *emv.Error as DecodeLookup does.
func DecodeEnquiry(body []byte) (message.EnquiryRequest, []string, error) {
	d := new(decoding[message.EnquiryRequest])
	if err := decodeBody(d, body, bodyLimits, enquiryRules); err != nil {
		return message.EnquiryRequest{}, nil, malformed(err)
	}
	c := &d.c
	if !c.sentID && !c.sentRef {
		hint := c.hintFor("", "threeDsServerTransId")
		if hint == "" {
			hint = c.hintFor("", "externalReferenceId")
		}
		c.add("threeDsServerTransId,externalReferenceId", emvMissing,
			"one of threeDsServerTransId and externalReferenceId is required"+hint)
	}
	if len(c.problems) > 0 {
		return message.EnquiryRequest{}, c.ignored, emv.ValidationError(c.problems)
	}
	return d.req, c.ignored, nil
}

// enquiryRules read the enquiry (2.14). Either key counts as sent when
// its first member has a value.
var enquiryRules = newRuleSet([]rule[*message.EnquiryRequest]{
	{names: []string{"threeDsServerTransId"}, check: uuid,
		hints:     []string{"threeDsServerTransactionId"},
		watch:     func(c *checker, v value) { c.sentID = !isEmpty(&v) },
		setString: func(r *message.EnquiryRequest, s string) { r.ThreeDSServerTransID = lowerASCII(s) }},
	{names: []string{"externalReferenceId"}, max: 50,
		watch:     func(c *checker, v value) { c.sentRef = !isEmpty(&v) },
		setString: func(r *message.EnquiryRequest, s string) { r.ExternalReferenceID = s }},
})
