package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// TestMalformedBodies: a body that is not one JSON object is a 101 whose
// message says what is wrong and whose detail names the byte where the
// reading stopped.
func TestMalformedBodies(t *testing.T) {
	tests := []struct {
		name, body string
		offset     int
		msg        string // what the message holds
	}{
		{"empty", ``, 0, "empty body, want a JSON object"},
		{"white space", " \n\t", 3, "empty body, want a JSON object"},
		{"an array", ` [1]`, 1, "body is a JSON array, want a JSON object"},
		{"a string", `"x"`, 0, "body is a JSON string, want a JSON object"},
		{"a number", `-1`, 0, "body is a JSON number, want a JSON object"},
		{"null", `null`, 0, "body is a JSON null, want a JSON object"},
		{"not JSON", `x`, 0, "invalid character 'x'"},
		{"cut short", `{"card":`, 8, "unexpected end of body"},
		{"cut in a string", `{"a":"abc`, 9, "unexpected end of body"},
		{"trailing data", `{} {}`, 3, "unexpected data after the JSON object"},
		{"a missing comma", `{"a":1 "b":2}`, 7, "invalid character '\"'"},
		{"a key that is no string", `{1:2}`, 1, "object member name must be a string"},
		{"a leading zero", `{"a":01}`, 6, "invalid character '1'"},
		{"a bad escape", `{"a":"\q"}`, 6, "invalid escape sequence `\\q` in string"},
		{"a raw control character", "{\"a\":\"\x01\"}", 6, "invalid character '\\x01' in string"},
		{"invalid UTF-8 in a string", "{\"a\":\"ab\xff\"}", 8, "string is not valid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xc3\":1}", 2, "string is not valid UTF-8"},
		{"invalid UTF-8 before an error", "{\"a\":\"\xff\", x}", 6, "string is not valid UTF-8"},
		{"nested too deep", `{"a":` + strings.Repeat(`[`, maxDepth) + strings.Repeat(`]`, maxDepth) + `}`, 5 + maxDepth - 1,
			fmt.Sprintf("JSON nested deeper than %d levels", maxDepth)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, decode := range map[string]func([]byte) error{
				"lookup":  func(b []byte) error { _, _, err := DecodeLookup(b); return err },
				"enquiry": func(b []byte) error { _, _, err := DecodeEnquiry(b); return err },
				"ddc":     func(b []byte) error { _, _, err := DecodeDDC(b); return err },
			} {
				e := asError(t, decode([]byte(tt.body)))
				detail := fmt.Sprintf("body, byte offset %d", tt.offset)
				if e.Code != emv.CodeMalformedJSON || e.EMVCode != "101" || e.Detail != detail || !strings.Contains(e.Message, tt.msg) ||
					!strings.HasPrefix(e.Message, "request body is not a valid JSON object: ") {
					t.Errorf("%s: %s/%s %q: %q, want %s/101 %q: %q", name, e.Code, e.EMVCode, e.Detail, e.Message,
						emv.CodeMalformedJSON, detail, tt.msg)
				}
			}
		})
	}
}

// TestDepthBound: a body nested maxDepth levels deep is read, one level
// more is a 101.
func TestDepthBound(t *testing.T) {
	nest := func(levels int) []byte { // the body and levels-1 arrays in it
		return []byte(`{"externalReferenceId":"R","x":` + strings.Repeat(`[`, levels-1) + strings.Repeat(`]`, levels-1) + `}`)
	}
	if _, _, err := DecodeEnquiry(nest(maxDepth)); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
	if e := asError(t, func() error { _, _, err := DecodeEnquiry(nest(maxDepth + 1)); return err }()); e.EMVCode != "101" {
		t.Errorf("%d levels: %+v, want a 101", maxDepth+1, e)
	}
}

// TestTextAsSent: strings are decoded as JSON writes them, escapes
// included, and numbers are kept as written.
func TestTextAsSent(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d\u0041\u00e9\ud83d\ude00"`, "a\"b\\c/dAé😀"},
		{`"Zoë 日本"`, "Zoë 日本"},
	}
	for _, tt := range tests {
		r, _, err := DecodeEnquiry([]byte(`{"externalReferenceId":` + tt.raw + `}`))
		if err != nil || r.ExternalReferenceID != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.raw, r.ExternalReferenceID, err, tt.want)
		}
	}
}

// TestDuplicatesInUnknownValues: a key sent twice is a 204 wherever it
// is, inside the values no rule reads too: in an object of many keys, in
// an array, at the top, in the order of the body.
func TestDuplicatesInUnknownValues(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"externalReferenceId": "R", "big": {`)
	for i := range 40 { // more keys than are searched one by one
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `": 1, `)
	}
	b.WriteString(`"kaa": 2}, "a": [{"b": 1, "b": 2}], "a": 1, "c~/": {"": 1, "": 2}}`)
	_, ignored, err := DecodeEnquiry([]byte(b.String()))
	e := asError(t, err)
	var got []string
	for _, p := range e.Problems {
		got = append(got, p.EMVCode+" "+p.Field)
	}
	want := []string{"204 big.kaa", "204 a[0].b", "204 a", `204 c~/.""`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems %v, want %v", got, want)
	}
	if want := []string{"big", "a", "a", "c~/"}; !reflect.DeepEqual(ignored, want) {
		t.Errorf("ignored %v, want %v", ignored, want)
	}
}

// FuzzDecodeAcceptsWhatJSONAccepts checks the reading against
// encoding/json: a body of valid UTF-8 within the decoder's bounds is a
// 101 exactly when encoding/json does not take it as one JSON object.
// Numbers are kept as their text on both sides (json.Number): the grammar
// takes any magnitude, and the fields' rules judge the ranges.
func FuzzDecodeAcceptsWhatJSONAccepts(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\u00e9\ud800x"}`, `{"a":[1,2,{"b":null}]}`, `{"a":-0.5E-2}`, `[1]`, `{"a":01}`,
		` {"a" : true } `, `{"":1E700}`, `{"a":"\x7f"}`, `{"a":1}x`, `{"a":{"b":[]}}`, "{\"a\":\"\t\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return // encoding/json replaces invalid UTF-8 where the decoder refuses it
		}
		_, _, err := DecodeEnquiry(body)
		e, _ := err.(*emv.Error)
		if err != nil && e == nil {
			t.Fatalf("DecodeEnquiry(%q): error %T (%v), want *emv.Error", body, err, err)
		}
		malformed := e != nil && e.EMVCode == "101"
		var m map[string]any
		jerr := unmarshalNumbers(body, &m)
		switch {
		case malformed && (strings.Contains(e.Message, "nested deeper") || strings.Contains(e.Message, "beyond the decoder's limits")):
		case malformed && jerr == nil && m != nil:
			t.Fatalf("DecodeEnquiry(%q) = %v, encoding/json accepts it", body, e.Message)
		case !malformed && (jerr != nil || m == nil):
			t.Fatalf("DecodeEnquiry(%q) read it, encoding/json: %v", body, jerr)
		}
	})
}

// unmarshalNumbers is json.Unmarshal keeping numbers as json.Number.
func unmarshalNumbers(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("data after the value: %v", err)
	}
	return nil
}

// TestBelowDEL checks the eight-bytes-at-once test of a body's bytes
// against a byte by byte one: each byte value at each place of bodies of
// every length up to a few words.
func TestBelowDEL(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for at := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = byte(c)
				if got, want := belowDEL(b), c < 0x7F; got != want {
					t.Fatalf("belowDEL(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
	if !belowDEL(nil) {
		t.Error("belowDEL(nil) = false")
	}
}
