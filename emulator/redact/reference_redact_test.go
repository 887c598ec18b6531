package redact

// The implementation of this package before its search for card numbers
// was made cheaper, kept whole in reference_redact_test.go and
// reference_luhn_test.go as the reference the differential tests of
// reference_test.go compare the package with: every name prefixed with
// ref. Limits, its defaults and withDefaults are shared.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// refPanKeys are the members whose values are card numbers.
var refPanKeys = map[string]bool{"cardNumber": true, "acctNumber": true, "pan": true}

// refJSON returns the redacted copy of a JSON body; nil stays nil. It never
// fails: a body that is not JSON is compacted and cut all the same, and
// still has its card-number members masked.
func refJSON(body []byte, lim Limits) []byte {
	if body == nil {
		return nil
	}
	lim = lim.withDefaults()
	if out, ok := refAsSent(body, lim.MaxAsSent); ok {
		return out
	}
	var stack [32]byte // nesting of an ordinary body, without an allocation
	r := refRedactor{lim: lim, out: make([]byte, 0, min(len(body), lim.MaxBytes)+8), stack: stack[:0]}
	r.run(body)
	if len(r.out) > lim.MaxBytes || r.over {
		return r.cut(len(body))
	}
	return r.out
}

// refPanAnchors find the card-number member names fast: bytes.Index with a
// pattern that starts with a quote degenerates on JSON, where quotes are
// everywhere; these start with rarer bytes, and the full quoted name is
// checked around each hit.
var refPanAnchors = []struct {
	anchor []byte
	names  [][]byte // the quoted names that end with the anchor
}{
	{[]byte(`Number"`), [][]byte{[]byte(`"cardNumber"`), []byte(`"acctNumber"`)}},
	{[]byte(`pan"`), [][]byte{[]byte(`"pan"`)}},
}

// refAsSent is the cheap path: a copy of a small body without backslashes
// (so every name is written as it reads) in which the string value of
// each card-number member is masked in place. It declines (false) when a
// card-number member's value is not a string: the full path handles it.
func refAsSent(body []byte, max int) ([]byte, bool) {
	if len(body) > max || bytes.IndexByte(body, '\\') >= 0 {
		return nil, false
	}
	out := bytes.Clone(body)
	for _, a := range refPanAnchors {
		for at := 0; ; {
			k := bytes.Index(body[at:], a.anchor)
			if k < 0 {
				break
			}
			end := at + k + len(a.anchor) // after the name's closing quote
			at = end
			if !refEndsWithName(body[:end], a.names) {
				continue
			}
			i := refSkipSpace(body, end)
			if i >= len(body) || body[i] != ':' {
				continue // the same text as a value, not a name
			}
			i = refSkipSpace(body, i+1)
			if i >= len(body) || body[i] != '"' {
				return nil, false
			}
			n := bytes.IndexByte(body[i+1:], '"')
			if n < 0 {
				return nil, false
			}
			refMaskInPlace(out[i+1 : i+1+n])
		}
	}
	if !refMaskInStrings(out) {
		return nil, false // a card number as a JSON number: the full path
	}
	return out, true
}

// refEndsWithName reports whether b ends with one of names.
func refEndsWithName(b []byte, names [][]byte) bool {
	for _, n := range names {
		if bytes.HasSuffix(b, n) {
			return true
		}
	}
	return false
}

func refSkipSpace(b []byte, i int) int {
	for i < len(b) && refSpace[b[i]] {
		i++
	}
	return i
}

// refMaskInPlace masks a card number as appendMasked does, without moving a
// byte: every digit but the first six and the last four becomes '*', all
// of them below 11 digits, and anything but digits, spaces, dashes and
// '*' masks the whole value.
func refMaskInPlace(v []byte) {
	digits, ok := refPanDigits(v)
	if !ok {
		for i := range v {
			v[i] = '*'
		}
		return
	}
	i := 0
	for j, c := range v {
		if c < '0' || c > '9' {
			continue
		}
		if digits < 11 || (i >= 6 && i < digits-4) {
			v[j] = '*'
		}
		i++
	}
}

// refPanDigits counts the digits of a value written as a card number is:
// digits, spaces, dashes and '*' (of a number already masked); false when
// it holds anything else.
func refPanDigits(v []byte) (int, bool) {
	digits := 0
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ' ' || c == '-' || c == '*':
		default:
			return 0, false
		}
	}
	return digits, true
}

type refRedactor struct {
	lim Limits
	out []byte
	// stack holds '{' or '[' for each open container.
	stack []byte
	// key is true where a member name is due; pan once the name is one of
	// panKeys, until its value is written.
	key, pan bool
	// over is set once the output passed the limit: the rest is skipped.
	over bool
}

