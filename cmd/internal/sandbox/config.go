// Package sandbox turns the command line into a running emulator: the
// flags with their THREEDS_* twins, and the wiring of scenarios, engine,
// store, journal and HTTP server. The binary, the load benchmark and the
// screenshot tool all start the emulator through it, so they run the same
// thing.
package sandbox

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// DefaultDrainDelay is how long, on SIGINT or SIGTERM, /readyz answers
// 503 while every route still serves, before the graceful shutdown: long
// enough for a load balancer probing every few seconds to stop sending.
// It is the default with a Redis store, whose replicas sit behind one;
// with the memory store the default is no drain, so that Ctrl-C exits at
// once.
const DefaultDrainDelay = 5 * time.Second

// EnvPrefix is the prefix of every flag's environment twin: --public-url
// is THREEDS_PUBLIC_URL.
const EnvPrefix = "THREEDS_"

// Config is everything the command line and the environment set.
type Config struct {
	Addr             string
	PublicURL        string
	BasePath         string
	Tokens           string
	Scenarios        string
	ScenariosMode    string
	Fallback         string
	Packs            string
	ScenariosPoll    time.Duration
	CardBINs         string
	Seed             uint64
	FirstCReqTimeout time.Duration
	ChallengeTimeout time.Duration
	Store            string
	StoreTimeout     time.Duration
	StoreWait        time.Duration
	StorePrefix      string
	StoreCAFile      string
	StoreMaxEntries  int
	StoreMaxAge      time.Duration
	MaxBodyBytes     int64
	StateHashKey     string
	StateBlockKey    string
	StatePrevKeys    string
	ShutdownTimeout  time.Duration
	DrainDelay       time.Duration
	LogLevel         string
	LogFormat        string
	ChaosProbability float64
	ChaosFaults      string
	MaxDelayed       int
	StrictDDC        bool
	ConsoleAuth      string
	ConsoleSessions  int
	JournalSize      int
	JournalBytes     int64
	JournalTotal     int64
	JournalStore     string
	GCHeadroomMiB    int
	// The merchant's credentials and the result callbacks
	// (config_merchant.go).
	Merchants           string
	TokenLifetime       time.Duration
	CallbackURL         string
	CallbackAllowHosts  string
	CallbackTimeout     time.Duration
	CallbackAttempts    int
	CallbackBackoff     time.Duration
	CallbackConcurrency int
	MaxClockOffset      time.Duration
	MaxWaits            int
	MaxWaitsPerToken    int
}

