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
//
// A run inside a UUID in its canonical form (8-4-4-4-12 hexadecimal
// digits, as the interface's transaction ids are) is no card number,
// whatever its digits: "8a880dc0-4000-0000-0000-9003abcdef12" keeps its
// Luhn-valid "4000-0000-0000-9003", and a random transaction id is never
// masked.

import "bytes"

// Bounds of a card number, in digits.
const (
	minPANDigits = 13
	maxPANDigits = 19
)

// digit tells the bytes '0' to '9'.
var digit = byteSet("0123456789")

// isSeparator tells the bytes that may stand between two digits of a run.
func isSeparator(c byte) bool { return c == ' ' || c == '-' }

// inRun tells whether b[i] belongs to a run: a digit, or a separator
// between two digits. Runs are the maximal spans of such bytes, so a run
// is found from any byte of it, looking both ways.
func inRun(b []byte, i int) bool {
	c := b[i]
	return digit[c] || isSeparator(c) && i > 0 && i+1 < len(b) && digit[b[i-1]] && digit[b[i+1]]
}

// runByte tells the bytes runs are made of: digits and separators.
var runByte = byteSet("0123456789 -")

// nextRun returns the first run of b that starts at or after q and is at
// least minPANDigits bytes long, the only runs that may hold a card
// number and do not lie inside a UUID (inUUID), as [start, end); start =
// len(b) when there is none. b[q-1] and b[q] may not stand in one run.
//
// It probes one byte in minPANDigits, as such a run covers one of them:
// most of a body is letters and punctuation, so most probes cost a
// look-up. A probe in a run looks about half that far each way first: a
// run of minPANDigits bytes through the probe reaches one of the two, and
// the short runs of a body (dates, codes, amounts) reach neither.
func nextRun(b []byte, q int) (start, end int) {
	const back, ahead = minPANDigits / 2, minPANDigits - minPANDigits/2
	runBytes := &runByte
	for p := q + minPANDigits - 1; ; p += minPANDigits {
		for uint(p) < uint(len(b)) && !runBytes[b[p]] {
			p += minPANDigits
		}
		if p >= len(b) {
			return len(b), len(b)
		}
		if !inRun(b, p) {
			continue
		}
		if !inRun(b, p-back) && (p+ahead >= len(b) || !inRun(b, p+ahead)) {
			// The run lies between them, shorter than minPANDigits: probe
			// next as after a run that ends at b[p+ahead].
			p += ahead
			continue
		}
		// No run stands across b[p-minPANDigits], the last probe.
		lo := p - (minPANDigits - 1)
		start, end = p, p+1
		for start > lo && inRun(b, start-1) {
			start--
		}
		for end < len(b) && inRun(b, end) {
			end++
		}
		if end-start >= minPANDigits && !inUUID(b, start, end) {
			return start, end
		}
		p = end // b[end] stands in no run: probe next at end+minPANDigits
	}
}

// hexOrDash tells the bytes of a UUID.
var hexOrDash = byteSet("0123456789abcdefABCDEF-")

// inUUID tells whether the run b[start:end] lies inside a UUID in its
// canonical form: the longest span of hexadecimal digits and dashes
// around it is 36 bytes long with its dashes at 8, 13, 18 and 23.
func inUUID(b []byte, start, end int) bool {
	for start > 0 && hexOrDash[b[start-1]] {
		start--
	}
	for end < len(b) && hexOrDash[b[end]] {
		end++
	}
	if end-start != 36 {
		return false
	}
	for i, c := range b[start:end] {
		if (c == '-') != (i == 8 || i == 13 || i == 18 || i == 23) {
			return false
		}
	}
	return true
}

// maskCardNumbers masks in place every card number of b (see above) and
// reports whether it masked any.
func maskCardNumbers(b []byte) bool {
	masked := false
	for start, end := nextRun(b, 0); start < len(b); start, end = nextRun(b, end) {
		for i := start; i < end; {
			at, to, next := nextCardNumber(b[:end], i)
			if at < 0 {
				break
			}
			maskSpan(b[at:to])
			masked = true
			i = next
		}
	}
	return masked
}

// nextCardNumber returns the first card number [at, to) of the run b[i:]
// (b ends with the run; i is at one of its bytes or stars), or at = -1,
// and where to read on once it is masked: the stars split the run, and the
// digits before them may hold another card number, so the same place.
func nextCardNumber(b []byte, i int) (at, to, next int) {
	for i < len(b) {
		for i < len(b) && !digit[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		end, at, to := findCardNumber(b, i)
		if at >= 0 {
			return at, to, i
		}
		i = end
	}
	return -1, -1, len(b)
}

// hasCardNumber tells whether b holds a card number, without changing it.
func hasCardNumber(b []byte) bool {
	for start, end := nextRun(b, 0); start < len(b); start, end = nextRun(b, end) {
		if _, at, _ := findCardNumber(b[:end], start); at >= 0 {
			return true
		}
	}
	return false
}

// findCardNumber reads the run that starts at b[start] (a digit) and
// returns where it ends and the first card number in it, [at, to), or
// at = -1 when it holds none.
func findCardNumber(b []byte, start int) (end, at, to int) {
	end, digits, grouped := start, 0, false
	for {
		group := end
		for end < len(b) && digit[b[end]] {
			end++
		}
		digits += end - group
		if end+1 < len(b) && isSeparator(b[end]) && digit[b[end+1]] && end > start {
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
	quotes, counted := 0, 0 // the quotes of b[:counted]
	for start, end := nextRun(b, 0); start < len(b); start, end = nextRun(b, end) {
		for i := start; i < end; {
			at, to, next := nextCardNumber(b[:end], i)
			if at < 0 {
				break
			}
			if at > counted { // else at is in the run just counted, without quotes
				quotes += bytes.Count(b[counted:at], quote)
				counted = at
			}
			if quotes%2 == 0 {
				return false // an even number of quotes before it: not in a string
			}
			maskSpan(b[at:to])
			i = next
		}
	}
	return true
}

var quote = []byte{'"'}
