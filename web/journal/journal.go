// Package journal keeps the recent history of transactions for the web
// console: per namespace (bearer token) the most recent transactions, each
// with its ordered events and the redacted request and response bodies of
// its API calls. It is a read model of the engine's events: the engine
// makes every event, the journal only keeps and shows them. Memory is the
// in-process implementation: bounded in transactions and in bytes,
// forgetting the oldest transactions first.
package journal

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Defaults of the journal's bounds.
const (
	// DefaultPerNamespace is how many transactions a namespace keeps.
	DefaultPerNamespace = 200
	// DefaultTotal is how many transactions the whole journal keeps.
	DefaultTotal = 10000
	// DefaultMaxEvents is how many events one transaction keeps.
	DefaultMaxEvents = 64
	// DefaultMaxBytesPerNamespace is how many bytes a namespace's
	// transactions may take.
	DefaultMaxBytesPerNamespace = 4 << 20
	// DefaultMaxTotalBytes is how many bytes the whole journal may take.
	DefaultMaxTotalBytes = 64 << 20
)

// Options bound a journal. Zero fields take the defaults.
type Options struct {
	// PerNamespace is the most transactions kept per namespace.
	PerNamespace int
	// Total is the most transactions kept across all namespaces.
	Total int
	// MaxEvents is the most events kept per transaction: beyond it the
	// oldest events after the first are dropped (and counted).
	MaxEvents int
	// MaxBytesPerNamespace bounds the bytes a namespace's transactions
	// take (bodies, strings and the journal's own overhead, see Bytes);
	// beyond it the namespace's oldest transactions are forgotten.
	MaxBytesPerNamespace int64
	// MaxTotalBytes bounds the bytes of the whole journal; beyond it the
	// oldest transactions of any namespace are forgotten.
	MaxTotalBytes int64
}

