package iso

// MinorUnits returns the number of decimal places of a current ISO 4217
// currency, written alphabetic ("JPY") or numeric ("392"): the minor unit
// of ISO 4217 List One, 2 for most currencies. It reports false for a code
// that is not a current ISO 4217 code and for one whose minor unit is
// "N.A." (precious metals, bond-market units, XDR, XSU, XUA, XTS, XXX).
//
// Source: the "Minor unit" column of ISO 4217 List One (current currency
// and funds), as published by its maintenance agency, SIX Financial
// Information, at https://www.six-group.com/en/products-services/financial-information/data-standards.html.
// Only the currencies whose minor unit is not 2 are listed below; the
// iso-codes data of tables.go carries no minor units. TestMinorUnits
// checks that every code of the table is covered.
func MinorUnits(code string) (int, bool) {
	alpha := code
	if len(code) == 3 && code[0] >= '0' && code[0] <= '9' {
		alpha = currencyLetters[code]
	}
	if !Currency(alpha) {
		return 0, false
	}
	switch alpha {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF",
		"UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0, true
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3, true
	case "CLF", "UYW":
		return 4, true
	case "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU",
		"XTS", "XUA", "XXX":
		return 0, false // N.A.
	}
	return 2, true
}
