package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseNewKeysRefuses(t *testing.T) {
	m := "scenarios:\n  - id: s\n    match:\n" // the selectors follow from line 4
	tests := []struct {
		name   string
		yaml   string
		line   int
		reason string
	}{
		// Selectors.
		{"two card selectors", m + "      cardPattern: \"4xxxxxxxxxxxxxxx\"\n      binRange: {from: \"4\", to: \"5\"}\n    frictionless: {status: Y}\n", 5, "match sets both cardPattern and binRange: keep one card selector"},
		{"binRange lengths differ", m + "      binRange: {from: \"40\", to: \"400\"}\n    frictionless: {status: Y}\n", 4, "binRange from 40 and to 400 must have as many digits"},
		{"binRange upside down", m + "      binRange: {from: \"49\", to: \"40\"}\n    frictionless: {status: Y}\n", 4, "binRange from 49 is above to 40"},
		{"binRange unquoted", m + "      binRange: {from: 40, to: \"49\"}\n    frictionless: {status: Y}\n", 4, "from must be quoted"},
		{"binRange missing to", m + "      binRange: {from: \"40\"}\n    frictionless: {status: Y}\n", 4, `binRange: missing required key "to"`},
		{"cardPattern letters", m + "      cardPattern: \"4000abcd00001000\"\n    frictionless: {status: Y}\n", 4, `cardPattern "4000abcd00001000" must be 13-19 digits and x or ? wildcards`},
		{"amount negative", m + "      amount: \"-1\"\n    frictionless: {status: Y}\n", 4, `amount "-1" must be a decimal amount`},
		{"amount as a list", m + "      amount: [1]\n    frictionless: {status: Y}\n", 4, "amount (a decimal such as"},
		{"amount empty range", m + "      amount: {}\n    frictionless: {status: Y}\n", 4, "amount needs min, max or both"},
		{"amount min above max", m + "      amount: {min: \"10\", max: \"9.99\"}\n    frictionless: {status: Y}\n", 4, "amount min 10 is above max 9.99"},
		{"currency unknown", m + "      currency: XYZ\n    frictionless: {status: Y}\n", 4, `currency "XYZ" is not a current ISO 4217 code`},
		{"currency unquoted number", m + "      currency: 978\n    frictionless: {status: Y}\n", 4, `currency must be quoted`},
		{"cardholderName too short", m + "      cardholderName: \"A\"\n    frictionless: {status: Y}\n", 4, "cardholderName \"A\" must be 2-45 characters"},
		{"challengeInd 5", m + "      challengeInd: 5\n    frictionless: {status: Y}\n", 4, "challengeInd 5 is out of range 1-4"},
		{"challengeInd quoted", m + "      challengeInd: \"4\"\n    frictionless: {status: Y}\n", 4, "challengeInd must be a whole number"},
		{"messageVersion 2.3.0", m + "      messageVersion: 2.3.0\n    frictionless: {status: Y}\n", 4, `messageVersion "2.3.0" is not one of 2.1.0, 2.2.0`},
		{"messageCategory unquoted", m + "      messageCategory: 01\n    frictionless: {status: Y}\n", 4, "messageCategory must be a string: quote it"},
		{"authInd 07", m + "      authInd: \"07\"\n    frictionless: {status: Y}\n", 4, `authInd "07" must be two digits 01-06`},

		// Priority, delay, steps, faults, whiteList.
		{"priority too high", scenario("    priority: 1001\n    frictionless: {status: Y}\n"), 4, "priority 1001 is out of range -1000-1000"},
		{"priority not a number", scenario("    priority: high\n    frictionless: {status: Y}\n"), 4, "priority must be a whole number"},
		{"delay range upside down", scenario("    delay: {min: 2s, max: 1s}\n    frictionless: {status: Y}\n"), 4, "delay min 2s is above max 1s"},
		{"delay range too long", scenario("    delay: {min: 1s, max: 2m}\n    frictionless: {status: Y}\n"), 4, "max 2m is out of range 0s-1m0s"},
		{"delay twice", scenario("    steps: {lookup: {delay: 1s}}\n    delay: 2s\n    frictionless: {status: Y}\n"), 5, "delay and steps.lookup.delay are both set"},
		{"unknown step", scenario("    steps: {authentication: {delay: 1s}}\n    frictionless: {status: Y}\n"), 4, `unknown key "authentication" in steps`},
		{"empty steps", scenario("    steps: {}\n    frictionless: {status: Y}\n"), 4, "steps is empty"},
		{"empty step", scenario("    steps: {enquiry: {}}\n    frictionless: {status: Y}\n"), 4, "steps.enquiry is empty"},
		{"fault without kind", scenario("    steps: {lookup: {fault: {probability: 0.5}}}\n    frictionless: {status: Y}\n"), 4, `steps.lookup.fault: missing required key "kind"`},
		{"unknown fault kind", scenario("    steps: {lookup: {fault: {kind: timeout}}}\n    frictionless: {status: Y}\n"), 4, `kind "timeout" is not one of emvError, httpError, drop, malformed`},
		{"probability zero", scenario("    steps: {lookup: {fault: {kind: drop, probability: 0}}}\n    frictionless: {status: Y}\n"), 4, "probability must be a number above 0 and at most 1"},
		{"probability above one", scenario("    steps: {lookup: {fault: {kind: drop, probability: 1.5}}}\n    frictionless: {status: Y}\n"), 4, "probability must be a number above 0"},
		{"drop with a body", scenario("    steps: {lookup: {fault: {kind: drop, errorCode: SC03}}}\n    frictionless: {status: Y}\n"), 4, "a drop fault sends no error body: remove errorCode"},
		{"emvError without code", scenario("    steps: {enquiry: {fault: {kind: emvError}}}\n    frictionless: {status: Y}\n"), 4, `steps.enquiry.fault: missing required key "emvErrorCode"`},
		{"emvError without defaults", scenario("    steps: {enquiry: {fault: {kind: emvError, emvErrorCode: \"101\"}}}\n    frictionless: {status: Y}\n"), 4, "emvErrorCode 101 has no default errorCode: set it"},
		{"httpError 4xx", scenario("    steps: {challenge: {fault: {kind: httpError, httpStatus: 404}}}\n    frictionless: {status: Y}\n"), 4, "httpStatus 404 is out of range 500-599"},
		{"whiteList status", scenario("    whiteList: {status: X, source: \"03\"}\n    frictionless: {status: Y}\n"), 4, `status "X" is not one of Y, N, E, P, R, U`},
		{"whiteList without source", scenario("    whiteList: {status: Y}\n    frictionless: {status: Y}\n"), 4, `whiteList: missing required key "source"`},
		{"outcome U without reason", scenario("    challenge:\n      pass: {status: U}\n"), 5, "pass: status U needs a reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tt.yaml))
			for _, p := range problemsOf(t, err) {
				if p.Line == tt.line && strings.Contains(p.Reason, tt.reason) {
					return
				}
			}
			t.Errorf("got problems\n%v\nwant one at line %d containing %q", err, tt.line, tt.reason)
		})
	}
}

