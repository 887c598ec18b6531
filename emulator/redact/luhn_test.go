package redact_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestCardNumbersUnderAnyName: a card number is masked whatever its name
// and wherever it stands (the names an attack found kept in clear among
// them), on the cheap path and on the full one alike; digits that are no
// card number stay as they are.
func TestCardNumbersUnderAnyName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"snake case", `{"card":{"card_number":"4000000000009003"}}`, `{"card":{"card_number":"400000******9003"}}`},
		{"another case", `{"card":{"CardNumber":"4000000000009003"}}`, `{"card":{"CardNumber":"400000******9003"}}`},
		{"upper case", `{"PAN":"5200000000009008"}`, `{"PAN":"520000******9008"}`},
		{"another name", `{"accountNumber":"4111111111111111"}`, `{"accountNumber":"411111******1111"}`},
		{"an enquiry's unknown field", `{"threeDsServerTransId":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e","x":"371449635398431"}`,
			`{"threeDsServerTransId":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e","x":"371449*****8431"}`},
		{"inside a string", `{"note":"card 4000000000009003 declined"}`, `{"note":"card 400000******9003 declined"}`},
		{"as a key", `{"4000000000009003":true}`, `{"400000******9003":true}`},
		{"deep in arrays", `{"a":[[{"b":["x",{"c":"4000000000009003"}]}]]}`, `{"a":[[{"b":["x",{"c":"400000******9003"}]}]]}`},
		{"in groups of four", `{"n":"4000 0000 0000 9003"}`, `{"n":"4000 00** **** 9003"}`},
		{"with dashes", `{"n":"4000-0000-0000-9003"}`, `{"n":"4000-00**-****-9003"}`},
		{"followed by an expiry date", `{"n":"4000 0000 0000 9003 1228"}`, `{"n":"4000 00** **** 9003 1228"}`},
		{"13 digits", `{"n":"4222222222222"}`, `{"n":"422222***2222"}`},
		{"19 digits", `{"n":"6011000000000000001"}`, `{"n":"601100*********0001"}`},
		{"two in one string", `{"n":"4000000000009003,5200000000009008"}`, `{"n":"400000******9003,520000******9008"}`},
		{"not Luhn", `{"n":"4000000000009004"}`, `{"n":"4000000000009004"}`},
		{"12 digits", `{"n":"400000000006"}`, `{"n":"400000000006"}`},
		{"20 digits without separators", `{"n":"40000000000090031234"}`, `{"n":"40000000000090031234"}`},
		{"a date", `{"date":"2024-06-11 10:00:00","ts":"20240611100000"}`, `{"date":"2024-06-11 10:00:00","ts":"20240611100000"}`},
		{"a UUID", `{"id":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`, `{"id":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`},
		{"a UUID whose digits pass the Luhn check", `{"id":"8a880dc0-4000-0000-0000-9003abcdef12"}`, `{"id":"8a880dc0-4000-0000-0000-9003abcdef12"}`},
		{"a card number beside a UUID", `{"n":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e 4000000000009003"}`, `{"n":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e 400000******9003"}`},
		{"dashed groups that are no UUID", `{"n":"ab-4000-0000-0000-9003-12"}`, `{"n":"ab-4000-00**-****-9003-12"}`},
		{"two spaces split it", `{"n":"4000  0000  0000  9003"}`, `{"n":"4000  0000  0000  9003"}`},
	}
	for _, tt := range tests {
		for _, path := range []struct {
			name string
			lim  redact.Limits
		}{{"as sent", redact.Limits{}}, {"compacted", compact}} {
			t.Run(tt.name+"/"+path.name, func(t *testing.T) {
				if got := string(redact.JSON([]byte(tt.in), path.lim)); got != tt.want {
					t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
				}
			})
		}
	}
}

