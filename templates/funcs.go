package templates

import (
	"errors"
	"html/template"
)

// funcs are the helpers the templates may call.
var funcs = template.FuncMap{
	// challengeStyle renders a challenge page's style; Parse binds it to
	// the parsed set.
	"challengeStyle": func(ChallengePage) (template.HTML, error) { return "", errors.New("challengeStyle is bound by Parse") },
	"statusTone":     statusTone,
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
