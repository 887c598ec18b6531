package wire

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/language"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios/iso"
)

// This file holds the format checks of single values. Each check returns
// the EMV error code and the reason when the value is malformed, or two
// empty strings.

// quote renders a sent value inside a reason, cut short when long.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return strconv.Quote(s)
}

// code2 returns a check for a two-digit code from "01" to "0<last>".
func code2(last byte) func(string) (string, string) {
	return func(s string) (string, string) {
		if len(s) == 2 && s[0] == '0' && s[1] >= '1' && s[1] <= last {
			return "", ""
		}
		return emvFormat, "must be one of 01 to 0" + string(last) + ", got " + quote(s)
	}
}

// digits accepts a string of ASCII digits.
func digits(s string) (string, string) {
	if isDigits(s) {
		return "", ""
	}
	return emvFormat, "must hold digits only, got " + quote(s)
}

// timeZoneOffset accepts a browser's UTC offset in minutes as
// Date.getTimezoneOffset() gives it: UTC minus local time, so -60 for
// UTC+1, from -840 (UTC+14, Kiribati) to 720 (UTC-12); an optional sign.
func timeZoneOffset(s string) (string, string) {
	n := s
	if n != "" && (n[0] == '-' || n[0] == '+') {
		n = n[1:]
	}
	if isDigits(n) {
		if v, err := strconv.Atoi(s); err == nil && v >= -840 && v <= 720 {
			return "", ""
		}
	}
	return emvFormat, "must be a UTC offset in minutes from -840 to 720 as getTimezoneOffset() gives it (-60 for UTC+1), got " + quote(s)
}

// languageTag accepts a BCP 47 language tag, as EMV's browserLanguage
// says ("IETF BCP47"): any well-formed one, such as en, en-GB, es-419,
// zh-Hant or zz, whether the registry knows its subtags or not, as a
// browser may send any (navigator.language); the pages fall back to
// English for a language they do not speak. Subtags are joined by '-':
// "en_GB", as some platforms write a locale, is not BCP 47 and is
// refused with a hint, as a strict 3-D Secure server may refuse it.
func languageTag(s string) (string, string) {
	if strings.IndexByte(s, '_') >= 0 {
		return emvFormat, "must be a BCP 47 language tag, subtags joined by - not _ (en-GB, not en_GB), got " + quote(s)
	}
	if !simpleLanguageTag(s) && !wellFormedTag(s) {
		return emvFormat, "must be a BCP 47 language tag such as en-GB, got " + quote(s)
	}
	return "", ""
}

// wellFormedTag tells whether golang.org/x/text/language reads s as a
// well-formed tag, known to its registry (en-GB) or not (zz).
func wellFormedTag(s string) bool {
	_, err := language.Parse(s)
	return err == nil || errors.As(err, new(language.ValueError))
}

// simpleLanguageTag tells, without wellFormedTag's allocations, that s
// is of the shape browsers send: a language of two or three letters and
// maybe a region of two letters or three digits (en, en-GB, fil-PH,
// es-419). Any other shape is left to wellFormedTag.
// TestSimpleLanguageTag checks that both agree.
func simpleLanguageTag(s string) bool {
	lang, region, hasRegion := strings.Cut(s, "-")
	if !isLetters(lang) || len(lang) < 2 || len(lang) > 3 {
		return false
	}
	return !hasRegion || len(region) == 2 && isLetters(region) || len(region) == 3 && isDigits(region)
}

// isLetters tells whether s is one or more ASCII letters.
func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// alphanumeric accepts ASCII letters and digits (ISO 3166-2 subdivisions).
func alphanumeric(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return emvFormat, "must hold letters and digits only, got " + quote(s)
		}
	}
	return "", ""
}

// isoForm tells whether s is three upper-case letters or three digits.
func isoForm(s string) bool {
	if len(s) != 3 {
		return false
	}
	letters, nums := 0, 0
	for i := 0; i < 3; i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9':
			nums++
		}
	}
	return letters == 3 || nums == 3
}

// currency accepts an ISO 4217 code, alphabetic or numeric, other than
// those EMV 3-D Secure excludes from purchaseCurrency and giftCardCurr:
// 955 to 964 (bond-market units, precious metals, XDR, XTS for testing)
// and 999 (XXX, no currency). Those are real ISO codes, so not a 304, but
// values the data element may not take: a 203.
func currency(s string) (string, string) {
	if !isoForm(s) {
		return emvFormat, "must be an ISO 4217 code: 3 upper-case letters or 3 digits, got " + quote(s)
	}
	if !iso.Currency(s) {
		return emvISO, "is not an ISO 4217 currency code: " + quote(s)
	}
	if s[0] == 'X' || s[0] == '9' { // the excluded codes are all X.. or 9..
		if n, _ := iso.CurrencyNumeric(s); n == "999" || n >= "955" && n <= "964" {
			return emvFormat, "is an ISO 4217 code that EMV 3-D Secure excludes (955 to 964 and 999: bond-market units, metals, XDR, XTS, XXX): " + quote(s)
		}
	}
	return "", ""
}

