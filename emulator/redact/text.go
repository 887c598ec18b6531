package redact

import "bytes"

// Text returns s with every card number masked as in a body (see
// luhn.go): a free-text value the console and the automation API show
// (a cardholder name, a merchant name, a reference). It returns s itself,
// without a copy, when s holds none, which a string of fewer than 13
// digits cannot.
func Text(s string) string {
	n := 0
	for i := 0; i < len(s) && n < minPANDigits; i++ {
		if digit[s[i]] {
			n++
		}
	}
	if n < minPANDigits {
		return s
	}
	b := []byte(s)
	if !maskCardNumbers(b) {
		return s
	}
	return string(b)
}

// Answer masks the card numbers of b, a JSON answer the sandbox encoded
// and its caller owns (the copy of an answer an event keeps): in place
// when they all stand in strings without escapes, else in a redacted copy
// (JSON). It returns b when b holds none.
func Answer(b []byte) []byte {
	if !hasCardNumber(b) {
		return b
	}
	if bytes.IndexByte(b, '\\') < 0 && maskInStrings(b) {
		return b
	}
	return JSON(b, Limits{})
}

// SharedAnswer is Answer for a JSON answer others read too (the bytes the
// transport writes): b itself when it holds no card number, else a masked
// copy; b is never changed.
func SharedAnswer(b []byte) []byte {
	if !hasCardNumber(b) {
		return b
	}
	return Answer(bytes.Clone(b))
}
