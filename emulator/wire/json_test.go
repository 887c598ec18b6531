package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseObject parses body, which must hold one JSON object, into a tree,
// with the paths of its duplicated keys in the order of the body.
func parseObject(body []byte) (value, []string, error) {
	p := parser{data: string(body), limits: bodyLimits}
	p.path = p.pathBuf[:0]
	p.skipSpace()
	if p.pos == len(p.data) || p.data[p.pos] != '{' {
		return value{}, nil, &syntaxError{p.pos, "want a JSON object"}
	}
	v, err := p.value(0)
	if err != nil {
		return value{}, nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return value{}, nil, &syntaxError{p.pos, "unexpected data after the JSON object"}
	}
	slices.SortFunc(p.dups, func(a, b duplicate) int { return a.offset - b.offset })
	var dups []string
	for _, d := range p.dups {
		dups = append(dups, d.path)
	}
	return v, dups, nil
}

// get returns the first member named key, or nil.
func (v *value) get(key string) *value {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i].val
		}
	}
	return nil
}

func TestParseObject(t *testing.T) {
	body := `{"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800", "n": -1.5e+3, "t": true, "f": false, "z": null,
		"o": {"k": [1, {"x": []}, "y"]}, "e": {}}`
	v, dups, err := parseObject([]byte(body))
	if err != nil {
		t.Fatalf("parseObject error: %v", err)
	}
	if len(dups) != 0 {
		t.Errorf("dups = %v, want none", dups)
	}
	tests := []struct {
		key  string
		kind kind
		text string
	}{
		{"s", kindString, "a\"b\\c/d\né😀\uFFFD"},
		{"n", kindNumber, "-1.5e+3"},
		{"t", kindBool, ""},
		{"f", kindBool, ""},
		{"z", kindNull, ""},
		{"o", kindObject, ""},
		{"e", kindObject, ""},
	}
	for _, tt := range tests {
		m := v.get(tt.key)
		if m == nil {
			t.Errorf("member %q missing", tt.key)
			continue
		}
		if m.kind != tt.kind || m.text != tt.text {
			t.Errorf("member %q = %v %q, want %v %q", tt.key, m.kind, m.text, tt.kind, tt.text)
		}
	}
	if !v.get("t").boolean || v.get("f").boolean {
		t.Errorf("booleans decoded wrong")
	}
}

func TestParseObjectDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"big": {`)
	for i := range 40 { // over the quadratic threshold
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `": 1, `)
	}
	b.WriteString(`"kaa": 2}, "a": [{"b": 1, "b": 2}], "a": 1}`)
	_, dups, err := parseObject([]byte(b.String()))
	if err != nil {
		t.Fatalf("parseObject error: %v", err)
	}
	want := []string{"big.kaa", "a[0].b", "a"}
	if !reflect.DeepEqual(dups, want) {
		t.Errorf("dups = %v, want %v", dups, want)
	}
}

// FuzzParseObject checks the parser against encoding/json: both accept the
// same objects, and decode strings to the same text. Numbers are kept as
// their text on both sides (json.Number): the grammar accepts any
// magnitude, and the fields' rules judge the ranges.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\u00e9\ud800x"}`, `{"a":[1,2,{"b":null}]}`, `{"a":-0.5E-2}`, `[1]`, `{"a":01}`, ` {"a" : true } `, `{"":1E700}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, dups, err := parseObject(body)
		if !utf8.Valid(body) {
			return // encoding/json replaces invalid UTF-8 where this parser refuses it
		}
		var m map[string]any
		jerr := unmarshalNumbers(body, &m)
		if err != nil {
			_, beyond := err.(*limitError)
			if jerr == nil && m != nil && !beyond && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("parseObject(%q) = %v, encoding/json accepts it", body, err)
			}
			return
		}
		if jerr != nil || m == nil {
			t.Fatalf("parseObject(%q) accepted, encoding/json: %v", body, jerr)
		}
		if len(dups) > 0 {
			return // encoding/json keeps the last duplicate, this parser the first
		}
		for _, mem := range v.members {
			if mem.val.kind != kindString {
				continue
			}
			if mem.val.flags&textPlain != 0 && utf8.RuneCountInString(mem.val.text) != len(mem.val.text) {
				t.Fatalf("key %q: %q marked plain", mem.key, mem.val.text)
			}
			if s, _ := m[mem.key].(string); s != mem.val.text {
				t.Fatalf("key %q: got %q, encoding/json %q", mem.key, mem.val.text, s)
			}
		}
	})
}

