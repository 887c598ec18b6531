package redact_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
)

// The specification of the package, written as plainly as it reads in
// the package's doc and in docs/security.md, without its fast paths: the
// oracle that TestSpec and FuzzSpec (spec_test.go) compare the package
// with. It speaks of JSON bodies without a backslash; FuzzCardNumbers
// checks what the package promises of any other: no card number kept,
// as written or as read.
//
// A card number is a span of whole groups of a run (digits, a single
// space or dash between two of them) that holds 13 to 19 digits and
// passes the Luhn check, unless the run lies inside a UUID written
// 8-4-4-4-12. It is masked to its first six and last four digits, every
// other digit a '*', in place. Each run is searched again after a mask,
// from its start: the stars split it.
//
// A value under a card-number name (cardNumber, acctNumber, pan) is
// masked whatever it holds: written as a card number (digits, spaces,
// dashes, stars) its digits are masked as above, all of them below 11;
// anything else is hidden whole.
//
// A body of at most MaxAsSent bytes (and MaxBytes) without a backslash,
// whose card numbers all stand in strings and whose card-number names
// all hold strings, is kept as sent with only those masks, stars for
// stars. Any other is compacted: each key, string and scalar longer than
// MaxValue bytes cut on a character boundary and marked "…(+N bytes)"
// (a cut scalar, or one holding a card number, becomes a string), card
// numbers masked after the cut, values under card-number names masked
// uncut, a hidden one as "****". A compact result longer than MaxBytes
// becomes one JSON string: the head of the compact form, escaped, that
// fits with "…(cut: the body had N bytes)", card numbers masked.

// specLimits are Limits with the zero fields at their defaults, MaxBytes
// at least 64 and MaxAsSent at most MaxBytes.
func specLimits(l redact.Limits) redact.Limits {
	if l.MaxValue <= 0 {
		l.MaxValue = redact.DefaultMaxValue
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = redact.DefaultMaxBytes
	}
	l.MaxBytes = max(l.MaxBytes, 64)
	if l.MaxAsSent == 0 {
		l.MaxAsSent = redact.DefaultMaxAsSent
	}
	l.MaxAsSent = min(l.MaxAsSent, l.MaxBytes)
	return l
}

