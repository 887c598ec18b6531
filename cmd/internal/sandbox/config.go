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
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/web"
	"github.com/threeds-sandbox/threeds-sandbox/web/journal"
)

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
	StoreMaxEntries  int
	StoreMaxAge      time.Duration
	MaxBodyBytes     int64
	StateHashKey     string
	StateBlockKey    string
	StatePrevKeys    string
	ShutdownTimeout  time.Duration
	LogLevel         string
	LogFormat        string
	ChaosProbability float64
	ChaosFaults      string
	MaxDelayed       int
	ConsoleAuth      string
	JournalSize      int
	GCHeadroomMiB    int
}

// FlagSet declares every flag with its default and help text.
func FlagSet(c *Config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("threeds-sandbox", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address")
	fs.StringVar(&c.PublicURL, "public-url", "", "base URL browsers use to reach the emulator, for hostedChallengeUrl and the ACS form (default http://localhost:<port><base-path>)")
	fs.StringVar(&c.BasePath, "base-path", "", "path prefix of every route, e.g. /3ds")
	fs.StringVar(&c.Tokens, "tokens", "", "comma-separated accepted bearer tokens (empty: any non-empty token)")
	fs.StringVar(&c.Scenarios, "scenarios", "", "comma-separated scenario files or directories")
	fs.StringVar(&c.ScenariosMode, "scenarios-mode", "extend", "extend: user scenarios add to the embedded defaults; replace: only user scenarios")
	fs.StringVar(&c.Packs, "packs", "", "comma-separated embedded scenario packs to load: defaults, cardinal, reasons (default all)")
	fs.DurationVar(&c.ScenariosPoll, "scenarios-poll", time.Second, "how often user scenario files are checked for changes (0: only on SIGHUP)")
	fs.StringVar(&c.Fallback, "fallback", "", "id of the scenario that unmatched cards get (default: the files' fallback, else frictionless Y)")
	fs.StringVar(&c.CardBINs, "card-bins", "", "extra BIN prefixes for card schemes, e.g. 463208=ITMX,9764=TPN")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the fake ACS data and authentication values")
	fs.DurationVar(&c.FirstCReqTimeout, "first-creq-timeout", emulator.DefaultFirstCReqTimeout, "how long a challenge waits for its first CReq (then N, reason 14, challengeCancel 05)")
	fs.DurationVar(&c.ChallengeTimeout, "challenge-timeout", emulator.DefaultChallengeTimeout, "how long an opened challenge waits for a decision (then N, reason 14, challengeCancel 04)")
	fs.StringVar(&c.Store, "store", "memory", "where state is kept: memory, or a Redis URL redis://[user:password@]host:port/db (rediss:// for TLS) shared by several replicas")
	fs.DurationVar(&c.StoreTimeout, "store-timeout", redisstore.DefaultTimeout, "bound on each call to a Redis store; beyond it the request answers 503 SY02")
	fs.DurationVar(&c.StoreWait, "store-wait", 0, "how long start-up waits for a Redis store to answer (0: fail at once)")
	fs.StringVar(&c.StorePrefix, "store-prefix", redisstore.DefaultPrefix, "prefix of every Redis key, so several sandboxes can share one Redis")
	fs.IntVar(&c.StoreMaxEntries, "store-max-entries", memstore.DefaultMaxEntries, "most transactions kept in memory; the oldest are evicted first (memory store)")
	fs.DurationVar(&c.StoreMaxAge, "store-max-age", memstore.DefaultMaxAge, "how long a transaction is kept")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", web.DefaultMaxBodyBytes, "largest request body accepted")
	fs.StringVar(&c.StateHashKey, "state-hash-key", "", "hex key (32 or 64 bytes) signing the challenge state (default: random at start-up)")
	fs.StringVar(&c.StateBlockKey, "state-block-key", "", "hex key (16, 24 or 32 bytes) encrypting the challenge state (default: random at start-up)")
	fs.StringVar(&c.StatePrevKeys, "state-previous-keys", "", "earlier HASH:BLOCK hex key pairs, comma-separated, still accepted during a key rotation")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", web.DefaultShutdownTimeout, "how long shutdown waits for in-flight requests")
	fs.Float64Var(&c.ChaosProbability, "chaos-probability", 0, "probability (0-1) of an injected fault on any API request; 0 is off")
	fs.StringVar(&c.ChaosFaults, "chaos-faults", "", "comma-separated fault kinds chaos picks from: drop, malformed, http500, emv402, emv403, emv405 (default all)")
	fs.StringVar(&c.ConsoleAuth, "console-auth", "", "user:password protecting the web console with HTTP basic authentication (empty: open)")
	fs.IntVar(&c.JournalSize, "journal-size", journal.DefaultPerNamespace, "transactions the console's journal keeps per token (0: no journal)")
	fs.IntVar(&c.MaxDelayed, "max-delayed", emulator.DefaultMaxDelayed, "most requests held in scenario delays at once; more get 503 at once")
	fs.IntVar(&c.GCHeadroomMiB, "gc-headroom-mib", 64, "MiB the heap may grow by, at least, between garbage collections, so a small heap is not collected many times a second (0: Go's default; ignored when GOGC is set)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", "text", "text or json")
	return fs
}

// EnvName is the environment twin of a flag.
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Parse reads the flags, then fills every flag not given on the command
// line from its environment twin. It reports every problem at once.
func Parse(args []string, getenv func(string) string, out io.Writer) (Config, []string, error) {
	var c Config
	fs := FlagSet(&c, out)
	if err := fs.Parse(args); err != nil {
		return c, nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		if v := getenv(EnvName(f.Name)); v != "" {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", EnvName(f.Name), v, err))
			}
		}
	})
	if c.ScenariosMode != "extend" && c.ScenariosMode != "replace" {
		errs = append(errs, fmt.Errorf("[scenarios] --scenarios-mode %q: want extend or replace", c.ScenariosMode))
	}
	if c.ScenariosMode == "replace" && c.Scenarios == "" {
		errs = append(errs, errors.New("[scenarios] --scenarios-mode replace needs --scenarios"))
	}
	if user, pass, ok := strings.Cut(c.ConsoleAuth, ":"); c.ConsoleAuth != "" && (!ok || user == "" || pass == "") {
		errs = append(errs, errors.New("[console] --console-auth: want user:password"))
	}
	if c.GCHeadroomMiB < 0 || c.GCHeadroomMiB > 1<<20 {
		errs = append(errs, fmt.Errorf("[gc] --gc-headroom-mib %d: want 0 to 1048576", c.GCHeadroomMiB))
	}
	if c.Store != "memory" {
		if !strings.HasPrefix(c.Store, "redis://") && !strings.HasPrefix(c.Store, "rediss://") {
			errs = append(errs, fmt.Errorf("[store] --store (%s) %q: want memory, redis://host:port/db or rediss://host:port/db", EnvName("store"), redisstore.Redact(c.Store)))
		} else if c.StateHashKey == "" || c.StateBlockKey == "" {
			errs = append(errs, fmt.Errorf("[store] --store %s is shared by replicas, which must also share the challenge state keys: "+
				"set --state-hash-key (%s) and --state-block-key (%s) to the same values on every replica "+
				"(e.g. openssl rand -hex 32), or a challenge page served by one replica is refused by another",
				redisstore.Redact(c.Store), EnvName("state-hash-key"), EnvName("state-block-key")))
		}
	}
	if c.JournalSize < 0 {
		errs = append(errs, fmt.Errorf("[console] --journal-size %d: want 0 or more", c.JournalSize))
	}
	return c, fs.Args(), errors.Join(errs...)
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
