package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWhatEncodingJSONCannot is why the package judges the tokens of a
// body with its own rules rather than unmarshal it with encoding/json: on
// the same bodies, encoding/json takes a repeated key in silence (the last
// one wins) where the spec wants a 204, and stops at the first wrong type
// where the spec wants every problem of the body in one answer.
func TestWhatEncodingJSONCannot(t *testing.T) {
	base := string(baseBody(t))
	// The fields the bodies below break, as a struct for encoding/json.
	type lookup struct {
		DDCID string `json:"ddcId"`
		Card  struct {
			CardNumber string `json:"cardNumber"`
		} `json:"card"`
		Purchase struct {
			Currency string `json:"currencyCode"`
		} `json:"purchase"`
	}
	tests := []struct {
		name   string
		body   string
		stdErr int      // errors encoding/json reports
		codes  []string // problems DecodeLookup reports, as "code field"
	}{
		{"a repeated key", strings.Replace(base, "{", `{"ddcId": "again",`, 1), 0,
			[]string{"204 ddcId"}},
		{"two wrong types", string(edited(t, set("card.cardNumber", num("4000000000001000")), set("purchase.currencyCode", num("978")))), 1,
			[]string{"203 card.cardNumber", "203 purchase.currencyCode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v lookup
			err := json.Unmarshal([]byte(tt.body), &v)
			if got := countErrors(err); got != tt.stdErr {
				t.Errorf("encoding/json: %d errors (%v), want %d", got, err, tt.stdErr)
			}
			_, _, err = DecodeLookup([]byte(tt.body))
			e := asError(t, err)
			if len(e.Problems) != len(tt.codes) {
				t.Errorf("DecodeLookup: problems %+v, want %v", e.Problems, tt.codes)
			}
			for _, c := range tt.codes {
				code, field, _ := strings.Cut(c, " ")
				if !hasProblem(e, code, field) {
					t.Errorf("DecodeLookup: problems %+v lack %s", e.Problems, c)
				}
			}
		})
	}
}

// countErrors counts the errors err holds: none for nil, each of a join.
func countErrors(err error) int {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return len(j.Unwrap())
	}
	if err != nil {
		return 1
	}
	return 0
}
