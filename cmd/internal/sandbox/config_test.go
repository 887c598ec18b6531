package sandbox

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
)

// envOf returns a getenv that reads only m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// badValues are values Parse refuses, for every flag that Parse can check
// on its own, with what the problem must say after "[area] --flag (ENV) ".
var badValues = []struct {
	flag, value, want string
	secret            bool // the value must not appear in the problem
}{
	{flag: "addr", value: "nowhere", want: `"nowhere": want host:port`},
	{flag: "public-url", value: "javascript:alert(1)", want: `"javascript:alert(1)": want an absolute http or https URL`},
	{flag: "public-url", value: "ftp://files.example", want: "want an absolute http or https URL"},
	{flag: "public-url", value: "/relative/path", want: "want an absolute http or https URL"},
	{flag: "public-url", value: "https://", want: "want an absolute http or https URL"},
	{flag: "public-url", value: "https://:8443/3ds", want: "want an absolute http or https URL"},
	{flag: "public-url", value: "https://user:s3cret@shop.example", want: `"https://user:xxxxx@shop.example": want an absolute http or https URL such as https://3ds.example.com/sandbox, without user information`, secret: true},
	{flag: "public-url", value: "https://shop.example/3ds?x=1", want: "without a query or fragment"},
	{flag: "public-url", value: "https://shop.example/3ds?", want: "without a query or fragment"},
	{flag: "public-url", value: "https://shop.example/#top", want: "without a query or fragment"},
	{flag: "public-url", value: "https://shop.example/a b", want: "want an absolute http or https URL"},
	{flag: "public-url", value: "https://shop.example/a/../b", want: "whose path is made of segments"},
	{flag: "base-path", value: "/a b", want: `"/a b": want a path such as /3ds`},
	{flag: "base-path", value: "/a/../b", want: "want a path such as /3ds"},
	{flag: "base-path", value: "/./3ds", want: "want a path such as /3ds"},
	{flag: "base-path", value: "//3ds", want: "want a path such as /3ds"},
	{flag: "base-path", value: "/3ds//", want: "want a path such as /3ds"},
	{flag: "base-path", value: "/a//b", want: "want a path such as /3ds"},
	{flag: "base-path", value: "/3ds?x=1", want: "want a path such as /3ds"},
	{flag: "base-path", value: "/%2e%2e", want: "want a path such as /3ds"},
	{flag: "max-body-bytes", value: "-1", want: "-1: want a positive number of bytes"},
	{flag: "max-body-bytes", value: "0", want: "0: want a positive number of bytes"},
	{flag: "max-body-bytes", value: "64k", want: `"64k": want a whole number`},
	{flag: "shutdown-timeout", value: "-5s", want: "-5s: want a positive duration"},
	{flag: "shutdown-timeout", value: "0", want: "0s: want a positive duration"},
	{flag: "drain-delay", value: "-1s", want: "-1s: want 0 (no drain) or a positive duration"},
	{flag: "drain-delay", value: "later", want: `"later": want a duration`},
	{flag: "tokens", value: " , ,,", want: `" , ,,": names no token`},
	{flag: "tokens", value: " ", want: `" ": names no token`},
	{flag: "scenarios-mode", value: "merge", want: `"merge": want extend or replace`},
	{flag: "scenarios-mode", value: "replace", want: `"replace": needs --scenarios (THREEDS_SCENARIOS)`},
	{flag: "packs", value: "defaults,stripe", want: `"stripe": unknown pack; want defaults, cardinal, reasons`},
	{flag: "scenarios-poll", value: "-1s", want: "-1s: want 0 (reload only on SIGHUP) or a positive duration"},
	{flag: "scenarios-poll", value: "often", want: `"often": want a duration`},
	{flag: "ds-keys", value: "/no/such/dir", want: `"/no/such/dir": directory servers: open directory-servers.json`},
	{flag: "card-bins", value: "463208", want: "want PREFIX=SCHEME"},
	{flag: "card-bins", value: "46x=VISA", want: "want 1 to 11 digits"},
	{flag: "card-bins", value: "463208=NOPE", want: "unknown scheme"},
	{flag: "seed", value: "abc", want: `"abc": want a whole number of 0 or more`},
	{flag: "seed", value: "-1", want: `"-1": want a whole number of 0 or more`},
	{flag: "max-delayed", value: "-3", want: "-3: want a positive number of requests"},
	{flag: "max-clock-offset", value: "0s", want: "0s: want a positive duration"},
	{flag: "max-clock-offset", value: "2401h", want: "2401h0m0s: want at most 2400h (100 days)"},
	{flag: "max-waits", value: "0", want: "0: want a positive number of waits"},
	{flag: "max-waits-per-token", value: "-1", want: "-1: want a positive number of waits"},
	{flag: "strict-ddc", value: "maybe", want: "maybe"},
	{flag: "max-delayed", value: "0", want: "0: want a positive number of requests"},
	{flag: "first-creq-timeout", value: "-1s", want: "-1s: want a positive duration"},
	{flag: "first-creq-timeout", value: "0s", want: "0s: want a positive duration"},
	{flag: "challenge-timeout", value: "0", want: "0s: want a positive duration"},
	{flag: "challenge-timeout", value: "soon", want: `"soon": want a duration such as 30s`},
	{flag: "store-max-entries", value: "-1", want: "-1: want a positive number of transactions"},
	{flag: "store-max-entries", value: "0", want: "0: want a positive number of transactions"},
	{flag: "store-max-entries-per-token", value: "0", want: "0: want a positive number of transactions"},
	{flag: "store-max-age", value: "-1h", want: "-1h0m0s: want a positive duration"},
	{flag: "store-max-age", value: "0", want: "0s: want a positive duration"},
	{flag: "store", value: "postgres://db/x", want: `"postgres://db/x": want memory, or a Redis URL`},
	{flag: "store", value: "redis://:secret@host:6379", want: `"redis://:***@host:6379": a store shared by replicas needs the same --state-hash-key (THREEDS_STATE_HASH_KEY)`, secret: true},
	{flag: "store-timeout", value: "0", want: "0s: want a positive duration"},
	{flag: "store-flush-delay", value: "-1ms", want: "-1ms: want 0 (write at once) or a positive duration below half of --store-timeout"},
	{flag: "store-flush-delay", value: "1500ms", want: "1.5s: want 0 (write at once) or a positive duration below half of --store-timeout"},
	{flag: "store-wait", value: "-1s", want: "-1s: want 0 (fail at once) or a positive duration"},
	{flag: "store-wait", value: "30", want: `"30": a number alone has no unit; want a duration with one, such as 30s or 30m`},
	{flag: "store-timeout", value: "1.5", want: `"1.5": a number alone has no unit; want a duration with one, such as 1.5s`},
	{flag: "store-prefix", value: "my prefix", want: `"my prefix": want a prefix such as 3ds:`},
	{flag: "store-ca-file", value: "/etc/ssl/ca.pem", want: `"/etc/ssl/ca.pem": needs a TLS store, --store (THREEDS_STORE) rediss://`},
	{flag: "state-hash-key", value: "zz" + strings.Repeat("00", 31), want: "(hidden): not hex", secret: true},
	{flag: "state-hash-key", value: strings.Repeat("ab", 20), want: "(hidden): 20 bytes, want 32 or 64", secret: true},
	{flag: "state-block-key", value: "zz" + strings.Repeat("00", 15), want: "(hidden): not hex", secret: true},
	{flag: "state-block-key", value: strings.Repeat("ab", 20), want: "(hidden): 20 bytes, want 16, 24 or 32", secret: true},
	{flag: "state-previous-keys", value: strings.Repeat("ab", 32), want: "(hidden): want HASH:BLOCK", secret: true},
	{flag: "state-previous-keys", value: strings.Repeat(strings.Repeat("ab", 32)+":"+strings.Repeat("cd", 16)+",", 17), want: "(hidden): 17 pairs, want at most 16", secret: true},
	{flag: "chaos-probability", value: "2", want: "2: want 0 to 1"},
	{flag: "chaos-probability", value: "-0.1", want: "-0.1: want 0 to 1"},
	{flag: "chaos-probability", value: "NaN", want: "NaN: want 0 to 1"},
	{flag: "chaos-probability", value: "half", want: `"half": want a number`},
	{flag: "chaos-faults", value: "drop,boom", want: `"boom": unknown fault kind`},
	{flag: "console-auth", value: "admin-s3cret", want: "(hidden): want user:password", secret: true},
	{flag: "console-auth", value: ":s3cret", want: "(hidden): want user:password", secret: true},
	{flag: "journal-size", value: "-1", want: "-1: want 0 (no journal) or more"},
	{flag: "max-console-sessions", value: "0", want: "0: want 1 or more"},
	{flag: "max-console-streams", value: "0", want: "0: want 1 or more"},
	{flag: "max-console-streams-per-token", value: "0", want: "0: want 1 to --max-console-streams"},
	{flag: "max-console-tokens-per-client", value: "0", want: "0: want 1 or more"},
	{flag: "journal-bytes", value: "-1", want: "-1: want 65536 bytes or more"},
	{flag: "journal-bytes", value: "0", want: "0: want 65536 bytes or more"},
	{flag: "journal-bytes", value: "4MiB", want: `"4MiB": want a whole number`},
	{flag: "journal-store", value: "redis", want: `"redis": want shared or local`},
	{flag: "journal-store", value: "shared", want: `"shared": needs a Redis --store (THREEDS_STORE)`},
	{flag: "journal-total-bytes", value: "-5", want: "-5: want 65536 bytes or more"},
	{flag: "gc-headroom-mib", value: "-1", want: "-1: want 0 to 1048576"},
	{flag: "gc-headroom-mib", value: "2000000", want: "2000000: want 0 to 1048576"},
	{flag: "log-level", value: "loud", want: `"loud": want debug, info, warn or error`},
	{flag: "log-format", value: "yaml", want: `"yaml": want text or json`},
	{flag: "merchants", value: "shop-1:short-secret", want: `(hidden): merchant "shop-1": the secret has 12 characters, want 16 to 256`, secret: true},
	{flag: "merchants", value: "shop-1=0123456789abcdef0123", want: "(hidden): want id:secret pairs", secret: true},
	{flag: "token-lifetime", value: "0", want: "0s: want 1s to 24h"},
	{flag: "token-lifetime", value: "48h", want: "48h0m0s: want 1s to 24h"},
	{flag: "callback-url", value: "http://10.0.0.1/cb", want: `"http://10.0.0.1/cb": host or port not in the callback allowlist`},
	{flag: "callback-url", value: "http://localhost:0/cb", want: `"http://localhost:0/cb": the port 0 is not a number from 1 to 65535`},
	{flag: "callback-url", value: "ftp://localhost/cb", want: "not an absolute http or https URL"},
	{flag: "callback-allow-hosts", value: "a b", want: `"a b": want host names or IP addresses`},
	{flag: "callback-allow-hosts", value: "localhost:70000", want: `want a port or a range of ports from 1 to 65535`},
	{flag: "callback-timeout", value: "0", want: "0s: want a positive duration of at most 1m"},
	{flag: "callback-attempts", value: "0", want: "0: want 1 to 20"},
	{flag: "callback-backoff", value: "10m", want: "10m0s: want a positive duration of at most 5m"},
	{flag: "callback-concurrency", value: "0", want: "0: want 1 to 256"},
	{flag: "callback-concurrency-per-token", value: "0", want: "0: want 1 to 256"},
	{flag: "callback-outbox", value: "0", want: "0: want 1 to 10000000"},
	{flag: "callback-outbox-per-token", value: "200000", want: "200000: want 1 to --callback-outbox (100000)"},
	{flag: "callback-secret-grace", value: "-1s", want: "-1s: want 0 to 720h"},
}

