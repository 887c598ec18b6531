// Package sandbox turns the command line into a running emulator: the
// flags with their THREEDS_* twins, and the wiring of scenarios, engine,
// store, journal and HTTP server. The binary, the load benchmark and the
// screenshot tool all start the emulator through it, so they run the same
// thing.
package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
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
	Addr          string
	PublicURL     string
	BasePath      string
	Tokens        string
	Scenarios     string
	ScenariosMode string
	Fallback      string
	Packs         string
	ScenariosPoll time.Duration
	CardBINs      string
	// DSKeys is the directory of the app channel's directory server keys
	// (--ds-keys); empty: the embedded test keys.
	DSKeys           string
	Seed             uint64
	FirstCReqTimeout time.Duration
	ChallengeTimeout time.Duration
	Store            string
	StoreTimeout     time.Duration
	StoreWait        time.Duration
	StoreFlushDelay  time.Duration
	StorePrefix      string
	StoreCAFile      string
	StoreMaxEntries  int
	// StoreMaxEntriesPerToken is each token's share of the transactions.
	StoreMaxEntriesPerToken int
	StoreMaxAge             time.Duration
	MaxBodyBytes            int64
	StateHashKey            string
	StateBlockKey           string
	StatePrevKeys           string
	ShutdownTimeout         time.Duration
	DrainDelay              time.Duration
	LogLevel                string
	LogFormat               string
	ChaosProbability        float64
	ChaosFaults             string
	MaxDelayed              int
	StrictDDC               bool
	ConsoleAuth             string
	ConsoleSessions         int
	// ConsoleStreams and ConsoleStreamsPerToken bound the console's live
	// streams on a replica, in all and per token.
	ConsoleStreams, ConsoleStreamsPerToken int
	// ConsoleTokensPerClient bounds the tokens one client address holds
	// console sessions for on a replica.
	ConsoleTokensPerClient int
	JournalSize            int
	JournalBytes           int64
	JournalTotal           int64
	JournalStore           string
	GCHeadroomMiB          int
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
	// Each token's share of the callbacks (config_merchant.go).
	CallbackOutbox         int
	CallbackOutboxPerToken int
	CallbackInFlight       int
	CallbackSecretGrace    time.Duration
	MaxClockOffset         time.Duration
	MaxWaits               int
	MaxWaitsPerToken       int

	// parsed is what Parse read of the values above (settings.go).
	parsed *settings
}

