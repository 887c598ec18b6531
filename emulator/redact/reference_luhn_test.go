package redact

// The search for card numbers of the reference (see
// reference_redact_test.go).

import (
	"bytes"
	"encoding/binary"
)

// Bounds of a card number, in digits.
const (
	refMinPANDigits = 13
	refMaxPANDigits = 19
)

// refDigit tells the bytes '0' to '9'.
var refDigit = refByteSet("0123456789")

// refIsSeparator tells the bytes that may stand between two digits of a run.
func refIsSeparator(c byte) bool { return c == ' ' || c == '-' }

// Words of eight bytes, for nextDigit.
const (
	refOnes  = 0x0101010101010101
	refHighs = 0x8080808080808080
)

// refNextDigit returns the index of the first digit of b at or after i, or
// len(b). It looks at eight bytes at a time: most of a body is letters
// and punctuation.
func refNextDigit(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Some byte of x between '0'-1 and '9'+1, exclusive (bit
		// twiddling: "determine if a word has a byte between m and n").
		const m, n = '0' - 1, '9' + 1
		if (refOnes*(127+n)-(x&(refOnes*127)))&^x&((x&(refOnes*127))+refOnes*(127-m))&refHighs != 0 {
			break
		}
	}
	for ; i < len(b) && !refDigit[b[i]]; i++ {
	}
	return i
}

// refMaskCardNumbers masks in place every card number of b (see above) and
// reports whether it masked any.
func refMaskCardNumbers(b []byte) bool {
	masked := false
	for i := 0; i < len(b); {
		if i = refNextDigit(b, i); i == len(b) {
			break
		}
		end, at, to := refFindCardNumber(b, i)
		if at < 0 {
			i = end
			continue
		}
		refMaskSpan(b[at:to])
		masked = true
		// The stars split the run: read what is left of it again, as the
		// digits before them may hold another card number.
	}
	return masked
}

// refHasCardNumber tells whether b holds a card number, without changing it.
func refHasCardNumber(b []byte) bool {
	for i := 0; i < len(b); {
		if i = refNextDigit(b, i); i == len(b) {
			break
		}
		end, at, _ := refFindCardNumber(b, i)
		if at >= 0 {
			return true
		}
		i = end
	}
	return false
}

// refFindCardNumber reads the run that starts at b[start] (a digit) and
// returns where it ends and the first card number in it, [at, to), or
// at = -1 when it holds none.
func refFindCardNumber(b []byte, start int) (end, at, to int) {
	end, digits, grouped := start, 0, false
	for end < len(b) {
		if refDigit[b[end]] {
			digits++
			end++
			continue
		}
		if refIsSeparator(b[end]) && end+1 < len(b) && refDigit[b[end+1]] && end > start {
			grouped = true
			end++
			continue
		}
		break
	}
	if digits < refMinPANDigits || (!grouped && digits > refMaxPANDigits) {
		return end, -1, -1
	}
	if !grouped {
		if refLuhn(b[start:end]) {
			return end, start, end
		}
		return end, -1, -1
	}
	// Every span of whole groups with 13 to 19 digits, from the left.
	for gs := start; gs < end; gs = refNextGroup(b, gs, end) {
		n := 0
		for ge := gs; ge < end; {
			for ge < end && refDigit[b[ge]] {
				ge++
				n++
			}
			if n > refMaxPANDigits {
				break
			}
			if n >= refMinPANDigits && refLuhn(b[gs:ge]) {
				return end, gs, ge
			}
			ge++ // the separator
		}
	}
	return end, -1, -1
}

// refNextGroup returns the start of the group after the one at b[i], or end.
func refNextGroup(b []byte, i, end int) int {
	for i < end && refDigit[b[i]] {
		i++
	}
	return i + 1
}

// refLuhn tells whether the digits of s (separators skipped) pass the Luhn
// check.
func refLuhn(s []byte) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if !refDigit[c] {
			continue
		}
		d := int(c - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// refMaskSpan masks the digits of a card number written with or without
// separators, but its first six and last four, with '*'.
func refMaskSpan(s []byte) {
	digits := 0
	for _, c := range s {
		if refDigit[c] {
			digits++
		}
	}
	i := 0
	for j, c := range s {
		if !refDigit[c] {
			continue
		}
		if i >= 6 && i < digits-4 {
			s[j] = '*'
		}
		i++
	}
}

// refMaskInStrings masks in place the card numbers of a JSON text without
// backslashes, where quotes alone tell what is inside a string. It
// reports false, having perhaps masked some, when a card number stands
// outside a string (a number): masking it in place would not be JSON.
func refMaskInStrings(b []byte) bool {
	for i := 0; i < len(b); {
		if i = refNextDigit(b, i); i == len(b) {
			break
		}
		end, at, to := refFindCardNumber(b, i)
		if at < 0 {
			i = end
			continue
		}
		if bytes.Count(b[:at], refQuote)%2 == 0 {
			return false // an even number of quotes before it: not in a string
		}
		refMaskSpan(b[at:to])
	}
	return true
}

var refQuote = []byte{'"'}
