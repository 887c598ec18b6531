package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// runResult is what one in-process run of the program did.
type runResult struct {
	err            error
	code           int
	stdout, stderr string
	served         string // the URL it announced, "" when it did not serve
}

// runOnce runs the program with args and env (without a drain delay)
// until it returns; a program that serves is stopped at once and reported
// as served.
func runOnce(t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience)
	defer cancel()
	var stdout, stderr testkit.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	env = withoutDrain(env)
	go func() { done <- run(ctx, args, envOf(env), environOf(env), &stdout, &stderr, ready) }()
	var o runResult
	select {
	case o.served = <-ready:
		cancel()
		o.err = <-done
	case o.err = <-done:
	}
	o.code, o.stdout, o.stderr = exitCode(o.err), stdout.String(), stderr.String()
	return o
}

// TestCommands runs every subcommand, and command lines that are wrong,
// through run, and checks the exit code and what each writes where.
func TestCommands(t *testing.T) {
	t.Parallel()
	closed := freePort(t)
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	usage := "Usage:\n  threeds-sandbox [serve] [flags]"
	everyFlag := []string{"Usage:", "  threeds-sandbox validate [--alone] FILE_OR_DIR...", "threeds-sandbox healthcheck",
		"threeds-sandbox version", "threeds-sandbox help [COMMAND]",
		`  --addr ADDR  (THREEDS_ADDR) listen address (default ":8080")`, "  --tokens TOKENS  (THREEDS_TOKENS) ", "Exit codes:"}
	loopback := map[string]string{"THREEDS_ADDR": "127.0.0.1:0"}
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		serves bool
		stdout []string // substrings
		stderr []string // substrings; nil: stderr must be empty
	}{
		{name: "no argument serves", env: loopback, args: nil, serves: true},
		{name: "a flag first serves", args: []string{"--addr", "127.0.0.1:0"}, serves: true},
		{name: "serve", args: []string{"serve", "--addr", "127.0.0.1:0"}, serves: true},
		{name: "help", args: []string{"help"}, stdout: everyFlag},
		{name: "-h", args: []string{"-h"}, stdout: everyFlag},
		{name: "--help", args: []string{"--help"}, stdout: everyFlag},
		{name: "-h after a flag", args: []string{"--seed", "2", "-h"}, stdout: everyFlag},
		{name: "serve -h", args: []string{"serve", "-h"}, stdout: everyFlag},
		{name: "help serve", args: []string{"help", "serve"}, stdout: everyFlag},
		{name: "help validate", args: []string{"help", "validate"}, stdout: []string{"usage: threeds-sandbox validate [--alone] FILE_OR_DIR...", "-alone"}},
		{name: "validate -h", args: []string{"validate", "-h"}, stdout: []string{"usage: threeds-sandbox validate"}},
		{name: "help healthcheck", args: []string{"help", "healthcheck"}, stdout: []string{"usage: threeds-sandbox healthcheck [--addr ADDR]"}},
		{name: "healthcheck -h", args: []string{"healthcheck", "-h"}, stdout: []string{"usage: threeds-sandbox healthcheck"}},
		{name: "help version", args: []string{"help", "version"}, stdout: []string{"usage: threeds-sandbox version"}},
		{name: "version", args: []string{"version"}, stdout: []string{"threeds-sandbox ", "built with " + runtime.Version()}},

		{name: "mistyped command", args: []string{"validte", "x.yaml"}, code: 2,
			stderr: []string{`threeds-sandbox: unknown command "validte" (did you mean "validate"?)`, usage}},
		{name: "mistyped serve", args: []string{"serv"}, code: 2, stderr: []string{`(did you mean "serve"?)`, usage}},
		{name: "mistyped healthcheck", args: []string{"helthcheck"}, code: 2, stderr: []string{`(did you mean "healthcheck"?)`}},
		{name: "prefix of a command", args: []string{"ver"}, code: 2, stderr: []string{`(did you mean "version"?)`}},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: []string{`unknown command "frobnicate"` + "\n", usage}},
		{name: "help of an unknown command", args: []string{"help", "valdate"}, code: 2, stderr: []string{`unknown command "valdate" (did you mean "validate"?)`}},
		{name: "help of two commands", args: []string{"help", "serve", "validate"}, code: 2, stderr: []string{`help: unexpected argument "validate"`}},
		{name: "stray argument", args: []string{"serve", "extra"}, code: 2, stderr: []string{`serve: unexpected argument "extra"`, usage}},
		{name: "stray argument after flags", args: []string{"--addr", "127.0.0.1:0", "extra"}, code: 2, stderr: []string{`serve: unexpected argument "extra"`}},
		{name: "command after flags", args: []string{"--addr", "127.0.0.1:0", "validate", "x.yaml"}, code: 2,
			stderr: []string{`unexpected argument "validate" (a command comes before the flags: threeds-sandbox validate [flags])`}},
		{name: "unknown flag", args: []string{"--colour", "blue"}, code: 2, stderr: []string{"serve: flag provided but not defined: -colour", usage}},
		{name: "flag without its value", args: []string{"--addr"}, code: 2, stderr: []string{"serve: flag needs an argument: -addr", usage}},
		{name: "mistyped flag", args: []string{"--tokn", "x"}, code: 2,
			stderr: []string{"threeds-sandbox: serve: flag provided but not defined: -tokn (did you mean --tokens?)\n", usage}},
		{name: "mistyped flag of healthcheck", args: []string{"healthcheck", "--adr", "127.0.0.1:1"}, code: 2,
			stderr: []string{"healthcheck: flag provided but not defined: -adr (did you mean --addr?)"}},
		{name: "version with an argument", args: []string{"version", "--short"}, code: 2, stderr: []string{`version: unexpected argument "--short"`}},

		{name: "validate without a file", args: []string{"validate"}, code: 2, stderr: []string{"validate: name at least one scenario file or directory", usage}},
		{name: "validate with an unknown flag", args: []string{"validate", "--strict", "x.yaml"}, code: 2, stderr: []string{"validate: flag provided but not defined: -strict"}},
		{name: "validate finds problems", args: []string{"validate", missing}, code: 1, stderr: []string{"nope.yaml: cannot read", "threeds-sandbox: validate: the scenario files have problems"}},

		{name: "healthcheck of nothing", args: []string{"healthcheck", "--addr", "127.0.0.1:" + closed}, code: 1, stderr: []string{"threeds-sandbox: healthcheck: ", "refused"}},
		{name: "healthcheck with a stray argument", args: []string{"healthcheck", "now"}, code: 2, stderr: []string{`healthcheck: unexpected argument "now"`}},
		{name: "healthcheck of no address", args: []string{"healthcheck", "--addr", "nowhere"}, code: 2, stderr: []string{`--addr (THREEDS_ADDR) "nowhere"`}},

		{name: "bad value", args: []string{"--addr", "127.0.0.1:0", "--max-body-bytes", "-1"}, code: 2,
			stderr: []string{"threeds-sandbox: [http] --max-body-bytes (THREEDS_MAX_BODY_BYTES) -1: want a positive number of bytes\n",
				"'threeds-sandbox help' lists every flag with its environment variable"}},
		{name: "scenario file missing", args: []string{"--addr", "127.0.0.1:0", "--scenarios", missing}, code: 2, stderr: []string{"[scenarios] ", "nope.yaml: cannot read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := runOnce(t, tt.env, tt.args...)
			if got := o.served != ""; got != tt.serves {
				t.Errorf("run(%q) served: %v, want %v\nstderr: %s", tt.args, got, tt.serves, o.stderr)
			}
			if o.code != tt.code {
				t.Errorf("run(%q): exit code %d (%v), want %d", tt.args, o.code, o.err, tt.code)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(o.stdout, want) {
					t.Errorf("run(%q): stdout lacks %q:\n%s", tt.args, want, o.stdout)
				}
			}
			if tt.stderr == nil && o.stderr != "" {
				t.Errorf("run(%q): stderr = %q, want nothing", tt.args, o.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(o.stderr, want) {
					t.Errorf("run(%q): stderr lacks %q:\n%s", tt.args, want, o.stderr)
				}
			}
		})
	}
}