// FlagSet declares every flag with its default and help text.
func FlagSet(c *Config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("threeds-sandbox", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address")
	fs.StringVar(&c.PublicURL, "public-url", "", "base URL browsers use to reach the emulator, for hostedChallengeUrl and the ACS form (default http://localhost:<port><base-path>)")
	fs.StringVar(&c.BasePath, "base-path", "", "path prefix of every route, e.g. /3ds")
	fs.StringVar(&c.Tokens, "tokens", "", "comma-separated accepted bearer tokens (empty: any non-empty token)")
	fs.StringVar(&c.Scenarios, "scenarios", "", "comma-separated `paths` of scenario files or directories")
	fs.StringVar(&c.ScenariosMode, "scenarios-mode", "extend", "extend: user scenarios add to the embedded defaults; replace: only user scenarios")
	fs.StringVar(&c.Packs, "packs", "", "comma-separated embedded scenario packs to load: defaults, cardinal, reasons (default all)")
	fs.DurationVar(&c.ScenariosPoll, "scenarios-poll", time.Second, "how often user scenario files are checked for changes (0: only on SIGHUP)")
	fs.StringVar(&c.Fallback, "fallback", "", "`id` of the scenario that unmatched cards get (default: the files' fallback, else frictionless Y)")
	fs.StringVar(&c.CardBINs, "card-bins", "", "extra BIN prefixes for card schemes, e.g. 463208=ITMX,9764=TPN")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the fake ACS data and authentication values")
	fs.DurationVar(&c.FirstCReqTimeout, "first-creq-timeout", emulator.DefaultFirstCReqTimeout, "how long a challenge waits for its first CReq (then N, reason 14, challengeCancel 05)")
	fs.DurationVar(&c.ChallengeTimeout, "challenge-timeout", emulator.DefaultChallengeTimeout, "how long an opened challenge waits for a decision (then N, reason 14, challengeCancel 04)")
	fs.StringVar(&c.Store, "store", "memory", "where state is kept: memory, or a Redis URL redis://[user:password@]host:port/db (rediss:// for TLS) shared by several replicas")
	fs.DurationVar(&c.StoreTimeout, "store-timeout", redisstore.DefaultTimeout, "bound on each call to a Redis store; beyond it the request answers 503 SY02")
	fs.DurationVar(&c.StoreWait, "store-wait", 0, "how long start-up waits for a Redis store to answer (0: fail at once)")
	fs.StringVar(&c.StorePrefix, "store-prefix", redisstore.DefaultPrefix, "prefix of every Redis key, so several sandboxes can share one Redis")
	fs.StringVar(&c.StoreCAFile, "store-ca-file", "", "PEM `file` of the certificate authorities trusted to sign the certificate of a rediss:// store, in place of the system's (default: the system's, or the roots built into the binary where the system has none)")
	fs.IntVar(&c.StoreMaxEntries, "store-max-entries", memstore.DefaultMaxEntries, "most transactions kept in memory; the oldest are evicted first (memory store)")
	fs.DurationVar(&c.StoreMaxAge, "store-max-age", memstore.DefaultMaxAge, "how long a transaction is kept")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", web.DefaultMaxBodyBytes, "largest request body accepted")
	fs.StringVar(&c.StateHashKey, "state-hash-key", "", "hex key (32 or 64 bytes) signing the challenge state (default: random at start-up)")
	fs.StringVar(&c.StateBlockKey, "state-block-key", "", "hex key (16, 24 or 32 bytes) encrypting the challenge state (default: random at start-up)")
	fs.StringVar(&c.StatePrevKeys, "state-previous-keys", "", "earlier `HASH:BLOCK` hex key pairs, comma-separated, still accepted during a key rotation")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", web.DefaultShutdownTimeout, "how long shutdown waits for in-flight requests")
	fs.DurationVar(&c.DrainDelay, "drain-delay", 0, "how long, on SIGINT/SIGTERM, /readyz answers 503 while every route still serves, before the shutdown, so that a load balancer stops sending (default 5s with a Redis --store, 0 with the memory store: exit at once; a second signal cuts it short)")
	fs.Float64Var(&c.ChaosProbability, "chaos-probability", 0, "probability (0-1) of an injected fault on any API request; 0 is off")
	fs.StringVar(&c.ChaosFaults, "chaos-faults", "", "comma-separated fault kinds chaos picks from: drop, malformed, http500, emv402, emv403, emv405 (default all)")
	fs.StringVar(&c.ConsoleAuth, "console-auth", "", "`user:password` protecting the web console with HTTP basic authentication (empty: open)")
	fs.IntVar(&c.ConsoleSessions, "max-console-sessions", emulator.DefaultMaxSessions, fmt.Sprintf("console sessions kept in all (each token keeps at most %d); beyond them the one that expires first ends", emulator.MaxSessionsPerToken))
	fs.IntVar(&c.JournalSize, "journal-size", journal.DefaultPerNamespace, "transactions the console's journal keeps per token (0: no journal)")
	fs.Int64Var(&c.JournalBytes, "journal-bytes", journal.DefaultMaxBytesPerNamespace, "bytes the console's journal keeps per token; beyond them its oldest transactions are forgotten")
	fs.Int64Var(&c.JournalTotal, "journal-total-bytes", journal.DefaultMaxTotalBytes, "bytes the console's journal keeps in all (per replica with a local journal); beyond them the oldest transactions of any token are forgotten")
	fs.StringVar(&c.JournalStore, "journal-store", "", "where the console's journal lives: shared (in the Redis of --store, seen by every replica) or local (in each replica's memory); default shared with a Redis store, local otherwise")
	fs.DurationVar(&c.MaxClockOffset, "max-clock-offset", emulator.DefaultMaxClockOffset, "how far a token may move its clock ahead of real time in all (POST /admin/clock)")
	fs.IntVar(&c.MaxWaits, "max-waits", web.DefaultMaxWaits, "most waits for a transaction's end (GET /admin/transactions/{id}?wait=final) open at once in all; more get 429")
	fs.IntVar(&c.MaxWaitsPerToken, "max-waits-per-token", web.DefaultMaxWaitsPerToken, "most such waits open at once per token; more get 429")
	fs.IntVar(&c.MaxDelayed, "max-delayed", emulator.DefaultMaxDelayed, "most requests held in scenario delays at once; more get 503 at once")
	fs.BoolVar(&c.StrictDDC, "strict-ddc", false, "refuse a lookup whose ddcId names no device data collection of the token (404, EMV 301), one an earlier lookup used or one made for another card (409, EMV 305); off: accept it as a new transaction, flagged in the console")
	fs.IntVar(&c.GCHeadroomMiB, "gc-headroom-mib", 64, "MiB the heap may grow by, at least, between garbage collections, so a small heap is not collected many times a second (0: Go's default; ignored when GOGC is set)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", "text", "text or json")
	merchantFlags(fs, c)
	return fs
}

// EnvName is the environment twin of a flag.
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// UsageError is a command line that cannot be read at all: an unknown
// flag, or a flag without its value. A value that is read but wrong is a
// problem of the configuration instead.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the flag package's error.
func (e *UsageError) Unwrap() error { return e.Err }

// Parse reads the flags, then fills every flag not given on the command
// line from its environment twin, and checks every value. A drain delay
// given neither way is DefaultDrainDelay with a Redis store and none with
// the memory store. It reports every
// problem at once, each naming its area, the flag and its environment
// twin. args asking for help (-h) give flag.ErrHelp, with the list of flags
// written to out; an unknown flag gives a *UsageError, which names the
// flag it most likely misspells.
func Parse(args []string, getenv func(string) string, out io.Writer) (Config, []string, error) {
	var c Config
	fs := FlagSet(&c, io.Discard)
	// The command line is read first as text only, so that a wrong value
	// on it is reported like a wrong value in the environment: with the
	// others, not alone.
	var given []setting
	raw := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	raw.SetOutput(io.Discard)
	raw.Usage = func() {}
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		raw.Var(recorder{name: f.Name, isBool: ok && b.IsBoolFlag(), given: &given}, f.Name, f.Usage)
	})
	if err := raw.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			PrintFlags(out, fs)
			return c, nil, err
		}
		return c, nil, &UsageError{suggestFlag(err)}
	}
	var errs []error
	set := map[string]bool{}
	for _, g := range given {
		set[g.name] = true
		if err := fs.Set(g.name, g.value); err != nil {
			errs = append(errs, unreadable(fs.Lookup(g.name), g.value))
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		if v := getenv(EnvName(f.Name)); v != "" {
			set[f.Name] = true
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, unreadable(f, v))
			}
		}
	})
	// Only replicas behind a load balancer need a drain; a sandbox on a
	// laptop exits at once on Ctrl-C.
	if !set["drain-delay"] && c.Store != "memory" {
		c.DrainDelay = DefaultDrainDelay
	}
	errs = append(errs, c.check()...)
	return c, raw.Args(), errors.Join(errs...)
}

