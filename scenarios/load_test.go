package scenarios

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoadDefaults(t *testing.T) {
	c, err := Load(LoadOptions{})
	if err != nil {
		t.Fatalf("defaults do not load: %v", err)
	}
	if got, want := c.Fallback().ID, "default-frictionless-y"; got != want {
		t.Errorf("got fallback %s, want %s", got, want)
	}
	if got := c.Match(Request{CardNumber: "4000000000009003"}).ID; got != "visa-frictionless-y" {
		t.Errorf("got %s for 4000000000009003, want visa-frictionless-y", got)
	}
	if got := c.Match(Request{CardNumber: "4000000000001000"}).ID; got != "cardinal-01-visa-2.1.0" {
		t.Errorf("got %s for 4000000000001000, want cardinal-01-visa-2.1.0", got)
	}
	if got := c.Match(Request{CardNumber: "4242424242424242"}).ID; got != "default-frictionless-y" {
		t.Errorf("got %s for an unknown card, want default-frictionless-y", got)
	}
}

// schemeRules are the prefixes and length of each scheme's default cards;
// a default's id starts with its scheme's key.
var schemeRules = map[string]struct {
	ranges [][2]string // inclusive ranges of prefixes of equal length
	length int
}{
	"visa":       {[][2]string{{"4", "4"}}, 16},
	"mastercard": {[][2]string{{"51", "55"}, {"2221", "2720"}}, 16},
	"amex":       {[][2]string{{"34", "34"}, {"37", "37"}}, 15},
	"discover":   {[][2]string{{"6011", "6011"}, {"65", "65"}}, 16},
	"jcb":        {[][2]string{{"3528", "3589"}}, 16},
	"unionpay":   {[][2]string{{"62", "62"}}, 16},
}

// inRanges reports whether pan starts with a prefix in one of the ranges.
func inRanges(pan string, ranges [][2]string) bool {
	for _, r := range ranges {
		if p := pan[:len(r[0])]; p >= r[0] && p <= r[1] {
			return true
		}
	}
	return false
}

// schemeOfID returns the scheme key of a default scenario id: its first
// word, the third of a Cardinal pack id, visa for the reasons pack.
func schemeOfID(id string) string {
	parts := strings.Split(id, "-")
	switch parts[0] {
	case PackCardinal:
		if len(parts) > 2 {
			return parts[2]
		}
	case "reason":
		return "visa"
	}
	return parts[0]
}

func TestDefaultCards(t *testing.T) {
	c, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.All() {
		pan := s.Match.CardNumber
		if pan == "" {
			if s.ID != c.Fallback().ID && s.Match.Scheme == "" {
				t.Errorf("%s: got no cardNumber, want one (only the fallback and the rules by scheme have none)", s.ID)
			}
			continue
		}
		scheme := schemeOfID(s.ID)
		rule, ok := schemeRules[scheme]
		switch {
		case !ok:
			t.Errorf("%s: id does not start with a scheme key", s.ID)
		case !luhnValid(pan):
			t.Errorf("%s: %s fails Luhn", s.ID, pan)
		case len(pan) != rule.length:
			t.Errorf("%s: %s has %d digits, want %d", s.ID, pan, len(pan), rule.length)
		case !inRanges(pan, rule.ranges):
			t.Errorf("%s: %s has no %s prefix", s.ID, pan, scheme)
		}
		if s.Description == "" {
			t.Errorf("%s: got no description", s.ID)
		}
	}
}

