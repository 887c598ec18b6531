package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// whenFile has a card answered differently by channel, 3RI indicator and
// prior status.
const whenFile = `scenarios:
  - id: plain
    match: {cardNumber: "4000000000009110"}
    challenge: {}
  - id: three-ri
    match: {cardNumber: "4000000000009110"}
    when: {channel: 3ri}
    frictionless: {status: A}
  - id: account-check
    match: {cardNumber: "4000000000009110"}
    when: {channel: 3ri, threeRIInd: ["05", "04"]}
    frictionless: {status: N, reason: "01"}
  - id: recurring-after-y
    match: {cardNumber: "4000000000009110"}
    when: {threeRIInd: "01", priorStatus: [Y, A]}
    frictionless: {status: Y}
  - id: expired
    match: {cardNumber: "4000000000009110"}
    when: {priorStatus: none}
    frictionless: {status: U, reason: "07"}
  - id: prefix-3ri
    match: {cardPrefix: "52"}
    when: {channel: 3ri}
    frictionless: {status: R, reason: "12"}
`

func TestWhenMatches(t *testing.T) {
	c, err := NewCatalogue(mustParse(t, "w.yaml", whenFile))
	if err != nil {
		t.Fatal(err)
	}
	const card = "4000000000009110"
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"browser, the channel unset", Request{CardNumber: card}, "plain"},
		{"browser by name", Request{CardNumber: card, Channel: ChannelBrowser}, "plain"},
		{"app", Request{CardNumber: card, Channel: ChannelApp}, "plain"},
		{"3RI", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "02"}, "three-ri"},
		{"3RI account verification: two conditions beat one", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "05"}, "account-check"},
		{"3RI maintain card: the other value of the list", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "04"}, "account-check"},
		{"3RI recurring after Y", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "01", PriorStatus: "Y"}, "recurring-after-y"},
		{"3RI recurring after N", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "01", PriorStatus: "N"}, "three-ri"},
		{"3RI recurring, no prior named", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "01"}, "three-ri"},
		// expired and three-ri both set one condition: the first in the
		// file wins, as for any equal rank.
		{"3RI, a prior the sandbox does not find", Request{CardNumber: card, Channel: Channel3RI, ThreeRIInd: "02", PriorStatus: PriorNone}, "three-ri"},
		{"a prior the sandbox does not find, on no channel of its own", Request{CardNumber: card, PriorStatus: PriorNone}, "expired"},
		{"a prefix with when loses to nothing on 3RI", Request{CardNumber: "5200000000009004", Channel: Channel3RI, ThreeRIInd: "01"}, "prefix-3ri"},
		{"a prefix with when on the browser", Request{CardNumber: "5200000000009004"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Match(tt.req)
			want := tt.want
			if want == "" {
				want = FallbackID
			}
			if got.ID != want {
				t.Errorf("Match(%+v) = %s, want %s", tt.req, got.ID, want)
			}
		})
	}
}

// TestWhenIsPartOfTheSelector: scenarios that differ only by when are not
// duplicates; the same when twice is, whatever the order of its lists.
func TestWhenIsPartOfTheSelector(t *testing.T) {
	base := "scenarios:\n  - id: a\n    match: {cardNumber: \"4000000000009110\"}\n    frictionless: {status: Y}\n"
	if _, err := NewCatalogue(mustParse(t, "a.yaml", base+
		"  - id: b\n    match: {cardNumber: \"4000000000009110\"}\n    when: {channel: 3ri}\n    frictionless: {status: N, reason: \"01\"}\n")); err != nil {
		t.Errorf("a when made a duplicate: %v", err)
	}
	_, err := Parse("d.yaml", []byte(base+
		"  - id: b\n    match: {cardNumber: \"4000000000009110\"}\n    when: {threeRIInd: [\"05\", \"01\"]}\n    frictionless: {status: Y}\n"+
		"  - id: c\n    match: {cardNumber: \"4000000000009110\"}\n    when: {threeRIInd: [\"01\", \"05\"]}\n    frictionless: {status: Y}\n"))
	if err == nil || !strings.Contains(err.Error(), "duplicate match: scenario c has the same selectors and priority as scenario b") {
		t.Errorf("the same when in another order is no duplicate: %v", err)
	}
}

