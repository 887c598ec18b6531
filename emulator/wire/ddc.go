package wire

import (
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// DecodeDDC parses and validates the body of a device data collection
// request (POST {base}/authentication/ddc): card.cardNumber and
// threeDSMethodNotificationURL are required, externalReferenceId and the
// merchant's own ddcId are optional. It returns the dotted paths of the fields it ignored, and an
// *emv.Error as DecodeLookup does.
func DecodeDDC(body []byte) (message.DDCRequest, []string, error) {
	d := new(decoding[message.DDCRequest])
	if err := decodeBody(d, body, bodyLimits, ddcRules); err != nil {
		return message.DDCRequest{}, nil, malformed(err)
	}
	if c := &d.c; len(c.problems) > 0 {
		return message.DDCRequest{}, c.ignored, emv.ValidationError(c.problems)
	}
	return d.req, d.c.ignored, nil
}

// MaxMethodNotificationURL bounds threeDSMethodNotificationURL, as the
// lookup bounds notificationUrl.
const MaxMethodNotificationURL = 2048

var ddcRules = newRuleSet([]rule[*message.DDCRequest]{
	{names: []string{"card"}, kind: fieldObject, required: always,
		object: func(c *checker, rd *reader, path string, r *message.DDCRequest) error {
			return decodeObject(rd, c, path, cardRules, &r.Card)
		}},
	{names: []string{"threeDSMethodNotificationURL"}, required: always, max: MaxMethodNotificationURL, check: webURL,
		hints:     []string{"threeDSMethodNotificationUrl", "notificationUrl"},
		setString: func(r *message.DDCRequest, s string) { r.NotificationURL = s }},
	{names: []string{"externalReferenceId"}, max: 50,
		setString: func(r *message.DDCRequest, s string) { r.ExternalReferenceID = s }},
	{names: []string{"ddcId"}, max: message.MaxDDCID, check: ddcID,
		setString: func(r *message.DDCRequest, s string) { r.DDCID = s }},
})

// ddcID checks a merchant-chosen ddcId.
func ddcID(s string) (string, string) {
	if message.ValidDDCID(s) {
		return "", ""
	}
	return emvFormat, "must be 1 to 36 letters, digits, '-', '_' or '.' (a UUID), got " + quote(s)
}

// AppendDDCResponse appends the JSON body of a device data collection
// answer to b, with methodHTML (the page the transport rendered from
// r.MethodURL and r.MethodData) as threeDSMethodHtml; empty leaves the
// member out.
func AppendDDCResponse(b []byte, r *message.DDCResponse, methodHTML string) []byte {
	o := object{b: b}
	o.open()
	o.field("ddcId", r.DDCID)
	o.field("threeDsServerTransId", r.ThreeDSServerTransID)
	o.optional("externalReferenceId", r.ExternalReferenceID)
	o.optional("threeDSMethodUrl", r.MethodURL)
	o.optional("threeDSMethodData", r.MethodData)
	o.optional("threeDSMethodHtml", methodHTML)
	o.optional("threeDSCompInd", r.CompIndHint)
	return o.close()
}