// FlagSet declares every flag with its default and help text.
func FlagSet(c *Config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("threeds-sandbox", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address")
	fs.StringVar(&c.PublicURL, "public-url", "", "base URL browsers use to reach the emulator, for hostedChallengeUrl and the ACS form, and the OAuth issuer (default http://localhost:<port><base-path>; the issuer is then the URL each client reached)")
	fs.StringVar(&c.BasePath, "base-path", "", "path prefix of every route, e.g. /3ds")
	fs.StringVar(&c.Tokens, "tokens", "", "comma-separated accepted bearer tokens (empty: any non-empty token)")
	fs.StringVar(&c.Scenarios, "scenarios", "", "comma-separated `paths` of scenario files or directories")
	fs.StringVar(&c.ScenariosMode, "scenarios-mode", "extend", "extend: user scenarios add to the embedded defaults; replace: only user scenarios")
	fs.StringVar(&c.Packs, "packs", "", "comma-separated embedded scenario packs to load: defaults, cardinal, reasons (default all)")
	fs.DurationVar(&c.ScenariosPoll, "scenarios-poll", time.Second, "how often user scenario files are checked for changes (0: only on SIGHUP)")
	fs.StringVar(&c.Fallback, "fallback", "", "`id` of the scenario that unmatched cards get (default: the files' fallback, else frictionless Y)")
	fs.StringVar(&c.CardBINs, "card-bins", "", "extra BIN prefixes for card schemes, e.g. 463208=ITMX,9764=TPN")
	fs.StringVar(&c.DSKeys, "ds-keys", "", "`directory` of the app channel's directory servers: their keys, roots and the ACS's signing chains, with a "+directory.ManifestFile+" (default: the embedded test keys, public and for tests only)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the fake ACS data and authentication values")
	fs.DurationVar(&c.FirstCReqTimeout, "first-creq-timeout", emulator.DefaultFirstCReqTimeout, "how long a challenge waits for its first CReq (then N, reason 14, challengeCancel 05)")
	fs.DurationVar(&c.ChallengeTimeout, "challenge-timeout", emulator.DefaultChallengeTimeout, "how long an opened challenge waits for a decision (then N, reason 14, challengeCancel 04)")
	fs.StringVar(&c.Store, "store", "memory", "where state is kept: memory, or a Redis URL redis://[user:password@]host:port/db (rediss:// for TLS) shared by several replicas")
	fs.DurationVar(&c.StoreTimeout, "store-timeout", redisstore.DefaultTimeout, "bound on each call to a Redis store; beyond it the request answers 503 SY02")
	fs.DurationVar(&c.StoreFlushDelay, "store-flush-delay", redisstore.DefaultFlushDelay, "longest a Redis store's client holds a request's commands back while other requests' are in flight, to write them to Redis together (fewer wake-ups and reads for Redis); a request alone is never held back (0: write at once)")
	fs.DurationVar(&c.StoreWait, "store-wait", 0, "how long start-up waits for a Redis store to answer (0: fail at once)")
	fs.StringVar(&c.StorePrefix, "store-prefix", redisstore.DefaultPrefix, "prefix of every Redis key, so several sandboxes can share one Redis")
	fs.StringVar(&c.StoreCAFile, "store-ca-file", "", "PEM `file` of the certificate authorities trusted to sign the certificate of a rediss:// store, in place of the system's (default: the system's, or the roots built into the binary where the system has none)")
	fs.IntVar(&c.StoreMaxEntries, "store-max-entries", memstore.DefaultMaxEntries, "most transactions kept in memory, of every token together; at this bound the token holding the most loses its oldest (memory store)")
	fs.IntVar(&c.StoreMaxEntriesPerToken, "store-max-entries-per-token", memstore.DefaultMaxEntries, "most transactions kept of one token; beyond, its own oldest are evicted (at most --store-max-entries in memory)")
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
	fs.IntVar(&c.ConsoleStreams, "max-console-streams", web.DefaultConsoleStreams, "console live streams (a tab each) open at once on a replica, of every token together; at this bound the token holding the most gives up its oldest")
	fs.IntVar(&c.ConsoleStreamsPerToken, "max-console-streams-per-token", web.DefaultConsoleStreamsPerToken, "console live streams open at once on a replica of one token's sessions; more get 429")
	fs.IntVar(&c.ConsoleTokensPerClient, "max-console-tokens-per-client", web.DefaultConsoleTokensPerClient, "tokens one client address may hold console sessions for at once on a replica (until each logs out or ends); a login with one more gets 429. Behind a reverse proxy every client has the proxy's address")
	fs.IntVar(&c.ConsoleSessions, "max-console-sessions", state.DefaultMaxSessions, fmt.Sprintf("console sessions kept in all (each token keeps at most %d); at this bound the token holding the most loses its own that expires first. On a Redis Cluster each of up to 16 slot groups (this / %d of them) keeps its part, the token holding the most in its group giving way", state.MaxSessionsPerToken, state.MaxSessionsPerToken))
	fs.IntVar(&c.JournalSize, "journal-size", journal.DefaultPerNamespace, "transactions the console's journal keeps per token (0: no journal)")
	fs.Int64Var(&c.JournalBytes, "journal-bytes", journal.DefaultMaxBytesPerNamespace, "bytes the console's journal keeps per token; beyond them its oldest transactions are forgotten")
	fs.Int64Var(&c.JournalTotal, "journal-total-bytes", journal.DefaultMaxTotalBytes, "bytes the console's journal keeps in all (per replica with a local journal); beyond them the token holding the most forgets its oldest transactions first")
	fs.StringVar(&c.JournalStore, "journal-store", "", "where the console's journal lives: shared (in the Redis of --store, seen by every replica) or local (in each replica's memory); default shared with a Redis store, local otherwise")
	fs.DurationVar(&c.MaxClockOffset, "max-clock-offset", state.DefaultMaxClockOffset, "how far a token may move its clock ahead of real time in all (POST /admin/clock)")
	fs.IntVar(&c.MaxWaits, "max-waits", web.DefaultMaxWaits, "most waits for a transaction's end (GET /admin/transactions/{id}?wait=final) open at once in all; when all are taken, a token holding at least two fewer than another takes that one's oldest, else 429")
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
	errs = append(errs, c.check()...)
	// Only replicas behind a load balancer need a drain; a sandbox on a
	// laptop exits at once on Ctrl-C.
	if b := c.parsed.backend; !set["drain-delay"] && b != nil && b.Shared() {
		c.DrainDelay = DefaultDrainDelay
	}
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
	"addr":                          "http",
	"public-url":                    "http",
	"base-path":                     "http",
	"max-body-bytes":                "http",
	"shutdown-timeout":              "http",
	"drain-delay":                   "http",
	"tokens":                        "auth",
	"scenarios":                     "scenarios",
	"scenarios-mode":                "scenarios",
	"packs":                         "scenarios",
	"scenarios-poll":                "scenarios",
	"fallback":                      "scenarios",
	"card-bins":                     "engine",
	"ds-keys":                       "app",
	"seed":                          "engine",
	"max-delayed":                   "engine",
	"strict-ddc":                    "engine",
	"first-creq-timeout":            "challenge",
	"challenge-timeout":             "challenge",
	"store":                         "store",
	"store-timeout":                 "store",
	"store-flush-delay":             "store",
	"store-wait":                    "store",
	"store-prefix":                  "store",
	"store-ca-file":                 "store",
	"store-max-entries":             "store",
	"store-max-entries-per-token":   "store",
	"store-max-age":                 "store",
	"state-hash-key":                "state",
	"state-block-key":               "state",
	"state-previous-keys":           "state",
	"chaos-probability":             "chaos",
	"chaos-faults":                  "chaos",
	"console-auth":                  "console",
	"max-console-sessions":          "console",
	"max-console-streams":           "console",
	"max-console-streams-per-token": "console",
	"max-console-tokens-per-client": "console",
	"journal-size":                  "console",
	"journal-bytes":                 "console",
	"journal-total-bytes":           "console",
	"journal-store":                 "console",
	"max-clock-offset":              "admin",
	"max-waits":                     "admin",
	"max-waits-per-token":           "admin",
	"gc-headroom-mib":               "gc",
	"log-level":                     "log",
	"log-format":                    "log",
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