// TestCardNumbersThePathsMiss: what only the full path can mask: a card
// number as a JSON number (it becomes a string), one written with
// escapes, one that a long value's cut leaves, and one in a body too large
// to keep, cut whole.
func TestCardNumbersThePathsMiss(t *testing.T) {
	tests := []struct {
		name, in, want string
		lim            redact.Limits
	}{
		{"a number", `{"amount":4000000000009003}`, `{"amount":"400000******9003"}`, redact.Limits{}},
		{"a number in an array", `[1, 4000000000009003, 2]`, `[1,"400000******9003",2]`, redact.Limits{}},
		{"written with escapes", `{"n":"\u0034000000000009003"}`, `{"n":"400000******9003"}`, redact.Limits{}},
		{"an escaped key", `{"\u0034000000000009003":1}`, `{"400000******9003":1}`, redact.Limits{}},
		{"the head of a cut value", `{"n":"400000000000900312345678901234"}`, `{"n":"400000******9003…(+14 bytes)"}`,
			redact.Limits{MaxValue: 16, MaxAsSent: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(redact.JSON([]byte(tt.in), tt.lim)); got != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
	var big bytes.Buffer
	big.WriteString(`{"a":"`)
	for big.Len() < 600 {
		big.WriteString("card 4111-1111-1111-1111 ")
	}
	big.WriteString(`"}`)
	got := redact.JSON(big.Bytes(), redact.Limits{MaxBytes: 256})
	if len(got) > 256 || holdsCardNumber(string(got)) {
		t.Errorf("a body cut whole: %d bytes, or a card number kept:\n%s", len(got), got)
	}
}

// holdsCardNumber tells whether s holds a card number as the package's
// specification reads it (spec_test.go): its masking would change it.
func holdsCardNumber(s string) bool { return string(specMask([]byte(s))) != s }

func luhnValid(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// FuzzCardNumbers: whatever the body and the limits, no card number (a
// run of 13 to 19 digits that passes the Luhn check) survives in the
// result, as written or, when the result is JSON, as read: in keys,
// strings and numbers at any depth. The bounds of FuzzJSON hold too.
func FuzzCardNumbers(f *testing.F) {
	for _, s := range []string{
		`{"card_number":"4000000000009003"}`, `{"note":"card 4000 0000 0000 9003 exp 12/28"}`, `[4000000000009003]`,
		`{"4000-0000-0000-9003":1}`, `{"n":"\u00340000000000009003"}`, `"1234 4000 0000 0000 9003"`, `{"a":"x` + "\x19" + `4000000000009003"}`,
		`{"n":"400000000000900312345678901234"}`, `4000000000009003`, `{"a":"1234567 4000 0000 0000 9003"}`,
	} {
		f.Add([]byte(s), 16)
	}
	f.Fuzz(func(t *testing.T, body []byte, maxValue int) {
		lim := redact.Limits{MaxValue: maxValue%300 + 1, MaxBytes: 512, MaxAsSent: 256 - maxValue%512}
		got := redact.JSON(body, lim)
		if len(got) > lim.MaxBytes {
			t.Fatalf("%d bytes, over the bound", len(got))
		}
		if holdsCardNumber(string(got)) {
			t.Fatalf("a card number kept in %s", got)
		}
		if !json.Valid(got) {
			if json.Valid(body) {
				t.Fatalf("valid body %q gave invalid %q", body, got)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(got))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, s := range textsOf(v) {
			if holdsCardNumber(s) {
				t.Fatalf("a card number kept in %q of %s", s, got)
			}
		}
	})
}

// textsOf lists every key, string and number of a decoded JSON value.
func textsOf(v any) []string {
	switch x := v.(type) {
	case map[string]any:
		var out []string
		for k, val := range x {
			out = append(append(out, k), textsOf(val)...)
		}
		return out
	case []any:
		var out []string
		for _, val := range x {
			out = append(out, textsOf(val)...)
		}
		return out
	case string:
		return []string{x}
	case json.Number:
		return []string{x.String()}
	}
	return nil
}

// BenchmarkCardNumbers redacts the realistic lookup with its card number
// also under another name, spaced, inside a string: the cost of finding
// card numbers by the Luhn check, beside BenchmarkLookupBody.
func BenchmarkCardNumbers(b *testing.B) {
	body := bytes.Replace(testkit.LookupJSON(), []byte(`"merchantName"`),
		[]byte(`"card_number": "4111 1111 1111 1111", "memo": "card 5200000000009008 on file", "merchantName"`), 1)
	if !strings.Contains(string(body), "card_number") {
		b.Fatal("the lookup has no merchantName to put the card numbers before")
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		redact.JSON(body, redact.Limits{})
	}
}