// checkedAtLoad are the flags whose values only loading the scenarios can
// check (the emulator's start-up refuses them, and cmd/threeds-sandbox
// tests that).
var checkedAtLoad = map[string]string{
	"scenarios": "a path is read when the scenarios load",
	"fallback":  "the id must name a scenario of the loaded files",
}

// TestParseRefusesBadValues gives every bad value once as a flag and once
// as its environment twin: each is refused with its area, the flag and
// the environment variable named, and secrets are not repeated.
func TestParseRefusesBadValues(t *testing.T) {
	t.Parallel()
	for _, tt := range badValues {
		for _, via := range []string{"flag", "env"} {
			t.Run(tt.flag+"="+tt.value+"/"+via, func(t *testing.T) {
				var args []string
				env := map[string]string{}
				if via == "flag" {
					args = []string{"--" + tt.flag + "=" + tt.value} // one argument: a boolean flag takes no separate value
				} else {
					env[EnvName(tt.flag)] = tt.value
				}
				_, rest, err := Parse(args, envOf(env), io.Discard)
				if err == nil {
					t.Fatalf("Parse(%q, %v) = nil error, want a problem", args, env)
				}
				if len(rest) != 0 {
					t.Errorf("Parse left arguments %q", rest)
				}
				var usage *UsageError
				if errors.As(err, &usage) {
					t.Errorf("Parse = usage error %v, want a problem of the value", err)
				}
				prefix := "[" + areaOf(tt.flag) + "] --" + tt.flag + " (" + EnvName(tt.flag) + ") "
				lines := strings.Split(err.Error(), "\n")
				if len(lines) != 1 {
					t.Errorf("Parse found %d problems, want 1:\n%v", len(lines), err)
				}
				if got := lines[0]; !strings.HasPrefix(got, prefix) || !strings.Contains(got, tt.want) {
					t.Errorf("problem = %q, want %q followed by %q", got, prefix, tt.want)
				}
				if tt.secret && strings.Contains(err.Error(), tt.value) {
					t.Errorf("problem %q repeats the secret value", err)
				}
			})
		}
	}
}

