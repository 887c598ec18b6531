package scenarios

import (
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios/iso"
)

// numericCurrency returns the numeric form of an ISO 4217 code written
// either way ("EUR" or "978" give "978"), or the code in upper case when
// it is not a known one, so that it still compares equal to itself.
func numericCurrency(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if n, ok := iso.CurrencyNumeric(code); ok {
		return n
	}
	return code
}
