package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestHTTPEdges pins what a new user's first mistakes answer: a trailing
// slash, a doubled slash, the EMV spelling of the transaction id, an
// expired transaction. Each answers the spec's error body with a hint, or
// works.
func TestHTTPEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.storeMaxAge = 90 * time.Minute })
	frictionless := e.card("visa-frictionless-y")
	const unknown = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	tests := []struct {
		name, path string
		body       any
		status     int
		emv        string   // EMV error code; "" for a success
		says       []string // in the error message or a problem's reason
	}{
		{"the lookup with a trailing slash", "/authentication/brw/", testkit.LookupBody(t, frictionless, nil), http.StatusOK, "", nil},
		{"the enquiry with a doubled slash", "/enquiry//", map[string]any{"threeDsServerTransId": unknown}, http.StatusNotFound, "303", []string{"no route POST /enquiry//"}},
		{"the enquiry with the EMV spelling", "/enquiry/", map[string]any{"threeDSServerTransID": unknown}, http.StatusBadRequest, "201",
			[]string{"did you mean threeDsServerTransId?", "the body has threeDSServerTransID"}},
		{"the enquiry of an unknown transaction", "/enquiry/", map[string]any{"threeDsServerTransId": unknown}, http.StatusNotFound, "301",
			[]string{"no transaction with threeDsServerTransId", "expire 1h30m0s after their lookup (--store-max-age)"}},
		{"the headless challenge of an unknown transaction", "/challenge/" + unknown, map[string]any{"action": "pass"}, http.StatusNotFound, "301",
			[]string{"no transaction with threeDsServerTransId " + unknown, "--store-max-age"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(http.MethodPost, tt.path, "tok", tt.body)
			if tt.emv == "" {
				if r.Status != tt.status || r.Str("status") != "Y" {
					t.Fatalf("HTTP %d, want %d with status Y: %s", r.Status, tt.status, r.Raw)
				}
				return
			}
			checkErrorBody(t, r, tt.status, tt.emv)
			if loc := r.Header.Get("Location"); loc != "" {
				t.Errorf("Location = %q: an API error must not redirect", loc)
			}
			for _, want := range tt.says {
				if !strings.Contains(r.Raw, want) {
					t.Errorf("the answer does not say %q:\n%s", want, r.Raw)
				}
			}
			if d := r.EMV("emvErrorDetail"); strings.Contains(d, "threeDSServerTransID") {
				t.Errorf("emvErrorDetail %q uses the EMV spelling; the API's is threeDsServerTransId", d)
			}
		})
	}
}
