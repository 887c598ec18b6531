package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// scenario builds a file whose single scenario "s" matches a Visa test card
// (lines 1-3) and continues with body from line 4.
func scenario(body string) string {
	return "scenarios:\n  - id: s\n    match: {cardNumber: \"4000000000001000\"}\n" + body
}

// problemsOf returns the problems of a *LoadError, failing the test for any
// other error.
func problemsOf(t *testing.T, err error) []Problem {
	t.Helper()
	if err == nil {
		t.Fatal("got no error, want a *LoadError")
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got error %T %v, want a *LoadError", err, err)
	}
	return le.Problems
}

func TestParseRefuses(t *testing.T) {
	long := strings.Repeat("x", 256)
	tests := []struct {
		name   string
		yaml   string
		line   int
		reason string
	}{
		// The file as a whole.
		{"empty file", "", 0, "file is empty"},
		{"comments only", "# nothing\n", 0, "file is empty"},
		{"null document", "---\n", 0, "file is empty"},
		{"syntax error", "scenarios:\n  - id: a\n    match: x: y\n", 3, "invalid YAML: mapping values are not allowed in this context"},
		{"unknown anchor", "scenarios:\n  - id: a\n    match: *nope\n", 0, "invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", scenario("    frictionless: {status: Y}\n---\nscenarios: []\n"), 5, "one YAML document"},
		{"top level is a list", "- id: a\n", 1, "the file must be a mapping, got a list"},
		{"unknown top-level key", "fallbak: a\n" + scenario("    frictionless: {status: Y}\n"), 1, `unknown key "fallbak" in the file (did you mean fallback?)`},
		{"missing scenarios", "fallback: a\n", 1, `the file: missing required key "scenarios"`},
		{"scenarios not a list", "scenarios: {id: a}\n", 1, "scenarios must be a list, got a mapping"},
		{"scenarios empty", "scenarios: []\n", 1, "scenarios is empty"},
		{"bad fallback id", "fallback: Default Y\n" + scenario("    frictionless: {status: Y}\n"), 1, `fallback "Default Y" must be a scenario id`},
		{"merge key", "scenarios:\n  - <<: {id: a}\n", 2, "merge keys (<<) are not supported"},

		// Scenario keys.
		{"scenario not a mapping", "scenarios:\n  - visa\n", 2, "a scenario must be a mapping"},
		{"unknown scenario key", scenario("    descripton: x\n    frictionless: {status: Y}\n"), 4, `unknown key "descripton" in a scenario (did you mean description?)`},
		{"unknown key far from any", scenario("    colour: red\n    frictionless: {status: Y}\n"), 4, "(known keys: id, description"},
		{"duplicate key", scenario("    frictionless: {status: Y}\n    id: t\n"), 5, `duplicate key "id" in a scenario; first set at line 2`},
		{"missing id", "scenarios:\n  - match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n", 2, `scenario: missing required key "id"`},
		{"bad id", "scenarios:\n  - id: Visa_Y\n    match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n", 2, `id "Visa_Y" must be 1-64 characters`},
		{"id too long", "scenarios:\n  - id: " + strings.Repeat("a", 65) + "\n    match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n", 2, "must be 1-64 characters"},
		{"reserved id", "scenarios:\n  - id: fallback\n    match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n", 2, `id "fallback" is reserved`},
		{"id as a number", "scenarios:\n  - id: 12\n    match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n", 2, `id must be a string: quote it (id: "12")`},
		{"description not a string", scenario("    description: [a]\n    frictionless: {status: Y}\n"), 4, "description must be a string, got a list"},

		// Selectors.
		{"no match", "scenarios:\n  - id: s\n    frictionless: {status: Y}\n", 2, `scenario "s" has no match: only the file's fallback scenario may omit it`},
		{"no match, other scenario is fallback", "fallback: t\nscenarios:\n  - id: s\n    frictionless: {status: Y}\n", 3, `scenario "s" has no match`},
		{"empty match", "scenarios:\n  - id: s\n    match: {}\n    frictionless: {status: Y}\n", 3, "match needs a selector"},
		{"match not a mapping", "scenarios:\n  - id: s\n    match: \"4000000000001000\"\n    frictionless: {status: Y}\n", 3, "match must be a mapping"},
		{"unknown selector", "scenarios:\n  - id: s\n    match:\n      amounts: \"10.00\"\n    frictionless: {status: Y}\n", 4, `unknown key "amounts" in match (did you mean amount?)`},
		{"both selectors", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"4000000000001000\"\n      cardPrefix: \"4000\"\n    frictionless: {status: Y}\n", 5, "match sets both cardNumber and cardPrefix: keep one card selector"},
		{"cardNumber as a YAML int", "scenarios:\n  - id: s\n    match:\n      cardNumber: 4000000000001000\n    frictionless: {status: Y}\n", 4, `cardNumber must be quoted so it stays a string of digits: cardNumber: "4000000000001000"`},
		{"cardNumber too short", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"400000000000\"\n    frictionless: {status: Y}\n", 4, `cardNumber "400000000000" must be 13-19 digits`},
		{"cardNumber too long", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"40000000000010000000\"\n    frictionless: {status: Y}\n", 4, "must be 13-19 digits"},
		{"cardNumber with spaces", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"4000 0000 0000 1000\"\n    frictionless: {status: Y}\n", 4, "must be 13-19 digits"},
		{"cardNumber fails Luhn", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"4000000000001001\"\n    frictionless: {status: Y}\n", 4, "cardNumber 4000000000001001 fails the Luhn check"},
		{"cardPrefix as a YAML int", "scenarios:\n  - id: s\n    match:\n      cardPrefix: 400000\n    frictionless: {status: Y}\n", 4, `cardPrefix must be quoted`},
		{"cardPrefix not digits", "scenarios:\n  - id: s\n    match:\n      cardPrefix: \"4x\"\n    frictionless: {status: Y}\n", 4, `cardPrefix "4x" must be 1-19 digits`},
		{"cardPrefix too long", "scenarios:\n  - id: s\n    match:\n      cardPrefix: \"40000000000010000000\"\n    frictionless: {status: Y}\n", 4, "must be 1-19 digits"},

		// Delay.
		{"delay without unit", scenario("    delay: 2\n    frictionless: {status: Y}\n"), 4, "delay must be a duration with a unit, such as 2s"},
		{"delay not a duration", scenario("    delay: soon\n    frictionless: {status: Y}\n"), 4, `delay "soon" is not a duration`},
		{"delay too long", scenario("    delay: 61s\n    frictionless: {status: Y}\n"), 4, "delay 61s is out of range 0s-1m0s"},
		{"negative delay", scenario("    delay: -1s\n    frictionless: {status: Y}\n"), 4, "out of range"},

		// 3DS Method.
		{"method too long", scenario("    threeDSMethod: {available: true, duration: 61s}\n    frictionless: {status: Y}\n"), 4, "duration 61s is out of range 0s-1m0s"},
		{"method without available", scenario("    threeDSMethod: {duration: 2s}\n    frictionless: {status: Y}\n"), 4, `missing required key "available"`},
		{"method available as a string", scenario("    threeDSMethod: {available: \"yes\"}\n    frictionless: {status: Y}\n"), 4, "available must be true or false"},
		{"method duration without a method", scenario("    threeDSMethod: {available: false, duration: 2s}\n    frictionless: {status: Y}\n"), 4, "threeDSMethod.duration needs available: true"},
		{"unknown threeDSCompInd", "scenarios:\n  - id: s\n    match: {cardPrefix: \"4\", threeDSCompInd: X}\n    frictionless: {status: Y}\n", 3, `threeDSCompInd "X" is not one of Y, N, U`},

		// Results.
		{"no result", scenario(""), 2, `scenario "s" needs one of frictionless, challenge or error`},
		{"two results", scenario("    frictionless: {status: Y}\n    challenge: {}\n"), 5, `scenario "s" sets both frictionless and challenge: keep exactly one`},
		{"result not a mapping", scenario("    frictionless: Y\n"), 4, "frictionless must be a mapping"},

		// Frictionless.
		{"frictionless without status", scenario("    frictionless: {eci: \"05\"}\n"), 4, `frictionless: missing required key "status"`},
		{"frictionless status C", scenario("    frictionless: {status: C}\n"), 4, `status "C" is not one of Y, A, N, U, R, I`},
		{"frictionless status lower case", scenario("    frictionless: {status: y}\n"), 4, `status "y" is not one of`},
		{"N without reason", scenario("    frictionless: {status: N}\n"), 4, "frictionless status N needs a reason"},
		{"U without reason", scenario("    frictionless: {status: U}\n"), 4, "frictionless status U needs a reason"},
		{"R without reason", scenario("    frictionless: {status: R}\n"), 4, "frictionless status R needs a reason"},
		{"Y with reason", scenario("    frictionless:\n      status: Y\n      reason: \"01\"\n"), 6, "frictionless status Y takes no reason"},
		{"on210 status I", scenario("    frictionless:\n      status: I\n      on210: {status: I}\n"), 6, `status "I" is not one of Y, A, N, U, R`},
		{"on210 reason of 2.2.0", scenario("    frictionless:\n      status: I\n      on210: {status: U, reason: \"22\"}\n"), 6, `reason "22" needs version 2.2.0`},
		{"on210 U without reason", scenario("    frictionless:\n      status: I\n      on210: {status: U}\n"), 6, "on210: status U needs a reason"},
		{"on210 Y with reason", scenario("    frictionless:\n      status: I\n      on210: {status: Y, reason: \"01\"}\n"), 6, "on210: status Y takes no reason"},
		{"on210 unknown key", scenario("    frictionless:\n      status: I\n      on210: {status: Y, challengeCancel: \"01\"}\n"), 6, "challengeCancel"},
		{"A with reason", scenario("    frictionless:\n      status: A\n      reason: \"01\"\n"), 6, "frictionless status A takes no reason"},
		{"reason unquoted", scenario("    frictionless:\n      status: N\n      reason: 01\n"), 6, `reason must be a string: quote it (reason: "01")`},
		{"reason 00", scenario("    frictionless:\n      status: N\n      reason: \"00\"\n"), 6, `reason "00" must be 01-26 or 80-99`},
		{"reason 27", scenario("    frictionless:\n      status: N\n      reason: \"27\"\n"), 6, `reason "27" must be 01-26 or 80-99`},
		{"reason one digit", scenario("    frictionless:\n      status: N\n      reason: \"1\"\n"), 6, "must be two digits"},
		{"reason 22 on 2.1.0", scenario("    frictionless:\n      status: U\n      reason: \"22\"\n      version: 2.1.0\n"), 6, `reason "22" needs version 2.2.0`},
		{"reason 26 on 2.1.0", scenario("    frictionless:\n      status: N\n      reason: \"26\"\n      version: 2.1.0\n"), 6, "needs version 2.2.0"},
		{"unknown version", scenario("    frictionless:\n      status: Y\n      version: 2.3.0\n"), 6, `version "2.3.0" is not one of 2.1.0, 2.2.0`},
		{"version as a number", scenario("    frictionless:\n      status: Y\n      version: 2.2\n"), 6, "version must be a string: quote it"},
		{"eci one digit", scenario("    frictionless:\n      status: Y\n      eci: \"5\"\n"), 6, `eci "5" must be two digits`},
		{"authenticationType 05", scenario("    frictionless:\n      status: Y\n      authenticationType: \"05\"\n"), 6, `authenticationType "05" is not one of 01, 02, 03, 04`},
		{"authenticationType 04 on 2.1.0", scenario("    frictionless:\n      status: Y\n      authenticationType: \"04\"\n      version: 2.1.0\n"), 6, "authenticationType 04 (decoupled) needs version 2.2.0"},
		{"status I on 2.1.0", scenario("    frictionless:\n      status: I\n      version: 2.1.0\n"), 5, "status I (informational) needs version 2.2.0"},
		{"unknown frictionless key", scenario("    frictionless:\n      status: Y\n      transStatus: Y\n"), 6, `unknown key "transStatus" in frictionless`},

		// Challenge.
		{"unknown challenge key", scenario("    challenge:\n      otp: \"1234\"\n"), 5, `unknown key "otp" in challenge (did you mean otps?)`},
		{"outcome status A", scenario("    challenge:\n      pass: {status: A}\n"), 5, `status "A" is not one of Y, N`},
		{"outcome without status", scenario("    challenge:\n      fail: {reason: \"01\"}\n"), 5, `fail: missing required key "status"`},
		{"outcome N without reason", scenario("    challenge:\n      fail: {status: N}\n"), 5, "fail: status N needs a reason"},
		{"outcome Y with reason", scenario("    challenge:\n      pass: {status: Y, reason: \"01\"}\n"), 5, "pass: status Y takes no reason"},
		{"outcome Y with challengeCancel", scenario("    challenge:\n      cancel: {status: Y, challengeCancel: \"01\"}\n"), 5, "cancel: status Y takes no challengeCancel"},
		{"challengeCancel 09", scenario("    challenge:\n      cancel: {status: N, reason: \"01\", challengeCancel: \"09\"}\n"), 5, `challengeCancel "09" is not one of 01, 02`},
		{"outcome reason 23 on 2.1.0", scenario("    challenge:\n      version: 2.1.0\n      fail: {status: N, reason: \"23\"}\n"), 6, "needs version 2.2.0"},
		{"outcome not a mapping", scenario("    challenge:\n      pass: Y\n"), 5, "pass must be a mapping"},
		{"unknown outcome key", scenario("    challenge:\n      pass: {status: Y, transStatus: Y}\n"), 5, `unknown key "transStatus" in pass`},
		{"unknown ui", scenario("    challenge:\n      ui: sms\n"), 5, `ui "sms" is not one of otp`},
		{"key of another style", scenario("    challenge:\n      ui: oob\n      resends: 1\n"), 6, `resends is a key of ui otp, not of ui oob`},
		{"trustPrompt on 2.1.0", scenario("    challenge:\n      version: 2.1.0\n      trustPrompt: true\n"), 6, `trustPrompt needs version 2.2.0`},
		{"select with two answers", scenario("    challenge:\n      ui: select\n      answers: [a, b]\n"), 6, `answers must be a list of 1 to 1 choices`},
		{"answers not a list", scenario("    challenge:\n      ui: multiselect\n      answers: a\n"), 6, `answers must be a list of 1 to 4 choices`},
		{"answer with markup", scenario("    challenge:\n      ui: multiselect\n      answers: [\"<b>\"]\n"), 6, `an answer must be 1-40 letters`},
		{"answer twice", scenario("    challenge:\n      ui: multiselect\n      answers: [a, a]\n"), 6, `answer "a" is listed twice`},
		{"answers on otp", scenario("    challenge:\n      answers: [a]\n"), 5, `answers is a key of ui select, not of ui otp`},
		{"unknown app answer", scenario("    challenge:\n      ui: oob\n      app: maybe\n"), 6, `app "maybe" is not one of approve, decline`},
		{"password with a space", scenario("    challenge:\n      ui: password\n      password: \"a b\"\n"), 6, `password must be 1-32 letters, digits or .-_!?#@, got "a b"`},
		{"password unquoted", scenario("    challenge:\n      ui: password\n      password: 1234\n"), 6, `password must be a string: quote it`},
		{"password on otp", scenario("    challenge:\n      password: secret\n"), 5, `password is a key of ui password, not of ui otp`},
		{"resends out of range", scenario("    challenge:\n      resends: 21\n"), 5, `resends`},
		{"otps not a mapping", scenario("    challenge:\n      otps: [\"1234\"]\n"), 5, "otps must be a mapping"},
		{"otps empty", scenario("    challenge:\n      otps: {}\n"), 5, "otps is empty"},
		{"otp unquoted", scenario("    challenge:\n      otps:\n        1234: {status: Y}\n"), 6, `one-time password 1234 must be quoted: "1234"`},
		{"otp with spaces", scenario("    challenge:\n      otps:\n        \"12 34\": {status: Y}\n"), 6, `one-time password "12 34" must be 1-32 letters or digits`},
		{"duplicate otp", scenario("    challenge:\n      otps:\n        \"1234\": {status: Y}\n        \"1234\": {status: N, reason: \"01\"}\n"), 7, `duplicate one-time password "1234"; first set at line 6`},
		{"otp outcome N without reason", scenario("    challenge:\n      otps:\n        \"0000\": {status: N}\n"), 6, `otps "0000": status N needs a reason`},
		{"auto unknown", scenario("    challenge:\n      auto: maybe\n"), 5, `auto "maybe" is not one of pass, fail, cancel`},
		{"autoAfter without auto", scenario("    challenge:\n      autoAfter: 1s\n"), 5, "autoAfter needs auto"},
		{"autoAfter too long", scenario("    challenge:\n      auto: pass\n      autoAfter: 11m\n"), 6, "autoAfter 11m is out of range 0s-10m0s"},
		{"firstCReqTimeout too short", scenario("    challenge:\n      firstCReqTimeout: 500ms\n"), 5, "firstCReqTimeout 500ms is out of range 1s-24h0m0s"},
		{"challengeTimeout too long", scenario("    challenge:\n      challengeTimeout: 25h\n"), 5, "challengeTimeout 25h is out of range 0s-24h0m0s"},
		{"challengeTimeout without a unit", scenario("    challenge:\n      challengeTimeout: 3\n"), 5, "challengeTimeout must be a duration with a unit, such as 3s"},
		{"challenge authenticationType 04 on 2.1.0", scenario("    challenge:\n      version: 2.1.0\n      authenticationType: \"04\"\n"), 6, "authenticationType 04 (decoupled) needs version 2.2.0"},

		// Error.
		{"error without httpStatus", scenario("    error: {errorCode: SC03, emvErrorCode: \"403\"}\n"), 4, `error: missing required key "httpStatus"`},
		{"error without errorCode", scenario("    error: {httpStatus: 503, emvErrorCode: \"403\"}\n"), 4, `error: missing required key "errorCode"`},
		{"error without emvErrorCode", scenario("    error: {httpStatus: 503, errorCode: SC03}\n"), 4, `error: missing required key "emvErrorCode"`},
		{"httpStatus below 400", scenario("    error: {httpStatus: 302, errorCode: SC03, emvErrorCode: \"403\"}\n"), 4, "httpStatus 302 is out of range 400-599"},
		{"httpStatus as a string", scenario("    error: {httpStatus: \"503\", errorCode: SC03, emvErrorCode: \"403\"}\n"), 4, `httpStatus must be a whole number, got "503"`},
		{"errorCode lower case", scenario("    error: {httpStatus: 503, errorCode: sc03, emvErrorCode: \"403\"}\n"), 4, `errorCode "sc03" must be 4 characters of A-Z and 0-9`},
		{"emvErrorCode four digits", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"4030\"}\n"), 4, `emvErrorCode "4030" must be 3 digits`},
		{"emvErrorCode unquoted", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: 403}\n"), 4, `emvErrorCode must be a string: quote it`},
		{"emvErrorCode without a name", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"999\"}\n"), 4, "emvErrorCode 999 has no EMV name: set description"},
		{"error status Y", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\", status: Y}\n"), 4, `status "Y" is not one of N, U, A, C, R`},
		{"error component X", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\", component: X}\n"), 4, `component "X" is not one of C, S, D, A`},
		{"error message too long", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\", message: " + long + "}\n"), 4, "message is 256 bytes long; the error body allows 255"},
		{"unknown error key", scenario("    error:\n      httpStatus: 503\n      errorCode: SC03\n      emvErrorCode: \"403\"\n      emvErrorComponent: A\n"), 8, `unknown key "emvErrorComponent" in error`},

		// Duplicates inside one file.
		{"duplicate id", scenario("    frictionless: {status: Y}\n  - id: s\n    match: {cardNumber: \"4000000000001018\"}\n    frictionless: {status: Y}\n"), 5, "duplicate id s; first defined at t.yaml:2"},
		{"duplicate cardNumber", scenario("    frictionless: {status: Y}\n  - id: t\n    match: {cardNumber: \"4000000000001000\"}\n    frictionless: {status: Y}\n"), 6, "duplicate match: scenario t has the same selectors and priority as scenario s at t.yaml:3"},
		{"duplicate cardPrefix", "scenarios:\n  - id: s\n    match:\n      cardPrefix: \"4000\"\n    frictionless: {status: Y}\n  - id: t\n    match:\n      cardPrefix: \"4000\"\n    frictionless: {status: Y}\n", 8, "duplicate match: scenario t has the same selectors and priority as scenario s at t.yaml:4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("t.yaml", []byte(tt.yaml))
			if f != nil {
				t.Errorf("got a file with an error, want nil")
			}
			problems := problemsOf(t, err)
			for _, p := range problems {
				if p.File == "t.yaml" && p.Line == tt.line && strings.Contains(p.Reason, tt.reason) {
					return
				}
			}
			t.Errorf("got problems\n%v\nwant one at t.yaml:%d containing %q", err, tt.line, tt.reason)
		})
	}
}

