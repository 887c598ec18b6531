package redact

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// The differential tests: the package gives exactly what its reference
// (reference_redact_test.go, reference_luhn_test.go) gives, for the
// bodies of the tests and the examples and for random ones made of what
// the search for card numbers may trip over: card numbers and near misses
// of 12 to 20 digits, spaced or dashed, escapes, unicode, card-number
// members, JSON's punctuation and whitespace.

// referenceLimits are the limits every body is redacted under: the
// defaults (kept as sent), compacted, values cut short, a small whole.
var referenceLimits = []Limits{
	{},
	{MaxAsSent: -1},
	{MaxValue: 16, MaxAsSent: -1},
	{MaxValue: 7},
	{MaxBytes: 200},
	{MaxBytes: 64, MaxAsSent: -1},
}

// TestMatchesReference: JSON and the searches it is made of give what the
// reference gives, byte for byte.
func TestMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2025))
	bodies, random := referenceBodies(), 4000
	if testkit.Race {
		random = 800 // ten times slower, and a race needs no variety
	}
	for range random {
		bodies = append(bodies, randomText(rng), randomJSON(rng))
	}
	for _, body := range bodies {
		for _, lim := range referenceLimits {
			matchReference(t, body, lim)
		}
		lim := Limits{MaxValue: 1 + rng.IntN(40), MaxBytes: 64 + rng.IntN(600), MaxAsSent: rng.IntN(700) - 100}
		matchReference(t, body, lim)
		matchReferenceSearch(t, body)
	}
}

// FuzzSearch: the searches for card numbers give what the reference's
// give, on any bytes.
func FuzzSearch(f *testing.F) {
	for _, b := range referenceBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		matchReferenceSearch(t, body)
		matchReference(t, body, Limits{})
	})
}

// matchReference checks JSON against refJSON under lim.
func matchReference(t *testing.T, body []byte, lim Limits) {
	t.Helper()
	in := bytes.Clone(body)
	got, want := JSON(in, lim), refJSON(body, lim)
	if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("JSON(%q, %+v)\n got %q\nwant %q", body, lim, got, want)
	}
	if !bytes.Equal(in, body) {
		t.Fatalf("JSON(%q) changed its input to %q", body, in)
	}
}

// matchReferenceSearch checks the searches for card numbers, and the
// cheap path they serve, against the reference's, on body as it is.
func matchReferenceSearch(t *testing.T, body []byte) {
	t.Helper()
	got, want := bytes.Clone(body), bytes.Clone(body)
	if g, w := maskCardNumbers(got), refMaskCardNumbers(want); g != w || !bytes.Equal(got, want) {
		t.Fatalf("maskCardNumbers(%q) = %v, %q; the reference %v, %q", body, g, got, w, want)
	}
	if g, w := hasCardNumber(body), refHasCardNumber(body); g != w {
		t.Fatalf("hasCardNumber(%q) = %v; the reference %v", body, g, w)
	}
	got, want = bytes.Clone(body), bytes.Clone(body)
	if g, w := maskInStrings(got), refMaskInStrings(want); g != w || !bytes.Equal(got, want) {
		t.Fatalf("maskInStrings(%q) = %v, %q; the reference %v, %q", body, g, got, w, want)
	}
	out, ok := asSent(body, len(body), false)
	refOut, refOK := refAsSent(body, len(body))
	if ok != refOK || !bytes.Equal(out, refOut) {
		t.Fatalf("asSent(%q) = %q, %v; the reference %q, %v", body, out, ok, refOut, refOK)
	}
	// A body without the name pan (its decoder saw no such member) is
	// masked the same without looking for one.
	if !bytes.Contains(body, []byte(`pan"`)) {
		if noPAN, ok2 := asSent(body, len(body), true); ok2 != ok || !bytes.Equal(noPAN, out) {
			t.Fatalf("asSent(%q) with NoPAN = %q, %v; without %q, %v", body, noPAN, ok2, out, ok)
		}
	}
}

