package scenarios

import "strings"

//go:generate go run gen_currencies.go -src /usr/share/iso-codes/json/iso_4217.json -out currencies.go

// currencyLetters maps each numeric ISO 4217 code to its alphabetic code;
// it is the inverse of currencyNumbers and is never modified.
var currencyLetters = invert(currencyNumbers)

// invert returns the inverse of a one-to-one map.
func invert(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// numericCurrency returns the numeric form of an ISO 4217 code written
// either way ("EUR" or "978" give "978"), or the code in upper case when
// it is not a known one, so that it still compares equal to itself.
func numericCurrency(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if n, ok := currencyNumbers[code]; ok {
		return n
	}
	return code
}