func (o Options) withDefaults() Options {
	if o.MaxBytesPerNamespace <= 0 {
		o.MaxBytesPerNamespace = DefaultMaxBytesPerNamespace
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.PerNamespace <= 0 {
		o.PerNamespace = DefaultPerNamespace
	}
	if o.Total <= 0 {
		o.Total = DefaultTotal
	}
	if o.MaxEvents <= 1 {
		o.MaxEvents = DefaultMaxEvents
	}
	return o
}

// Memory is the in-memory Journal. Recording an event costs O(1) under the
// lock; the answer is encoded before taking it.
type Memory struct {
	opt Options

	mu      sync.Mutex
	spaces  map[string]*space
	all     *list.List // of *entry, oldest first, across namespaces
	seq     uint64     // bumped on every change; versions are taken from it
	bytes   int64      // the size of every entry, as entry.size counts it
	waiters watchers

	recorded, dropped, evicted atomic.Uint64
}

var _ Journal = (*Memory)(nil)

// space is the part of the journal of one namespace.
type space struct {
	byID    map[string]*entry
	order   *list.List // of *entry, oldest first
	version uint64
	bytes   int64
}

// entry is one transaction as recorded.
type entry struct {
	ns      string
	summary Summary
	events  []Event
	dropped int
	bytes   int64 // what the entry takes, kept up to date by resize
	inSpace *list.Element
	inAll   *list.Element
}

// The fixed costs of what the journal keeps, beyond the bytes of its
// strings and bodies: an entry with its list elements and map slot, an
// event with its slot in the events slice.
const (
	entryOverhead = int64(unsafe.Sizeof(entry{})) + 2*int64(unsafe.Sizeof(list.Element{})) + 64
	eventOverhead = int64(unsafe.Sizeof(Event{}))
)

// eventBytes is what a stored event takes: its slot and the memory it
// refers to, counted by capacity.
func eventBytes(e *Event) int64 {
	n := eventOverhead + int64(cap(e.Request)+cap(e.Response)+len(e.Detail)+len(e.Status))
	if c := e.Challenge; c != nil {
		n += int64(unsafe.Sizeof(*c)) + int64(len(c.ACSURL)+len(c.CReq)+len(c.SessionData))
	}
	return n
}

// NewMemory returns an empty journal with the given bounds.
func NewMemory(opt Options) *Memory {
	return &Memory{
		opt:     opt.withDefaults(),
		spaces:  map[string]*space{},
		all:     list.New(),
		waiters: newWatchers(opt.Total),
	}
}

// Record keeps ev. Events without a namespace or a transaction id are
// ignored.
func (j *Memory) Record(_ context.Context, ev emulator.Event) {
	id := ev.Transaction.ThreeDSServerTransID
	if ev.Namespace == "" || id == "" {
		return
	}
	j.add(ev, newEvent(ev)) // encoded outside the lock
}

// add keeps e, the stored form of ev.
func (j *Memory) add(ev emulator.Event, e Event) {
	id := ev.Transaction.ThreeDSServerTransID
	j.mu.Lock()
	defer j.mu.Unlock()
	sp := j.spaces[ev.Namespace]
	if sp == nil {
		sp = &space{byID: map[string]*entry{}, order: list.New()}
		j.spaces[ev.Namespace] = sp
	}
	en := sp.byID[id]
	if en == nil {
		en = &entry{ns: ev.Namespace, summary: Summary{ID: id, Created: ev.Time}}
		en.inSpace = sp.order.PushBack(en)
		en.inAll = j.all.PushBack(en)
		sp.byID[en.summary.ID] = en
		for sp.order.Len() > j.opt.PerNamespace {
			j.evict(sp.order.Front().Value.(*entry))
		}
		for j.all.Len() > j.opt.Total {
			j.evict(j.all.Front().Value.(*entry))
		}
	}
	strs := int64(en.summary.merge(ev))
	e.Status = en.summary.Status
	dropped := en.dropped
	en.add(e, j.opt.MaxEvents)
	j.recorded.Add(1)
	// One transaction alone never takes more than its namespace may: its
	// oldest events but the first go.
	for len(en.events) > 1 && en.measure(strs) > j.opt.MaxBytesPerNamespace {
		en.dropEvent()
	}
	j.dropped.Add(uint64(en.dropped - dropped))
	j.resize(sp, en, en.measure(strs))
	for sp.bytes > j.opt.MaxBytesPerNamespace && sp.order.Len() > 1 {
		j.evict(oldestBut(sp.order, en))
	}
	for j.bytes > j.opt.MaxTotalBytes && j.all.Len() > 1 {
		j.evict(oldestBut(j.all, en))
	}
	j.changed(ev.Namespace)
}

// oldestBut is the oldest entry of l that is not keep; l holds two or
// more.
func oldestBut(l *list.List, keep *entry) *entry {
	if en := l.Front().Value.(*entry); en != keep {
		return en
	}
	return l.Front().Next().Value.(*entry)
}

// measure is the size of en: its overhead, its summary's strings (strs
// bytes) and its events.
func (en *entry) measure(strs int64) int64 {
	n := entryOverhead + strs + int64(cap(en.events)-len(en.events))*eventOverhead
	for i := range en.events {
		n += eventBytes(&en.events[i])
	}
	return n
}

// resize sets the size of en, a member of sp, keeping the totals.
func (j *Memory) resize(sp *space, en *entry, n int64) {
	d := n - en.bytes
	en.bytes, sp.bytes, j.bytes = n, sp.bytes+d, j.bytes+d
}

// add appends an event, dropping the oldest but the first beyond max.
func (en *entry) add(e Event, max int) {
	if len(en.events) >= max {
		en.dropEvent()
	}
	en.events = append(en.events, e)
}

// dropEvent forgets the oldest event but the first (usually the lookup),
// or the only one.
func (en *entry) dropEvent() {
	at := min(1, len(en.events)-1)
	copy(en.events[at:], en.events[at+1:])
	en.events[len(en.events)-1] = Event{} // let go of its bodies
	en.events = en.events[:len(en.events)-1]
	en.dropped++
}

// evict forgets en and tells its namespace.
func (j *Memory) evict(en *entry) {
	sp := j.spaces[en.ns]
	j.resize(sp, en, 0)
	sp.order.Remove(en.inSpace)
	j.all.Remove(en.inAll)
	delete(sp.byID, en.summary.ID)
	if sp.order.Len() == 0 {
		delete(j.spaces, en.ns)
	}
	j.evicted.Add(1)
	j.changed(en.ns)
}

// changed bumps the version of ns and wakes its waiters. j.mu is held.
func (j *Memory) changed(ns string) {
	j.seq++
	if sp := j.spaces[ns]; sp != nil {
		sp.version = j.seq
	}
	j.waiters.wake(ns)
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Memory) List(_ context.Context, ns string, limit int) ([]Summary, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	sp := j.spaces[ns]
	if sp == nil {
		return nil, nil
	}
	n := sp.order.Len()
	if limit > 0 && limit < n {
		n = limit
	}
	out := make([]Summary, 0, n)
	for el := sp.order.Back(); el != nil && len(out) < n; el = el.Prev() {
		out = append(out, el.Value.(*entry).summary)
	}
	return out, nil
}

// Get returns the transaction id of namespace ns with its events; false
// when ns has no such transaction (another namespace's id included).
func (j *Memory) Get(_ context.Context, ns, id string) (Entry, bool, error) {
	j.mu.Lock()
	sp := j.spaces[ns]
	var en *entry
	if sp != nil {
		en = sp.byID[id]
	}
	if en == nil {
		j.mu.Unlock()
		return Entry{}, false, nil
	}
	out := Entry{Summary: en.summary, Dropped: en.dropped, Events: make([]Event, len(en.events))}
	copy(out.Events, en.events)
	j.mu.Unlock()
	timeline(out.Events, out.Created)
	return out, true, nil
}

// timeline sets the times between events.
func timeline(events []Event, created time.Time) {
	for i := range events {
		events[i].SinceStart = events[i].Time.Sub(created)
		if i > 0 {
			events[i].SincePrevious = events[i].Time.Sub(events[i-1].Time)
		}
	}
}

// Version is a number that changes whenever the journal of ns changes (a
// transaction or an event is added, a transaction is evicted). It only
// grows while ns has transactions; it is 0 for a namespace with none.
func (j *Memory) Version(_ context.Context, ns string) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if sp := j.spaces[ns]; sp != nil {
		return sp.version, nil
	}
	return 0, nil
}