// country accepts an ISO 3166-1 code, alpha-3 or numeric.
func country(s string) (string, string) {
	if !isoForm(s) {
		return emvFormat, "must be an ISO 3166-1 code: 3 upper-case letters or 3 digits, got " + quote(s)
	}
	if !iso.Country(s) {
		return emvISO, "is not an ISO 3166-1 country code: " + quote(s)
	}
	return "", ""
}

// messageVersion accepts the served protocol versions; a well-formed but
// unserved version is a 102.
func messageVersion(s string) (string, string) {
	switch s {
	case "2.1.0", "2.2.0":
		return "", ""
	case "2.0.0":
		return emvVersion, "protocol version 2.0.0 is deprecated; use 2.1.0 or 2.2.0"
	case "2.3.0":
		return emvVersion, "protocol version 2.3.0 is pending and not served yet; use 2.1.0 or 2.2.0"
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 || !isDigits(parts[0]) || !isDigits(parts[1]) || !isDigits(parts[2]) {
		return emvFormat, "must be a protocol version such as 2.2.0, got " + quote(s)
	}
	return emvVersion, "protocol version " + quote(s) + " is not served; use 2.1.0 or 2.2.0"
}

// cardNumber accepts 13 to 19 digits; the Luhn check is not applied.
func cardNumber(s string) (string, string) {
	if len(s) < 13 || len(s) > 19 || !isDigits(s) {
		return emvFormat, "must be 13 to 19 digits"
	}
	return "", ""
}

// cardholderName accepts the printable ASCII characters of the EMV common
// character set (U+0020 to U+007E), '<' and '>' included: they are data,
// escaped wherever a page shows the name.
func cardholderName(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E {
			return emvFormat, "must hold letters, digits, spaces and punctuation only (EMV common character set: printable ASCII)"
		}
	}
	return "", ""
}

// decimal accepts a non-negative decimal number written with digits and at
// most one decimal point, such as 10, 10.5 or 0.99.
func decimal(s string) (string, string) {
	whole, frac, dot := strings.Cut(s, ".")
	if !isDigits(whole) || dot && !isDigits(frac) {
		return emvFormat, "must be a non-negative decimal such as 10.99, got " + quote(s)
	}
	return "", ""
}

// plainDecimal writes the JSON number num as a plain decimal: a number
// without an exponent as it was sent, one with an exponent in its shortest
// exact form ("1.5e2" gives "150", "125E-2" "1.25", "0e9" "0"), so that
// what reads amounts as decimal text (scenario selectors) reads it too. It
// refuses a negative number, and one longer than max characters once
// written out ("1e400").
func plainDecimal(num string, max int) (string, string) {
	if num[0] == '-' {
		return "", "must not be negative, got " + quote(num)
	}
	i := strings.IndexAny(num, "eE")
	if i < 0 {
		return num, ""
	}
	whole, frac, _ := strings.Cut(num[:i], ".")
	exp, err := strconv.Atoi(num[i+1:])
	if err != nil || exp > 1<<20 || exp < -1<<20 {
		exp = 1 << 20 // out of int range, or past any length: only a zero fits
		if num[i+1] == '-' {
			exp = -exp
		}
	}
	all := whole + frac
	digits := strings.TrimLeft(all, "0")
	point := len(whole) + exp - (len(all) - len(digits)) // digits before the decimal point
	digits = strings.TrimRight(digits, "0")
	var n int // length written out
	switch {
	case digits == "":
		return "0", ""
	case point >= len(digits):
		n = point
	case point > 0:
		n = len(digits) + 1
	default:
		n = 2 - point + len(digits)
	}
	if max > 0 && n > max {
		return "", "must be at most " + strconv.Itoa(max) + " characters long written as a plain decimal, got " + quote(num)
	}
	switch {
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits)), ""
	case point > 0:
		return digits[:point] + "." + digits[point:], ""
	default:
		return "0." + strings.Repeat("0", -point) + digits, ""
	}
}

// decimalPlaces counts the significant decimal places of a plain decimal:
// "10.50" has 1, "10" and "10.00" none.
func decimalPlaces(s string) int {
	_, frac, _ := strings.Cut(s, ".")
	return len(strings.TrimRight(frac, "0"))
}

// expiryYYMM accepts a card expiry date YYMM.
func expiryYYMM(s string) (string, string) {
	if len(s) == 4 && isDigits(s) {
		if m := atoi2(s[2:]); m >= 1 && m <= 12 {
			return "", ""
		}
	}
	return emvFormat, "must be an expiry date YYMM with month 01 to 12, got " + quote(s)
}

// dateYYYYMMDD accepts a calendar date yyyyMMdd.
func dateYYYYMMDD(s string) (string, string) {
	if len(s) == 8 && isDigits(s) && validDate(s[:4], s[4:6], s[6:8]) {
		return "", ""
	}
	return emvFormat, "must be a date yyyyMMdd, got " + quote(s)
}

// timestamp14 accepts a UTC timestamp yyyyMMddHHmmss.
func timestamp14(s string) (string, string) {
	if len(s) == 14 && isDigits(s) && validDate(s[:4], s[4:6], s[6:8]) && validTime(s[8:10], s[10:12], s[12:14]) {
		return "", ""
	}
	return emvFormat, "must be a timestamp yyyyMMddHHmmss, got " + quote(s)
}