// PrintFlags writes one line per flag of fs: the flag with a placeholder
// for its value, its environment twin, its help and its default, e.g.
//
//	--addr ADDR  (THREEDS_ADDR) listen address (default ":8080")
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s %s  (%s) %s%s\n", f.Name, placeholder(f), EnvName(f.Name), usage, defaultOf(f))
	})
}

// placeholder names the value of a flag in the usage: the `word` quoted
// in its help, its type, or for a text the last word of its name (ADDR,
// URL, PATH).
func placeholder(f *flag.Flag) string {
	if strings.Contains(f.Usage, "`") {
		name, _ := flag.UnquoteUsage(f)
		return strings.ToUpper(name)
	}
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			return "DURATION"
		case int, int64, uint64:
			return "N"
		case float64:
			return "NUMBER"
		}
	}
	name := f.Name[strings.LastIndex(f.Name, "-")+1:]
	return strings.ToUpper(name)
}

// defaultOf is " (default ...)" for a flag whose default is not empty or
// zero.
func defaultOf(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch v := g.Get().(type) {
	case string:
		if v != "" {
			return fmt.Sprintf(" (default %q)", v)
		}
	case time.Duration:
		if v != 0 {
			return " (default " + shortDuration(v) + ")"
		}
	default:
		if f.DefValue != "0" {
			return " (default " + f.DefValue + ")"
		}
	}
	return ""
}

