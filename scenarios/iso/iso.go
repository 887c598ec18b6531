// Package iso answers whether a code is a current ISO 4217 currency code or
// ISO 3166-1 country code, and pairs the alphabetic and numeric forms of
// currency codes. It is the one source of these tables for the engine (which
// validates requests) and the scenarios (which match on currencies); it
// imports nothing of the project. The tables are generated from the Debian
// iso-codes data (see gen.go) and committed, so building needs no data files.
package iso

//go:generate go run gen.go -src /usr/share/iso-codes/json -out tables.go

// Currency reports whether code is a current ISO 4217 currency code, either
// alphabetic ("EUR") or numeric ("978"). Codes are case-sensitive: the
// alphabetic form is upper-case.
func Currency(code string) bool {
	if len(code) != 3 {
		return false
	}
	return currency(code)
}

// Country reports whether code is an ISO 3166-1 country code, either
// alpha-3 ("USA") or numeric ("840"). Codes are case-sensitive: the alpha-3
// form is upper-case.
func Country(code string) bool {
	if len(code) != 3 {
		return false
	}
	return country(code)
}

// currencyLetters maps each numeric ISO 4217 code to its alphabetic code;
// the inverse of currencyNumbers, never modified.
var currencyLetters = func() map[string]string {
	out := make(map[string]string, len(currencyNumbers))
	for alpha, num := range currencyNumbers {
		out[num] = alpha
	}
	return out
}()

// CurrencyNumeric returns the numeric form of a current ISO 4217 code
// written either way: "EUR" and "978" both give "978". The alphabetic form
// is upper-case; false for anything else.
func CurrencyNumeric(code string) (string, bool) {
	if n, ok := currencyNumbers[code]; ok {
		return n, true
	}
	if _, ok := currencyLetters[code]; ok {
		return code, true
	}
	return "", false
}