// TestEveryFlagIsChecked: every flag has an area and at least one bad
// value above, or says why only loading the scenarios can check it.
func TestEveryFlagIsChecked(t *testing.T) {
	t.Parallel()
	tested := map[string]bool{}
	for _, tt := range badValues {
		tested[tt.flag] = true
	}
	var c Config
	FlagSet(&c, io.Discard).VisitAll(func(f *flag.Flag) {
		if areaOf(f.Name) == "" {
			t.Errorf("--%s has no area", f.Name)
		}
		_, atLoad := checkedAtLoad[f.Name]
		if !tested[f.Name] && !atLoad {
			t.Errorf("--%s has no bad value in the table", f.Name)
		}
		if tested[f.Name] && atLoad {
			t.Errorf("--%s is both checked by Parse and said to be checked at load", f.Name)
		}
	})
}

// TestParseReportsEveryProblemAtOnce mixes bad flags and bad environment
// values: all are reported, in one error.
func TestParseReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	args := []string{"--max-body-bytes", "-1", "--seed", "abc", "--public-url", "javascript:alert(1)"}
	env := map[string]string{
		"THREEDS_TOKENS":            " ",
		"THREEDS_MAX_DELAYED":       "-3",
		"THREEDS_CHALLENGE_TIMEOUT": "soon",
		"THREEDS_SEED":              "7", // the flag wins, even a bad one
	}
	_, _, err := Parse(args, envOf(env), io.Discard)
	if err == nil {
		t.Fatal("Parse = nil error, want six problems")
	}
	want := []string{"--max-body-bytes", "--seed", "--public-url", "--tokens", "--max-delayed", "--challenge-timeout"}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w+" ") {
			t.Errorf("problems lack %s:\n%v", w, err)
		}
	}
}

