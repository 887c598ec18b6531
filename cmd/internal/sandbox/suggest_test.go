package sandbox

import (
	"errors"
	"io"
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