func TestDefaultCoverage(t *testing.T) {
	c, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]bool{}
	for scheme := range schemeRules {
		for _, want := range []string{"frictionless-y", "frictionless-a", "frictionless-n", "frictionless-u", "frictionless-r",
			"challenge", "challenge-auto-pass", "challenge-auto-cancel", "challenge-timeout-first-creq",
			"challenge-timeout-undecided", "frictionless-y-2.1.0",
			"error-version", "error-acs-unavailable", "error-ds-unreachable", "error-timeout"} {
			id := scheme + "-" + want
			s, ok := c.ByID(id)
			if !ok {
				t.Errorf("got no default %s", id)
				continue
			}
			if f := s.Frictionless; f != nil && strings.Contains("NUR", f.Status) {
				if f.Reason == "" {
					t.Errorf("%s: status %s without reason", id, f.Status)
				}
				reasons[f.Reason] = true
			}
		}
		if s, ok := c.ByID(scheme + "-frictionless-y-2.1.0"); ok && s.Frictionless.Version != Version210 {
			t.Errorf("%s-frictionless-y-2.1.0: got version %s", scheme, s.Frictionless.Version)
		}
		if s, ok := c.ByID(scheme + "-challenge-auto-pass"); ok && (s.Challenge.Auto != AutoPass || s.Challenge.AutoAfter != time.Second) {
			t.Errorf("%s-challenge-auto-pass: got auto %q after %s, want pass after 1s", scheme, s.Challenge.Auto, s.Challenge.AutoAfter)
		}
		if s, ok := c.ByID(scheme + "-challenge-auto-cancel"); ok && s.Challenge.Auto != AutoCancel {
			t.Errorf("%s-challenge-auto-cancel: got auto %q, want cancel", scheme, s.Challenge.Auto)
		}
		if s, ok := c.ByID(scheme + "-challenge-timeout-first-creq"); ok && (s.Challenge.FirstCReqTimeout != 3*time.Second || s.Challenge.ChallengeTimeout != 0) {
			t.Errorf("%s-challenge-timeout-first-creq: got windows %s and %s, want 3s and the server's", scheme, s.Challenge.FirstCReqTimeout, s.Challenge.ChallengeTimeout)
		}
		if s, ok := c.ByID(scheme + "-challenge-timeout-undecided"); ok && (s.Challenge.ChallengeTimeout != 3*time.Second || s.Challenge.FirstCReqTimeout != 0) {
			t.Errorf("%s-challenge-timeout-undecided: got windows %s and %s, want the server's and 3s", scheme, s.Challenge.FirstCReqTimeout, s.Challenge.ChallengeTimeout)
		}
	}
	for _, r := range []string{"01", "05", "06", "08", "10", "11", "12", "13", "19", "20", "22"} {
		if !reasons[r] {
			t.Errorf("no default N/U/R card uses reason %s", r)
		}
	}

	errorTests := []struct {
		suffix, code, emv, component string
		http                         int
		delay                        time.Duration
	}{
		{"error-version", "SC12", "102", "S", 422, 0},
		{"error-acs-unavailable", "SC03", "403", "A", 503, 0},
		{"error-ds-unreachable", "SC05", "405", "D", 502, 0},
		{"error-timeout", "SC02", "402", "S", 504, 3 * time.Second},
	}
	for _, tt := range errorTests {
		s, ok := c.ByID("visa-" + tt.suffix)
		if !ok {
			continue // reported above
		}
		e := s.Error
		if e == nil || e.ErrorCode != tt.code || e.EMVErrorCode != tt.emv || e.Component != tt.component || e.HTTPStatus != tt.http || s.Delay != tt.delay || e.Status != "U" {
			t.Errorf("visa-%s: got %+v delay %s, want %s/%s/%s/%d delay %s", tt.suffix, e, s.Delay, tt.code, tt.emv, tt.component, tt.http, tt.delay)
		}
	}
}

