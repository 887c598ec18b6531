// Package redact makes the copy of a request body that the sandbox keeps
// for its console: compact (no insignificant whitespace), card numbers
// masked to their first six and last four digits, long values cut with a
// marker, and the whole bounded in bytes. It runs when an event is made,
// so no full card number and no padded body outlives the request.
//
// A card number is masked under any name: the values of the members
// cardNumber, acctNumber and pan whatever they hold, and anywhere else
// every run of 13 to 19 digits that passes the Luhn check (see luhn.go),
// in keys and values, at any depth, inside longer strings and in numbers
// (which then become strings).
package redact

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Defaults of Limits.
const (
	// DefaultMaxAsSent is the size up to which a body without escapes is
	// kept as it was sent, card numbers masked: every realistic request.
	DefaultMaxAsSent = 4 << 10
	// DefaultMaxValue is the longest string, key or number kept whole.
	DefaultMaxValue = 256
	// DefaultMaxBytes is the most bytes a redacted body takes.
	DefaultMaxBytes = 8 << 10
)

// Limits bound a redacted body. Zero fields take the defaults.
type Limits struct {
	// MaxValue is the most bytes of one string, key or number; a longer
	// one is cut on a character boundary and marked "…(+N bytes)".
	MaxValue int
	// MaxBytes is the most bytes of the whole result, at least 64 (a
	// smaller one counts as 64). A body whose compact form is longer
	// becomes one JSON string: its head and a marker.
	MaxBytes int
	// MaxAsSent is the size up to which a body without backslash escapes,
	// whose card numbers are strings, is kept as sent (whitespace and all)
	// with only those numbers masked, rather than compacted: a copy and a
	// few vectorised searches, far cheaper than compacting. At most
	// MaxBytes; negative: every body is compacted.
	MaxAsSent int
	// NoPAN tells that no member of the body is named pan: its decoder
	// read every member and knows none by that name (the lookup's, when it
	// ignored no field). The cheap path then does not look for one, a
	// search that stops at every "p" of the body; cardNumber and
	// acctNumber it finds all the same.
	NoPAN bool
}