// TestParseAcceptsGoodValues: the edges that stay valid, through the
// flag and its environment twin.
func TestParseAcceptsGoodValues(t *testing.T) {
	t.Parallel()
	key32, key16 := strings.Repeat("ab", 32), strings.Repeat("cd", 16)
	tests := []struct {
		flag, value string
		check       func(c Config) bool
	}{
		{"addr", "127.0.0.1:0", func(c Config) bool { return c.Addr == "127.0.0.1:0" }},
		{"public-url", "https://3ds.example.com/sandbox/", func(c Config) bool { return c.PublicURL == "https://3ds.example.com/sandbox/" }},
		{"public-url", "http://localhost:8080", func(c Config) bool { return c.PublicURL == "http://localhost:8080" }},
		{"public-url", "http://[::1]:8080/3ds", func(c Config) bool { return c.PublicURL == "http://[::1]:8080/3ds" }},
		{"base-path", "/", func(c Config) bool { return c.BasePath == "/" }},
		{"base-path", "3ds", func(c Config) bool { return c.BasePath == "3ds" }},
		{"base-path", "/3ds/", func(c Config) bool { return c.BasePath == "/3ds/" }},
		{"base-path", "/a-b/c.d_e~f/V2", func(c Config) bool { return c.BasePath == "/a-b/c.d_e~f/V2" }},
		{"tokens", "alpha, ,beta", func(c Config) bool { return len(SplitList(c.Tokens)) == 2 }},
		{"scenarios-poll", "0", func(c Config) bool { return c.ScenariosPoll == 0 }},
		{"drain-delay", "0", func(c Config) bool { return c.DrainDelay == 0 }},
		{"drain-delay", "250ms", func(c Config) bool { return c.DrainDelay == 250*time.Millisecond }},
		{"max-body-bytes", "1", func(c Config) bool { return c.MaxBodyBytes == 1 }},
		{"seed", "0", func(c Config) bool { return c.Seed == 0 }},
		{"strict-ddc", "true", func(c Config) bool { return c.StrictDDC }},
		{"journal-size", "0", func(c Config) bool { return c.JournalSize == 0 }},
		{"journal-store", "local", func(c Config) bool { return c.JournalStore == "local" }},
		{"journal-bytes", "65536", func(c Config) bool { return c.JournalBytes == 65536 }},
		{"journal-total-bytes", "1073741824", func(c Config) bool { return c.JournalTotal == 1<<30 }},
		{"gc-headroom-mib", "0", func(c Config) bool { return c.GCHeadroomMiB == 0 }},
		{"chaos-probability", "1", func(c Config) bool { return c.ChaosProbability == 1 }},
		{"chaos-faults", strings.Join(emulator.ChaosKinds(), ","), func(c Config) bool { return c.ChaosFaults != "" }},
		{"card-bins", "463208=ITMX, 9764=TPN", func(c Config) bool { return c.CardBINs != "" }},
		{"packs", "defaults,reasons", func(c Config) bool { return c.Packs == "defaults,reasons" }},
		{"state-hash-key", key32, func(c Config) bool { return c.StateHashKey == key32 }},
		{"state-block-key", key16, func(c Config) bool { return c.StateBlockKey == key16 }},
		{"state-previous-keys", key32 + ":" + key16, func(c Config) bool { return c.StatePrevKeys != "" }},
		{"console-auth", "qa:pass:word", func(c Config) bool { return c.ConsoleAuth == "qa:pass:word" }},
		{"store-max-age", "1m", func(c Config) bool { return c.StoreMaxAge == time.Minute }},
		{"log-level", "debug", func(c Config) bool { return c.LogLevel == "debug" }},
	}
	for _, tt := range tests {
		for _, via := range []string{"flag", "env"} {
			t.Run(tt.flag+"="+tt.value+"/"+via, func(t *testing.T) {
				var args []string
				env := map[string]string{}
				if via == "flag" {
					args = []string{"--" + tt.flag, tt.value}
				} else {
					env[EnvName(tt.flag)] = tt.value
				}
				c, _, err := Parse(args, envOf(env), io.Discard)
				if err != nil {
					t.Fatalf("Parse(%q, %v) = %v, want nil", args, env, err)
				}
				if !tt.check(c) {
					t.Errorf("Parse(%q, %v) gave %+v", args, env, c)
				}
			})
		}
	}
}

