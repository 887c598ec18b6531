package wire

import (
	"encoding/json"
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
// same objects, and decode strings to the same text.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\u00e9\ud800x"}`, `{"a":[1,2,{"b":null}]}`, `{"a":-0.5E-2}`, `[1]`, `{"a":01}`, ` {"a" : true } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, dups, err := parseObject(body)
		if !utf8.Valid(body) {
			return // encoding/json replaces invalid UTF-8 where this parser refuses it
		}
		var m map[string]any
		jerr := json.Unmarshal(body, &m)
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
			if mem.val.plain && utf8.RuneCountInString(mem.val.text) != len(mem.val.text) {
				t.Fatalf("key %q: %q marked plain", mem.key, mem.val.text)
			}
			if s, _ := m[mem.key].(string); s != mem.val.text {
				t.Fatalf("key %q: got %q, encoding/json %q", mem.key, mem.val.text, s)
			}
		}
	})
}

// TestPlainWord checks the eight-bytes-at-once test against stringStop: a
// plain word with each byte value at each position, and random words.
func TestPlainWord(t *testing.T) {
	slow := func(w string) bool {
		for i := 0; i < len(w); i++ {
			if stringStop[w[i]] {
				return false
			}
		}
		return true
	}
	check := func(w []byte) {
		if got, want := plainWord(string(w)), slow(string(w)); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
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