func (r *refRedactor) inObject() bool { return len(r.stack) > 0 && r.stack[len(r.stack)-1] == '{' }

func (r *refRedactor) run(b []byte) {
	for i := 0; i < len(b) && !r.over; {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			for i < len(b) && refSpace[b[i]] {
				i++
			}
			continue
		case '"':
			end := refStringEnd(b, i)
			r.str(b[i:end])
			i = end
		case '{', '[':
			r.stack = append(r.stack, c)
			r.key = c == '{'
			r.out = append(r.out, c)
			i++
		case '}', ']':
			if len(r.stack) > 0 {
				r.stack = r.stack[:len(r.stack)-1]
			}
			r.key, r.pan = false, false
			r.out = append(r.out, c)
			i++
		case ':':
			r.key = false
			r.out = append(r.out, c)
			i++
		case ',':
			r.key, r.pan = r.inObject(), false
			r.out = append(r.out, c)
			i++
		default:
			j := i + 1
			for j < len(b) && !refDelimiters[b[j]] {
				j++
			}
			r.literal(b[i:j])
			i = j
		}
		if len(r.out) > r.lim.MaxBytes {
			r.over = true
		}
	}
}

// str writes a string token (quotes included; the closing one may be
// missing in a broken body): a member name, a masked card number or a
// value cut to MaxValue.
func (r *refRedactor) str(tok []byte) {
	from := len(r.out)
	switch {
	case r.key && r.inObject():
		r.pan = refIsPANKey(tok)
		r.cutString(tok)
	case r.pan:
		r.pan = false
		inner := tok[1:]
		if n := len(inner); n > 0 && inner[n-1] == '"' {
			inner = inner[:n-1]
		}
		r.out = append(r.out, '"')
		r.out = refAppendMasked(r.out, inner)
		r.out = append(r.out, '"')
	default:
		r.cutString(tok)
	}
	r.maskString(from)
}

// maskString masks the card numbers of the string just written at
// r.out[from:] (quotes included): in place as written, then, when it
// holds escapes, as they read ("\u0034000..." is a 4 and more digits),
// in which case the string is written again, escaped anew.
func (r *refRedactor) maskString(from int) {
	content := r.out[from+1 : len(r.out)-1]
	refMaskCardNumbers(content)
	if bytes.IndexByte(content, '\\') < 0 {
		return
	}
	var s string
	if json.Unmarshal(r.out[from:], &s) != nil {
		return
	}
	read := []byte(s)
	if !refMaskCardNumbers(read) {
		return
	}
	r.out = refAppendQuoted(r.out[:from], read)
	// The new escapes (\u0019...) may stand next to digits.
	refMaskCardNumbers(r.out[from+1 : len(r.out)-1])
}

// literal writes a number, true, false, null or stray text. A number that
// holds a card number is written as a string, masked.
func (r *refRedactor) literal(tok []byte) {
	if r.pan {
		r.pan = false
		r.out = append(r.out, '"')
		r.out = refAppendMasked(r.out, tok)
		r.out = append(r.out, '"')
		return
	}
	if refHasCardNumber(tok) {
		r.out = append(r.out, '"')
		from := len(r.out)
		if len(tok) <= r.lim.MaxValue {
			r.out = append(r.out, tok...)
		} else {
			r.out = refAppendCut(r.out, tok, r.lim.MaxValue)
		}
		refMaskCardNumbers(r.out[from:])
		r.out = append(r.out, '"')
		return
	}
	if len(tok) <= r.lim.MaxValue {
		// Literals next to each other (not JSON: "1234 5678") are written
		// together: the digits they join may make a card number.
		joined := len(r.out)
		for joined > 0 && (refDigit[r.out[joined-1]] || refIsSeparator(r.out[joined-1])) {
			joined--
		}
		r.out = append(r.out, tok...)
		if joined < len(r.out)-len(tok) {
			refMaskCardNumbers(r.out[joined:])
		}
		return
	}
	// A long number cannot be cut and stay a number: keep it as a string.
	r.out = append(r.out, '"')
	from := len(r.out)
	r.out = refAppendCut(r.out, tok, r.lim.MaxValue)
	refMaskCardNumbers(r.out[from:]) // what is left of a longer run may be one
	r.out = append(r.out, '"')
}

// cutString writes a string token, cut to MaxValue bytes of content.
func (r *refRedactor) cutString(tok []byte) {
	inner := tok[1:]
	closed := len(inner) > 0 && inner[len(inner)-1] == '"' && !refEscapedAt(tok, len(tok)-1)
	if closed {
		inner = inner[:len(inner)-1]
	}
	if len(inner) <= r.lim.MaxValue {
		r.out = append(r.out, '"')
		r.out = append(r.out, inner...)
		r.out = append(r.out, '"')
		return
	}
	r.out = append(r.out, '"')
	r.out = refAppendCut(r.out, inner, r.lim.MaxValue)
	r.out = append(r.out, '"')
}

