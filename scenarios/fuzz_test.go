package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that it returns either a file
// or a *LoadError naming problems of that file, and that a file it accepts
// is well formed and builds a catalogue that finds each of its cards.
func FuzzParse(f *testing.F) {
	names, _ := fs.Glob(Defaults(), "defaults/*.yaml")
	for _, name := range names {
		data, err := fs.ReadFile(Defaults(), name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	examples, _ := filepath.Glob("testdata/example/*.y*ml")
	for _, name := range examples {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"scenarios: []",
		"scenarios:\n  - id: a\n    match: {cardNumber: 4000000000001000}\n    frictionless: {status: N}\n",
		"scenarios:\n  - id: a\n    match: x: y\n",
		"scenarios: &a [*a]",
		"a: &a [*a, *a, *a]\nscenarios: *a",
		"scenarios:\n  - <<: {id: a}\n",
		"fallback: a\nscenarios:\n  - id: a\n    challenge: {otps: {\"1\": {status: N}}, auto: pass, autoAfter: 10m1s}\n---\n",
		"scenarios:\n  - id: a\n    match: {cardPrefix: \"4\"}\n    error: {httpStatus: 0x1F7, errorCode: SC03, emvErrorCode: \"999\"}\n",
		"\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("got error %T %v, want a *LoadError with problems", err, err)
			}
			for _, p := range le.Problems {
				if p.File != "fuzz.yaml" || p.Line < 0 || p.Reason == "" {
					t.Fatalf("got problem %+v, want one of fuzz.yaml with a reason", p)
				}
			}
			if file != nil {
				t.Fatal("got a file with an error")
			}
			return
		}
		if len(file.Scenarios) == 0 {
			t.Fatal("accepted a file without scenarios")
		}
		for _, s := range file.Scenarios {
			results := 0
			for _, set := range []bool{s.Frictionless != nil, s.Challenge != nil, s.Error != nil} {
				if set {
					results++
				}
			}
			if results != 1 || !idPattern.MatchString(s.ID) || s.Source.Line <= 0 {
				t.Fatalf("accepted a malformed scenario %+v", s)
			}
			if s.Match == (Match{}) && s.ID != file.Fallback {
				t.Fatalf("accepted scenario %s without match", s.ID)
			}
		}
		known := false
		for _, s := range file.Scenarios {
			known = known || s.ID == file.Fallback
		}
		if file.Fallback != "" && !known {
			return // names a scenario of another file
		}
		c, err := NewCatalogue(file)
		if err != nil {
			t.Fatalf("Parse accepted the file, NewCatalogue refused it: %v", err)
		}
		for _, s := range file.Scenarios {
			if n := s.Match.CardNumber; n != "" {
				if got := c.Match(Request{CardNumber: n}); got.ID != s.ID {
					t.Fatalf("Match(%s): got %s, want %s", n, got.ID, s.ID)
				}
			}
		}
	})
}