func TestParseCollectsEveryProblem(t *testing.T) {
	data := "scenarios:\n" +
		"  - id: a\n" +
		"    match: {cardNumber: 4000000000001000}\n" +
		"    frictionless: {status: N}\n" +
		"  - id: b\n" +
		"    match: {cardPrefix: \"4\"}\n" +
		"    delay: 2\n" +
		"    error: {httpStatus: 200, errorCode: SC03, emvErrorCode: \"403\"}\n"
	_, err := Parse("many.yaml", []byte(data))
	var got []int
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Line)
	}
	want := []int{3, 4, 7, 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got problem lines %v, want %v\n%v", got, want, err)
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want Scenario
	}{
		{
			name: "frictionless defaults",
			yaml: scenario("    description: d\n    frictionless: {status: Y}\n"),
			want: Scenario{ID: "s", Description: "d", Match: Match{CardNumber: "4000000000001000"},
				Frictionless: &Frictionless{Status: "Y", Version: "2.2.0"}},
		},
		{
			name: "frictionless with every key",
			yaml: scenario("    delay: 1500ms\n    frictionless: {status: U, reason: \"22\", eci: \"07\", version: 2.2.0, authenticationType: \"04\"}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"}, Delay: 1500 * time.Millisecond,
				Steps:        Steps{Lookup: Step{Delay: Delay{Min: 1500 * time.Millisecond, Max: 1500 * time.Millisecond}}},
				Frictionless: &Frictionless{Status: "U", Reason: "22", ECI: "07", Version: "2.2.0", AuthenticationType: "04"}},
		},
		{
			name: "challenge defaults",
			yaml: scenario("    challenge: {}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Challenge: &Challenge{Version: "2.2.0", UI: "otp", AuthenticationType: "02", Resends: 3,
					Pass: Outcome{Status: "Y"}, Fail: Outcome{Status: "N", Reason: "01"},
					Cancel: Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"},
					OTPs:   map[string]Outcome{"1234": {Status: "Y"}}}},
		},
		{
			name: "challenge with every key",
			yaml: scenario("    challenge:\n      version: 2.1.0\n      authenticationType: \"03\"\n" +
				"      pass: {status: Y, eci: \"05\"}\n      fail: {status: N, reason: \"19\"}\n" +
				"      cancel: {status: N, reason: \"14\", challengeCancel: \"04\"}\n" +
				"      otps: {\"0000\": {status: N, reason: \"01\"}, abc: {status: Y}}\n" +
				"      ui: otp\n      resends: 0\n      auto: cancel\n      autoAfter: 2s\n      firstCReqTimeout: 3s\n      challengeTimeout: 1m30s\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Challenge: &Challenge{Version: "2.1.0", UI: "otp", AuthenticationType: "03", Resends: 0,
					Pass: Outcome{Status: "Y", ECI: "05"}, Fail: Outcome{Status: "N", Reason: "19"},
					Cancel: Outcome{Status: "N", Reason: "14", ChallengeCancel: "04"},
					OTPs:   map[string]Outcome{"0000": {Status: "N", Reason: "01"}, "abc": {Status: "Y"}},
					Auto:   "cancel", AutoAfter: 2 * time.Second,
					FirstCReqTimeout: 3 * time.Second, ChallengeTimeout: 90 * time.Second}},
		},
		{
			name: "oob defaults",
			yaml: scenario("    challenge: {ui: oob}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Challenge: &Challenge{Version: "2.2.0", UI: "oob", AuthenticationType: "03", App: "approve",
					Pass: Outcome{Status: "Y"}, Fail: Outcome{Status: "N", Reason: "01"},
					Cancel: Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"}}},
		},
		{
			name: "oob app declines by itself",
			yaml: scenario("    challenge: {ui: oob, app: decline, autoAfter: 2s}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Challenge: &Challenge{Version: "2.2.0", UI: "oob", AuthenticationType: "03", App: "decline", AutoAfter: 2 * time.Second,
					Pass: Outcome{Status: "Y"}, Fail: Outcome{Status: "N", Reason: "01"},
					Cancel: Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"}}},
		},
		{
			name: "default OTP gives the pass outcome",
			yaml: scenario("    challenge:\n      pass: {status: Y, eci: \"02\"}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Challenge: &Challenge{Version: "2.2.0", UI: "otp", AuthenticationType: "02", Resends: 3,
					Pass: Outcome{Status: "Y", ECI: "02"}, Fail: Outcome{Status: "N", Reason: "01"},
					Cancel: Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"},
					OTPs:   map[string]Outcome{"1234": {Status: "Y", ECI: "02"}}}},
		},
		{
			name: "error defaults",
			yaml: scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\"}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Error: &ErrorResult{HTTPStatus: 503, ErrorCode: "SC03", Status: "U", Message: "Transient System Failure",
					EMVErrorCode: "403", Component: "S", Description: "Transient System Failure"}},
		},
		{
			name: "error with every key",
			yaml: scenario("    error: {httpStatus: 422, errorCode: SC12, status: R, message: m, emvErrorCode: \"999\", component: D, description: d, detail: x}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Error: &ErrorResult{HTTPStatus: 422, ErrorCode: "SC12", Status: "R", Message: "m",
					EMVErrorCode: "999", Component: "D", Description: "d", Detail: "x"}},
		},
		{
			name: "long description is cut for the default message",
			yaml: scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\", description: " + strings.Repeat("é", 200) + "}\n"),
			want: Scenario{ID: "s", Match: Match{CardNumber: "4000000000001000"},
				Error: &ErrorResult{HTTPStatus: 503, ErrorCode: "SC03", Status: "U", Message: strings.Repeat("é", 126) + "...",
					EMVErrorCode: "403", Component: "S", Description: strings.Repeat("é", 200)}},
		},
		{
			name: "UnionPay number need not pass Luhn",
			yaml: "scenarios:\n  - id: s\n    match: {cardNumber: \"6200000000000001\"}\n    frictionless: {status: Y}\n",
			want: Scenario{ID: "s", Match: Match{CardNumber: "6200000000000001"}, Frictionless: &Frictionless{Status: "Y", Version: "2.2.0"}},
		},
		{
			name: "UnionPay 81 number need not pass Luhn",
			yaml: "scenarios:\n  - id: s\n    match: {cardNumber: \"8100000000000001\"}\n    frictionless: {status: Y}\n",
			want: Scenario{ID: "s", Match: Match{CardNumber: "8100000000000001"}, Frictionless: &Frictionless{Status: "Y", Version: "2.2.0"}},
		},
		{
			name: "fallback may omit match",
			yaml: "fallback: s\nscenarios:\n  - id: s\n    frictionless: {status: Y}\n",
			want: Scenario{ID: "s", Frictionless: &Frictionless{Status: "Y", Version: "2.2.0"}},
		},
		{
			name: "aliases are followed",
			yaml: "scenarios:\n  - id: s\n    match: {cardPrefix: \"4\"}\n    frictionless: &y {status: Y}\n  - id: t\n    match: {cardPrefix: \"5\"}\n    frictionless: *y\n",
			want: Scenario{ID: "s", Match: Match{CardPrefix: "4"}, Frictionless: &Frictionless{Status: "Y", Version: "2.2.0"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("t.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			got := f.Scenarios[0]
			want := tt.want
			want.Pack = "t"
			want.Source = Position{File: "t.yaml", Line: strings.Count(tt.yaml[:strings.Index(tt.yaml, "- id:")], "\n") + 1}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", describeScenario(got), describeScenario(want))
			}
		})
	}
}