// refAppendCut appends the first n bytes of s, cut back to a boundary where
// neither a character nor a backslash escape is split, then the marker.
func refAppendCut(out, s []byte, n int) []byte {
	n = min(n, len(s))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	// Step back over a partial escape: \X or \uXXXX.
	for k := n - 1; k >= 0 && k >= n-6; k-- {
		if s[k] != '\\' {
			continue
		}
		backslashes := 0
		for j := k; j >= 0 && s[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 1 {
			width := 2
			if k+1 < len(s) && s[k+1] == 'u' {
				width = 6
			}
			if k+width > n {
				n = k
			}
		}
		break
	}
	out = append(out, s[:n]...)
	out = append(out, "…(+"...)
	out = strconv.AppendInt(out, int64(len(s)-n), 10)
	return append(out, " bytes)"...)
}

// refAppendMasked appends a card number with every digit but the first six
// and the last four replaced by '*' (all of them below 11 digits). A value
// written with escapes, or one that holds anything but digits, spaces and
// dashes, is masked whole.
func refAppendMasked(out, v []byte) []byte {
	if _, ok := refPanDigits(v); !ok {
		return append(out, "****"...)
	}
	n := len(out)
	out = append(out, v...)
	refMaskInPlace(out[n:])
	return out
}

// cut is the result of a body too large to keep: one JSON string holding
// the head of its compact form and how long the body was, MaxBytes at most.
func (r *refRedactor) cut(bodyLen int) []byte {
	note := "…(cut: the body had " + strconv.Itoa(bodyLen) + " bytes)"
	budget := r.lim.MaxBytes - len(note) - 2 // the quotes
	out := make([]byte, 0, r.lim.MaxBytes)
	out = append(out, '"')
	head := r.out
	for len(head) > 0 {
		c, size := utf8.DecodeRune(head)
		n := len(out)
		switch {
		case c == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case c == '"' || c == '\\':
			out = append(out, '\\', byte(c))
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', refHexDigits[c>>4], refHexDigits[c&0xF])
		default:
			out = append(out, head[:size]...)
		}
		if len(out)-1 > budget {
			out = out[:n]
			break
		}
		head = head[size:]
	}
	out = append(out, note...)
	// Cutting may leave the head of a longer run, and the escapes may
	// stand next to digits: either may read as a card number.
	refMaskCardNumbers(out[1:])
	return append(out, '"')
}

// refAppendQuoted appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as \ufffd.
func refAppendQuoted(out, s []byte) []byte {
	out = append(out, '"')
	for len(s) > 0 {
		c, size := utf8.DecodeRune(s)
		switch {
		case c == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case c == '"' || c == '\\':
			out = append(out, '\\', byte(c))
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', refHexDigits[c>>4], refHexDigits[c&0xF])
		default:
			out = append(out, s[:size]...)
		}
		s = s[size:]
	}
	return append(out, '"')
}

const refHexDigits = "0123456789abcdef"

// refStringEnd returns the index after the string token starting at b[i]
// (a quote), or len(b) when it is not closed. It finds the next quote
// with bytes.IndexByte and steps over escapes only when there are any.
func refStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b)
		}
		e := bytes.IndexByte(b[j:j+q], '\\')
		if e < 0 {
			return j + q + 1
		}
		j += e + 2 // the backslash and the character it escapes
	}
	return len(b)
}

// refEscapedAt reports whether tok[i] is preceded by an odd run of
// backslashes.
func refEscapedAt(tok []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && tok[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// refDelimiters end a literal token; space is JSON's whitespace.
var (
	refDelimiters = refByteSet(" \t\n\r,:{}[]\"")
	refSpace      = refByteSet(" \t\n\r")
)

func refByteSet(chars string) (set [256]bool) {
	for i := range len(chars) {
		set[chars[i]] = true
	}
	return set
}

// refIsPANKey reports whether a member name token names a card number,
// escapes resolved ("card\u004eumber" is cardNumber too).
func refIsPANKey(tok []byte) bool {
	if len(tok) < 2 || tok[len(tok)-1] != '"' {
		return false
	}
	inner := tok[1 : len(tok)-1]
	switch len(inner) {
	case 3, 10: // pan, cardNumber, acctNumber
		return refPanKeys[string(inner)]
	}
	if bytes.IndexByte(inner, '\\') >= 0 {
		var name string
		return json.Unmarshal(tok, &name) == nil && refPanKeys[name]
	}
	return false
}
