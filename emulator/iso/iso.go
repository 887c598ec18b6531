// Package iso answers whether a code is a current ISO 4217 currency code or
// ISO 3166-1 country code. The tables are generated from the Debian
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