func TestWhenRefuses(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		reason     string
	}{
		{"unknown condition", scenario("    when: {chanel: 3ri}\n    frictionless: {status: Y}\n"), 4, `unknown key "chanel" in when (did you mean channel?)`},
		{"empty when", scenario("    when: {}\n    frictionless: {status: Y}\n"), 4, "when needs a condition: one of channel, threeRIInd, priorStatus"},
		{"unknown channel", scenario("    when: {channel: web}\n    frictionless: {status: Y}\n"), 4, `when channel "web" is not one of browser, app, 3ri`},
		{"unknown in a list", scenario("    when: {threeRIInd: [\"05\", \"12\"]}\n    frictionless: {status: Y}\n"), 4, `when threeRIInd "12" is not one of 01, 02`},
		{"unquoted number", scenario("    when: {threeRIInd: 5}\n    frictionless: {status: Y}\n"), 4, `when threeRIInd must be a string: quote it ("5")`},
		{"empty list", scenario("    when: {priorStatus: []}\n    frictionless: {status: Y}\n"), 4, "when priorStatus is an empty list"},
		{"a mapping as a value", scenario("    when: {priorStatus: {y: 1}}\n    frictionless: {status: Y}\n"), 4, "when priorStatus must be one of Y, A, N, U, R, I, C, none or a list of them, got a mapping"},
		{"when not a mapping", scenario("    when: 3ri\n    frictionless: {status: Y}\n"), 4, "when must be a mapping"},
		{"when on the fallback", "fallback: f\nscenarios:\n  - id: f\n    when: {channel: 3ri}\n    frictionless: {status: Y}\n", 4, `scenario "f" is the fallback, which answers every card no scenario matches: it takes no when`},
		{"threeRI on frictionless", scenario("    frictionless: {status: Y}\n    threeRI: {status: N, reason: \"01\"}\n"), 5, "threeRI is what a challenge scenario answers on the 3RI channel"},
		{"threeRI on error", scenario("    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\"}\n    threeRI: {status: Y}\n"), 5, "a frictionless or error scenario answers 3RI lookups as it answers the others"},
		{"threeRI U without reason", scenario("    challenge: {}\n    threeRI: {status: U}\n"), 5, "threeRI: status U needs a reason (transStatusReason 01-26 or 80-99)"},
		{"threeRI Y with reason", scenario("    challenge: {}\n    threeRI: {status: Y, reason: \"01\"}\n"), 5, "threeRI: status Y takes no reason"},
		{"threeRI I on 2.1.0", scenario("    challenge: {version: 2.1.0}\n    threeRI: {status: I}\n"), 5, "threeRI: status I (informational) needs version 2.2.0"},
		{"threeRI reason 26 on 2.1.0", scenario("    challenge: {version: 2.1.0}\n    threeRI: {status: N, reason: \"26\"}\n"), 5, `reason "26" needs version 2.2.0`},
		{"threeRI unknown key", scenario("    challenge: {}\n    threeRI: {status: Y, challengeCancel: \"01\"}\n"), 5, `unknown key "challengeCancel" in threeRI`},
		{"threeRI status C", scenario("    challenge: {}\n    threeRI: {status: C}\n"), 5, `status "C" is not one of Y, A, N, U, R, I`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tt.yaml))
			for _, p := range problemsOf(t, err) {
				if p.File == "t.yaml" && p.Line == tt.line && strings.Contains(p.Reason, tt.reason) {
					return
				}
			}
			t.Errorf("got problems\n%v\nwant one at t.yaml:%d containing %q", err, tt.line, tt.reason)
		})
	}
}

func TestThreeRIResult(t *testing.T) {
	f := mustParse(t, "r.yaml", `scenarios:
  - id: default
    match: {cardNumber: "4000000000009110"}
    challenge: {}
  - id: own
    match: {cardNumber: "4000000000009128"}
    challenge: {}
    threeRI: {status: N, reason: "01", eci: "00"}
`)
	if got := f.Scenarios[0].ThreeRIResult(); got != DefaultThreeRI || got.Status != "U" || got.Reason != "21" {
		t.Errorf("default threeRI = %+v, want U 21", got)
	}
	if got, want := f.Scenarios[1].ThreeRIResult(), (Outcome{Status: "N", Reason: "01", ECI: "00"}); got != want {
		t.Errorf("threeRI = %+v, want %+v", got, want)
	}
}

// TestThreeRIIndsByVersion: 2.1.0 knows 01-05, 2.2.0 (and a request
// without a version) 01-11.
func TestThreeRIIndsByVersion(t *testing.T) {
	codes := func(version string) []string {
		var out []string
		for _, ind := range ThreeRIInds(version) {
			out = append(out, ind.Code)
		}
		return out
	}
	if got, want := codes(Version210), []string{"01", "02", "03", "04", "05"}; !slices.Equal(got, want) {
		t.Errorf("2.1.0: %v, want %v", got, want)
	}
	for _, v := range []string{Version220, ""} {
		if got := codes(v); len(got) != 11 || got[10] != "11" {
			t.Errorf("%q: %v, want 01-11", v, got)
		}
	}
}

// TestAnswersChannel: a scenario answers a channel its when allows, and
// the 3RI channel only when its match tests no purchase or device data
// collection, which a 3RI lookup has not.
func TestAnswersChannel(t *testing.T) {
	card := "4000000000009110"
	tests := []struct {
		name            string
		sc              Scenario
		browser, threeR bool
	}{
		{"no when", Scenario{Match: Match{CardNumber: card}}, true, true},
		{"channel 3ri", Scenario{Match: Match{CardNumber: card}, When: When{WhenChannel: {Channel3RI}}}, false, true},
		{"channel browser", Scenario{Match: Match{CardNumber: card}, When: When{WhenChannel: {ChannelBrowser}}}, true, false},
		{"threeRIInd alone", Scenario{Match: Match{CardNumber: card}, When: When{WhenThreeRIInd: {"05"}}}, false, true},
		{"priorStatus alone", Scenario{Match: Match{CardNumber: card}, When: When{WhenPriorStatus: {PriorNone}}}, false, true},
		{"an amount", Scenario{Match: Match{CardNumber: card, Amount: &AmountMatch{Exact: "1.00"}}}, true, false},
		{"a currency", Scenario{Match: Match{CardNumber: card, Currency: "EUR"}}, true, false},
		{"threeDSCompInd", Scenario{Match: Match{CardNumber: card, ThreeDSCompInd: "Y"}}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sc.AnswersChannel(ChannelBrowser); got != tt.browser {
				t.Errorf("browser: %v, want %v", got, tt.browser)
			}
			if got := tt.sc.AnswersChannel(Channel3RI); got != tt.threeR {
				t.Errorf("3RI: %v, want %v", got, tt.threeR)
			}
		})
	}
}
