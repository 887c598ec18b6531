package wire

import (
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// DecodeEnquiry parses and validates the body of an enquiry (spec 2.14).
// At least one of threeDsServerTransId (a UUID, returned lower-case) and
// externalReferenceId must be sent. It returns the dotted paths of the
// fields it ignored, and an *emulator.Error as DecodeLookup does.
func DecodeEnquiry(body []byte) (emulator.EnquiryRequest, []string, error) {
	root, dups, arenas, err := parseObject(body)
	defer arenas.release()
	if err != nil {
		return emulator.EnquiryRequest{}, nil, malformed(err)
	}
	var c checker
	for _, d := range dups {
		c.add(d, emvDuplicate, "key sent more than once in the same object")
	}
	var req emulator.EnquiryRequest
	decodeObject(&c, &root, "", enquiryRules, &req)
	if absent(&root, "threeDsServerTransId") && absent(&root, "externalReferenceId") {
		c.add("threeDsServerTransId,externalReferenceId", emvMissing,
			"one of threeDsServerTransId and externalReferenceId is required")
	}
	if len(c.problems) > 0 {
		return emulator.EnquiryRequest{}, c.ignored, emulator.ValidationError(c.problems)
	}
	return req, c.ignored, nil
}

var enquiryRules = newRuleSet([]rule[emulator.EnquiryRequest]{
	{names: []string{"threeDsServerTransId"}, check: uuid,
		setString: func(r *emulator.EnquiryRequest, s string) { r.ThreeDSServerTransID = strings.ToLower(s) }},
	{names: []string{"externalReferenceId"}, max: 50,
		setString: func(r *emulator.EnquiryRequest, s string) { r.ExternalReferenceID = s }},
})

// absent tells whether obj has no member key, or only a null or "" one.
func absent(obj *value, key string) bool {
	v := obj.get(key)
	return v == nil || isEmpty(v)
}
