package sandbox

import (
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// check returns every value that the emulator would refuse, or silently
// replace with a default.
func (c *Config) check() []error {
	var errs []error
	set := &settings{}
	defer func() { c.parsed = set }()
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
	} else if set.schemes, err = emulator.NewSchemeTable(bins); err != nil {
		add(true, "card-bins", fmt.Sprintf("%q", c.CardBINs), err.Error())
	}
	var err error
	if c.DSKeys == "" {
		set.directory, err = directory.Default()
	} else {
		set.directory, err = directory.Load(os.DirFS(c.DSKeys))
	}
	add(err != nil, "ds-keys", fmt.Sprintf("%q", c.DSKeys), fmt.Sprint(err))
	add(c.MaxDelayed <= 0, "max-delayed", fmt.Sprint(c.MaxDelayed), "want a positive number of requests")
	positive("first-creq-timeout", c.FirstCReqTimeout)
	positive("challenge-timeout", c.ChallengeTimeout)
	positive("max-clock-offset", c.MaxClockOffset)
	add(c.MaxClockOffset > 100*24*time.Hour, "max-clock-offset", c.MaxClockOffset.String(), "want at most 2400h (100 days)")
	add(c.MaxWaits <= 0, "max-waits", fmt.Sprint(c.MaxWaits), "want a positive number of waits")
	add(c.MaxWaitsPerToken <= 0, "max-waits-per-token", fmt.Sprint(c.MaxWaitsPerToken), "want a positive number of waits")

	add(c.StoreMaxEntries <= 0, "store-max-entries", fmt.Sprint(c.StoreMaxEntries), "want a positive number of transactions")
	add(c.StoreMaxEntriesPerToken <= 0, "store-max-entries-per-token", fmt.Sprint(c.StoreMaxEntriesPerToken), "want a positive number of transactions")
	positive("store-max-age", c.StoreMaxAge)
	backend, err := ParseBackend(c.Store)
	set.backend = backend
	switch {
	case err != nil:
		add(true, "store", fmt.Sprintf("%q", redisstore.Redact(c.Store)), err.Error())
	case backend.Shared() && (c.StateHashKey == "" || c.StateBlockKey == ""):
		add(true, "store", fmt.Sprintf("%q", backend), fmt.Sprintf(
			"a store shared by replicas needs the same --state-hash-key (%s) and --state-block-key (%s) on every replica "+
				"(e.g. openssl rand -hex 32): with random keys one replica refuses the challenge pages of another",
			EnvName("state-hash-key"), EnvName("state-block-key")))
	}
	if c.StoreCAFile != "" {
		if rb, ok := backend.(redisBackend); !ok || !rb.tls() {
			add(true, "store-ca-file", fmt.Sprintf("%q", c.StoreCAFile), "needs a TLS store, --store ("+EnvName("store")+") rediss://...")
		} else if set.storeCAs, err = loadCAFile(c.StoreCAFile); err != nil {
			add(true, "store-ca-file", fmt.Sprintf("%q", c.StoreCAFile), err.Error())
		}
	}
	positive("store-timeout", c.StoreTimeout)
	add(c.StoreFlushDelay < 0 || c.StoreFlushDelay > c.StoreTimeout/2 && c.StoreTimeout > 0, "store-flush-delay", c.StoreFlushDelay.String(), "want 0 (write at once) or a positive duration below half of --store-timeout ("+EnvName("store-timeout")+"), e.g. 1ms")
	add(c.StoreWait < 0, "store-wait", c.StoreWait.String(), "want 0 (fail at once) or a positive duration")
	add(c.StorePrefix == "" || len(c.StorePrefix) > 64 || strings.IndexFunc(c.StorePrefix, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0,
		"store-prefix", fmt.Sprintf("%q", c.StorePrefix), "want a prefix such as 3ds: of 1 to 64 characters without spaces (sandboxes sharing a Redis need different ones)")

	// Keys are secrets: their problems never repeat them.
	if b, err := key("state-hash-key", c.StateHashKey); err != nil {
		add(true, "state-hash-key", "(hidden)", "not hex")
	} else if n := len(b); b != nil && n != 32 && n != 64 {
		add(true, "state-hash-key", "(hidden)", fmt.Sprintf("%d bytes, want 32 or 64", n))
	} else {
		set.hashKey = b
	}
	if b, err := key("state-block-key", c.StateBlockKey); err != nil {
		add(true, "state-block-key", "(hidden)", "not hex")
	} else if n := len(b); b != nil && n != 16 && n != 24 && n != 32 {
		add(true, "state-block-key", "(hidden)", fmt.Sprintf("%d bytes, want 16, 24 or 32", n))
	} else {
		set.blockKey = b
	}
	if pairs, err := keyPairs(c.StatePrevKeys); err != nil {
		add(true, "state-previous-keys", "(hidden)", "want HASH:BLOCK hex key pairs, comma-separated")
	} else if len(pairs) > state.MaxPreviousKeys {
		add(true, "state-previous-keys", "(hidden)", fmt.Sprintf("%d pairs, want at most %d", len(pairs), state.MaxPreviousKeys))
	} else {
		set.previous = pairs
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
	add(c.ConsoleStreams < 1, "max-console-streams", fmt.Sprint(c.ConsoleStreams), "want 1 or more")
	add(c.ConsoleStreamsPerToken < 1 || c.ConsoleStreams >= 1 && c.ConsoleStreamsPerToken > c.ConsoleStreams, "max-console-streams-per-token", fmt.Sprint(c.ConsoleStreamsPerToken), "want 1 to --max-console-streams")
	add(c.ConsoleTokensPerClient < 1, "max-console-tokens-per-client", fmt.Sprint(c.ConsoleTokensPerClient), "want 1 or more")
	add(c.ConsoleSessions < 1, "max-console-sessions", fmt.Sprint(c.ConsoleSessions), "want 1 or more")
	add(c.JournalSize < 0, "journal-size", fmt.Sprint(c.JournalSize), "want 0 (no journal) or more")
	add(c.JournalBytes < 64<<10, "journal-bytes", fmt.Sprint(c.JournalBytes), "want 65536 bytes or more")
	switch c.JournalStore {
	case "", "local":
	case "shared":
		add(backend != nil && !backend.Shared(), "journal-store", `"shared"`, "needs a Redis --store ("+EnvName("store")+"); with the memory store the journal is local")
	default:
		add(true, "journal-store", fmt.Sprintf("%q", c.JournalStore), "want shared or local")
	}
	add(c.JournalTotal < 64<<10, "journal-total-bytes", fmt.Sprint(c.JournalTotal), "want 65536 bytes or more")
	add(c.GCHeadroomMiB < 0 || c.GCHeadroomMiB > 1<<20, "gc-headroom-mib", fmt.Sprint(c.GCHeadroomMiB), "want 0 to 1048576")

	var level slog.Level
	add(level.UnmarshalText([]byte(c.LogLevel)) != nil, "log-level", fmt.Sprintf("%q", c.LogLevel), "want debug, info, warn or error")
	add(c.LogFormat != "text" && c.LogFormat != "json", "log-format", fmt.Sprintf("%q", c.LogFormat), "want text or json")
	return append(errs, c.checkMerchant(set)...)
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