var (
	specRun   = regexp.MustCompile(`[0-9]+(?:[ -][0-9]+)*`)
	specGroup = regexp.MustCompile(`[0-9]+`)
	specUUID  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// specMask returns s with its card numbers masked.
func specMask(s []byte) []byte {
	b := bytes.Clone(s)
	for _, run := range specRun.FindAllIndex(b, -1) {
		if specInUUID(b, run[0], run[1]) {
			continue
		}
		for specMaskFirst(b[run[0]:run[1]]) {
		}
	}
	return b
}

// specInUUID tells whether b[start:end] lies in a UUID: the widest span
// of hexadecimal digits and dashes around it is one.
func specInUUID(b []byte, start, end int) bool {
	hex := func(c byte) bool { return c == '-' || bytes.IndexByte([]byte("0123456789abcdefABCDEF"), c) >= 0 }
	for start > 0 && hex(b[start-1]) {
		start--
	}
	for end < len(b) && hex(b[end]) {
		end++
	}
	return specUUID.Match(b[start:end])
}

// specMaskFirst masks the first card number of a run, the one whose first
// group comes first and, of those, is shortest; false when it has none.
func specMaskFirst(run []byte) bool {
	groups := specGroup.FindAllIndex(run, -1)
	for i := range groups {
		var digits []byte
		for j := i; j < len(groups); j++ {
			if j > i && !specSeparator(run[groups[j-1][1]:groups[j][0]]) {
				break // the stars of a mask stand between them
			}
			digits = append(digits, run[groups[j][0]:groups[j][1]]...)
			if len(digits) > 19 {
				break
			}
			if len(digits) >= 13 && luhnValid(string(digits)) {
				specMaskDigits(run[groups[i][0]:groups[j][1]], len(digits), 6)
				return true
			}
		}
	}
	return false
}

// specSeparator tells what may stand between two groups of a card
// number: a single space or dash.
func specSeparator(gap []byte) bool { return string(gap) == " " || string(gap) == "-" }

// specMaskDigits replaces by '*' every digit of s but the first keep and
// the last four, of the n it holds.
func specMaskDigits(s []byte, n, keep int) {
	i := 0
	for k, c := range s {
		if c >= '0' && c <= '9' {
			if i >= keep && i < n-4 {
				s[k] = '*'
			}
			i++
		}
	}
}

// specMember masks the value v under a card-number name: the digits of a
// value written as a card number, all of them below 11; anything else
// hidden whole, by as many stars as sent, by four when compacted.
func specMember(v []byte, asSent bool) []byte {
	if len(bytes.Trim(v, "0123456789 -*")) > 0 {
		if asSent {
			return bytes.Repeat([]byte{'*'}, len(v))
		}
		return []byte("****")
	}
	n := 0
	for _, c := range v {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	out := bytes.Clone(v)
	if n < 11 {
		for k, c := range out {
			if c >= '0' && c <= '9' {
				out[k] = '*'
			}
		}
		return out
	}
	specMaskDigits(out, n, 6)
	return out
}

// specCut cuts a value longer than max bytes on a character boundary,
// with the marker.
func specCut(v []byte, max int) []byte {
	if len(v) <= max {
		return v
	}
	n := max
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return append(bytes.Clone(v[:n]), "…(+"+strconv.Itoa(len(v)-n)+" bytes)"...)
}

// specJSON is the oracle: what JSON gives for body under lim. ok is false
// for a body the oracle does not speak of: one that is not JSON, has a
// backslash, or an array under a card-number name. NoPAN is taken as
// promised (no member is named pan), so it changes nothing.
func specJSON(body []byte, lim redact.Limits) (out []byte, ok bool) {
	if !json.Valid(body) || bytes.IndexByte(body, '\\') >= 0 {
		return nil, false
	}
	lim = specLimits(lim)
	compact, ok := specWrite(body, lim, false)
	if !ok {
		return nil, false
	}
	if len(body) <= lim.MaxAsSent {
		if sent, ok := specWrite(body, lim, true); ok {
			return sent, true
		}
	}
	if len(compact) <= lim.MaxBytes {
		return compact, true
	}
	note := "…(cut: the body had " + strconv.Itoa(len(body)) + " bytes)"
	budget := lim.MaxBytes - len(note) - 2 // the quotes
	var head []byte
	for rest := compact; len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		esc := rest[:size]
		switch {
		case r == utf8.RuneError && size == 1:
			esc = []byte(`\ufffd`)
		case r == '"' || r == '\\':
			esc = []byte{'\\', byte(r)}
		case r < 0x20:
			esc = []byte(`\u00` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
		}
		if len(head)+len(esc) > budget {
			break
		}
		head, rest = append(head, esc...), rest[size:]
	}
	return append(append([]byte{'"'}, specMask(append(head, note...))...), '"'), true
}

// specWrite writes body, valid JSON without backslashes, token by token:
// as sent (ok false when a card number stands outside a string or a
// card-number name holds no string) or compacted (ok false for an array
// under a card-number name).
func specWrite(body []byte, lim redact.Limits, asSent bool) (out []byte, ok bool) {
	var open []byte           // the open containers, '{' or '['
	key, name := false, false // a key is due; a card-number name's value is
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if asSent {
				out = append(out, c)
			}
			i++
			continue
		case c == '{' || c == '[':
			if name && (asSent || c == '[') {
				return nil, false
			}
			open, key = append(open, c), c == '{'
		case c == '}' || c == ']':
			open, key, name = open[:len(open)-1], false, false
		case c == ':':
			key = false
		case c == ',':
			key, name = open[len(open)-1] == '{', false
		case c == '"':
			end := i + 1 + bytes.IndexByte(body[i+1:], '"')
			s := body[i+1 : end]
			switch {
			case key:
				name = specIsCardName(string(s))
				if !asSent {
					s = specCut(s, lim.MaxValue)
				}
			case name:
				s, name = specMember(s, asSent), false
			case !asSent:
				s = specCut(s, lim.MaxValue)
			}
			out = append(append(append(out, '"'), specMask(s)...), '"')
			i = end + 1
			continue
		default: // a number, true, false or null
			end := i + 1
			for end < len(body) && bytes.IndexByte([]byte(" \t\n\r,:{}[]"), body[end]) < 0 {
				end++
			}
			v := body[i:end]
			card := !bytes.Equal(specMask(v), v)
			switch {
			case asSent && (name || card):
				return nil, false
			case asSent:
				out = append(out, v...)
			case name:
				out, name = append(append(append(out, '"'), specMember(v, false)...), '"'), false
			case card || len(v) > lim.MaxValue:
				out = append(append(append(out, '"'), specMask(specCut(v, lim.MaxValue))...), '"')
			default:
				out = append(out, v...)
			}
			i = end
			continue
		}
		out = append(out, c)
		i++
	}
	return out, true
}

// specIsCardName tells the card-number names.
func specIsCardName(name string) bool {
	return name == "cardNumber" || name == "acctNumber" || name == "pan"
}
