package redact_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestSpec compares the package with the oracle on the examples' bodies,
// bodies of card numbers in every place, and random ones under random
// limits; and Text with the oracle's masking on random text. The random
// bodies do take each path, and do hold card numbers.
func TestSpec(t *testing.T) {
	bodies := [][]byte{
		examples.Lookup(), examples.ChallengeLookup(), examples.DDC(), examples.Enquiry(),
		bytes.Replace(examples.Lookup(), []byte(`"merchantName"`),
			[]byte(`"card_number": "4111 1111 1111 1111", "memo": "card 5200000000009008 on file", "merchantName"`), 1),
	}
	for _, s := range []string{
		`{"card":{"cardNumber":"4000000000009003","expiryDate":"2812"}}`, `{"acctNumber":"5200000000009008","pan":"340000000009000"}`,
		`{"cardNumber":4000000000009003}`, `{"cardNumber":"1234567890"}`, `{"cardNumber":"4000 0000 0000 9003x"}`, `{"pan":true}`,
		`{"pan":{"pan":"4000000000009003","n":1}}`, `{"note":"cardNumber","x":"4000000000009004"}`, `{"4000-0000-0000-9003":1}`,
		`{"n":"4000 0000 0000 9003 1228"}`, `{"id":"8a880dc0-4000-0000-0000-9003abcdef12"}`, `[1, 4000000000009003, 2]`,
		`{"n":"400000000000900312345678901234"}`, `"1234 4000 0000 0000 9003"`, `{"a":"é4000000000009003€"}`, `4000000000009003`,
	} {
		bodies = append(bodies, []byte(s))
	}
	limits := []redact.Limits{{}, {MaxAsSent: -1}, {MaxValue: 16, MaxAsSent: -1}, {MaxValue: 7}, {MaxBytes: 200}, {MaxBytes: 64, MaxAsSent: -1}}
	for _, body := range bodies {
		for _, lim := range limits {
			if !matchSpec(t, body, lim) {
				t.Errorf("the oracle does not speak of %q", body)
			}
		}
	}

	rng := rand.New(rand.NewPCG(27, 2025))
	n := 3000
	if testkit.Race {
		n = 600 // ten times slower, and a race needs no variety
	}
	var masked, asSent, cut, texts int
	for range n {
		data := make([]byte, 50+rng.IntN(400))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		body, lim := specCase(data)
		if !matchSpec(t, body, lim) {
			t.Fatalf("the oracle does not speak of the random body %q", body)
		}
		got := redact.JSON(body, lim)
		switch {
		case len(got) == len(body) && !bytes.Equal(got, body):
			asSent++
		case bytes.Contains(got, []byte("(cut: the body had")):
			cut++
		}
		if bytes.Contains(got, []byte("****")) || bytes.Contains(got, []byte("**-")) || bytes.Contains(got, []byte("** ")) {
			masked++
		}
		text := specText(&choices{data: data})
		if got, want := redact.Text(string(text)), string(specMask(text)); got != want {
			t.Fatalf("Text(%q)\n got %q\nwant %q", text, got, want)
		}
		if !bytes.Equal(text, specMask(text)) {
			texts++
		}
	}
	if masked < n/4 || asSent < n/20 || cut < n/20 || texts < n/4 {
		t.Errorf("of %d random bodies %d hold masked card numbers, %d were masked as sent, %d cut whole; %d of the texts hold card numbers",
			n, masked, asSent, cut, texts)
	}
}

// FuzzSpec compares the package with the oracle on the random body and
// limits made of the fuzzer's bytes (see specCase).
func FuzzSpec(f *testing.F) {
	for _, seed := range []string{"", "\x00\x01\x02", "cardNumber 4000000000009003", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body, lim := specCase(data)
		if !matchSpec(t, body, lim) {
			t.Fatalf("the oracle does not speak of %q", body)
		}
	})
}

// matchSpec checks JSON against the oracle, and that it leaves its input
// alone; false when the oracle does not speak of body.
func matchSpec(t *testing.T, body []byte, lim redact.Limits) bool {
	t.Helper()
	if lim.NoPAN && bytes.Contains(body, []byte(`"pan"`)) {
		lim.NoPAN = false // not what the caller promises
	}
	want, ok := specJSON(body, lim)
	if !ok {
		return false
	}
	in := bytes.Clone(body)
	if got := redact.JSON(in, lim); !bytes.Equal(got, want) {
		t.Fatalf("JSON(%q, %+v)\n got %q\nwant %q", body, lim, got, want)
	}
	if !bytes.Equal(in, body) {
		t.Fatalf("JSON(%q) changed its input to %q", body, in)
	}
	return true
}

// choices reads the fuzzer's bytes as a series of choices: 0 once they
// run out, so that every input makes a body.
type choices struct{ data []byte }

// of returns a choice in [0, n).
func (c *choices) of(n int) int {
	if len(c.data) == 0 {
		return 0
	}
	v := int(c.data[0]) % n
	c.data = c.data[1:]
	return v
}

