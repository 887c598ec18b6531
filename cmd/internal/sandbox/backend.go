package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// Backend is where the sandbox keeps everything that outlives a request,
// as --store names it: this process's memory, or a Redis that replicas
// share. It is read once, with the other flags (ParseBackend); it opens
// every store and says what it can do, so that nothing else compares the
// flag's text.
type Backend interface {
	// Shared reports whether replicas share the state: they then need
	// the same state keys and a drain, and the journal may be shared.
	Shared() bool
	// String names the backend for the log and for messages, without a
	// password.
	String() string
	// open builds every store, for the state key pairs (the current
	// first), and finds the namespace key the state keeps for them.
	open(c Config, s *settings, log *slog.Logger) (*stores, error)
}

// ParseBackend reads --store: "memory", or a Redis URL
// redis://[user:password@]host:port/db (rediss:// for TLS).
func ParseBackend(store string) (Backend, error) {
	switch {
	case store == "memory":
		return memoryBackend{}, nil
	case strings.HasPrefix(store, "redis://"), strings.HasPrefix(store, "rediss://"):
		return redisBackend{url: store}, nil
	}
	return nil, errors.New("want memory, or a Redis URL redis://[user:password@]host:port/db (rediss:// for TLS)")
}

// memoryBackend keeps the state in this process: nothing to set up, and
// nothing shared.
type memoryBackend struct{}

func (memoryBackend) Shared() bool   { return false }
func (memoryBackend) String() string { return "memory" }

func (memoryBackend) open(c Config, s *settings, log *slog.Logger) (*stores, error) {
	reg := memstore.NewKeyRegistry(nil)
	nsKey, shared, err := namespaceKey(context.Background(), reg, s.pairs())
	if err != nil {
		return nil, fmt.Errorf("[state] %w", err)
	}
	mem, err := memstore.New(memstore.Options{
		MaxEntries: c.StoreMaxEntries,
		// Per token, as --store-max-entries-per-token says.
		MaxEntriesPerTenant: c.StoreMaxEntriesPerToken,
		MaxAge:              c.StoreMaxAge,
		OnEvict:             evictionLogger(log),
	})
	if err != nil {
		return nil, fmt.Errorf("[store] %w", err)
	}
	st := &stores{store: mem, runtime: memstore.NewRuntime(scenarios.RuntimeLimits{}),
		spaces:   memstore.NewNamespaces(memstore.NamespacesOptions{MaxAge: c.StoreMaxAge}),
		sessions: memstore.NewSessions(c.ConsoleSessions, nil), close: func() {},
		captures: memstore.NewCaptures(memstore.CapturesOptions{}), callbacks: memstore.NewCallbacks(c.callbackBounds()),
		keys: reg, namespaceKey: nsKey, sharedKey: shared,
		stats: func() (int, uint64) { return mem.Len(), mem.Evicted() }}
	if c.JournalSize > 0 {
		st.journal = memstore.NewJournal(c.journalOptions())
	}
	return st, nil
}

// redisBackend keeps the state in the Redis at url, shared by every
// replica that names it.
type redisBackend struct{ url string }

func (redisBackend) Shared() bool     { return true }
func (b redisBackend) String() string { return redisstore.Redact(b.url) }

// tls reports whether the URL asks for TLS (rediss://).
func (b redisBackend) tls() bool { return strings.HasPrefix(b.url, "rediss://") }

// connectError adds to a failed connection what to do about it.
func (b redisBackend) connectError(c Config, err error) error {
	hint := ""
	switch {
	case errors.Is(err, redisstore.ErrUntrusted) && c.StoreCAFile == "":
		hint = fmt.Sprintf(" (give the authority that signed it with --store-ca-file, %s)", EnvName("store-ca-file"))
	case errors.Is(err, redisstore.ErrUntrusted):
		hint = fmt.Sprintf(" (no authority of --store-ca-file %q signed it)", c.StoreCAFile)
	case errors.Is(err, redisstore.ErrCluster):
		// The error says what to use instead: waiting does not mend it.
	case c.StoreWait == 0:
		hint = fmt.Sprintf(" (--store-wait, %s, lets start-up wait for it)", EnvName("store-wait"))
	}
	return fmt.Errorf("[store] %w%s", err, hint)
}

