// Package redact makes the copy of a request body that the sandbox keeps
// for its console: compact (no insignificant whitespace), card numbers
// masked to their first six and last four digits, long values cut with a
// marker, and the whole bounded in bytes. It runs when an event is made,
// so no full card number and no padded body outlives the request.
package redact

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Defaults of Limits.
const (
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
	// MaxBytes is the most bytes of the whole result. A body whose compact
	// form is longer becomes one JSON string: its head and a marker.
	MaxBytes int
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
	var stack [32]byte // nesting of an ordinary body, without an allocation
	r := redactor{lim: lim, out: make([]byte, 0, min(len(body), lim.MaxBytes)+8), stack: stack[:0]}
	r.run(body)
	if len(r.out) > lim.MaxBytes || r.over {
		return r.cut(len(body))
	}
	return r.out
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
			for j < len(b) && !delimiter(b[j]) {
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
	if r.key && r.inObject() {
		r.pan = isPANKey(tok)
		r.cutString(tok)
		return
	}
	if r.pan {
		r.pan = false
		inner := tok[1:]
		if n := len(inner); n > 0 && inner[n-1] == '"' {
			inner = inner[:n-1]
		}
		r.out = append(r.out, '"')
		r.out = appendMasked(r.out, inner)
		r.out = append(r.out, '"')
		return
	}
	r.cutString(tok)
}

// literal writes a number, true, false, null or stray text.
func (r *redactor) literal(tok []byte) {
	if r.pan {
		r.pan = false
		r.out = append(r.out, '"')
		r.out = appendMasked(r.out, tok)
		r.out = append(r.out, '"')
		return
	}
	if len(tok) <= r.lim.MaxValue {
		r.out = append(r.out, tok...)
		return
	}
	// A long number cannot be cut and stay a number: keep it as a string.
	r.out = append(r.out, '"')
	r.out = appendCut(r.out, tok, r.lim.MaxValue)
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
	digits := 0
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ' ' || c == '-' || c == '*':
		default:
			return append(out, "****"...)
		}
	}
	i := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			out = append(out, c)
			continue
		}
		if digits >= 11 && (i < 6 || i >= digits-4) {
			out = append(out, c)
		} else {
			out = append(out, '*')
		}
		i++
	}
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
		c, size := utf8.DecodeRune(head)
		n := len(out)
		switch {
		case c == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case c == '"' || c == '\\':
			out = append(out, '\\', byte(c))
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
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
	return append(out, '"')
}

const hexDigits = "0123456789abcdef"

// stringEnd returns the index after the string token starting at b[i]
// (a quote), or len(b) when it is not closed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
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

// delimiter ends a literal token.
func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// isPANKey reports whether a member name token names a card number,
// escapes resolved ("card\u004eumber" is cardNumber too).
func isPANKey(tok []byte) bool {
	if len(tok) < 2 || tok[len(tok)-1] != '"' {
		return false
	}
	inner := tok[1 : len(tok)-1]
	for _, c := range inner {
		if c == '\\' {
			var name string
			return json.Unmarshal(tok, &name) == nil && panKeys[name]
		}
	}
	return panKeys[string(inner)]
}
