package scenarios

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// mustParse parses a file and fails the test on error.
func mustParse(t testing.TB, name, data string) *File {
	t.Helper()
	f, err := Parse(name, []byte(data))
	if err != nil {
		t.Fatalf("parsing %s: %v", name, err)
	}
	return f
}

const matchFile = `scenarios:
  - id: exact
    match: {cardNumber: "4000000000001000"}
    frictionless: {status: Y}
  - id: bin4
    match: {cardPrefix: "4"}
    frictionless: {status: A}
  - id: bin400000
    match: {cardPrefix: "400000"}
    frictionless: {status: U, reason: "08"}
  - id: full-length-prefix
    match: {cardPrefix: "4000000000009999"}
    frictionless: {status: R, reason: "11"}
  - id: mastercard
    match: {cardPrefix: "52"}
    challenge: {}
`

func TestMatch(t *testing.T) {
	c, err := NewCatalogue(mustParse(t, "m.yaml", matchFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		card string
		want string
	}{
		{"4000000000001000", "exact"},              // exact number beats every prefix
		{"4000000000001018", "bin400000"},          // longest prefix
		{"4000010000000000", "bin4"},               // only the short prefix
		{"4000000000009999", "full-length-prefix"}, // prefix as long as the card
		{"40000", "bin4"},                          // card shorter than the longer prefix
		{"5200000000001000", "mastercard"},
		{"6011000000001000", FallbackID},
		{"", FallbackID},
	}
	for _, tt := range tests {
		t.Run(tt.card, func(t *testing.T) {
			got := c.Match(Request{CardNumber: tt.card})
			if got == nil {
				t.Fatal("got nil scenario")
			}
			if got.ID != tt.want {
				t.Errorf("got %s, want %s", got.ID, tt.want)
			}
		})
	}
}

func TestBuiltinFallback(t *testing.T) {
	c, err := NewCatalogue(mustParse(t, "m.yaml", matchFile))
	if err != nil {
		t.Fatal(err)
	}
	fb := c.Fallback()
	if fb.ID != FallbackID || fb.Flow() != FlowFrictionless || fb.Frictionless.Status != "Y" || fb.Frictionless.Version != Version220 {
		t.Errorf("got fallback %+v %+v, want frictionless Y 2.2.0 with id %s", fb, fb.Frictionless, FallbackID)
	}
	if got, ok := c.ByID(FallbackID); !ok || got != fb {
		t.Errorf("got ByID(%q) = %v, %v, want the fallback", FallbackID, got, ok)
	}
	if got, want := c.Len(), 5; got != want {
		t.Errorf("got Len %d, want %d (the built-in fallback is not counted)", got, want)
	}
}

func TestCatalogueListing(t *testing.T) {
	a := mustParse(t, "a.yaml", "fallback: a1\nscenarios:\n  - id: a1\n    frictionless: {status: Y}\n  - id: a2\n    match: {cardPrefix: \"4\"}\n    frictionless: {status: Y}\n")
	b := mustParse(t, "b.yaml", "scenarios:\n  - id: b1\n    match: {cardPrefix: \"5\"}\n    frictionless: {status: Y}\n")
	c, err := NewCatalogue(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range c.All() {
		ids = append(ids, s.ID)
	}
	if got, want := strings.Join(ids, ","), "a1,a2,b1"; got != want {
		t.Errorf("got All %s, want %s", got, want)
	}
	if got, want := c.Len(), 3; got != want {
		t.Errorf("got Len %d, want %d", got, want)
	}
	if got := c.Fallback().ID; got != "a1" {
		t.Errorf("got fallback %s, want a1", got)
	}
	s, ok := c.ByID("b1")
	if !ok || s.Source != (Position{File: "b.yaml", Line: 2}) {
		t.Errorf("got ByID(b1) = %+v, %v, want b1 from b.yaml:2", s, ok)
	}
	if _, ok := c.ByID("nope"); ok {
		t.Error("got ByID(nope) found, want not found")
	}
	all := c.All()
	all[0].ID = "changed"
	if got := c.All()[0].ID; got != "a1" {
		t.Errorf("got %s after changing the copy from All, want a1", got)
	}
}

func TestNewCatalogueRefuses(t *testing.T) {
	y := "    frictionless: {status: Y}\n"
	tests := []struct {
		name   string
		files  [][2]string // name, content
		file   string
		line   int
		reason string
	}{
		{
			name: "duplicate id across files",
			files: [][2]string{
				{"a.yaml", "scenarios:\n  - id: s\n    match: {cardPrefix: \"4\"}\n" + y},
				{"b.yaml", "scenarios:\n  - id: s\n    match: {cardPrefix: \"5\"}\n" + y},
			},
			file: "b.yaml", line: 2, reason: "duplicate id s; first defined at a.yaml:2",
		},
		{
			name: "same cardNumber in two files",
			files: [][2]string{
				{"a.yaml", "scenarios:\n  - id: s\n    match:\n      cardNumber: \"4000000000001000\"\n" + y},
				{"b.yaml", "scenarios:\n  - id: t\n    match: {cardNumber: \"4000000000001000\"}\n" + y},
			},
			file: "b.yaml", line: 3, reason: "duplicate match: scenario t has the same selectors and priority as scenario s at a.yaml:4",
		},
		{
			name: "same cardPrefix in two files",
			files: [][2]string{
				{"a.yaml", "scenarios:\n  - id: s\n    match: {cardPrefix: \"4000\"}\n" + y},
				{"b.yaml", "scenarios:\n  - id: t\n    match: {cardPrefix: \"4000\"}\n" + y},
			},
			file: "b.yaml", line: 3, reason: "duplicate match: scenario t has the same selectors and priority as scenario s at a.yaml:3",
		},
		{
			name: "same selectors written differently",
			files: [][2]string{
				{"a.yaml", "scenarios:\n  - id: s\n    match: {amount: \"10\", currency: eur}\n" + y},
				{"b.yaml", "scenarios:\n  - id: t\n    match: {currency: \"978\", amount: 10.00}\n" + y},
			},
			file: "b.yaml", line: 3, reason: "duplicate match: scenario t has the same selectors and priority as scenario s at a.yaml:3",
		},
		{
			name: "fallback names an unknown id",
			files: [][2]string{
				{"a.yaml", "fallback: nope\nscenarios:\n  - id: s\n    match: {cardPrefix: \"4\"}\n" + y},
			},
			file: "a.yaml", line: 1, reason: `fallback "nope" names no scenario of the loaded files`,
		},
		{
			name: "two files set fallback",
			files: [][2]string{
				{"a.yaml", "fallback: s\nscenarios:\n  - id: s\n" + y},
				{"b.yaml", "\nfallback: t\nscenarios:\n  - id: t\n" + y},
			},
			file: "b.yaml", line: 2, reason: "fallback already set at a.yaml:1: only one file may set it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []*File
			for _, f := range tt.files {
				files = append(files, mustParse(t, f[0], f[1]))
			}
			c, err := NewCatalogue(files...)
			if c != nil {
				t.Error("got a catalogue with an error, want nil")
			}
			for _, p := range problemsOf(t, err) {
				if p.File == tt.file && p.Line == tt.line && strings.Contains(p.Reason, tt.reason) {
					return
				}
			}
			t.Errorf("got problems\n%v\nwant one at %s:%d containing %q", err, tt.file, tt.line, tt.reason)
		})
	}
}

func TestFallbackMayLiveInAnotherFile(t *testing.T) {
	a := mustParse(t, "a.yaml", "fallback: b1\nscenarios:\n  - id: a1\n    match: {cardPrefix: \"4\"}\n    frictionless: {status: Y}\n")
	b := mustParse(t, "b.yaml", "scenarios:\n  - id: b1\n    match: {cardPrefix: \"5\"}\n    frictionless: {status: N, reason: \"01\"}\n")
	c, err := NewCatalogue(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Match(Request{CardNumber: "6011000000001000"}).ID; got != "b1" {
		t.Errorf("got %s for an unmatched card, want b1", got)
	}
}

func TestNewCatalogueHandBuiltFiles(t *testing.T) {
	f := &File{Name: "code", Scenarios: []Scenario{
		{ID: "a", Match: Match{CardPrefix: "4"}, Frictionless: &Frictionless{Status: "Y"}},
		{ID: "a", Match: Match{CardPrefix: "5"}, Frictionless: &Frictionless{Status: "Y"}},
	}}
	_, err := NewCatalogue(f)
	if got := problemsOf(t, err); len(got) != 1 || !strings.Contains(got[0].Reason, "duplicate id a") {
		t.Errorf("got %v, want one duplicate id problem", err)
	}
}

func TestMatchConcurrent(t *testing.T) {
	c, err := NewCatalogue(mustParse(t, "m.yaml", matchFile))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 1000 {
				card := fmt.Sprintf("4000000000%06d", i*1000+j)
				if c.Match(Request{CardNumber: card}) == nil {
					t.Error("got nil scenario")
					return
				}
				c.ByID("exact")
				c.Fallback()
			}
		}()
	}
	wg.Wait()
}