func (b redisBackend) open(c Config, s *settings, log *slog.Logger) (*stores, error) {
	connect := redisstore.ConnectOptions{Timeout: c.StoreTimeout, Wait: c.StoreWait, RootCAs: s.storeCAs, FlushDelay: c.StoreFlushDelay}
	client, err := redisstore.ConnectWith(context.Background(), b.url, connect)
	if err != nil {
		return nil, b.connectError(c, err)
	}
	keys, err := redisstore.NewKeyRegistry(client, c.StorePrefix, c.StoreTimeout)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	nsKey, shared, err := namespaceKey(context.Background(), keys, s.pairs())
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[state] %w", err)
	}
	store, err := redisstore.NewStore(client, redisstore.Options{Prefix: c.StorePrefix, MaxAge: c.StoreMaxAge, Timeout: c.StoreTimeout,
		Logger: log, IndexKey: auth.ReferenceKey(nsKey), MaxEntriesPerTenant: c.StoreMaxEntriesPerToken})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	// An eviction policy that drops acknowledged transactions is refused
	// before anything is served.
	if err := store.CheckPolicy(context.Background()); err != nil {
		client.Close()
		return nil, &StoreError{Err: fmt.Errorf("[store] %s: %w", b, err)}
	}
	runtime, err := redisstore.NewRuntime(client, redisstore.RuntimeOptions{Prefix: c.StorePrefix, Timeout: c.StoreTimeout})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	sessions, err := redisstore.NewSessions(client, redisstore.SessionsOptions{Prefix: c.StorePrefix, Max: c.ConsoleSessions, Timeout: c.StoreTimeout})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	captures, err := redisstore.NewCaptures(client, redisstore.CapturesOptions{Prefix: c.StorePrefix, Timeout: c.StoreTimeout, Keys: s.hashKeys()})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	// The callbacks and the namespaces hold subscriptions, stopped
	// before the client closes.
	callbacks, err := redisstore.NewCallbacks(client, redisstore.CallbacksOptions{Prefix: c.StorePrefix, Timeout: c.StoreTimeout,
		Bounds: c.callbackBounds()})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	spaces, err := redisstore.NewNamespaces(client, redisstore.NamespacesOptions{Prefix: c.StorePrefix, MaxAge: c.StoreMaxAge, Timeout: c.StoreTimeout})
	if err != nil {
		callbacks.Close()
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	closeClient := func() { spaces.Close(); callbacks.Close(); client.Close() }
	st := &stores{store: store, runtime: runtime, spaces: spaces, sessions: sessions, close: closeClient, captures: captures, callbacks: callbacks,
		keys: keys, namespaceKey: nsKey, sharedKey: shared}
	journalAt := "none"
	switch {
	case c.JournalSize == 0:
	case c.JournalStore == "local":
		st.journal, journalAt = memstore.NewJournal(c.journalOptions()), "local"
	default:
		// The journal writes its batches over a connection of its own:
		// on the store's, a lookup's command would wait behind them.
		jc, err := redisstore.ConnectWith(context.Background(), b.url, connect)
		if err != nil {
			closeClient()
			return nil, fmt.Errorf("[console] journal: %w", err)
		}
		j, err := redisstore.NewJournal(jc, redisstore.JournalOptions{Options: c.journalOptions(), Prefix: c.StorePrefix,
			MaxAge: c.StoreMaxAge, Timeout: c.StoreTimeout, Logger: log})
		if err != nil {
			jc.Close()
			closeClient()
			return nil, fmt.Errorf("[console] %w", err)
		}
		// The journal's queue is written before its client closes.
		st.journal, journalAt = j, "shared"
		st.close = func() { j.Close(); jc.Close(); closeClient() }
	}
	log.Info("state kept in Redis", slog.String("store", b.String()), slog.String("prefix", c.StorePrefix),
		slog.Bool("cluster", redisstore.IsCluster(client)), slog.String("journal", journalAt))
	return st, nil
}
