package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// selectorFile has one scenario per selector, each alone on its cards.
const selectorFile = `scenarios:
  - id: number
    match: {cardNumber: "4000000000009003"}
    frictionless: {status: Y}
  - id: prefix
    match: {cardPrefix: "411111"}
    frictionless: {status: Y}
  - id: range
    match: {binRange: {from: "420000", to: "420099"}}
    frictionless: {status: Y}
  - id: pattern
    match: {cardPattern: "430000000000xx27"}
    frictionless: {status: Y}
  - id: amount-exact
    match: {cardPrefix: "44", amount: "10.00"}
    frictionless: {status: Y}
  - id: amount-range
    match: {cardPrefix: "45", amount: {min: "100", max: "999.99"}}
    frictionless: {status: Y}
  - id: amount-open-max
    match: {cardPrefix: "46", amount: {min: "1000"}}
    frictionless: {status: Y}
  - id: currency
    match: {cardPrefix: "47", currency: EUR}
    frictionless: {status: Y}
  - id: name
    match: {cardholderName: "Challenge Me"}
    challenge: {}
  - id: challenge-ind
    match: {cardPrefix: "48", challengeInd: 4}
    challenge: {}
  - id: version
    match: {cardPrefix: "49", messageVersion: 2.1.0}
    frictionless: {status: Y}
  - id: category
    match: {cardPrefix: "50", messageCategory: "02"}
    frictionless: {status: Y}
  - id: auth-ind
    match: {cardPrefix: "51", authInd: "02"}
    frictionless: {status: Y}
`

func TestMatchSelectors(t *testing.T) {
	c, err := NewCatalogue(mustParse(t, "s.yaml", selectorFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"cardNumber", Request{CardNumber: "4000000000009003"}, "number"},
		{"cardNumber other card", Request{CardNumber: "4000000000009011"}, FallbackID},
		{"cardPrefix", Request{CardNumber: "4111111111111111"}, "prefix"},
		{"binRange low end", Request{CardNumber: "4200000000000000"}, "range"},
		{"binRange high end", Request{CardNumber: "4200999999999999"}, "range"},
		{"binRange above", Request{CardNumber: "4201000000000000"}, FallbackID},
		{"binRange card too short", Request{CardNumber: "42000"}, FallbackID},
		{"cardPattern", Request{CardNumber: "4300000000001527"}, "pattern"},
		{"cardPattern other last digits", Request{CardNumber: "4300000000001528"}, FallbackID},
		{"cardPattern other length", Request{CardNumber: "430000000000152"}, FallbackID},
		{"amount exact", Request{CardNumber: "4400000000000000", Amount: "10"}, "amount-exact"},
		{"amount exact, more decimals", Request{CardNumber: "4400000000000000", Amount: "10.000"}, "amount-exact"},
		{"amount exact, other", Request{CardNumber: "4400000000000000", Amount: "10.01"}, FallbackID},
		{"amount missing", Request{CardNumber: "4400000000000000"}, FallbackID},
		{"amount not a number", Request{CardNumber: "4400000000000000", Amount: "1e1"}, FallbackID},
		{"amount range min", Request{CardNumber: "4500000000000000", Amount: "100.00"}, "amount-range"},
		{"amount range max", Request{CardNumber: "4500000000000000", Amount: "999.99"}, "amount-range"},
		{"amount range above", Request{CardNumber: "4500000000000000", Amount: "1000"}, FallbackID},
		{"amount range below", Request{CardNumber: "4500000000000000", Amount: "99.999"}, FallbackID},
		{"amount open max", Request{CardNumber: "4600000000000000", Amount: "123456789.5"}, "amount-open-max"},
		{"currency alphabetic", Request{CardNumber: "4700000000000000", Currency: "EUR"}, "currency"},
		{"currency numeric", Request{CardNumber: "4700000000000000", Currency: "978"}, "currency"},
		{"currency other", Request{CardNumber: "4700000000000000", Currency: "USD"}, FallbackID},
		{"cardholderName any case", Request{CardNumber: "6011000000000004", CardholderName: " challenge me "}, "name"},
		{"cardholderName other", Request{CardNumber: "6011000000000004", CardholderName: "Jane Doe"}, FallbackID},
		{"challengeInd", Request{CardNumber: "4800000000000000", ChallengeInd: 4}, "challenge-ind"},
		{"challengeInd other", Request{CardNumber: "4800000000000000", ChallengeInd: 1}, FallbackID},
		{"messageVersion", Request{CardNumber: "4900000000000000", MessageVersion: "2.1.0"}, "version"},
		{"messageVersion other", Request{CardNumber: "4900000000000000", MessageVersion: "2.2.0"}, FallbackID},
		{"messageCategory", Request{CardNumber: "5000000000000000", MessageCategory: "02"}, "category"},
		{"messageCategory other", Request{CardNumber: "5000000000000000", MessageCategory: "01"}, FallbackID},
		{"authInd", Request{CardNumber: "5100000000000000", AuthInd: "02"}, "auth-ind"},
		{"authInd other", Request{CardNumber: "5100000000000000", AuthInd: "01"}, FallbackID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Match(tt.req).ID; got != tt.want {
				t.Errorf("Match(%+v): got %s, want %s", tt.req, got, tt.want)
			}
		})
	}
}

