package redact

// This file finds card numbers whatever their name: every run of 13 to
// 19 digits that passes the Luhn check, wherever it stands in a body
// (a key, a value, inside a longer string, a number), written whole or in
// groups separated by single spaces or dashes as card numbers are
// ("4000 0000 0000 9003", "4000-0000-0000-9003").
//
// A run is a maximal sequence of digits in which a single space or dash
// may stand between two digits; its groups are the digits between
// separators. A card number is any span of whole groups of a run that
// holds 13 to 19 digits and passes the Luhn check: "4000 0000 0000 9003
// 1228" (a card number and an expiry date) holds one. A run of more than
// 19 digits without a separator holds none: a long reference is no card
// number. The number is masked as in a card-number member, keeping its
// first six and last four digits, in place: the result is as long as
// what it masks, and stays a valid JSON string wherever it stood in one.

import (
	"bytes"
	"encoding/binary"
)

// Bounds of a card number, in digits.
const (
	minPANDigits = 13
	maxPANDigits = 19
)

// digit tells the bytes '0' to '9'.
var digit = byteSet("0123456789")

// isSeparator tells the bytes that may stand between two digits of a run.
func isSeparator(c byte) bool { return c == ' ' || c == '-' }

// Words of eight bytes, for nextDigit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// nextDigit returns the index of the first digit of b at or after i, or
// len(b). It looks at eight bytes at a time: most of a body is letters
// and punctuation.
func nextDigit(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Some byte of x between '0'-1 and '9'+1, exclusive (bit
		// twiddling: "determine if a word has a byte between m and n").
		const m, n = '0' - 1, '9' + 1
		if (ones*(127+n)-(x&(ones*127)))&^x&((x&(ones*127))+ones*(127-m))&highs != 0 {
			break
		}
	}
	for ; i < len(b) && !digit[b[i]]; i++ {
	}
	return i
}

// maskCardNumbers masks in place every card number of b (see above) and
// reports whether it masked any.
func maskCardNumbers(b []byte) bool {
	masked := false
	for i := 0; i < len(b); {
		if i = nextDigit(b, i); i == len(b) {
			break
		}
		end, at, to := findCardNumber(b, i)
		if at < 0 {
			i = end
			continue
		}
		maskSpan(b[at:to])
		masked = true
		// The stars split the run: read what is left of it again, as the
		// digits before them may hold another card number.
	}
	return masked
}

// hasCardNumber tells whether b holds a card number, without changing it.
func hasCardNumber(b []byte) bool {
	for i := 0; i < len(b); {
		if i = nextDigit(b, i); i == len(b) {
			break
		}
		end, at, _ := findCardNumber(b, i)
		if at >= 0 {
			return true
		}
		i = end
	}
	return false
}

// findCardNumber reads the run that starts at b[start] (a digit) and
// returns where it ends and the first card number in it, [at, to), or
// at = -1 when it holds none.
func findCardNumber(b []byte, start int) (end, at, to int) {
	end, digits, grouped := start, 0, false
	for end < len(b) {
		if digit[b[end]] {
			digits++
			end++
			continue
		}
		if isSeparator(b[end]) && end+1 < len(b) && digit[b[end+1]] && end > start {
			grouped = true
			end++
			continue
		}
		break
	}
	if digits < minPANDigits || (!grouped && digits > maxPANDigits) {
		return end, -1, -1
	}
	if !grouped {
		if luhn(b[start:end]) {
			return end, start, end
		}
		return end, -1, -1
	}
	// Every span of whole groups with 13 to 19 digits, from the left.
	for gs := start; gs < end; gs = nextGroup(b, gs, end) {
		n := 0
		for ge := gs; ge < end; {
			for ge < end && digit[b[ge]] {
				ge++
				n++
			}
			if n > maxPANDigits {
				break
			}
			if n >= minPANDigits && luhn(b[gs:ge]) {
				return end, gs, ge
			}
			ge++ // the separator
		}
	}
	return end, -1, -1
}

// nextGroup returns the start of the group after the one at b[i], or end.
func nextGroup(b []byte, i, end int) int {
	for i < end && digit[b[i]] {
		i++
	}
	return i + 1
}

// luhn tells whether the digits of s (separators skipped) pass the Luhn
// check.
func luhn(s []byte) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if !digit[c] {
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

// maskSpan masks the digits of a card number written with or without
// separators, but its first six and last four, with '*'.
func maskSpan(s []byte) {
	digits := 0
	for _, c := range s {
		if digit[c] {
			digits++
		}
	}
	i := 0
	for j, c := range s {
		if !digit[c] {
			continue
		}
		if i >= 6 && i < digits-4 {
			s[j] = '*'
		}
		i++
	}
}

// maskInStrings masks in place the card numbers of a JSON text without
// backslashes, where quotes alone tell what is inside a string. It
// reports false, having perhaps masked some, when a card number stands
// outside a string (a number): masking it in place would not be JSON.
func maskInStrings(b []byte) bool {
	for i := 0; i < len(b); {
		if i = nextDigit(b, i); i == len(b) {
			break
		}
		end, at, to := findCardNumber(b, i)
		if at < 0 {
			i = end
			continue
		}
		if bytes.Count(b[:at], quote)%2 == 0 {
			return false // an even number of quotes before it: not in a string
		}
		maskSpan(b[at:to])
	}
	return true
}

var quote = []byte{'"'}