// largeCatalogue builds n scenarios: n/2 exact numbers and n/2 prefixes.
func largeCatalogue(t testing.TB, n int) *Catalogue {
	t.Helper()
	var b strings.Builder
	b.WriteString("scenarios:\n")
	for i := range n / 2 {
		body := fmt.Sprintf("41%013d", i)
		fmt.Fprintf(&b, "  - id: n%d\n    match: {cardNumber: %q}\n    frictionless: {status: Y}\n", i, body+luhnDigit(body))
		fmt.Fprintf(&b, "  - id: p%d\n    match: {cardPrefix: \"42%d\"}\n    frictionless: {status: A}\n", i, i)
	}
	c, err := NewCatalogue(mustParse(t, "large.yaml", b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// luhnDigit returns the check digit that makes body+digit pass Luhn.
func luhnDigit(body string) string {
	for d := '0'; d <= '9'; d++ {
		if luhnValid(body + string(d)) {
			return string(d)
		}
	}
	panic("no Luhn digit")
}

func TestMatchLargeCatalogue(t *testing.T) {
	c := largeCatalogue(t, 10000)
	if got, want := c.Len(), 10000; got != want {
		t.Fatalf("got Len %d, want %d", got, want)
	}
	body := fmt.Sprintf("41%013d", 4321)
	tests := []struct{ card, want string }{
		{body + luhnDigit(body), "n4321"},
		{"4249990000000000", "p4999"},
		{"4212340000000000", "p1234"},
		{"4300000000000000", FallbackID},
	}
	for _, tt := range tests {
		if got := c.Match(Request{CardNumber: tt.card}).ID; got != tt.want {
			t.Errorf("Match(%s): got %s, want %s", tt.card, got, tt.want)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	c := largeCatalogue(b, 10000)
	r := Request{CardNumber: "4300000000000000"} // worst case: every prefix length misses
	for b.Loop() {
		c.Match(r)
	}
}
