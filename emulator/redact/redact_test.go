package redact_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// compact forces the full path: compaction, cut values.
var compact = redact.Limits{MaxAsSent: -1}

func TestJSON(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, in, want string
		lim            redact.Limits
	}{
		{"nil stays nil", "", "", redact.Limits{}},
		{"compacts whitespace", "{ \"a\" : [ 1 , true , null ] ,\n\t\"b\" : \"two words\" }", `{"a":[1,true,null],"b":"two words"}`, compact},
		{"masks a card number", `{"card":{"cardNumber":"4000000000009003","expiryDate":"2812"}}`, `{"card":{"cardNumber":"400000******9003","expiryDate":"2812"}}`, compact},
		{"masks acctNumber and pan", `{"acctNumber":"5200000000009008","pan":"340000000009000"}`, `{"acctNumber":"520000******9008","pan":"340000*****9000"}`, compact},
		{"masks a short number whole", `{"cardNumber":"1234567890"}`, `{"cardNumber":"**********"}`, compact},
		{"masks a number value as a string", `{"cardNumber":4000000000009003}`, `{"cardNumber":"400000******9003"}`, compact},
		{"masks an escaped value whole", `{"cardNumber":"4000\u00300000000009003"}`, `{"cardNumber":"****"}`, compact},
		{"masks under an escaped name", `{"card\u004eumber":"4000000000009003"}`, `{"card\u004eumber":"400000******9003"}`, compact},
		{"masks in an array", `{"pan":["4000000000009003"]}`, `{"pan":["400000******9003"]}`, compact},
		{"leaves a value of the same text alone", `{"note":"cardNumber","x":"4000000000009004"}`, `{"note":"cardNumber","x":"4000000000009004"}`, compact},
		{"keeps spaces inside strings", `{"a":" x  y "}`, `{"a":" x  y "}`, compact},
		{"cuts a long value", `{"ua":"` + long + `"}`, `{"ua":"` + long[:10] + `…(+290 bytes)"}`, redact.Limits{MaxValue: 10, MaxAsSent: -1}},
		{"cuts a long key", `{"` + long + `":1}`, `{"` + long[:10] + `…(+290 bytes)":1}`, redact.Limits{MaxValue: 10, MaxAsSent: -1}},
		{"cuts before an escape", `{"a":"abcdefgh\u00e9xyz"}`, `{"a":"abcdefgh…(+9 bytes)"}`, redact.Limits{MaxValue: 10, MaxAsSent: -1}},
		{"cuts on a character boundary", `{"a":"abcdefghé€"}`, `{"a":"abcdefgh…(+5 bytes)"}`, redact.Limits{MaxValue: 9, MaxAsSent: -1}},
		{"turns a long number into a string", `{"a":` + strings.Repeat("9", 20) + `}`, `{"a":"9999999999…(+10 bytes)"}`, redact.Limits{MaxValue: 10, MaxAsSent: -1}},
		{"escaped quote inside a string", `{"a":"say \"hi\"","b":1}`, `{"a":"say \"hi\"","b":1}`, compact},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []byte
			if tt.in != "" {
				in = []byte(tt.in)
			}
			got := redact.JSON(in, tt.lim)
			if string(got) != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if tt.in != "" && !json.Valid(got) {
				t.Errorf("result is not JSON: %s", got)
			}
		})
	}
}