// TestAddressInUseExitsOne: a failure at run time is exit code 1.
func TestAddressInUseExitsOne(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o := runOnce(t, nil, "--addr", ln.Addr().String())
	if o.code != 1 || o.served != "" {
		t.Errorf("run on a port in use: exit code %d, served %q; want 1 and not served", o.code, o.served)
	}
	if !strings.Contains(o.stderr, "threeds-sandbox: [addr] listen on") {
		t.Errorf("stderr = %q, want the listen failure", o.stderr)
	}
}

// TestEveryBadFlagExitsTwo gives one wrong value of every flag, once as
// the flag and once as its environment twin: the program does not serve,
// names the flag and its twin on stderr, and exits 2.
func TestEveryBadFlagExitsTwo(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	bad := map[string]struct{ value, want string }{
		"addr":                          {"nowhere", `"nowhere": want host:port`},
		"public-url":                    {"javascript:alert(1)", "want an absolute http or https URL"},
		"base-path":                     {"/a b", "want a path such as /3ds"},
		"tokens":                        {" , ,,", "names no token"},
		"scenarios":                     {missing, "missing.yaml: cannot read"},
		"scenarios-mode":                {"merge", "want extend or replace"},
		"packs":                         {"stripe", "unknown pack"},
		"scenarios-poll":                {"-1s", "want 0 (reload only on SIGHUP) or a positive duration"},
		"fallback":                      {"no-such-scenario", `"no-such-scenario" names no scenario`},
		"card-bins":                     {"463208=NOPE", "unknown scheme"},
		"ds-keys":                       {"/no/such/dir", "directory-servers.json"},
		"seed":                          {"-1", "want a whole number of 0 or more"},
		"first-creq-timeout":            {"-1s", "want a positive duration"},
		"challenge-timeout":             {"0", "want a positive duration"},
		"store-max-entries":             {"-5", "want a positive number of transactions"},
		"store-max-entries-per-token":   {"-5", "want a positive number of transactions"},
		"store-max-age":                 {"-1h", "want a positive duration"},
		"store":                         {"mysql://db", "want memory, or a Redis URL"},
		"store-timeout":                 {"0", "want a positive duration"},
		"store-flush-delay":             {"-1ms", "want 0 (write at once) or a positive duration below half of --store-timeout"},
		"store-wait":                    {"-1s", "want 0 (fail at once) or a positive duration"},
		"store-prefix":                  {"my prefix", "want a prefix such as 3ds:"},
		"store-ca-file":                 {missing, "needs a TLS store, --store (THREEDS_STORE) rediss://"},
		"max-body-bytes":                {"-1", "want a positive number of bytes"},
		"state-hash-key":                {"00", "want 32 or 64"},
		"state-block-key":               {"zz", "not hex"},
		"state-previous-keys":           {"00", "want HASH:BLOCK"},
		"shutdown-timeout":              {"-5s", "want a positive duration"},
		"drain-delay":                   {"-1s", "want 0 (no drain) or a positive duration"},
		"chaos-probability":             {"1.5", "want 0 to 1"},
		"chaos-faults":                  {"boom", "unknown fault kind"},
		"max-delayed":                   {"-3", "want a positive number of requests"},
		"max-clock-offset":              {"0s", "want a positive duration"},
		"max-waits":                     {"0", "want a positive number of waits"},
		"max-waits-per-token":           {"-1", "want a positive number of waits"},
		"strict-ddc":                    {"maybe", "maybe"},
		"console-auth":                  {"admin", "want user:password"},
		"journal-size":                  {"-1", "want 0 (no journal) or more"},
		"max-console-sessions":          {"0", "want 1 or more"},
		"max-console-streams":           {"0", "want 1 or more"},
		"max-console-streams-per-token": {"0", "want 1 to --max-console-streams"},
		"max-console-tokens-per-client": {"0", "want 1 or more"},
		"journal-bytes":                 {"-1", "want 65536 bytes or more"},
		"journal-total-bytes":           {"-4096", "want 65536 bytes or more"},
		"journal-store":                 {"shared", "needs a Redis --store (THREEDS_STORE)"},
		"gc-headroom-mib":               {"-1", "want 0 to 1048576"},
		"log-level":                     {"loud", "want debug, info, warn or error"},
		"log-format":                    {"yaml", "want text or json"},
		"merchants":                     {"shop", "want id:secret pairs"},
		"token-lifetime":                {"0", "want 1s to 24h"},
		"callback-url":                  {"http://10.0.0.1/cb", "host or port not in the callback allowlist"},
		"callback-allow-hosts":          {"a b", "want host names or IP addresses"},
		"callback-timeout":              {"0", "want a positive duration of at most 1m"},
		"callback-attempts":             {"0", "want 1 to 20"},
		"callback-backoff":              {"10m", "want a positive duration of at most 5m"},
		"callback-concurrency":          {"0", "want 1 to 256"},

		"callback-concurrency-per-token": {"0", "want 1 to 256"},
		"callback-outbox":                {"-1", "want 1 to 10000000"},
		"callback-outbox-per-token":      {"0", "want 1 to --callback-outbox"},
		"callback-secret-grace":          {"1000h", "want 0 to 720h"},
	}
	var c sandbox.Config
	sandbox.FlagSet(&c, io.Discard).VisitAll(func(f *flag.Flag) {
		if _, ok := bad[f.Name]; !ok {
			t.Errorf("--%s has no bad value in the table", f.Name)
		}
	})
	for name, tt := range bad {
		for _, via := range []string{"flag", "env"} {
			t.Run(name+"/"+via, func(t *testing.T) {
				t.Parallel()
				env := map[string]string{}
				args := []string{"--addr", "127.0.0.1:0", "--" + name + "=" + tt.value} // one argument: a boolean flag takes no separate value
				if via == "env" {
					env["THREEDS_ADDR"], env[sandbox.EnvName(name)], args = "127.0.0.1:0", tt.value, nil
				}
				o := runOnce(t, env, args...)
				if o.served != "" {
					t.Fatalf("run served at %s, want a refusal", o.served)
				}
				if o.code != 2 {
					t.Errorf("exit code %d (%v), want 2", o.code, o.err)
				}
				named := "--" + name + " (" + sandbox.EnvName(name) + ") "
				if name == "scenarios" || name == "fallback" { // refused by the scenario load
					named = "threeds-sandbox: [scenarios] "
				}
				for _, want := range []string{named, tt.want} {
					if !strings.Contains(o.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
					}
				}
			})
		}
	}
}