// describeScenario spells out the pointers of a scenario for test messages.
func describeScenario(s Scenario) string {
	out := fmt.Sprintf("{ID:%s Description:%s Match:%+v Delay:%s Source:%s", s.ID, s.Description, s.Match, s.Delay, s.Source)
	if s.Frictionless != nil {
		out += fmt.Sprintf(" Frictionless:%+v", *s.Frictionless)
	}
	if s.Challenge != nil {
		out += fmt.Sprintf(" Challenge:%+v", *s.Challenge)
	}
	if s.Error != nil {
		out += fmt.Sprintf(" Error:%+v", *s.Error)
	}
	return out + "}"
}

// TestParsePasswordStyle: ui password defaults to authenticationType 01
// (static) and the password sandbox; key password sets its own.
func TestParsePasswordStyle(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"    challenge: {ui: password}\n", DefaultPassword},
		{"    challenge: {ui: password, password: \"Tr0ub4dor!\"}\n", "Tr0ub4dor!"},
	} {
		f, err := Parse("p.yaml", []byte(scenario(tt.body)))
		if err != nil {
			t.Fatal(err)
		}
		c := f.Scenarios[0].Challenge
		if c.UI != UIPassword || c.AuthenticationType != "01" || c.Own != (PasswordRules{Password: tt.want}) {
			t.Errorf("%q: ui %s, authenticationType %s, own %#v; want password, 01, %s", tt.body, c.UI, c.AuthenticationType, c.Own, tt.want)
		}
	}
}
