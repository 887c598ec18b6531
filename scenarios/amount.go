package scenarios

import "strings"

// amount is a non-negative decimal split into its whole digits, without
// leading zeros, and its fraction digits, without trailing zeros, so that
// "10", "10.0" and "010.00" are the same amount. Comparing two amounts
// needs no floating point.
type amount struct {
	whole, frac string
	ok          bool
}

// parseAmount reads decimal text such as "10.00" or "10". Anything else
// (a sign, an exponent, other characters) gives an amount that is not ok
// and matches no amount selector.
func parseAmount(s string) amount {
	s = strings.TrimSpace(s)
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" && (!dot || frac == "") || !allDigits(whole) || !allDigits(frac) {
		return amount{}
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	return amount{whole: whole, frac: frac, ok: true}
}

// allDigits reports whether s holds only ASCII digits (true for "").
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareAmounts returns -1, 0 or +1 as a is below, equal to or above b.
// Both must be ok.
func compareAmounts(a, b amount) int {
	if len(a.whole) != len(b.whole) {
		if len(a.whole) < len(b.whole) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.whole, b.whole); c != 0 {
		return c
	}
	n := max(len(a.frac), len(b.frac))
	fa := a.frac + strings.Repeat("0", n-len(a.frac))
	fb := b.frac + strings.Repeat("0", n-len(b.frac))
	return strings.Compare(fa, fb)
}

// canonicalAmount writes an amount in its shortest form ("10.5"), or ""
// for "".
func canonicalAmount(s string) string {
	if s == "" {
		return ""
	}
	a := parseAmount(s)
	w := a.whole
	if w == "" {
		w = "0"
	}
	if a.frac == "" {
		return w
	}
	return w + "." + a.frac
}

// matches reports whether an amount selector accepts the request amount
// text; a missing or malformed amount matches nothing.
func (m *AmountMatch) matches(text string) bool {
	a := parseAmount(text)
	if !a.ok {
		return false
	}
	if m.Exact != "" {
		return compareAmounts(a, parseAmount(m.Exact)) == 0
	}
	if m.Min != "" && compareAmounts(a, parseAmount(m.Min)) < 0 {
		return false
	}
	if m.Max != "" && compareAmounts(a, parseAmount(m.Max)) > 0 {
		return false
	}
	return true
}