// referenceBodies are the bodies of the package's tests and the examples,
// and the tricky cases of the search for card numbers.
func referenceBodies() [][]byte {
	bodies := [][]byte{
		examples.Lookup(), examples.ChallengeLookup(), examples.DDC(), examples.Enquiry(),
		bytes.Replace(examples.Lookup(), []byte(`"merchantName"`),
			[]byte(`"card_number": "4111 1111 1111 1111", "memo": "card 5200000000009008 on file", "merchantName"`), 1),
	}
	for _, s := range []string{
		`{"card":{"cardNumber":"4000000000009003","expiryDate":"2812"}}`,
		`{"acctNumber":"5200000000009008","pan":"340000000009000"}`, `{"cardNumber":"1234567890"}`,
		`{"cardNumber":4000000000009003}`, `{"cardNumber":"4000\u00300000000009003"}`, `{"card\u004eumber":"4000000000009003"}`,
		`{"pan":["4000000000009003"]}`, `{"note":"cardNumber","x":"4000000000009004"}`, `{"a":"say \"hi\"","b":1}`,
		"{\n  \"card\": {\"cardNumber\" : \"4000000000009003\"},\n  \"pan\":\"5200 0000 0000 9008\"\n}",
		`[{"cardNumber":"4000000000009003"},{"cardNumber":"4111111111111111"}]`, `{"acctNumber":"123456789"}`,
		`{"card_number":"4000000000009003"}`, `{"note":"card 4000 0000 0000 9003 exp 12/28"}`, `[4000000000009003]`,
		`{"4000-0000-0000-9003":1}`, `{"n":"\u00340000000000009003"}`, `"1234 4000 0000 0000 9003"`,
		`{"a":"x` + "\x19" + `4000000000009003"}`, `{"n":"400000000000900312345678901234"}`, `4000000000009003`,
		`{"a":"1234567 4000 0000 0000 9003"}`, `{"n":"4000 0000 0000 9003 1228"}`, `{"n":"4222222222222"}`,
		`{"n":"6011000000000000001"}`, `{"n":"4000000000009003,5200000000009008"}`, `{"n":"400000000006"}`,
		`{"n":"40000000000090031234"}`, `{"date":"2024-06-11 10:00:00","ts":"20240611100000"}`,
		`{"id":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`, `{"n":"4000  0000  0000  9003"}`,
		`{"amount":4000000000009003}`, `[1, 4000000000009003, 2]`, `{"\u0034000000000009003":1}`,
		"0000 0000089003", `{"pan":"4000000000009003 4111111111111111"}`, `{"pan": 12345678901234}`,
		`{"pan":"x"} 4000000000009003`, `"pan": "4000000000009003"`, `"cardNumber"  :  "4000-0000-0000-9003"`,
		`{"a":"é4000000000009003€","b":"𝄞 4000 0000 0000 9003 𝄞"}`, "{\"a\":\"\xff4000000000009003\xfe\"}",
		`4000000000009003 4000000000009003`, `1 2 3 4 5 6 7 8 9 0 1 2 3`, `-4000000000009003-`, ` 4000000000009003 `,
		`{"a":"-1-2-3-4-5-6-7-8-9-0-1-2-3-"}`,
	} {
		bodies = append(bodies, []byte(s))
	}
	return bodies
}

// randomText is a string of pieces that trip the search for card numbers,
// glued together in any order: not JSON as a rule.
func randomText(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(40) {
		b = appendPiece(b, rng, 12)
	}
	return b
}

// plainText is made of the pieces that JSON writes without escapes.
func plainText(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(12) {
		b = appendPiece(b, rng, 5)
	}
	return b
}

// randomJSON is a JSON body of members whose names and values are such
// pieces, compact or indented.
func randomJSON(rng *rand.Rand) []byte {
	v := randomValue(rng, 3)
	var b []byte
	if rng.IntN(2) == 0 {
		b, _ = json.MarshalIndent(v, "", strings.Repeat(" ", rng.IntN(5)))
	} else {
		b, _ = json.Marshal(v)
	}
	if rng.IntN(3) == 0 { // the escapes of html, written as sent
		b = bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
	}
	return b
}

func randomValue(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(10); {
	case n < 3 && depth > 0:
		m := map[string]any{}
		for range rng.IntN(6) {
			m[randomName(rng)] = randomValue(rng, depth-1)
		}
		return m
	case n < 4 && depth > 0:
		var a []any
		for range rng.IntN(5) {
			a = append(a, randomValue(rng, depth-1))
		}
		return a
	case n < 6:
		return json.Number(digits(rng, 1+rng.IntN(21)))
	case n < 7:
		return rng.IntN(2) == 0
	case n < 8:
		return string(randomText(rng))
	default:
		return string(plainText(rng))
	}
}