func TestMatchPriority(t *testing.T) {
	y := "    frictionless: {status: Y}\n"
	tests := []struct {
		name string
		file string // scenarios, each followed by y
		req  Request
		want string
	}{
		{
			name: "higher priority beats a more specific selector",
			file: "  - id: any-visa\n    priority: 1\n    match: {cardPrefix: \"4\"}\n" + y +
				"  - id: exact\n    match: {cardNumber: \"4000000000009003\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "any-visa",
		},
		{
			name: "negative priority loses to a default one",
			file: "  - id: exact\n    priority: -1\n    match: {cardNumber: \"4000000000009003\"}\n" + y +
				"  - id: any-visa\n    match: {cardPrefix: \"4\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "any-visa",
		},
		{
			name: "cardNumber beats cardPattern",
			file: "  - id: pattern\n    match: {cardPattern: \"400000000000xxxx\"}\n" + y +
				"  - id: exact\n    match: {cardNumber: \"4000000000009003\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "exact",
		},
		{
			name: "cardPattern beats cardPrefix",
			file: "  - id: prefix\n    match: {cardPrefix: \"400000000000900\"}\n" + y +
				"  - id: pattern\n    match: {cardPattern: \"4xxxxxxxxxxxxxxx\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "pattern",
		},
		{
			name: "pattern with more fixed digits first",
			file: "  - id: loose\n    match: {cardPattern: \"4xxxxxxxxxxxxxxx\"}\n" + y +
				"  - id: tight\n    match: {cardPattern: \"4000xxxxxxxxxxxx\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "tight",
		},
		{
			name: "cardPattern beats binRange",
			file: "  - id: range\n    match: {binRange: {from: \"4000000000009000\", to: \"4000000000009999\"}}\n" + y +
				"  - id: pattern\n    match: {cardPattern: \"4xxxxxxxxxxxxxxx\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "pattern",
		},
		{
			name: "longer prefix beats shorter binRange",
			file: "  - id: range\n    match: {binRange: {from: \"400000\", to: \"400099\"}}\n" + y +
				"  - id: prefix\n    match: {cardPrefix: \"4000000\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "prefix",
		},
		{
			name: "longer binRange beats shorter prefix",
			file: "  - id: prefix\n    match: {cardPrefix: \"40\"}\n" + y +
				"  - id: range\n    match: {binRange: {from: \"400000\", to: \"400099\"}}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "range",
		},
		{
			name: "any card selector beats none",
			file: "  - id: amount\n    match: {amount: \"10\", currency: EUR}\n" + y +
				"  - id: prefix\n    match: {cardPrefix: \"4\"}\n" + y,
			req: Request{CardNumber: "4000000000009003", Amount: "10", Currency: "EUR"}, want: "prefix",
		},
		{
			name: "more request selectors win on the same card",
			file: "  - id: card\n    match: {cardNumber: \"4000000000009003\"}\n" + y +
				"  - id: card-no-challenge\n    match: {cardNumber: \"4000000000009003\", challengeInd: 2}\n" + y,
			req: Request{CardNumber: "4000000000009003", ChallengeInd: 2}, want: "card-no-challenge",
		},
		{
			name: "the more selective scenario does not apply when a selector fails",
			file: "  - id: card\n    match: {cardNumber: \"4000000000009003\"}\n" + y +
				"  - id: card-no-challenge\n    match: {cardNumber: \"4000000000009003\", challengeInd: 2}\n" + y,
			req: Request{CardNumber: "4000000000009003", ChallengeInd: 3}, want: "card",
		},
		{
			name: "file order breaks the last tie",
			file: "  - id: first\n    match: {challengeInd: 4}\n" + y +
				"  - id: second\n    match: {cardholderName: \"Challenge Me\"}\n" + y,
			req: Request{CardNumber: "4000000000009003", ChallengeInd: 4, CardholderName: "Challenge Me"}, want: "first",
		},
		{
			name: "same selectors on different priorities are allowed",
			file: "  - id: low\n    match: {cardPrefix: \"4\"}\n" + y +
				"  - id: high\n    priority: 3\n    match: {cardPrefix: \"4\"}\n" + y,
			req: Request{CardNumber: "4000000000009003"}, want: "high",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCatalogue(mustParse(t, "p.yaml", "scenarios:\n"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Match(tt.req).ID; got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMatchInformationalOnRequest(t *testing.T) {
	c, err := Load(LoadOptions{Packs: []string{PackDefaults}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ind    int
		status string
	}{{0, "Y"}, {1, "Y"}, {2, "I"}, {3, "Y"}, {4, "Y"}} {
		s := c.Match(Request{CardNumber: "4000000000009003", ChallengeInd: tt.ind})
		if got := s.Frictionless.Status; got != tt.status {
			t.Errorf("challengeInd %d: got %s (%s), want %s", tt.ind, got, s.ID, tt.status)
		}
	}
}

func TestAmounts(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"10", "10.00", 0},
		{"010.10", "10.1", 0},
		{"9.99", "10", -1},
		{"100", "99.999", 1},
		{"0.5", ".5", 0},
		{"0", "0.00", 0},
		{"12345678901234.5", "12345678901234.49", 1},
	}
	for _, tt := range tests {
		if got := compareAmounts(parseAmount(tt.a), parseAmount(tt.b)); got != tt.want {
			t.Errorf("compare(%s, %s): got %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	for _, bad := range []string{"", ".", "-1", "1e3", "1,5", "ten", "1.2.3"} {
		if parseAmount(bad).ok {
			t.Errorf("parseAmount(%q): got ok, want not ok", bad)
		}
	}
}

// BenchmarkMatch10k matches against 10,000 exact cards, 100 prefixes, 10
// ranges, 10 patterns and 10 scenarios without a card selector.
func BenchmarkMatch10k(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("scenarios:\n")
	for i := range 10000 {
		pan := luhnComplete(fmt.Sprintf("499%012d", i))
		fmt.Fprintf(&sb, "  - id: n%d\n    match: {cardNumber: %q}\n    frictionless: {status: Y}\n", i, pan)
	}
	for i := range 100 {
		fmt.Fprintf(&sb, "  - id: p%d\n    match: {cardPrefix: \"5%03d\"}\n    frictionless: {status: Y}\n", i, i)
	}
	for i := range 10 {
		fmt.Fprintf(&sb, "  - id: r%d\n    match: {binRange: {from: \"6%d0000\", to: \"6%d9999\"}}\n    frictionless: {status: Y}\n", i, i, i)
		fmt.Fprintf(&sb, "  - id: t%d\n    match: {cardPattern: \"37%dxxxxxxxxxxxx\"}\n    frictionless: {status: Y}\n", i, i)
		fmt.Fprintf(&sb, "  - id: o%d\n    match: {challengeInd: 4, amount: \"%d.00\"}\n    frictionless: {status: Y}\n", i, i)
	}
	c, err := NewCatalogue(mustParse(b, "big.yaml", sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	req := Request{CardNumber: luhnComplete("499000000005000"), Amount: "10.00", ChallengeInd: 1}
	b.ResetTimer()
	for b.Loop() {
		if c.Match(req).ID != "n5000" {
			b.Fatal("wrong match")
		}
	}
}

// luhnComplete appends the Luhn check digit to digits.
func luhnComplete(digits string) string {
	for d := '0'; d <= '9'; d++ {
		if luhnValid(digits + string(d)) {
			return digits + string(d)
		}
	}
	return digits
}
