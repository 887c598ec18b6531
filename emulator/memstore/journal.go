package memstore

import (
	"context"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Journal is the console's journal kept in this process: a
// journal.History (bounded in transactions and in bytes, forgetting the
// oldest first) under a lock. Recording an event costs O(1) under the
// lock; its stored form is made before taking it.
type Journal struct {
	watchers *journal.Watchers

	mu sync.Mutex
	h  *journal.History
}

var _ journal.Journal = (*Journal)(nil)

// NewJournal returns an empty journal with the given bounds.
func NewJournal(opt journal.Options) *Journal {
	opt = opt.WithDefaults()
	j := &Journal{watchers: journal.NewWatchers(opt.Total), h: journal.NewHistory(opt)}
	j.h.OnChange = j.watchers.Wake
	return j
}

// Record keeps ev. Events without a namespace or a transaction id are
// ignored.
func (j *Journal) Record(_ context.Context, ev state.Event) {
	if !journal.Keeps(ev) {
		return
	}
	e := journal.NewEvent(ev) // encoded outside the lock
	j.mu.Lock()
	defer j.mu.Unlock()
	j.h.Add(ev, e)
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Journal) List(_ context.Context, ns string, limit int) ([]journal.Summary, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.List(ns, limit), nil
}

// Get returns the transaction id of namespace ns with its events; false
// when ns has no such transaction (another namespace's id included).
func (j *Journal) Get(_ context.Context, ns, id string) (journal.Entry, bool, error) {
	j.mu.Lock()
	e, ok := j.h.Get(ns, id)
	j.mu.Unlock()
	e.Timeline()
	return e, ok, nil
}

// Query returns the page of the transactions of ns that q selects,
// newest first.
func (j *Journal) Query(_ context.Context, ns string, q journal.Query) (journal.Page, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.Query(ns, q), nil
}

// Forget forgets every transaction of ns.
func (j *Journal) Forget(_ context.Context, ns string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.h.Forget(ns)
	return nil
}

// Version is a number that changes whenever the journal of ns changes (a
// transaction or an event is added, a transaction is evicted). It only
// grows while ns has transactions; it is 0 for a namespace with none.
func (j *Journal) Version(_ context.Context, ns string) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.Version(ns), nil
}

// Changed returns a channel that is closed at the next change of the
// journal of ns. Take the channel before reading the state it guards
// (List, Version), so that no change goes unnoticed. The channel may also
// be closed without a change (when too many namespaces are watched at
// once, all watchers are woken to bound memory): compare versions.
func (j *Journal) Changed(ns string) <-chan struct{} { return j.watchers.Changed(ns) }

// Bytes returns about how many bytes the journal's transactions take (see
// journal.History.Bytes).
func (j *Journal) Bytes() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.Bytes()
}

// Len returns how many transactions the journal holds in all.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.Len()
}

// Stats returns the journal's counters.
func (j *Journal) Stats() journal.Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.Stats()
}