// TestUnknownEnvironmentIsWarned: a THREEDS_ variable that is no flag's
// twin is warned about once at start-up, with the variable it most likely
// misspells; it is no error (a container's environment carries others),
// and variables of other prefixes are not its business.
func TestUnknownEnvironmentIsWarned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want []string // the warnings, in order
	}{
		{name: "a misspelled variable", env: map[string]string{"THREEDS_TOKEN": "team-a"},
			want: []string{`level=WARN msg="unknown environment variable THREEDS_TOKEN; did you mean THREEDS_TOKENS?"`}},
		{name: "a variable near no flag", env: map[string]string{"THREEDS_COLOUR": "blue"},
			want: []string{`level=WARN msg="unknown environment variable THREEDS_COLOUR; no flag reads it ('threeds-sandbox help' lists every variable)"`}},
		{name: "two, in order", env: map[string]string{"THREEDS_SEEDS": "2", "THREEDS_LOG_LEVL": "debug"},
			want: []string{"unknown environment variable THREEDS_LOG_LEVL; did you mean THREEDS_LOG_LEVEL?",
				"unknown environment variable THREEDS_SEEDS; did you mean THREEDS_SEED?"}},
		{name: "known and foreign variables", env: map[string]string{"THREEDS_TOKENS": "team-a", "GOGC": "100", "TOKEN": "x", "threeds_tokn": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"THREEDS_ADDR": "127.0.0.1:0"}
			for k, v := range tt.env {
				env[k] = v
			}
			o := runOnce(t, env)
			if o.served == "" || o.code != 0 {
				t.Fatalf("run with %v: exit code %d (%v), served %q; want it to serve\n%s", tt.env, o.code, o.err, o.served, o.stderr)
			}
			if got := strings.Count(o.stdout, "unknown environment variable"); got != len(tt.want) {
				t.Errorf("%d warnings of unknown variables, want %d:\n%s", got, len(tt.want), o.stdout)
			}
			at := 0
			for _, w := range tt.want {
				i := strings.Index(o.stdout[at:], w)
				if i < 0 {
					t.Errorf("the log lacks %q after the previous warning:\n%s", w, o.stdout)
					break
				}
				at += i + len(w)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"failure at run time", errors.New("listen: address in use"), 1},
		{"usage", usageError("unknown command %q", "x"), 2},
		{"configuration", configError(errors.New("[http] --max-body-bytes -1")), 2},
		{"wrapped usage", fmt.Errorf("while starting: %w", usageError("x")), 2},
		{"validate's problems", errInvalid, 1},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestVersionText(t *testing.T) {
	t.Parallel()
	goLine := "built with " + runtime.Version() + " for " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "threeds-sandbox (devel)\n" + goLine},
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-20T10:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		}}, "threeds-sandbox v1.4.0\nrevision 0123456789abcdef0123456789abcdef01234567, 2026-11-20T10:00:00Z\n" + goLine},
		{"modified tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "89abcdef"},
			{Key: "vcs.modified", Value: "true"},
		}}, "threeds-sandbox (devel)\nrevision 89abcdef (modified)\n" + goLine},
	}
	for _, tt := range tests {
		if got := versionText(tt.info); got != tt.want {
			t.Errorf("%s: versionText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestClosestCommand: typos and prefixes find their command; a word far
// from all of them finds none.
func TestClosestCommand(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"validte": "validate", "valdiate": "validate", "valid": "validate", "srve": "serve",
		"healtcheck": "healthcheck", "health": "healthcheck", "verison": "version", "hlep": "help",
		"serve": "serve", "frobnicate": "", "": "", "x": "",
	} {
		if got := closest(in); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}