func TestDefaultsFS(t *testing.T) {
	names, err := fs.Glob(defaultFiles, "defaults/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"visa", "mastercard", "amex", "discover", "jcb", "unionpay", "errors", "fallback"} {
		if !slices.Contains(names, "defaults/"+want+".yaml") {
			t.Errorf("got defaults %v, want defaults/%s.yaml among them", names, want)
		}
	}
	for _, name := range names {
		data, err := fs.ReadFile(defaultFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=") {
			t.Errorf("%s: got no yaml-language-server schema line at the top", name)
		}
		if _, err := Parse(name, data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestLoadDirectory(t *testing.T) {
	c, err := Load(LoadOptions{NoDefaults: true, Paths: []string{"testdata/example"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range c.All() {
		ids = append(ids, s.ID)
	}
	// checkout.yaml before decline.yml; nested/ and README.txt are not read.
	if got, want := strings.Join(ids, ","), "shop-bin-challenge,shop-expired-card,shop-slow-acs,shop-decline-unknown"; got != want {
		t.Errorf("got scenarios %s, want %s", got, want)
	}
	tests := []struct{ card, want string }{
		{"4111111111111111", "shop-expired-card"},
		{"4111111111111129", "shop-bin-challenge"},
		{"5555555555554444", "shop-slow-acs"},
		{"4000000000001000", "shop-decline-unknown"},
	}
	for _, tt := range tests {
		if got := c.Match(Request{CardNumber: tt.card}).ID; got != tt.want {
			t.Errorf("Match(%s): got %s, want %s", tt.card, got, tt.want)
		}
	}
}

func TestLoadWithDefaults(t *testing.T) {
	defaults, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		opts     LoadOptions
		len      int
		fallback string
		card     string // a default card
		cardWant string
	}{
		{"defaults only", LoadOptions{}, defaults.Len(), "default-frictionless-y", "4000000000009003", "visa-frictionless-y"},
		{"user fallback replaces the defaults' one", LoadOptions{Paths: []string{"testdata/example"}}, defaults.Len() + 4, "shop-decline-unknown", "4000000000009003", "visa-frictionless-y"},
		{"single file", LoadOptions{Paths: []string{"testdata/example/checkout.yaml"}}, defaults.Len() + 3, "default-frictionless-y", "4111111111111111", "shop-expired-card"},
		{"option overrides the files", LoadOptions{Paths: []string{"testdata/example"}, Fallback: "visa-frictionless-r"}, defaults.Len() + 4, "visa-frictionless-r", "4000000000009003", "visa-frictionless-y"},
		{"no defaults", LoadOptions{NoDefaults: true, Paths: []string{"testdata/example/checkout.yaml"}}, 3, FallbackID, "4000000000001000", FallbackID},
		{"no defaults, option", LoadOptions{NoDefaults: true, Paths: []string{"testdata/example/checkout.yaml"}, Fallback: "shop-slow-acs"}, 3, "shop-slow-acs", "4000000000001000", "shop-slow-acs"},
		{"nothing at all", LoadOptions{NoDefaults: true}, 0, FallbackID, "4000000000001000", FallbackID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Len(); got != tt.len {
				t.Errorf("got Len %d, want %d", got, tt.len)
			}
			if got := c.Fallback().ID; got != tt.fallback {
				t.Errorf("got fallback %s, want %s", got, tt.fallback)
			}
			if got := c.Match(Request{CardNumber: tt.card}).ID; got != tt.cardWant {
				t.Errorf("Match(%s): got %s, want %s", tt.card, got, tt.cardWant)
			}
		})
	}
}

// writeFiles writes name -> content files into a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadRefuses(t *testing.T) {
	y := "    frictionless: {status: Y}\n"
	tests := []struct {
		name   string
		files  map[string]string
		opts   LoadOptions // Paths are relative to the files' directory
		file   string      // relative to the directory; "" for the options
		line   int
		reason string
	}{
		{
			name: "missing path", opts: LoadOptions{Paths: []string{"nope.yaml"}},
			file: "nope.yaml", reason: "cannot read: no such file or directory",
		},
		{
			name: "directory without scenario files", files: map[string]string{"empty/notes.txt": "x"},
			opts: LoadOptions{Paths: []string{"empty"}}, file: "empty", reason: "directory holds no *.yaml or *.yml file",
		},
		{
			name: "empty file", files: map[string]string{"a.yaml": ""},
			opts: LoadOptions{Paths: []string{"a.yaml"}}, file: "a.yaml", reason: "file is empty",
		},
		{
			name: "card number of a default", files: map[string]string{"a.yaml": "scenarios:\n  - id: mine\n    match: {cardNumber: \"4000000000009003\"}\n" + y},
			opts: LoadOptions{Paths: []string{"a.yaml"}}, file: "a.yaml", line: 3,
			reason: "duplicate match: scenario mine has the same selectors and priority as scenario visa-frictionless-y at defaults/visa.yaml:",
		},
		{
			name: "unknown pack", opts: LoadOptions{Packs: []string{"defaults", "stripe"}},
			reason: `unknown pack "stripe" (known packs: defaults, cardinal, reasons)`,
		},
		{
			name: "id of a default", files: map[string]string{"a.yaml": "scenarios:\n  - id: visa-challenge\n    match: {cardPrefix: \"9\"}\n" + y},
			opts: LoadOptions{Paths: []string{"a.yaml"}}, file: "a.yaml", line: 2, reason: "duplicate id visa-challenge; first defined at defaults/visa.yaml:",
		},
		{
			name: "two user files set fallback",
			files: map[string]string{
				"d/a.yaml": "fallback: a\nscenarios:\n  - id: a\n" + y,
				"d/b.yaml": "fallback: b\nscenarios:\n  - id: b\n" + y,
			},
			opts: LoadOptions{Paths: []string{"d"}}, file: "d/b.yaml", line: 1, reason: "fallback already set at ",
		},
		{
			name: "fallback names an unknown id", files: map[string]string{"a.yaml": "fallback: nope\nscenarios:\n  - id: a\n    match: {cardPrefix: \"9\"}\n" + y},
			opts: LoadOptions{Paths: []string{"a.yaml"}}, file: "a.yaml", line: 1, reason: `fallback "nope" names no scenario`,
		},
		{
			name: "fallback option names an unknown id", opts: LoadOptions{Fallback: "nope"},
			reason: `fallback option "nope" names no scenario of the loaded files`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			opts := tt.opts
			opts.Paths = nil
			for _, p := range tt.opts.Paths {
				opts.Paths = append(opts.Paths, filepath.Join(dir, p))
			}
			file := ""
			if tt.file != "" {
				file = filepath.Join(dir, tt.file)
			}
			c, err := Load(opts)
			if c != nil {
				t.Error("got a catalogue with an error, want nil")
			}
			for _, p := range problemsOf(t, err) {
				if p.File == file && p.Line == tt.line && strings.Contains(p.Reason, tt.reason) {
					return
				}
			}
			t.Errorf("got problems\n%v\nwant one at %s:%d containing %q", err, file, tt.line, tt.reason)
		})
	}
}

func TestLoadReportsEveryFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": "scenarios:\n  - id: a\n    match: {cardPrefix: \"9\"}\n    frictionless: {status: N}\n",
		"b.yaml": "scenarios:\n  - id: b\n    match: {cardPrefix: \"9\"}\n    frictionless: {status: Q}\n",
	})
	_, err := Load(LoadOptions{Paths: []string{dir}, Fallback: "nope"})
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, strings.TrimPrefix(p.String(), dir+string(filepath.Separator)))
	}
	want := []string{
		"a.yaml:4: frictionless status N needs a reason (transStatusReason 01-26 or 80-99)",
		`b.yaml:3: duplicate match: scenario b has the same selectors and priority as scenario a at ` + filepath.Join(dir, "a.yaml") + `:3; change one or give one a higher priority`,
		`b.yaml:4: status "Q" is not one of Y, A, N, U, R, I`,
		`fallback option "nope" names no scenario of the loaded files`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadErrorFormat(t *testing.T) {
	err := &LoadError{Problems: []Problem{
		{File: "a.yaml", Line: 3, Reason: "first"},
		{File: "b.yaml", Reason: "whole file"},
		{Reason: "options"},
	}}
	if got, want := err.Error(), "a.yaml:3: first\nb.yaml: whole file\noptions"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLoadRefusesLargeFiles: a file over MaxFileBytes is refused by its
// size before it is read (a sparse file of 52 MB costs nothing to make),
// alone or in a directory; a file of exactly the limit loads.
func TestLoadRefusesLargeFiles(t *testing.T) {
	doc := "scenarios:\n  - id: big\n    match: {cardNumber: \"4111111111111111\"}\n    frictionless: {status: Y}\n"
	atLimit := doc + "#" + strings.Repeat("x", MaxFileBytes-len(doc)-2) + "\n"
	sparse := func(t *testing.T, path string, size int64) {
		t.Helper()
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		make   func(t *testing.T, dir string) string // returns the path to load
		reason string                                // "" when the load succeeds
	}{{
		name: "52 MB sparse file",
		make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "huge.yaml")
			sparse(t, p, 52_000_000)
			return p
		},
		reason: "too large (52000000 bytes, limit 4 MiB)",
	}, {
		name: "one byte over the limit",
		make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "over.yaml")
			if err := os.WriteFile(p, []byte(atLimit+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
		reason: fmt.Sprintf("too large (%d bytes, limit 4 MiB)", MaxFileBytes+1),
	}, {
		name: "large file in a directory",
		make: func(t *testing.T, dir string) string {
			sparse(t, filepath.Join(dir, "b.yaml"), MaxFileBytes+1)
			if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		},
		reason: fmt.Sprintf("too large (%d bytes, limit 4 MiB)", MaxFileBytes+1),
	}, {
		name: "exactly the limit",
		make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "limit.yaml")
			if err := os.WriteFile(p, []byte(atLimit), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.make(t, t.TempDir())
			c, err := Load(LoadOptions{Paths: []string{path}})
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Load = %v, want a catalogue", err)
				}
				if got := c.Match(Request{CardNumber: "4111111111111111"}).ID; got != "big" {
					t.Errorf("card 4111111111111111 matches %q, want big", got)
				}
				return
			}
			problems := problemsOf(t, err)
			if len(problems) != 1 {
				t.Fatalf("got problems\n%v\nwant exactly one", err)
			}
			if got := problems[0].Reason; got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
			if got := problems[0].String(); !strings.HasSuffix(got, ".yaml: "+tt.reason) {
				t.Errorf("problem = %q, want file: %s", got, tt.reason)
			}
		})
	}
}