// Changed returns a channel that is closed at the next change of the
// journal of ns. Take the channel before reading the state it guards
// (List, Version), so that no change goes unnoticed. The channel may also
// be closed without a change (when too many namespaces are watched at
// once, all watchers are woken to bound memory): compare versions.
func (j *Memory) Changed(ns string) <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.waiters.changed(ns)
}

// Bytes returns about how many bytes the journal's transactions take: the
// capacity of every body, the length of every string, and a fixed
// overhead per transaction and per event. It stays at most
// MaxTotalBytes (but for one transaction larger than that).
func (j *Memory) Bytes() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.bytes
}

// Stats are a journal's counters, for the metrics.
type Stats struct {
	// Transactions and Bytes are what the journal holds now.
	Transactions int
	Bytes        int64
	// Recorded counts the events kept; Dropped those lost, never kept
	// (a full queue) or dropped later to bound a transaction's history;
	// Evicted the transactions forgotten to bound the journal.
	Recorded, Dropped, Evicted uint64
}

// StatsReporter is a journal that counts what it does.
type StatsReporter interface {
	Stats() Stats
}

var _ StatsReporter = (*Memory)(nil)

// Stats returns the journal's counters.
func (j *Memory) Stats() Stats {
	j.mu.Lock()
	n, b := j.all.Len(), j.bytes
	j.mu.Unlock()
	return Stats{Transactions: n, Bytes: b, Recorded: j.recorded.Load(), Dropped: j.dropped.Load(), Evicted: j.evicted.Load()}
}

// Len returns how many transactions the journal holds in all.
func (j *Memory) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.all.Len()
}
