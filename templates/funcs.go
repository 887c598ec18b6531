package templates

import "html/template"

// funcs are the helpers the templates may call.
var funcs = template.FuncMap{
	"statusTone": statusTone,
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
