package templates

import (
	"errors"
	"html/template"
	"strings"
)

// funcs are the helpers the templates may call.
var funcs = template.FuncMap{
	"brand": brandOf,
	// challengeStyle renders a challenge page's style; Parse binds it to
	// the parsed set.
	"challengeStyle": func(ChallengePage) (template.HTML, error) { return "", errors.New("challengeStyle is bound by Parse") },
	"statusTone":     statusTone,
}

// brand is how the challenge page presents a card scheme: the CSS key of
// its colours, the short mark drawn in the header and the name of the
// scheme's 3-D Secure programme.
type brand struct {
	Key     string // CSS class suffix: scheme-<Key>
	Mark    string // text of the mark; empty for Mastercard's circles
	Program string // e.g. "Visa Secure"
}

// brands maps the lookup response's cardScheme to its presentation.
var brands = map[string]brand{
	"VISA":       {Key: "visa", Mark: "VISA", Program: "Visa Secure"},
	"MASTERCARD": {Key: "mastercard", Program: "Mastercard Identity Check"},
	"AMEX":       {Key: "amex", Mark: "AMEX", Program: "American Express SafeKey"},
	"DISCOVER":   {Key: "discover", Mark: "DISCOVER", Program: "Discover ProtectBuy"},
	"JCB":        {Key: "jcb", Mark: "JCB", Program: "JCB J/Secure"},
	"UPI":        {Key: "upi", Mark: "UnionPay", Program: "UnionPay 3-D Secure"},
}

// genericBrand presents ITMX, TPN, UNKNOWN and any other scheme.
var genericBrand = brand{Key: "generic", Mark: "3DS", Program: "3-D Secure"}

// brandOf returns the presentation of a card scheme, case-insensitively.
func brandOf(scheme string) brand {
	if b, ok := brands[strings.ToUpper(strings.TrimSpace(scheme))]; ok {
		return b
	}
	return genericBrand
}

// statusTone is the colour of a transStatus badge: ok for Y, fail for N,
// warn for anything else.
func statusTone(status string) string {
	switch status {
	case "Y":
		return "ok"
	case "N":
		return "fail"
	default:
		return "warn"
	}
}