// shortDuration writes 10m for 10m0s and 24h for 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// setting is a flag and its value as written on the command line.
type setting struct{ name, value string }

// recorder is a flag of the first reading of the command line: it keeps
// the text of the value for the second.
type recorder struct {
	name   string
	isBool bool
	given  *[]setting
}

func (r recorder) String() string   { return "" }
func (r recorder) IsBoolFlag() bool { return r.isBool }

func (r recorder) Set(v string) error {
	*r.given = append(*r.given, setting{r.name, v})
	return nil
}

// areas names the part of the emulator each flag sets; messages about a
// flag start with it in brackets.
var areas = map[string]string{
	"addr":                 "http",
	"public-url":           "http",
	"base-path":            "http",
	"max-body-bytes":       "http",
	"shutdown-timeout":     "http",
	"drain-delay":          "http",
	"tokens":               "auth",
	"scenarios":            "scenarios",
	"scenarios-mode":       "scenarios",
	"packs":                "scenarios",
	"scenarios-poll":       "scenarios",
	"fallback":             "scenarios",
	"card-bins":            "engine",
	"seed":                 "engine",
	"max-delayed":          "engine",
	"strict-ddc":           "engine",
	"first-creq-timeout":   "challenge",
	"challenge-timeout":    "challenge",
	"store":                "store",
	"store-timeout":        "store",
	"store-wait":           "store",
	"store-prefix":         "store",
	"store-ca-file":        "store",
	"store-max-entries":    "store",
	"store-max-age":        "store",
	"state-hash-key":       "state",
	"state-block-key":      "state",
	"state-previous-keys":  "state",
	"chaos-probability":    "chaos",
	"chaos-faults":         "chaos",
	"console-auth":         "console",
	"max-console-sessions": "console",
	"journal-size":         "console",
	"journal-bytes":        "console",
	"journal-total-bytes":  "console",
	"journal-store":        "console",
	"max-clock-offset":     "admin",
	"max-waits":            "admin",
	"max-waits-per-token":  "admin",
	"gc-headroom-mib":      "gc",
	"log-level":            "log",
	"log-format":           "log",
}

// areaOf is the area of flag name.
func areaOf(name string) string {
	if a, ok := merchantAreas[name]; ok {
		return a
	}
	return areas[name]
}

// problem is what is wrong with the value of a flag: "[area] --flag
// (THREEDS_FLAG) value: want". value is shown as given; secrets must not
// be passed.
func problem(name, value, want string) error {
	area := areaOf(name)
	if area == "" {
		area = "config"
	}
	return fmt.Errorf("[%s] --%s (%s) %s: %s", area, name, EnvName(name), value, want)
}