// TestParseDefaults: no flag and no environment give a valid
// configuration (go run with no argument serves).
func TestParseDefaults(t *testing.T) {
	t.Parallel()
	c, rest, err := Parse(nil, envOf(nil), io.Discard)
	if err != nil || len(rest) != 0 {
		t.Fatalf("Parse(nil) = %v, %q, want no error and no argument", err, rest)
	}
	if got, want := c.Addr, ":8080"; got != want {
		t.Errorf("Addr = %q, want %q", got, want)
	}
	if got, want := c.DrainDelay, time.Duration(0); got != want {
		t.Errorf("DrainDelay = %s, want %s with the memory store", got, want)
	}
}

// TestDrainDelayFollowsTheStore: without --drain-delay or its variable, a
// Redis store (replicas behind a load balancer) drains for
// DefaultDrainDelay and the memory store not at all; a delay given either
// way wins whatever the store.
func TestDrainDelayFollowsTheStore(t *testing.T) {
	t.Parallel()
	redis := map[string]string{"THREEDS_STORE": "redis://127.0.0.1:6379/0",
		"THREEDS_STATE_HASH_KEY": strings.Repeat("ab", 32), "THREEDS_STATE_BLOCK_KEY": strings.Repeat("cd", 16)}
	with := func(env map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for k, v := range env {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want time.Duration
	}{
		{name: "memory store", want: 0},
		{name: "redis store", env: redis, want: DefaultDrainDelay},
		{name: "memory store, flag", args: []string{"--drain-delay", "3s"}, want: 3 * time.Second},
		{name: "memory store, variable", env: map[string]string{"THREEDS_DRAIN_DELAY": "2s"}, want: 2 * time.Second},
		{name: "redis store, flag 0", args: []string{"--drain-delay", "0"}, env: redis, want: 0},
		{name: "redis store, variable 0", env: with(redis, "THREEDS_DRAIN_DELAY", "0"), want: 0},
		{name: "redis store, variable", env: with(redis, "THREEDS_DRAIN_DELAY", "30s"), want: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := Parse(tt.args, envOf(tt.env), io.Discard)
			if err != nil {
				t.Fatalf("Parse(%q, %v) = %v", tt.args, tt.env, err)
			}
			if c.DrainDelay != tt.want {
				t.Errorf("DrainDelay = %s, want %s", c.DrainDelay, tt.want)
			}
		})
	}
}