func (l Limits) withDefaults() Limits {
	if l.MaxValue <= 0 {
		l.MaxValue = DefaultMaxValue
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxBytes < 64 {
		l.MaxBytes = 64
	}
	if l.MaxAsSent == 0 {
		l.MaxAsSent = DefaultMaxAsSent
	}
	l.MaxAsSent = min(l.MaxAsSent, l.MaxBytes)
	return l
}

// panKeys are the members whose values are card numbers.
var panKeys = map[string]bool{"cardNumber": true, "acctNumber": true, "pan": true}

// JSON returns the redacted copy of a JSON body; nil stays nil. It never
// fails: a body that is not JSON is compacted and cut all the same, and
// still has its card-number members masked.
func JSON(body []byte, lim Limits) []byte {
	if body == nil {
		return nil
	}
	lim = lim.withDefaults()
	if out, ok := asSent(body, lim.MaxAsSent, lim.NoPAN); ok {
		return out
	}
	var stack [32]byte // nesting of an ordinary body, without an allocation
	r := redactor{lim: lim, out: make([]byte, 0, min(len(body), lim.MaxBytes)+8), stack: stack[:0]}
	r.run(body)
	if len(r.out) > lim.MaxBytes || r.over {
		return r.cut(len(body))
	}
	return r.out
}

// asSent is the cheap path: a copy of a small body without backslashes
// (so every name is written as it reads) in which the string value of
// each card-number member is masked in place, and then every other card
// number. It declines (false) when a card-number member's value is not a
// string, or a card number is not in a string: the full path handles
// them.
func asSent(body []byte, max int, noPAN bool) ([]byte, bool) {
	if len(body) > max || bytes.IndexByte(body, '\\') >= 0 {
		return nil, false
	}
	out := bytes.Clone(body)
	if !maskMembers(body, out, noPAN) || !maskInStrings(out) {
		return nil, false
	}
	return out, true
}

// maskMembers masks in out, a copy of body, the string value of each
// card-number member of body (panKeys), all "cardNumber" and
// "acctNumber" first, then all "pan". It jumps with bytes.IndexByte from
// each of the names' rarest bytes (N, p) to the next and compares the
// bytes around it with the quoted name. It reports false when such a
// member's value is not a string. With noPAN (no member is named pan,
// see Limits) it looks for cardNumber and acctNumber only.
func maskMembers(body, out []byte, noPAN bool) bool {
	for at := 0; ; {
		k := bytes.IndexByte(body[at:], 'N')
		if k < 0 {
			break
		}
		k += at
		at = k + 1
		if k < 5 || len(body)-k < 7 || string(body[k:k+7]) != `Number"` {
			continue
		}
		if (string(body[k-5:k]) == `"card` || string(body[k-5:k]) == `"acct`) && !maskValue(body, out, k+7) {
			return false
		}
	}
	for at := 0; !noPAN; {
		k := bytes.IndexByte(body[at:], 'p')
		if k < 0 {
			break
		}
		k += at
		at = k + 1
		if k >= 1 && len(body)-k >= 4 && body[k-1] == '"' && string(body[k+1:k+4]) == `an"` && !maskValue(body, out, k+4) {
			return false
		}
	}
	return true
}

// maskValue masks in out the value of the member whose quoted name ends
// before body[end], when the name is followed by a colon (otherwise it is
// a value of the same text, left alone). It reports false when the value
// is not a string.
func maskValue(body, out []byte, end int) bool {
	i := skipSpace(body, end)
	if i >= len(body) || body[i] != ':' {
		return true
	}
	i = skipSpace(body, i+1)
	if i >= len(body) || body[i] != '"' {
		return false
	}
	n := bytes.IndexByte(body[i+1:], '"')
	if n < 0 {
		return false
	}
	maskInPlace(out[i+1 : i+1+n])
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && space[b[i]] {
		i++
	}
	return i
}

// maskInPlace masks a card number as appendMasked does, without moving a
// byte: every digit but the first six and the last four becomes '*', all
// of them below 11 digits, and anything but digits, spaces, dashes and
// '*' masks the whole value.
func maskInPlace(v []byte) {
	digits, ok := panDigits(v)
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

// panDigits counts the digits of a value written as a card number is:
// digits, spaces, dashes and '*' (of a number already masked); false when
// it holds anything else.
func panDigits(v []byte) (int, bool) {
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

type redactor struct {
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

func (r *redactor) inObject() bool { return len(r.stack) > 0 && r.stack[len(r.stack)-1] == '{' }

func (r *redactor) run(b []byte) {
	for i := 0; i < len(b) && !r.over; {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			for i < len(b) && space[b[i]] {
				i++
			}
			continue
		case '"':
			end := stringEnd(b, i)
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
			for j < len(b) && !delimiters[b[j]] {
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
func (r *redactor) str(tok []byte) {
	from := len(r.out)
	switch {
	case r.key && r.inObject():
		r.pan = isPANKey(tok)
		r.cutString(tok)
	case r.pan:
		r.pan = false
		inner := tok[1:]
		if n := len(inner); n > 0 && inner[n-1] == '"' {
			inner = inner[:n-1]
		}
		r.out = append(r.out, '"')
		r.out = appendMasked(r.out, inner)
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
func (r *redactor) maskString(from int) {
	content := r.out[from+1 : len(r.out)-1]
	maskCardNumbers(content)
	if bytes.IndexByte(content, '\\') < 0 {
		return
	}
	var s string
	if json.Unmarshal(r.out[from:], &s) != nil {
		return
	}
	read := []byte(s)
	if !maskCardNumbers(read) {
		return
	}
	r.out = appendQuoted(r.out[:from], read)
	// The new escapes (\u0019...) may stand next to digits.
	maskCardNumbers(r.out[from+1 : len(r.out)-1])
}

// literal writes a number, true, false, null or stray text. A number that
// holds a card number is written as a string, masked.
func (r *redactor) literal(tok []byte) {
	if r.pan {
		r.pan = false
		r.out = append(r.out, '"')
		r.out = appendMasked(r.out, tok)
		r.out = append(r.out, '"')
		return
	}
	if hasCardNumber(tok) {
		r.out = append(r.out, '"')
		from := len(r.out)
		if len(tok) <= r.lim.MaxValue {
			r.out = append(r.out, tok...)
		} else {
			r.out = appendCut(r.out, tok, r.lim.MaxValue)
		}
		maskCardNumbers(r.out[from:])
		r.out = append(r.out, '"')
		return
	}
	if len(tok) <= r.lim.MaxValue {
		// Literals next to each other (not JSON: "1234 5678") are written
		// together: the digits they join may make a card number.
		joined := len(r.out)
		for joined > 0 && (digit[r.out[joined-1]] || isSeparator(r.out[joined-1])) {
			joined--
		}
		r.out = append(r.out, tok...)
		if joined < len(r.out)-len(tok) {
			maskCardNumbers(r.out[joined:])
		}
		return
	}
	// A long number cannot be cut and stay a number: keep it as a string.
	r.out = append(r.out, '"')
	from := len(r.out)
	r.out = appendCut(r.out, tok, r.lim.MaxValue)
	maskCardNumbers(r.out[from:]) // what is left of a longer run may be one
	r.out = append(r.out, '"')
}

// cutString writes a string token, cut to MaxValue bytes of content.
func (r *redactor) cutString(tok []byte) {
	inner := tok[1:]
	closed := len(inner) > 0 && inner[len(inner)-1] == '"' && !escapedAt(tok, len(tok)-1)
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
	r.out = appendCut(r.out, inner, r.lim.MaxValue)
	r.out = append(r.out, '"')
}

// appendCut appends the first n bytes of s, cut back to a boundary where
// neither a character nor a backslash escape is split, then the marker.
func appendCut(out, s []byte, n int) []byte {
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

// appendMasked appends a card number with every digit but the first six
// and the last four replaced by '*' (all of them below 11 digits). A value
// written with escapes, or one that holds anything but digits, spaces and
// dashes, is masked whole.
func appendMasked(out, v []byte) []byte {
	if _, ok := panDigits(v); !ok {
		return append(out, "****"...)
	}
	n := len(out)
	out = append(out, v...)
	maskInPlace(out[n:])
	return out
}

// cut is the result of a body too large to keep: one JSON string holding
// the head of its compact form and how long the body was, MaxBytes at most.
func (r *redactor) cut(bodyLen int) []byte {
	note := "…(cut: the body had " + strconv.Itoa(bodyLen) + " bytes)"
	budget := r.lim.MaxBytes - len(note) - 2 // the quotes
	out := make([]byte, 0, r.lim.MaxBytes)
	out = append(out, '"')
	head := r.out
	for len(head) > 0 {
		n := len(out)
		var size int
		out, size = appendEscapedRune(out, head)
		if len(out)-1 > budget {
			out = out[:n]
			break
		}
		head = head[size:]
	}
	out = append(out, note...)
	// Cutting may leave the head of a longer run, and the escapes may
	// stand next to digits: either may read as a card number.
	maskCardNumbers(out[1:])
	return append(out, '"')
}

// appendQuoted appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as \ufffd.
func appendQuoted(out, s []byte) []byte {
	out = append(out, '"')
	for len(s) > 0 {
		var size int
		out, size = appendEscapedRune(out, s)
		s = s[size:]
	}
	return append(out, '"')
}

// appendEscapedRune appends the first rune of s as a JSON string holds
// it (quotes, backslashes and control characters escaped, an invalid
// byte as \ufffd) and returns how many bytes of s it took.
func appendEscapedRune(out, s []byte) ([]byte, int) {
	c, size := utf8.DecodeRune(s)
	switch {
	case c == utf8.RuneError && size == 1:
		return append(out, `\ufffd`...), size
	case c == '"' || c == '\\':
		return append(out, '\\', byte(c)), size
	case c < 0x20:
		return append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]), size
	}
	return append(out, s[:size]...), size
}

const hexDigits = "0123456789abcdef"

// stringEnd returns the index after the string token starting at b[i]
// (a quote), or len(b) when it is not closed. It finds the next quote
// with bytes.IndexByte and steps over escapes only when there are any.
func stringEnd(b []byte, i int) int {
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

// escapedAt reports whether tok[i] is preceded by an odd run of
// backslashes.
func escapedAt(tok []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && tok[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// delimiters end a literal token; space is JSON's whitespace.
var (
	delimiters = byteSet(" \t\n\r,:{}[]\"")
	space      = byteSet(" \t\n\r")
)

func byteSet(chars string) (set [256]bool) {
	for i := range len(chars) {
		set[chars[i]] = true
	}
	return set
}

// isPANKey reports whether a member name token names a card number,
// escapes resolved ("card\u004eumber" is cardNumber too).
func isPANKey(tok []byte) bool {
	if len(tok) < 2 || tok[len(tok)-1] != '"' {
		return false
	}
	inner := tok[1 : len(tok)-1]
	switch len(inner) {
	case 3, 10: // pan, cardNumber, acctNumber
		return panKeys[string(inner)]
	}
	if bytes.IndexByte(inner, '\\') >= 0 {
		var name string
		return json.Unmarshal(tok, &name) == nil && panKeys[name]
	}
	return false
}