// unreadable is the problem of a value the flag cannot parse. It puts the
// flag back to its default (a failed Set leaves a zero), so that the
// value is not reported a second time by the checks.
func unreadable(f *flag.Flag, v string) error {
	_ = f.Value.Set(f.DefValue)
	want := "want a valid value"
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			want = "want a duration such as 30s, 5m or 1h30m"
			if n := strings.TrimSpace(v); n != "" && strings.Trim(n, "0123456789.") == "" {
				want = fmt.Sprintf("a number alone has no unit; want a duration with one, such as %ss or %sm", n, n)
			}
		case int, int64:
			want = "want a whole number"
		case uint64:
			want = "want a whole number of 0 or more"
		case float64:
			want = "want a number"
		}
	}
	return problem(f.Name, fmt.Sprintf("%q", v), want)
}

// check returns every value that the emulator would refuse, or silently
// replace with a default.
func (c *Config) check() []error {
	var errs []error
	add := func(bad bool, name, value, want string) {
		if bad {
			errs = append(errs, problem(name, value, want))
		}
	}
	positive := func(name string, d time.Duration) {
		add(d <= 0, name, d.String(), "want a positive duration")
	}

	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		add(true, "addr", fmt.Sprintf("%q", c.Addr), "want host:port, such as :8080 or 127.0.0.1:8080")
	}
	if want := checkPublicURL(c.PublicURL); want != "" {
		shown := c.PublicURL
		if u, err := url.Parse(shown); err == nil && u.User != nil {
			shown = u.Redacted() // a password in a URL is still a password
		}
		add(true, "public-url", fmt.Sprintf("%q", shown), want)
	}
	if want := checkBasePath(c.BasePath); want != "" {
		add(true, "base-path", fmt.Sprintf("%q", c.BasePath), want)
	}
	add(c.MaxBodyBytes <= 0, "max-body-bytes", fmt.Sprint(c.MaxBodyBytes), "want a positive number of bytes")
	positive("shutdown-timeout", c.ShutdownTimeout)
	add(c.DrainDelay < 0, "drain-delay", c.DrainDelay.String(), "want 0 (no drain) or a positive duration")

	add(c.Tokens != "" && len(SplitList(c.Tokens)) == 0, "tokens", fmt.Sprintf("%q", c.Tokens),
		"names no token; leave it unset to accept any token")

	add(c.ScenariosMode != "extend" && c.ScenariosMode != "replace", "scenarios-mode", fmt.Sprintf("%q", c.ScenariosMode),
		"want extend or replace")
	add(c.ScenariosMode == "replace" && c.Scenarios == "", "scenarios-mode", `"replace"`,
		"needs --scenarios ("+EnvName("scenarios")+"), the files that replace the embedded ones")
	for _, p := range SplitList(c.Packs) {
		add(!slices.Contains(scenarios.Packs(), p), "packs", fmt.Sprintf("%q", p),
			"unknown pack; want "+strings.Join(scenarios.Packs(), ", "))
	}
	add(c.ScenariosPoll < 0, "scenarios-poll", c.ScenariosPoll.String(), "want 0 (reload only on SIGHUP) or a positive duration")

	if bins, err := emulator.ParseBINList(c.CardBINs); err != nil {
		add(true, "card-bins", fmt.Sprintf("%q", c.CardBINs), err.Error())
	} else if _, err := emulator.NewSchemeTable(bins); err != nil {
		add(true, "card-bins", fmt.Sprintf("%q", c.CardBINs), err.Error())
	}
	add(c.MaxDelayed <= 0, "max-delayed", fmt.Sprint(c.MaxDelayed), "want a positive number of requests")
	positive("first-creq-timeout", c.FirstCReqTimeout)
	positive("challenge-timeout", c.ChallengeTimeout)
	positive("max-clock-offset", c.MaxClockOffset)
	add(c.MaxClockOffset > 100*24*time.Hour, "max-clock-offset", c.MaxClockOffset.String(), "want at most 2400h (100 days)")
	add(c.MaxWaits <= 0, "max-waits", fmt.Sprint(c.MaxWaits), "want a positive number of waits")
	add(c.MaxWaitsPerToken <= 0, "max-waits-per-token", fmt.Sprint(c.MaxWaitsPerToken), "want a positive number of waits")

	add(c.StoreMaxEntries <= 0, "store-max-entries", fmt.Sprint(c.StoreMaxEntries), "want a positive number of transactions")
	positive("store-max-age", c.StoreMaxAge)
	if c.Store != "memory" {
		switch {
		case !strings.HasPrefix(c.Store, "redis://") && !strings.HasPrefix(c.Store, "rediss://"):
			add(true, "store", fmt.Sprintf("%q", redisstore.Redact(c.Store)), "want memory, or a Redis URL redis://[user:password@]host:port/db (rediss:// for TLS)")
		case c.StateHashKey == "" || c.StateBlockKey == "":
			add(true, "store", fmt.Sprintf("%q", redisstore.Redact(c.Store)), fmt.Sprintf(
				"a store shared by replicas needs the same --state-hash-key (%s) and --state-block-key (%s) on every replica "+
					"(e.g. openssl rand -hex 32): with random keys one replica refuses the challenge pages of another",
				EnvName("state-hash-key"), EnvName("state-block-key")))
		}
	}
	if c.StoreCAFile != "" {
		if !strings.HasPrefix(c.Store, "rediss://") {
			add(true, "store-ca-file", fmt.Sprintf("%q", c.StoreCAFile), "needs a TLS store, --store ("+EnvName("store")+") rediss://...")
		} else if _, err := loadCAFile(c.StoreCAFile); err != nil {
			add(true, "store-ca-file", fmt.Sprintf("%q", c.StoreCAFile), err.Error())
		}
	}
	positive("store-timeout", c.StoreTimeout)
	add(c.StoreWait < 0, "store-wait", c.StoreWait.String(), "want 0 (fail at once) or a positive duration")
	add(c.StorePrefix == "" || len(c.StorePrefix) > 64 || strings.IndexFunc(c.StorePrefix, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0,
		"store-prefix", fmt.Sprintf("%q", c.StorePrefix), "want a prefix such as 3ds: of 1 to 64 characters without spaces (sandboxes sharing a Redis need different ones)")

	// Keys are secrets: their problems never repeat them.
	if b, err := key("state-hash-key", c.StateHashKey); err != nil {
		add(true, "state-hash-key", "(hidden)", "not hex")
	} else if n := len(b); b != nil && n != 32 && n != 64 {
		add(true, "state-hash-key", "(hidden)", fmt.Sprintf("%d bytes, want 32 or 64", n))
	}
	if b, err := key("state-block-key", c.StateBlockKey); err != nil {
		add(true, "state-block-key", "(hidden)", "not hex")
	} else if n := len(b); b != nil && n != 16 && n != 24 && n != 32 {
		add(true, "state-block-key", "(hidden)", fmt.Sprintf("%d bytes, want 16, 24 or 32", n))
	}
	if pairs, err := keyPairs(c.StatePrevKeys); err != nil {
		add(true, "state-previous-keys", "(hidden)", "want HASH:BLOCK hex key pairs, comma-separated")
	} else if len(pairs) > emulator.MaxPreviousKeys {
		add(true, "state-previous-keys", "(hidden)", fmt.Sprintf("%d pairs, want at most %d", len(pairs), emulator.MaxPreviousKeys))
	}

	p := c.ChaosProbability
	add(p < 0 || p > 1 || math.IsNaN(p), "chaos-probability", fmt.Sprint(p), "want 0 to 1")
	for _, k := range SplitList(c.ChaosFaults) {
		add(!slices.Contains(emulator.ChaosKinds(), k), "chaos-faults", fmt.Sprintf("%q", k),
			"unknown fault kind; want "+strings.Join(emulator.ChaosKinds(), ", "))
	}

	if user, pass, ok := strings.Cut(c.ConsoleAuth, ":"); c.ConsoleAuth != "" && (!ok || user == "" || pass == "") {
		add(true, "console-auth", "(hidden)", "want user:password")
	}
	add(c.ConsoleSessions < 1, "max-console-sessions", fmt.Sprint(c.ConsoleSessions), "want 1 or more")
	add(c.JournalSize < 0, "journal-size", fmt.Sprint(c.JournalSize), "want 0 (no journal) or more")
	add(c.JournalBytes < 64<<10, "journal-bytes", fmt.Sprint(c.JournalBytes), "want 65536 bytes or more")
	switch c.JournalStore {
	case "", "local":
	case "shared":
		add(c.Store == "memory", "journal-store", `"shared"`, "needs a Redis --store ("+EnvName("store")+"); with the memory store the journal is local")
	default:
		add(true, "journal-store", fmt.Sprintf("%q", c.JournalStore), "want shared or local")
	}
	add(c.JournalTotal < 64<<10, "journal-total-bytes", fmt.Sprint(c.JournalTotal), "want 65536 bytes or more")
	add(c.GCHeadroomMiB < 0 || c.GCHeadroomMiB > 1<<20, "gc-headroom-mib", fmt.Sprint(c.GCHeadroomMiB), "want 0 to 1048576")

	var level slog.Level
	add(level.UnmarshalText([]byte(c.LogLevel)) != nil, "log-level", fmt.Sprintf("%q", c.LogLevel), "want debug, info, warn or error")
	add(c.LogFormat != "text" && c.LogFormat != "json", "log-format", fmt.Sprintf("%q", c.LogFormat), "want text or json")
	return append(errs, c.checkMerchant()...)
}

