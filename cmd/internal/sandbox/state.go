package sandbox

import (
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// stores is everything that outlives a request: the transactions, the
// runtime scenarios, the console's journal and its sessions, the
// captures' ddcIds and JWT ids, the result callbacks, all in this
// process (--store memory) or all in one Redis shared by replicas, as the
// Backend opened them.
type stores struct {
	store    state.Store
	runtime  state.RuntimeScenarios
	spaces   state.Namespaces   // each token's clock and forgetting
	journal  journal.Journal    // nil with --journal-size 0
	sessions state.SessionStore // the console's
	stats    web.StoreStats     // the store's size; nil when it cannot count (Redis)
	close    func()
	// captures keep the merchants' ddcIds and used JWT ids; callbacks the
	// result callbacks' registrations and outbox.
	captures  state.Captures
	callbacks state.Callbacks
	// keys keeps the fingerprints of the state keys of the replicas and
	// the sealed namespace key; namespaceKey is that key, opened, and
	// sharedKey false when the store keeps one none of this replica's
	// pairs opens.
	keys         state.KeyRegistry
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
func (c Config) callbackBounds() state.CallbackBounds {
	return state.CallbackBounds{Outbox: c.CallbackOutbox, OutboxPerNamespace: c.CallbackOutboxPerToken}
}

// events is the sink of the engine's events: the journal, or none.
func (s *stores) events() state.EventSink {
	if s.journal == nil {
		return nil
	}
	return s.journal
}
