package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// state is everything that outlives a request: the transactions, the
// runtime scenarios, the console's journal and its sessions, the
// captures' ddcIds and JWT ids, the result callbacks, all in this
// process (--store memory) or all in one Redis shared by replicas.
type state struct {
	store    emulator.Store
	runtime  emulator.RuntimeScenarios
	spaces   emulator.Namespaces   // each token's clock and forgetting
	journal  journal.Journal       // nil with --journal-size 0
	sessions emulator.SessionStore // the console's
	mem      *memstore.Store       // the memory store; nil with Redis
	stats    web.StoreStats        // nil with Redis
	close    func()
	// captures keep the merchants' ddcIds and used JWT ids; callbacks the
	// result callbacks' registrations and outbox.
	captures  emulator.Captures
	callbacks emulator.Callbacks
	// keys keeps the fingerprints of the state keys of the replicas and
	// the sealed namespace key; namespaceKey is that key, opened, and
	// sharedKey false when the store keeps one none of this replica's
	// pairs opens.
	keys         emulator.KeyRegistry
	namespaceKey []byte
	sharedKey    bool
}

// StoreError is a state store the sandbox refuses to run over, as it is
// set up: a configuration to mend, not a failure to retry (the program
// exits 2). Today: a Redis whose eviction policy drops acknowledged
// transactions (it wraps a *redisstore.PolicyError).
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// journalOptions are the bounds of the console's journal.
func (c Config) journalOptions() journal.Options {
	return journal.Options{PerNamespace: c.JournalSize, MaxBytesPerNamespace: c.JournalBytes, MaxTotalBytes: c.JournalTotal}
}

// callbackBounds are the bounds of the result callbacks.
func (c Config) callbackBounds() emulator.CallbackBounds {
	return emulator.CallbackBounds{Outbox: c.CallbackOutbox, OutboxPerNamespace: c.CallbackOutboxPerToken}
}

// newState builds the state --store names, and finds the namespace key
// it keeps for the state key pairs (the current first). The pairs' hash
// keys name in Redis what must not show in a key name. A Redis that does
// not answer within --store-wait fails here, before the server listens.
func newState(c Config, log *slog.Logger, pairs []auth.KeyPair) (*state, error) {
	masters := make([][]byte, len(pairs))
	for i, p := range pairs {
		masters[i] = p.Hash
	}
	if c.Store == "memory" {
		reg := memstore.NewKeyRegistry(nil)
		nsKey, shared, err := namespaceKey(context.Background(), reg, pairs)
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
		s := &state{store: mem, mem: mem, runtime: memstore.NewRuntime(scenarios.RuntimeLimits{}),
			spaces:   memstore.NewNamespaces(memstore.NamespacesOptions{MaxAge: c.StoreMaxAge}),
			sessions: memstore.NewSessions(c.ConsoleSessions, nil), close: func() {},
			captures: memstore.NewCaptures(memstore.CapturesOptions{}), callbacks: memstore.NewCallbacks(c.callbackBounds()), keys: reg, namespaceKey: nsKey, sharedKey: shared}
		s.stats = func() (int, uint64) { return mem.Len(), mem.Evicted() }
		if c.JournalSize > 0 {
			s.journal = memstore.NewJournal(c.journalOptions())
		}
		return s, nil
	}

	connect := redisstore.ConnectOptions{Timeout: c.StoreTimeout, Wait: c.StoreWait}
	if c.StoreCAFile != "" {
		pool, err := loadCAFile(c.StoreCAFile)
		if err != nil {
			return nil, fmt.Errorf("[store] --store-ca-file %q: %w", c.StoreCAFile, err)
		}
		connect.RootCAs = pool
	}
	client, err := redisstore.ConnectWith(context.Background(), c.Store, connect)
	if err != nil {
		hint := ""
		switch {
		case errors.Is(err, redisstore.ErrUntrusted) && c.StoreCAFile == "":
			hint = fmt.Sprintf(" (give the authority that signed it with --store-ca-file, %s)", EnvName("store-ca-file"))
		case errors.Is(err, redisstore.ErrUntrusted):
			hint = fmt.Sprintf(" (no authority of --store-ca-file %q signed it)", c.StoreCAFile)
		case c.StoreWait == 0:
			hint = fmt.Sprintf(" (--store-wait, %s, lets start-up wait for it)", EnvName("store-wait"))
		}
		return nil, fmt.Errorf("[store] %w%s", err, hint)
	}
	keys, err := redisstore.NewKeyRegistry(client, c.StorePrefix, c.StoreTimeout)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("[store] %w", err)
	}
	nsKey, shared, err := namespaceKey(context.Background(), keys, pairs)
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
		return nil, &StoreError{Err: fmt.Errorf("[store] %s: %w", redisstore.Redact(c.Store), err)}
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
	captures, err := redisstore.NewCaptures(client, redisstore.CapturesOptions{Prefix: c.StorePrefix, Timeout: c.StoreTimeout, Keys: masters})
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
	s := &state{store: store, runtime: runtime, spaces: spaces, sessions: sessions, close: closeClient, captures: captures, callbacks: callbacks,
		keys: keys, namespaceKey: nsKey, sharedKey: shared}
	journalAt := "none"
	switch {
	case c.JournalSize == 0:
	case c.JournalStore == "local":
		s.journal, journalAt = memstore.NewJournal(c.journalOptions()), "local"
	default:
		// The journal writes its batches over a connection of its own:
		// on the store's, a lookup's command would wait behind them.
		jc, err := redisstore.ConnectWith(context.Background(), c.Store, connect)
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
		s.journal, journalAt = j, "shared"
		s.close = func() { j.Close(); jc.Close(); closeClient() }
	}
	log.Info("state kept in Redis", slog.String("store", redisstore.Redact(c.Store)), slog.String("prefix", c.StorePrefix),
		slog.String("journal", journalAt))
	return s, nil
}

// events is the sink of the engine's events: the journal, or none.
func (s *state) events() emulator.EventSink {
	if s.journal == nil {
		return nil
	}
	return s.journal
}