// TestJSONAsSent: a small body without escapes is kept as sent, card
// numbers masked in place; anything it cannot mask in place takes the
// full path.
func TestJSONAsSent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"masked in place, spacing kept", "{\n  \"card\": {\"cardNumber\" : \"4000000000009003\"},\n  \"pan\":\"5200 0000 0000 9008\"\n}", "{\n  \"card\": {\"cardNumber\" : \"400000******9003\"},\n  \"pan\":\"5200 00** **** 9008\"\n}"},
		{"every occurrence", `[{"cardNumber":"4000000000009003"},{"cardNumber":"4111111111111111"}]`, `[{"cardNumber":"400000******9003"},{"cardNumber":"411111******1111"}]`},
		{"the name as a value is no name", `{"note":"cardNumber","x":"4000000000009004"}`, `{"note":"cardNumber","x":"4000000000009004"}`},
		{"short: masked whole", `{"acctNumber":"123456789"}`, `{"acctNumber":"*********"}`},
		{"a number value: the full path", `{"cardNumber":4000000000009003}`, `{"cardNumber":"400000******9003"}`},
		{"an escape: the full path", `{"card\u004eumber":"4000000000009003", "a": 1}`, `{"card\u004eumber":"400000******9003","a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(redact.JSON([]byte(tt.in), redact.Limits{})); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	big := `{"cardNumber":"4000000000009003","pad":"` + strings.Repeat(" ", 5000) + `"}`
	if got := redact.JSON([]byte(big), redact.Limits{}); len(got) > 400 || strings.Contains(string(got), "4000000000009003") {
		t.Errorf("a body over MaxAsSent is compacted and cut: %d bytes", len(got))
	}
}

// TestJSONBoundsPaddedBodies: a body padded with whitespace or made of
// many members costs at most MaxBytes, and stays valid JSON.
func TestJSONBoundsPaddedBodies(t *testing.T) {
	padded := []byte(`{"cardNumber":"4000000000009003",` + strings.Repeat(" ", 64<<10) + `"a":1}`)
	if got := redact.JSON(padded, redact.Limits{}); string(got) != `{"cardNumber":"400000******9003","a":1}` {
		t.Errorf("padded body: %s", got)
	}
	var many bytes.Buffer
	many.WriteString(`{"cardNumber":"4000000000009003"`)
	for i := 0; i < 8000; i++ {
		many.WriteString(`,"k":"vvvvvvvv"`)
	}
	many.WriteString("}")
	got := redact.JSON(many.Bytes(), redact.Limits{MaxBytes: 4096})
	if len(got) > 4096 || !json.Valid(got) {
		t.Fatalf("many members: %d bytes, valid %v", len(got), json.Valid(got))
	}
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("a cut body is one JSON string: %v", err)
	}
	if !strings.Contains(s, "400000******9003") || strings.Contains(s, "4000000000009003") || !strings.HasSuffix(s, "(cut: the body had "+itoa(many.Len())+" bytes)") {
		t.Errorf("cut body: %.200s … %s", s, s[len(s)-60:])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzJSON: any body gives a result within the bound, valid JSON when the
// body was, and no card number of a valid body survives unmasked (FuzzSpec
// compares the results with the package's specification).
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"card":{"cardNumber":"4000000000009003"}}`, `{"a":[1,2,{"b":"c"}]}`, `"x"`, `[`, `{"a":"\`, `{"pan":12345678901234}`,
		`{"a":"` + strings.Repeat("é", 200) + `"}`, "{\"a\":\"\\u00e9\\\"\"}", `nul`, `{"cardNumber":{"x":"4000000000009003"}}`,
	} {
		f.Add([]byte(s), 16)
	}
	f.Fuzz(func(t *testing.T, body []byte, maxValue int) {
		lim := redact.Limits{MaxValue: maxValue%300 + 1, MaxBytes: 512, MaxAsSent: 256 - maxValue%512}
		got := redact.JSON(body, lim)
		if len(got) > lim.MaxBytes {
			t.Fatalf("%d bytes, over the bound", len(got))
		}
		if !json.Valid(body) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("valid body %q gave invalid %q", body, got)
		}
		var v any
		_ = json.Unmarshal(body, &v)
		for _, pan := range cardNumbers(v, false) {
			if len(pan) >= 11 && bytes.Contains(got, []byte(pan)) && strings.Trim(pan, "0123456789") == "" {
				t.Fatalf("card number %s kept in %s", pan, got)
			}
		}
	})
}

// cardNumbers collects the values of card-number members.
func cardNumbers(v any, under bool) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			out = append(out, cardNumbers(val, k == "cardNumber" || k == "acctNumber" || k == "pan")...)
		}
	case []any:
		for _, val := range x {
			out = append(out, cardNumbers(val, false)...)
		}
	case string:
		if under {
			out = append(out, x)
		}
	}
	return out
}

func BenchmarkJSON(b *testing.B) {
	body := []byte(`{"externalReferenceId":"ORD-1","card":{"cardNumber":"4000000000009003","expiryDate":"2812","cardholderName":"Jane Doe"},` +
		`"browserInfo":{"acceptHeader":"text/html,application/xhtml+xml","userAgent":"` + strings.Repeat("Mozilla/5.0 ", 20) + `","language":"en-GB"},` +
		`"purchase":{"amount":"10.99","currencyCode":"EUR","date":"2024-06-11 10:00:00"}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		redact.JSON(body, redact.Limits{})
	}
}

// BenchmarkLookupBody redacts the realistic lookup of the wire testdata:
// 2.8 KB, pretty-printed, what every lookup event redacts.
func BenchmarkLookupBody(b *testing.B) {
	body := testkit.LookupJSON()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		redact.JSON(body, redact.Limits{})
	}
}