func randomName(rng *rand.Rand) string {
	names := []string{"cardNumber", "acctNumber", "pan", "card_number", "note", "PAN", "Number", "pan ", ""}
	if rng.IntN(2) == 0 {
		return names[rng.IntN(len(names))]
	}
	return string(plainText(rng))
}

// appendPiece appends one piece: a card number or a near miss, a run of
// digits of a length around the bounds, separators, whitespace, or of
// kinds 5 and more (kinds bounds them) escapes, unicode, card-number
// names, JSON's punctuation, literals.
func appendPiece(b []byte, rng *rand.Rand, kinds int) []byte {
	switch rng.IntN(kinds) {
	case 0, 1: // a card number of 12 to 20 digits, spaced or not
		n := []int{12, 13, 14, 15, 16, 19, 20}[rng.IntN(7)]
		return appendGrouped(b, rng, cardNumber(rng, n))
	case 2: // a near miss: the check digit off by one
		pan := []byte(cardNumber(rng, 13+rng.IntN(7)))
		pan[len(pan)-1] = '0' + (pan[len(pan)-1]-'0'+1)%10
		return appendGrouped(b, rng, string(pan))
	case 3:
		return append(b, digits(rng, 1+rng.IntN(22))...)
	case 4:
		return append(b, []string{" ", "-", "  ", "--", " -", "- ", "*", "**", "x", "é"}[rng.IntN(10)]...)
	case 11:
		return append(b, strings.Repeat(" ", rng.IntN(20))...)
	case 5:
		return append(b, []string{`\"`, `\\`, `\u0034`, `\u00`, `\n`, `\`, `\u0030\u0030`, `\/`}[rng.IntN(8)]...)
	case 6:
		return append(b, []string{"é", "€", "𝄞", "\xff", "\xe2\x82", "\x00", "\x19", "\t", "\n"}[rng.IntN(9)]...)
	case 7:
		return append(b, []string{`"cardNumber"`, `"acctNumber"`, `"pan"`, `Number"`, `pan"`, `"card`, `:`, ` : `}[rng.IntN(8)]...)
	case 8:
		return append(b, []string{`"`, `{`, `}`, `[`, `]`, `,`, `:`, `":"`, `","`}[rng.IntN(9)]...)
	default:
		return append(b, []string{"true", "null", "1.5e3", "-7", "card", "x"}[rng.IntN(6)]...)
	}
}

// appendGrouped appends digits whole, in groups of four, or in groups of
// any length, each group after the first following a space or a dash.
func appendGrouped(b []byte, rng *rand.Rand, digits string) []byte {
	size := []int{len(digits), 4, 1 + rng.IntN(6)}[rng.IntN(3)]
	for i := 0; i < len(digits); i += size {
		if i > 0 {
			b = append(b, " -"[rng.IntN(2)])
		}
		b = append(b, digits[i:min(i+size, len(digits))]...)
	}
	return b
}

func digits(rng *rand.Rand, n int) string {
	var s strings.Builder
	for range n {
		s.WriteByte('0' + byte(rng.IntN(10)))
	}
	return s.String()
}

// cardNumber returns n digits that pass the Luhn check.
func cardNumber(rng *rand.Rand, n int) string {
	body := digits(rng, n-1)
	for d := range 10 {
		if s := body + strconv.Itoa(d); refLuhn([]byte(s)) {
			return s
		}
	}
	panic("no check digit")
}

// TestRandomBodiesHoldCardNumbers: the random bodies do hold card
// numbers, spaced or dashed too, and the JSON ones take the cheap path,
// so that the differential tests compare maskings, not bodies left alone.
func TestRandomBodiesHoldCardNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2025))
	masked, grouped, asSentMasked := 0, 0, 0
	for range 1000 {
		text := randomText(rng)
		b := bytes.Clone(text)
		if refMaskCardNumbers(b) {
			masked++
			first := bytes.IndexFunc(b, func(r rune) bool { return r == '*' })
			last := bytes.LastIndexByte(b, '*')
			if bytes.ContainsAny(b[first:last], " -") && !bytes.ContainsAny(text[first:last], "*") {
				grouped++
			}
		}
		body := randomJSON(rng)
		if out, ok := refAsSent(body, len(body)); ok && !bytes.Equal(out, body) {
			asSentMasked++
		}
	}
	if masked < 300 || grouped < 50 || asSentMasked < 100 {
		t.Errorf("of 1000 random texts %d hold card numbers, %d of them spaced; of 1000 JSON bodies %d masked as sent",
			masked, grouped, asSentMasked)
	}
}