// timestamp12 accepts a UTC timestamp yyyyMMddHHmm.
func timestamp12(s string) (string, string) {
	if len(s) == 12 && isDigits(s) && validDate(s[:4], s[4:6], s[6:8]) && validTime(s[8:10], s[10:12], "00") {
		return "", ""
	}
	return emvFormat, "must be a timestamp yyyyMMddHHmm (UTC), got " + quote(s)
}

// purchaseDate accepts a UTC date-time yyyy-MM-dd HH:mm:ss.
func purchaseDate(s string) (string, string) {
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' &&
		isDigits(s[:4]) && isDigits(s[5:7]) && isDigits(s[8:10]) &&
		isDigits(s[11:13]) && isDigits(s[14:16]) && isDigits(s[17:19]) &&
		validDate(s[:4], s[5:7], s[8:10]) && validTime(s[11:13], s[14:16], s[17:19]) {
		return "", ""
	}
	return emvFormat, "must be a date-time yyyy-MM-dd HH:mm:ss, got " + quote(s)
}

// atoi2 converts two ASCII digits.
func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// validDate tells whether the digit strings name a real calendar day.
func validDate(year, month, day string) bool {
	y := atoi2(year[:2])*100 + atoi2(year[2:])
	m, d := atoi2(month), atoi2(day)
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// validTime tells whether the digit strings name a time of day.
func validTime(hour, minute, second string) bool {
	return atoi2(hour) < 24 && atoi2(minute) < 60 && atoi2(second) < 60
}

// ipAddress accepts an IPv4 or IPv6 address without zone.
func ipAddress(s string) (string, string) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return "", ""
	}
	return emvFormat, "must be an IPv4 or IPv6 address, got " + quote(s)
}

// webURL accepts an absolute http or https URL with a host.
func webURL(s string) (string, string) {
	if simpleWebURL(s) {
		return "", ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return emvFormat, "must be an absolute http or https URL, got " + quote(s)
	}
	return "", ""
}

// simpleWebURL tells whether s is an http or https URL of the plain shape
// nearly every request sends: the scheme in lower case, a host of ASCII
// letters, digits, dots and hyphens, and a path, maybe empty, of
// printable ASCII without '%', '?' or '#'. url.Parse accepts every such
// URL, with that scheme and host and no opaque part (no byte of it can
// fail its checks), so webURL needs neither url.Parse nor its
// allocations for it; any other URL is left to url.Parse.
// TestSimpleWebURL and FuzzWebURL check that both agree.
func simpleWebURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "http://"); !ok {
			return false
		}
	}
	host := 0
	for host < len(rest) && isHostByte(rest[host]) {
		host++
	}
	if host == 0 || host < len(rest) && rest[host] != '/' {
		return false
	}
	for i := host; i < len(rest); i++ {
		if c := rest[i]; c < 0x20 || c > 0x7E || c == '%' || c == '?' || c == '#' {
			return false
		}
	}
	return true
}

// isHostByte tells whether c is an ASCII letter, digit, dot or hyphen.
func isHostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// email accepts a plausible e-mail address: a local part, one '@' and a
// domain of at least two dot-separated labels, without spaces or controls.
func email(s string) (string, string) {
	const reason = "must be an e-mail address such as jane@example.com"
	at := strings.LastIndexByte(s, '@')
	if at < 1 || at > 64 || at == len(s)-1 {
		return emvFormat, reason
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c == 0x7F || c == '<' || c == '>' || c == ',' || c == ';':
			return emvFormat, reason
		case c == '@' && i != at:
			return emvFormat, reason
		}
	}
	domain := s[at+1:]
	for labels := 1; ; labels++ {
		label, rest, more := strings.Cut(domain, ".")
		if !domainLabel(label) {
			return emvFormat, reason
		}
		if !more {
			if labels < 2 {
				return emvFormat, reason
			}
			return "", ""
		}
		domain = rest
	}
}

// domainLabel tells whether label is a label of an e-mail address's
// domain: 1 to 63 letters, digits, hyphens (not first or last) and
// non-ASCII bytes.
func domainLabel(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c >= 0x80) {
			return false
		}
	}
	return true
}

// uuid accepts the 36-character textual form of a UUID, either case.
func uuid(s string) (string, string) {
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
		isHex(s[:8]) && isHex(s[9:13]) && isHex(s[14:18]) && isHex(s[19:23]) && isHex(s[24:]) {
		return "", ""
	}
	return emvFormat, "must be a UUID of 36 characters such as 8a880dc0-d2d2-4067-bcb1-b08d1690b26e, got " + quote(s)
}

// isHex tells whether s is made of hexadecimal digits, either case.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

// lowerASCII is strings.ToLower for ASCII text, such as a UUID that
// uuid accepted, without its general path: s itself when it has no
// upper-case letter, else one allocation.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	// b is new and no one else holds it: the string may own it.
	return unsafe.String(unsafe.SliceData(b), len(b))
}