// checkPublicURL says what is wrong with a --public-url, or "": it must be
// an absolute http or https URL with a host, and no user, query or
// fragment, since the emulator appends its paths to it.
func checkPublicURL(s string) string {
	if s == "" {
		return ""
	}
	const want = "want an absolute http or https URL such as https://3ds.example.com/sandbox"
	u, err := url.Parse(s)
	switch {
	case err != nil, u.Scheme != "http" && u.Scheme != "https", u.Opaque != "", u.Host == "", u.Hostname() == "":
		return want
	case u.User != nil:
		return want + ", without user information"
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return want + ", without a query or fragment"
	case checkBasePath(u.Path) != "":
		return want + ", whose path is made of segments of letters, digits, '-', '.', '_' and '~'"
	}
	return ""
}

// checkBasePath says what is wrong with a --base-path, or "": it must be
// empty, or segments of unreserved URL characters (letters, digits, '-',
// '.', '_', '~') separated by single slashes, with at most one slash at
// each end (they are trimmed), and no "." or ".." segment.
func checkBasePath(s string) string {
	if s == "" || s == "/" {
		return ""
	}
	const want = "want a path such as /3ds: segments of letters, digits, '-', '.', '_' and '~' separated by single slashes"
	inner := strings.TrimSuffix(strings.TrimPrefix(s, "/"), "/")
	for _, seg := range strings.Split(inner, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return want
		}
		for _, r := range seg {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)) {
				return want
			}
		}
	}
	return ""
}

// SplitList splits a comma-separated flag value.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// key decodes a hex key, or returns nil for an empty one.
func key(name, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("[state] --%s: not hex: %w", name, err)
	}
	return b, nil
}

// keyPairs decodes "HASH:BLOCK,HASH:BLOCK" hex pairs.
func keyPairs(s string) ([]web.KeyPair, error) {
	var out []web.KeyPair
	for _, item := range SplitList(s) {
		h, b, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("[state] --state-previous-keys: %q is not HASH:BLOCK", item)
		}
		hash, err := key("state-previous-keys", h)
		if err != nil {
			return nil, err
		}
		block, err := key("state-previous-keys", b)
		if err != nil {
			return nil, err
		}
		out = append(out, web.KeyPair{Hash: hash, Block: block})
	}
	return out, nil
}
