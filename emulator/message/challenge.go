package message

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// This file holds the messages of the browser flows: the CReq the browser
// posts to the ACS, the final CRes it posts to the Requestor, their
// Base64Url transport, and the two self-submitting forms that carry them,
// as data. The transport renders the forms; the engine never makes HTML.

// CReq is the browser challenge request (EMV 3DS), posted Base64Url-encoded
// by the cardholder's browser to the ACS.
type CReq struct {
	ThreeDSServerTransID string `json:"threeDSServerTransID"`
	ACSTransID           string `json:"acsTransID"`
	MessageType          string `json:"messageType"`
	MessageVersion       string `json:"messageVersion"`
	ChallengeWindowSize  string `json:"challengeWindowSize"`
}

// CRes is the final challenge response, posted Base64Url-encoded by the
// browser to the Requestor's notificationUrl.
type CRes struct {
	ThreeDSServerTransID   string `json:"threeDSServerTransID"`
	ACSTransID             string `json:"acsTransID"`
	MessageType            string `json:"messageType"`
	MessageVersion         string `json:"messageVersion"`
	ChallengeCompletionInd string `json:"challengeCompletionInd"`
	TransStatus            string `json:"transStatus"`
}

// FormField is one hidden input of a self-submitting form.
type FormField struct{ Name, Value string }

// ChallengeIndication is the challenge of a lookup answered C, as data.
// The transport renders it as the lookup's challengeHtml: a page whose
// form posts the CReq (field creq) and the Requestor's session (field
// threeDSSessionData) to ACSURL by itself.
type ChallengeIndication struct {
	// ACSURL is where the form posts: the emulator's ACS.
	ACSURL string
	// CReq is the unpadded Base64Url of the initial CReq.
	CReq string
	// SessionData is the lookup's session, sent as threeDSSessionData;
	// empty for none.
	SessionData string
	// WindowSize is the challengeWindowSize of the lookup, 1 to 5.
	WindowSize int
	// Language is the lookup's browserInfo.language, for the page's texts.
	Language string
}

// Fields are the hidden inputs of the challenge form, in order.
func (c ChallengeIndication) Fields() []FormField {
	return formFields("creq", c.CReq, c.SessionData)
}

// CResDelivery is the final CRes on its way to the Requestor: a form that
// the browser posts by itself to NotificationURL, with the CRes (field
// cres) and threeDSSessionData.
type CResDelivery struct {
	// NotificationURL is the lookup's notificationUrl, or the emulator's
	// own notification URL when the lookup had none.
	NotificationURL string
	// CRes is the final CRes; Encoded its unpadded Base64Url form.
	CRes    CRes
	Encoded string
	// SessionData is returned unchanged as threeDSSessionData; empty for
	// none.
	SessionData string
}

// Fields are the hidden inputs of the notification form, in order.
func (d CResDelivery) Fields() []FormField {
	return formFields("cres", d.Encoded, d.SessionData)
}

// formFields are a message field and, when set, threeDSSessionData.
func formFields(name, value, session string) []FormField {
	fields := []FormField{{name, value}}
	if session != "" {
		fields = append(fields, FormField{"threeDSSessionData", session})
	}
	return fields
}

// EncodeMessage returns the unpadded Base64Url encoding of a message's JSON,
// as the browser flows carry CReq and CRes.
func EncodeMessage(m any) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode message: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// DecodeBase64 accepts padded or unpadded, URL-safe or standard Base64.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not Base64: %w", err)
	}
	return b, nil
}

// WindowSizeCode renders challengeWindowSize as the two digits of the CReq.
func WindowSizeCode(n int) string { return fmt.Sprintf("%02d", n) }

// MaxSessionData bounds threeDSSessionData, in characters, as the
// interface bounds the lookup's session (spec 2.2).
const MaxSessionData = 1024

// messageExtension is one element of a CReq's messageExtension.
type messageExtension struct {
	Name                 string `json:"name"`
	ID                   string `json:"id"`
	CriticalityIndicator bool   `json:"criticalityIndicator"`
}