// TestParseUsage: a command line that cannot be read is a *UsageError, -h
// is flag.ErrHelp with every flag and its environment twin on out, and
// the arguments after the flags are returned.
func TestParseUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--colour", "blue"}, {"--addr"}} {
		_, _, err := Parse(args, envOf(nil), io.Discard)
		var usage *UsageError
		if !errors.As(err, &usage) {
			t.Errorf("Parse(%q) = %v, want a *UsageError", args, err)
		}
	}
	var out strings.Builder
	_, _, err := Parse([]string{"-h"}, envOf(nil), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{
		`  --addr ADDR  (THREEDS_ADDR) listen address (default ":8080")`,
		"  --fallback ID  (THREEDS_FALLBACK) id of the scenario",
		"  --first-creq-timeout DURATION  (THREEDS_FIRST_CREQ_TIMEOUT) ",
		"(default 10m)\n",
		"  --store-max-age DURATION  (THREEDS_STORE_MAX_AGE) how long a transaction is kept (default 24h)\n",
		"  --max-body-bytes N  (THREEDS_MAX_BODY_BYTES) largest request body accepted (default 65536)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("flag list lacks %q:\n%s", want, out.String())
		}
	}
	var c Config
	FlagSet(&c, io.Discard).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out.String(), "  --"+f.Name+" ") || !strings.Contains(out.String(), "("+EnvName(f.Name)+")") {
			t.Errorf("flag list lacks --%s with %s", f.Name, EnvName(f.Name))
		}
	})
	_, rest, err := Parse([]string{"--seed", "3", "extra", "--addr", ":1"}, envOf(nil), io.Discard)
	if err != nil || len(rest) != 3 || rest[0] != "extra" {
		t.Errorf("Parse with a stray argument = %v, %q; want no error and the rest from extra on", err, rest)
	}
}

// TestDSKeys: --ds-keys reads a key directory of the embedded keys'
// layout, and names the file at fault in one that is wrong.
func TestDSKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, directory.EmbeddedKeys()); err != nil {
		t.Fatal(err)
	}
	c, _, err := Parse([]string{"--ds-keys", dir}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	set, err := c.settings()
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := set.directory.ForScheme("VISA"); !ok || s.ID != "A000000003" {
		t.Errorf("the directory read: %v, %v", s, ok)
	}
	if err := os.Remove(filepath.Join(dir, "visa-root.crt")); err != nil {
		t.Fatal(err)
	}
	_, _, err = Parse([]string{"--ds-keys", dir}, func(string) string { return "" }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "[app] --ds-keys (THREEDS_DS_KEYS)") || !strings.Contains(err.Error(), "visa-root.crt") {
		t.Errorf("a key directory without a root: %v", err)
	}
}