// TestStopBytes checks the eight-bytes-at-once test against stringStop:
// the lowest byte it marks is the first stop of the word, and it marks
// none in a word without one. A plain word with each byte value at each
// position, and random words.
func TestStopBytes(t *testing.T) {
	first := func(w []byte) int {
		for i, c := range w {
			if stringStop[c] {
				return i
			}
		}
		return -1
	}
	check := func(w []byte) {
		m := stopBytes(word(string(w), 0))
		got := -1
		if m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if want := first(w); got != want {
			t.Fatalf("stopBytes(%q) marks %#x: first stop %d, want %d", w, m, got, want)
		}
		if plainWord(string(w)) != (got < 0) {
			t.Fatalf("plainWord(%q) = %v", w, got < 0)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			check(w)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				w[i] = byte(0x20 + rng.IntN(0x60)) // mostly printable ASCII
			}
		}
		check(w[:])
	}
}

// stringByByte is stringFlags as a plain byte-by-byte loop: the reference
// the word-at-a-time scan is checked against.
func (p *parser) stringByByte() (string, textFlags, error) {
	p.pos++ // opening quote
	start := p.pos
	ascii, plain := true, true
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			s := p.data[start:i]
			if !ascii && !utf8.ValidString(s) {
				return "", 0, &syntaxError{start, "string is not valid UTF-8"}
			}
			p.pos = i + 1
			if ascii && plain {
				return s, textPlain, nil
			}
			return s, 0, nil
		case c == '\\':
			p.pos = i
			s, lone, err := p.escapedString(start)
			if lone {
				return s, textLone, err
			}
			return s, 0, err
		case c >= utf8.RuneSelf:
			ascii = false
		case c == 0x7F:
			plain = false
		case c < 0x20:
			p.pos = i
			return "", 0, p.errorf("control character %#02x in string", c)
		}
	}
	p.pos = len(p.data)
	return "", 0, p.errorf("unexpected end of body in string")
}

// checkStringFlags compares stringFlags with stringByByte on the string
// that opens at data[0].
func checkStringFlags(t *testing.T, data string) {
	t.Helper()
	fast, slow := parser{data: data}, parser{data: data}
	s1, f1, err1 := fast.stringFlags()
	s2, f2, err2 := slow.stringByByte()
	if s1 != s2 || f1 != f2 || fast.pos != slow.pos || !reflect.DeepEqual(err1, err2) {
		t.Fatalf("string %q: stringFlags = %q, %b, pos %d, %v; byte by byte %q, %b, pos %d, %v",
			data, s1, f1, fast.pos, err1, s2, f2, slow.pos, err2)
	}
}

// TestStringFlags checks the word-at-a-time string scan against the byte
// by byte one, with every stop byte at every place of strings of every
// length up to a few words, closed or cut off near the end of the body.
func TestStringFlags(t *testing.T) {
	stops := []string{`"`, `\\`, `\"`, `\u00e9`, `\ud800`, "\x00", "\x1f", "\x7f", "\x80", "\xc3\xa9", "\xff", "\xed\xa0\x80", `\q`}
	for n := range 26 {
		for at := 0; at <= n; at++ {
			for _, stop := range stops {
				content := strings.Repeat("a", at) + stop + strings.Repeat("b", n-at)
				for _, tail := range []string{`"`, `"}`, `", "k": "0123456789"}`, ``} {
					checkStringFlags(t, `"`+content+tail)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab \"\\\x00\x1f\x7f\x80\xc3\xa9\xffu0d8")
	for range 100000 {
		b := []byte{'"'}
		for range rng.IntN(40) {
			if rng.IntN(3) == 0 {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			} else {
				b = append(b, byte(0x20+rng.IntN(0x5f)))
			}
		}
		checkStringFlags(t, string(b))
	}
}

// FuzzStringFlags checks the word-at-a-time string scan against the byte
// by byte one on any input.
func FuzzStringFlags(f *testing.F) {
	for _, s := range []string{`plain"`, `12345678"`, `esc\"aped"`, "caf\xc3\xa9\"", "\x7f\"", "\xff\"", `\ud800"`, `open`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkStringFlags(t, `"`+s) })
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
