package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestClosest: misspellings and prefixes find the name they miss; a word
// far from every name, or too short to tell, finds none.
func TestClosest(t *testing.T) {
	t.Parallel()
	flags, envs := flagNames()
	tests := []struct {
		name  string
		known []string
		in    string
		want  string
	}{
		{"a letter missing", flags, "tokn", "tokens"},
		{"a letter too many", flags, "addrr", "addr"},
		{"two letters swapped", flags, "sede", "seed"},
		{"a letter wrong", flags, "log-levl", "log-level"},
		{"a unique prefix", flags, "console", "console-auth"},
		{"an ambiguous prefix", flags, "journal", ""},
		{"far from all", flags, "colour", ""},
		{"too short to tell", flags, "ax", ""},
		{"empty", flags, "", ""},
		{"a variable without its s", envs, "THREEDS_TOKEN", "THREEDS_TOKENS"},
		{"a variable with a dash's place wrong", envs, "THREEDS_BASEPATH", "THREEDS_BASE_PATH"},
		{"a variable of no flag", envs, "THREEDS_COLOUR", ""},
		{"the bare prefix", envs, "THREEDS_", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.in, tt.known); got != tt.want {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestParseSuggestsAFlag: an unknown flag is a *UsageError that names the
// flag it most likely misspells, and none when no flag is close.
func TestParseSuggestsAFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--tokn", "x"}, "flag provided but not defined: -tokn (did you mean --tokens?)"},
		{[]string{"--drain-dealy=0"}, "flag provided but not defined: -drain-dealy (did you mean --drain-delay?)"},
		{[]string{"-sed", "2"}, "flag provided but not defined: -sed (did you mean --seed?)"},
		{[]string{"--colour", "blue"}, "flag provided but not defined: -colour"},
	}
	for _, tt := range tests {
		_, _, err := Parse(tt.args, envOf(nil), io.Discard)
		var usage *UsageError
		if !errors.As(err, &usage) {
			t.Errorf("Parse(%q) = %v, want a *UsageError", tt.args, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestUnknownEnv: only variables with the prefix that are no flag's twin
// are warned about, once each, in order, with a suggestion when one is
// close.
func TestUnknownEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		want    []string
	}{
		{"none", nil, []string{}},
		{"known and foreign", []string{"THREEDS_TOKENS=a", "GOGC=100", "PATH=/bin", "THREEDSX=1", "threeds_tokn=x"}, []string{}},
		{"what exec sets", []string{"THREEDS_SANDBOX_URL=http://localhost:1", "THREEDS_SANDBOX_TOKEN=t"}, []string{}},
		{"a misspelling", []string{"THREEDS_TOKEN=a"}, []string{"unknown environment variable THREEDS_TOKEN; did you mean THREEDS_TOKENS?"}},
		{"an empty value", []string{"THREEDS_STORE_WAITT="}, []string{"unknown environment variable THREEDS_STORE_WAITT; did you mean THREEDS_STORE_WAIT?"}},
		{"near nothing", []string{"THREEDS_COLOUR=blue"}, []string{"unknown environment variable THREEDS_COLOUR; no flag reads it ('threeds-sandbox help' lists every variable)"}},
		{"sorted, each once", []string{"THREEDS_SEEDS=1", "THREEDS_ADR=x", "THREEDS_SEEDS=2"}, []string{
			"unknown environment variable THREEDS_ADR; did you mean THREEDS_ADDR?",
			"unknown environment variable THREEDS_SEEDS; did you mean THREEDS_SEED?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnknownEnv(tt.environ); !slices.Equal(got, tt.want) {
				t.Errorf("UnknownEnv(%q) = %q, want %q", tt.environ, got, tt.want)
			}
		})
	}
}

// TestEveryDocumentedVariableIsAFlag: every THREEDS_ variable that the
// product's code, docs and deployment files name is a flag's twin (or
// one of the two exec sets), so that the start-up never warns about a
// variable the product itself reads or tells people to set. Test files
// are left out: they misspell on purpose.
func TestEveryDocumentedVariableIsAFlag(t *testing.T) {
	t.Parallel()
	placeholders := map[string]bool{
		"THREEDS_FLAG": true, // the shape of a problem, in a comment
	}
	_, known := flagNames()
	known = append(known, EnvSandboxURL, EnvSandboxToken)
	re := regexp.MustCompile(EnvPrefix + `[A-Z0-9_]*[A-Z0-9]`)
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, "_test.go"):
			return nil
		case name == "Dockerfile", slices.Contains([]string{".go", ".md", ".yaml", ".yml", ".tmpl", ".sh", ".conf"}, filepath.Ext(name)):
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range re.FindAllString(string(b), -1) {
			if !slices.Contains(known, v) && !placeholders[v] {
				t.Errorf("%s names %s, which is no flag's twin: the start-up would warn about it", path, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
