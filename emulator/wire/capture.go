package wire

import (
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// CaptureForm is the device data capture form as the browser posted it
// to {base}/V2/ddcCollect, decoded and checked: every field that passed
// its check, and the problems of the others.
type CaptureForm struct {
	Request message.CaptureRequest
	// JWT is the jwt field, to be verified by the transport.
	JWT string
}

// captureFields are the form's fields, each under both the names the
// real service's page uses: the form markup's (bin, jwt) and its table's
// (cardBIN, JWT).
var captureFields = []struct {
	names [2]string
	max   int
}{
	{[2]string{"bin", "cardBIN"}, message.MaxBIN},
	{[2]string{"callbackUrl"}, message.MaxCallbackURL},
	{[2]string{"ddcId"}, message.MaxDDCID},
	{[2]string{"jwt", "JWT"}, message.MaxCaptureJWT},
}

// DecodeCaptureForm checks the fields of a capture form: bin (cardBIN)
// 6 to 19 digits, callbackUrl an absolute http(s) URL of at most 2048
// characters, ddcId 1 to 36 letters, digits, '-', '_' or '.', jwt (JWT)
// at most 2048 characters, each once. Other fields are ignored. It
// returns what it read and, when something is wrong, every problem at
// once as an *emv.Error (201 missing, 203 malformed or too long, 204
// a field twice or under both its names with different values).
func DecodeCaptureForm(form url.Values) (CaptureForm, *emv.Error) {
	var out CaptureForm
	var problems []emv.Problem
	add := func(field, code, reason string) {
		problems = append(problems, emv.Problem{Field: field, EMVCode: code, Reason: reason})
	}
	values := [4]string{}
	for i, f := range captureFields {
		var got []string
		for _, n := range f.names {
			if n != "" {
				got = append(got, form[n]...)
			}
		}
		name := f.names[0]
		switch {
		case len(got) == 0 || len(got) == 1 && got[0] == "":
			add(name, emv.EMVMissingElement, "required")
			continue
		case len(got) > 1 && !same(got):
			add(name, emvDuplicate, fmt.Sprintf("sent %d times with different values", len(got)))
			continue
		case len(got[0]) > f.max:
			add(name, emvFormat, fmt.Sprintf("%d characters long, at most %d", utf8.RuneCountInString(got[0]), f.max))
			continue
		}
		values[i] = got[0]
	}
	bin, callback, ddcID, jwt := values[0], values[1], values[2], values[3]
	if bin != "" && (len(bin) < message.MinBIN || !isDigits(bin)) {
		add("bin", emvFormat, "must be the card's first 6 digits up to its whole number, got "+quote(bin))
		bin = ""
	}
	if callback != "" {
		if code, reason := webURL(callback); code != "" {
			add("callbackUrl", code, reason)
			callback = ""
		}
	}
	if ddcID != "" && !message.ValidDDCID(ddcID) {
		add("ddcId", emvFormat, "must be 1 to 36 letters, digits, '-', '_' or '.' (a UUID), got "+quote(ddcID))
		ddcID = ""
	}
	out.Request = message.CaptureRequest{DDCID: ddcID, BIN: bin, CallbackURL: callback, JWTLength: len(jwt)}
	out.JWT = jwt
	if len(problems) > 0 {
		return out, emv.ValidationError(problems)
	}
	return out, nil
}

// same tells whether every value of vs is the first.
func same(vs []string) bool {
	for _, v := range vs[1:] {
		if v != vs[0] {
			return false
		}
	}
	return true
}