func TestParseNewKeysValues(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name  string
		body  string // after id: s
		check func(s Scenario) any
		want  any
	}{
		{"priority", "    priority: -7\n    match: {cardPrefix: \"4\"}\n", func(s Scenario) any { return s.Priority }, -7},
		{"binRange", "    match: {binRange: {from: \"400000\", to: \"400099\"}}\n", func(s Scenario) any { return *s.Match.BINRange }, BINRange{From: "400000", To: "400099"}},
		{"cardPattern ? becomes x", "    match: {cardPattern: \"400000000000??27\"}\n", func(s Scenario) any { return s.Match.CardPattern }, "400000000000xx27"},
		{"amount exact unquoted", "    match: {amount: 10.50}\n", func(s Scenario) any { return *s.Match.Amount }, AmountMatch{Exact: "10.50"}},
		{"amount range", "    match: {amount: {min: \"1\"}}\n", func(s Scenario) any { return *s.Match.Amount }, AmountMatch{Min: "1"}},
		{"currency upper-cased", "    match: {currency: eur}\n", func(s Scenario) any { return s.Match.Currency }, "EUR"},
		{"fixed delay", "    match: {cardPrefix: \"4\"}\n    delay: 2s\n", func(s Scenario) any { return []any{s.Delay, s.Steps.Lookup.Delay} }, []any{2 * sec, Delay{Min: 2 * sec, Max: 2 * sec}}},
		{"random delay", "    match: {cardPrefix: \"4\"}\n    delay: {min: 1s, max: 3s}\n", func(s Scenario) any { return []any{s.Delay, s.Steps.Lookup.Delay} }, []any{time.Duration(0), Delay{Min: sec, Max: 3 * sec}}},
		{"emvError defaults", "    match: {cardPrefix: \"4\"}\n    steps: {lookup: {fault: {kind: emvError, emvErrorCode: \"402\"}}}\n",
			func(s Scenario) any { return *s.Steps.Lookup.Fault.Error },
			ErrorResult{HTTPStatus: 504, ErrorCode: "SC02", Status: "U", Message: "Transaction Timed Out", EMVErrorCode: "402", Component: "S", Description: "Transaction Timed Out"}},
		{"emvError 405", "    match: {cardPrefix: \"4\"}\n    steps: {lookup: {fault: {kind: emvError, emvErrorCode: \"405\", component: D}}}\n",
			func(s Scenario) any {
				e := s.Steps.Lookup.Fault.Error
				return []any{e.HTTPStatus, e.ErrorCode, e.Component}
			}, []any{502, "SC05", "D"}},
		{"httpError defaults", "    match: {cardPrefix: \"4\"}\n    steps: {challenge: {fault: {kind: httpError}}}\n",
			func(s Scenario) any { f := s.Steps.Challenge.Fault; return []any{f.Probability, *f.Error} },
			[]any{1.0, ErrorResult{HTTPStatus: 500, ErrorCode: "SY01", Status: "U", Message: "Permanent System Failure", EMVErrorCode: "404", Component: "S", Description: "Permanent System Failure"}}},
		{"drop", "    match: {cardPrefix: \"4\"}\n    steps: {enquiry: {delay: 1s, fault: {kind: drop, probability: 0.5}}}\n",
			func(s Scenario) any { return s.Steps.Enquiry }, Step{Delay: Delay{Min: sec, Max: sec}, Fault: &Fault{Kind: FaultDrop, Probability: 0.5}}},
		{"malformed", "    match: {cardPrefix: \"4\"}\n    steps: {lookup: {fault: {kind: malformed}}}\n",
			func(s Scenario) any { return *s.Steps.Lookup.Fault }, Fault{Kind: FaultMalformed, Probability: 1}},
		{"whiteList", "    match: {cardPrefix: \"4\"}\n    whiteList: {status: P, source: \"02\"}\n", func(s Scenario) any { return *s.WhiteList }, WhiteList{Status: "P", Source: "02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("t.yaml", []byte("scenarios:\n  - id: s\n"+tt.body+"    frictionless: {status: Y}\n"))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := tt.check(f.Scenarios[0]); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