// ParseCReq decodes the creq form field: Base64 (either alphabet, padded
// or not) of the CReq JSON. As EMV 3DS has it, elements the ACS does not
// know are ignored, but an unrecognised message extension marked critical
// is refused (202); the same key twice is refused (204); the identifiers
// must be UUIDs and the required elements present (201, 203). Its
// failures are *emv.Error.
func ParseCReq(s string) (CReq, error) {
	if s == "" {
		return CReq{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "the form field creq is missing", "creq")
	}
	raw, err := DecodeBase64(s)
	if err != nil {
		return CReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "creq is not Base64Url: "+err.Error(), "creq")
	}
	if dups := DuplicateKeys(raw); len(dups) > 0 {
		return CReq{}, emv.NewError(emv.CodeDuplicateField, emv.EMVDuplicateElement, "the CReq holds "+strings.Join(dups, ", ")+" more than once", strings.Join(dups, ","))
	}
	var c struct {
		CReq
		MessageExtension []messageExtension `json:"messageExtension"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return CReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "creq is not a CReq JSON object: "+err.Error(), "creq")
	}
	for _, ext := range c.MessageExtension {
		if ext.CriticalityIndicator {
			return CReq{}, emv.NewError(emv.CodeCriticalExtension, emv.EMVCriticalExtension,
				fmt.Sprintf("message extension %q (%s) is marked critical and this ACS does not recognise it", ext.Name, ext.ID), "messageExtension."+ext.ID)
		}
	}
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"threeDSServerTransID", c.ThreeDSServerTransID},
		{"acsTransID", c.ACSTransID},
		{"messageType", c.MessageType},
		{"messageVersion", c.MessageVersion},
		{"challengeWindowSize", c.ChallengeWindowSize},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return CReq{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "the CReq lacks "+strings.Join(missing, ", "), strings.Join(missing, ","))
	}
	for _, f := range []struct{ name, v string }{{"threeDSServerTransID", c.ThreeDSServerTransID}, {"acsTransID", c.ACSTransID}} {
		if !ValidUUID(f.v) {
			return CReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("%s is %q, want a UUID such as 8a880dc0-d2d2-4067-bcb1-b08d1690b26e", f.name, f.v), f.name)
		}
	}
	// Transaction ids are read in any case; the sandbox makes them in
	// lower case.
	c.ThreeDSServerTransID, c.ACSTransID = strings.ToLower(c.ThreeDSServerTransID), strings.ToLower(c.ACSTransID)
	if c.MessageType != "CReq" {
		return CReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("messageType is %q, want CReq", c.MessageType), "messageType")
	}
	switch c.ChallengeWindowSize {
	case "01", "02", "03", "04", "05":
	default:
		return CReq{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("challengeWindowSize is %q, want 01 to 05", c.ChallengeWindowSize), "challengeWindowSize")
	}
	return c.CReq, nil
}

// ValidUUID reports whether s is a UUID in the canonical 8-4-4-4-12 form of
// hex digits, either case.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// DuplicateKeys returns the keys found twice in one object of a JSON
// document, as dotted paths; nil for a document that is not JSON (its
// decoding reports it).
func DuplicateKeys(raw []byte) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var dups []string
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				key, ok := k.(string)
				if err != nil || !ok {
					return false
				}
				if seen[key] {
					dups = append(dups, path+key)
				}
				seen[key] = true
				if !walk(path + key + ".") {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		case json.Delim('['):
			for dec.More() {
				if !walk(path) {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		}
		return true
	}
	if !walk("") {
		return nil
	}
	return dups
}

// ParseCRes decodes the cres form field of a final CRes: Base64 (either
// alphabet, padded or not) of the CRes JSON. Its failures are *emv.Error with
// EMV 201 (no cres) or 203.
func ParseCRes(s string) (CRes, error) {
	if s == "" {
		return CRes{}, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "the form field cres is missing", "cres")
	}
	raw, err := DecodeBase64(s)
	var c CRes
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.ThreeDSServerTransID == "" {
		return CRes{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "the form field cres is not a Base64Url CRes", "cres")
	}
	c.ThreeDSServerTransID, c.ACSTransID = strings.ToLower(c.ThreeDSServerTransID), strings.ToLower(c.ACSTransID)
	return c, nil
}
