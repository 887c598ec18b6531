package wire

import (
	"strconv"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// This file writes the success bodies of the interface without
// reflection. The output is byte for byte what encoding/json's Encoder
// writes with SetEscapeHTML(false), trailing newline included, which the
// tests check field by field and by fuzzing.

// AppendLookupResponse appends the JSON body of a lookup answer (spec
// 2.13) to b, with challengeHTML (the page the transport rendered from
// r.Challenge) as challengeHtml; empty leaves the member out.
func AppendLookupResponse(b []byte, r *message.LookupResponse, challengeHTML string) []byte {
	o := object{b: b}
	o.open()
	o.field("status", r.Status)
	o.optional("challengeHtml", challengeHTML)
	o.optional("hostedChallengeUrl", r.HostedChallengeURL)
	o.field("version", r.Version)
	o.field("dsTransId", r.DSTransID)
	o.field("acsTransId", r.ACSTransID)
	o.field("threeDsServerTransId", r.ThreeDSServerTransID)
	o.optional("authenticationValue", r.AuthenticationValue)
	o.optional("eci", r.ECI)
	o.field("cardScheme", r.CardScheme)
	o.field("cardBin", r.CardBIN)
	o.field("externalReferenceId", r.ExternalReferenceID)
	o.optional("statusReason", r.StatusReason)
	o.field("acsReferenceNumber", r.ACSReferenceNumber)
	o.field("acsOperatorId", r.ACSOperatorID)
	o.optional("authenticationType", r.AuthenticationType)
	o.optional("whiteListStatus", r.WhiteListStatus)
	o.optional("whiteListStatusSource", r.WhiteListStatusSrc)
	o.optional("sdkTransId", r.SDKTransID)
	if rt := r.ACSRenderingType; rt != nil {
		o.key("acsRenderingType")
		ro := object{b: o.b}
		ro.open()
		ro.field("acsInterface", rt.Interface)
		ro.field("acsUiTemplate", rt.UITemplate)
		o.b = append(ro.b, '}')
	}
	o.optional("acsSignedContent", r.ACSSignedContent)
	return o.close()
}

// AppendEnquiryResponse appends the JSON body of an enquiry answer (spec
// 2.15) to b.
func AppendEnquiryResponse(b []byte, r *message.EnquiryResponse) []byte {
	o := object{b: b}
	o.open()
	o.field("threeDsServerTransId", r.ThreeDSServerTransID)
	o.field("dsTransId", r.DSTransID)
	o.field("acsTransactionId", r.ACSTransactionID)
	o.optional("authenticationValue", r.AuthenticationValue)
	o.field("transactionStatus", r.TransactionStatus)
	o.optional("eci", r.ECI)
	o.field("version", r.Version)
	o.field("cardScheme", r.CardScheme)
	o.field("cardBin", r.CardBIN)
	o.field("dsTransactionId", r.DSTransactionID)
	o.field("threeDSServerTransactionId", r.ThreeDSServerTransactionID)
	o.optional("challengeCancel", r.ChallengeCancel)
	o.optional("statusReason", r.StatusReason)
	o.optional("whiteListStatus", r.WhiteListStatus)
	o.optional("whiteListStatusSource", r.WhiteListStatusSource)
	o.optional("authenticationType", r.AuthenticationType)
	o.field("externalReferenceId", r.ExternalReferenceID)
	o.optional("reasonCode", r.ReasonCode)
	o.optional("reasonDesc", r.ReasonDesc)
	o.field("acsReferenceNumber", r.ACSReferenceNumber)
	o.field("acsOperatorId", r.ACSOperatorID)
	o.optional("interactionCounter", r.InteractionCounter)
	o.optional("ddcId", r.DDCID)
	o.optional("threeDSCompInd", r.ThreeDSCompInd)
	if m := r.ThreeDSMethod; m != nil {
		o.key("threeDSMethod")
		mo := object{b: o.b}
		mo.open()
		mo.key("available")
		mo.b = strconv.AppendBool(mo.b, m.Available)
		mo.optional("requestedAt", m.RequestedAt)
		mo.optional("startedAt", m.StartedAt)
		mo.optional("completedAt", m.CompletedAt)
		mo.optional("requestorCompInd", m.RequestorCompInd)
		o.b = append(mo.b, '}')
	}
	o.optional("sdkTransId", r.SDKTransID)
	return o.close()
}

// object appends one flat JSON object of string members.
type object struct {
	b     []byte
	empty bool
}

func (o *object) open() { o.b, o.empty = append(o.b, '{'), true }

// close ends the object and the line, as Encoder.Encode does.
func (o *object) close() []byte { return append(o.b, '}', '\n') }

// field appends the member name: value. name must need no escaping.
func (o *object) field(name, value string) {
	o.key(name)
	o.b = appendString(o.b, value)
}

// key appends the name of the next member and its colon; the caller
// appends the value.
func (o *object) key(name string) {
	if !o.empty {
		o.b = append(o.b, ',')
	}
	o.empty = false
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

// optional is field for a member tagged omitempty: an empty value is left
// out.
func (o *object) optional(name, value string) {
	if value != "" {
		o.field(name, value)
	}
}

// appendString appends s as a JSON string the way encoding/json does
// without HTML escaping: quotes, backslashes and control characters
// escaped (\b \f \n \r \t by name, the others as \u00XX), invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped for JavaScript's sake.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes (nothing to escape, all ASCII) at a time.
		for i+8 <= len(s) && plainWord(s[i:i+8]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainWord tells whether the first eight bytes of w all go out as they
// are: printable ASCII other than a quote and a backslash. It judges them
// at once with a variant of the classic has-zero-byte bit trick.
func plainWord(w string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	// Each term sets the high bit of some bytes that are not plain, and
	// maybe of non-ASCII bytes, which x sets anyway:
	//   - x-0x20 wraps below 0 in the bytes below 0x20, the controls;
	//   - q-1 and b-1 wrap in the bytes where q or b is zero, the quotes
	//     and backslashes;
	//   - x+1 reaches 0x80 in DEL.
	// A borrow or carry into the next byte comes only from a byte that is
	// not plain itself: a word of plain bytes has no high bit set.
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return (x|(x-0x20*ones)|(q-ones)|(b-ones)|(x+ones))&highs == 0
}