// specCase makes a JSON body the oracle speaks of, and limits, from data.
func specCase(data []byte) ([]byte, redact.Limits) {
	c := &choices{data: data}
	lim := redact.Limits{NoPAN: c.of(4) == 0}
	switch c.of(3) {
	case 1:
		lim.MaxValue = 1 + c.of(40)
	case 2:
		lim.MaxValue = 1 + c.of(256)
	}
	switch c.of(3) {
	case 1:
		lim.MaxBytes = 40 + c.of(100)
	case 2:
		lim.MaxBytes = 8 * c.of(80)
	}
	switch c.of(4) {
	case 1:
		lim.MaxAsSent = -1
	case 2:
		lim.MaxAsSent = 8 * c.of(90)
	}
	var body []byte
	specValue(c, &body, 3, false)
	return body, lim
}

// specValue appends a JSON value, spaced at random; under a card-number
// name never an array.
func specValue(c *choices, b *[]byte, depth int, underName bool) {
	specSpaces(c, b)
	switch k := c.of(12); {
	case k < 3 && depth > 0:
		*b = append(*b, '{')
		for i := range c.of(6) {
			if i > 0 {
				*b = append(*b, ',')
			}
			specSpaces(c, b)
			names := []string{"cardNumber", "acctNumber", "pan", "card_number", "PAN", "note"}
			name := string(specText(c))
			if c.of(2) == 0 {
				name = names[c.of(len(names))]
			}
			*b = append(append(append(*b, '"'), name...), '"')
			specSpaces(c, b)
			*b = append(*b, ':')
			specValue(c, b, depth-1, specIsCardName(name))
		}
		specSpaces(c, b)
		*b = append(*b, '}')
	case k < 4 && depth > 0 && !underName:
		*b = append(*b, '[')
		for i := range c.of(5) {
			if i > 0 {
				*b = append(*b, ',')
			}
			specValue(c, b, depth-1, false)
		}
		*b = append(*b, ']')
	case k < 6: // a number: digits, a card number or a near miss
		if c.of(4) == 0 {
			*b = append(*b, '-')
		}
		switch c.of(3) {
		case 0:
			*b = append(*b, specCardNumber(c, 12+c.of(9), c.of(3) == 0)...)
		default:
			*b = append(*b, '1'+byte(c.of(9)))
			*b = append(*b, specDigits(c, c.of(22))...)
		}
		if c.of(5) == 0 {
			*b = append(append(*b, '.'), specDigits(c, 1+c.of(4))...)
		}
		if c.of(6) == 0 {
			*b = append(append(*b, "eE"[c.of(2)], "+-"[c.of(2)]), specDigits(c, 1+c.of(2))...)
		}
	case k < 7:
		*b = append(*b, []string{"true", "false", "null"}[c.of(3)]...)
	default:
		*b = append(append(append(*b, '"'), specText(c)...), '"')
	}
	specSpaces(c, b)
}

// specSpaces appends JSON's whitespace, or none.
func specSpaces(c *choices, b *[]byte) {
	if c.of(3) == 0 {
		*b = append(*b, []string{" ", "\n  ", "\t", "\r\n", "    "}[c.of(5)]...)
	}
}

// specText is the content of a string, without a quote, a backslash or a
// control character: card numbers and near misses of 12 to 20 digits,
// whole or grouped, UUIDs, digits, separators, stars, letters, unicode.
func specText(c *choices) []byte {
	var b []byte
	for range c.of(8) {
		switch c.of(10) {
		case 0, 1:
			b = specGrouped(c, b, specCardNumber(c, 12+c.of(9), false))
		case 2:
			b = specGrouped(c, b, specCardNumber(c, 13+c.of(7), true))
		case 3:
			b = append(b, specDigits(c, 1+c.of(22))...)
		case 4: // a UUID, with a card number's digits in its middle groups or not
			digits := specCardNumber(c, 16, false)
			uuid := "8a880dc0-" + digits[0:4] + "-" + digits[4:8] + "-" + digits[8:12] + "-" + digits[12:16] + "abcdef12"
			if c.of(2) == 0 {
				uuid = "123e4567-e89b-12d3-a456-4266141740" + string(specDigits(c, 2))
			}
			b = append(b, uuid...)
		case 5:
			b = append(b, []string{" ", "-", "  ", "--", " -", "*", "**"}[c.of(7)]...)
		default:
			b = append(b, []string{"card", "x", "é", "€", "𝄞", "ab", "cardNumber", "Number", ":", "{", ",", "f"}[c.of(12)]...)
		}
	}
	return b
}

// specGrouped appends digits whole, in groups of four, or in groups of
// any length, each group after the first after a space or a dash.
func specGrouped(c *choices, b []byte, digits string) []byte {
	size := []int{len(digits), 4, 1 + c.of(6)}[c.of(3)]
	for i := 0; i < len(digits); i += size {
		if i > 0 {
			b = append(b, " -"[c.of(2)])
		}
		b = append(b, digits[i:min(i+size, len(digits))]...)
	}
	return b
}

func specDigits(c *choices, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0' + byte(c.of(10))
	}
	return b
}

// specCardNumber returns n digits that pass the Luhn check, or with
// nearMiss the check digit off by one; the first is not 0, so that they
// make a JSON number too.
func specCardNumber(c *choices, n int, nearMiss bool) string {
	body := string(rune('1'+c.of(9))) + string(specDigits(c, n-2))
	for d := range 10 {
		if s := body + strconv.Itoa(d); luhnValid(s) {
			if nearMiss {
				return body + strconv.Itoa((d+1)%10)
			}
			return s
		}
	}
	panic("no check digit")
}
