package sandbox

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Closest is the name in known that name most likely misspells, for a
// "did you mean": the nearest one at most two edits away, fewer than name
// has characters (so that a short word is not matched to anything), else
// the only one that name is a prefix of; "" when none is.
func Closest(name string, known []string) string {
	best, bestDist := "", min(3, len(name))
	var prefixed []string
	for _, k := range known {
		if name != "" && strings.HasPrefix(k, name) {
			prefixed = append(prefixed, k)
		}
		if d := scenarios.EditDistance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// flagNames are the names of every flag of serve, and envs their
// environment twins, in the same order.
func flagNames() (flags, envs []string) {
	var c Config
	FlagSet(&c, io.Discard).VisitAll(func(f *flag.Flag) {
		flags = append(flags, f.Name)
		envs = append(envs, EnvName(f.Name))
	})
	return flags, envs
}

// notDefinedPrefix opens the flag package's error for an unknown flag.
const notDefinedPrefix = "flag provided but not defined: -"

// suggestFlag adds the flag that an unknown one most likely misspells to
// the flag package's error, e.g. "flag provided but not defined: -tokn
// (did you mean --tokens?)"; other errors are returned as they are.
func suggestFlag(err error) error {
	name, ok := strings.CutPrefix(err.Error(), notDefinedPrefix)
	if !ok {
		return err
	}
	flags, _ := flagNames()
	if s := Closest(name, flags); s != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return err
}

// The variables the exec command gives the command it runs: the sandbox's
// base URL (with --base-path) and a bearer token. They are what a sandbox
// tells, not settings: no flag reads them, and a sandbox started where
// they are set does not warn about them.
const (
	EnvSandboxURL   = EnvPrefix + "SANDBOX_URL"
	EnvSandboxToken = EnvPrefix + "SANDBOX_TOKEN"
)

// UnknownEnv returns a warning for each variable of environ (KEY=value
// pairs, as os.Environ gives them) that has the prefix of the flags'
// twins but is the twin of no flag (nor one exec sets): it sets nothing,
// and is most likely a misspelling, so the warning names the variable it
// is nearest to, if one is close. The warnings are sorted by variable.
func UnknownEnv(environ []string) []string {
	_, known := flagNames()
	known = append(known, EnvSandboxURL, EnvSandboxToken)
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) && !slices.Contains(known, name) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		msg := "unknown environment variable " + name
		if s := Closest(name, known); s != "" {
			msg += "; did you mean " + s + "?"
		} else {
			msg += "; no flag reads it ('threeds-sandbox help' lists every variable)"
		}
		out = append(out, msg)
	}
	return out
}
