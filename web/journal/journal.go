// Package journal keeps the recent history of transactions for the web
// console: per namespace (bearer token) the most recent transactions, each
// with its ordered events and the masked request and response bodies of
// its API calls. It lives in memory, is bounded, and forgets the oldest
// transactions first.
package journal

import (
	"container/list"
	"encoding/json"
	"sync"
	"time"

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
)

// Options bound a Journal. Zero fields take the defaults.
type Options struct {
	// PerNamespace is the most transactions kept per namespace.
	PerNamespace int
	// Total is the most transactions kept across all namespaces.
	Total int
	// MaxEvents is the most events kept per transaction: beyond it the
	// oldest events after the first are dropped (and counted).
	MaxEvents int
}

// Journal is an in-memory, bounded record of transactions. It implements
// emulator.Observer and is safe for concurrent use; recording an event
// costs O(1).
type Journal struct {
	opt Options

	mu      sync.Mutex
	spaces  map[string]*space
	all     *list.List // of *entry, oldest first, across namespaces
	seq     uint64     // bumped on every change; versions are taken from it
	waiters map[string]chan struct{}
}

// space is the part of the journal of one namespace.
type space struct {
	byID    map[string]*entry
	order   *list.List // of *entry, oldest first
	version uint64
}

// entry is one transaction as recorded.
type entry struct {
	ns      string
	summary Summary
	events  []Event
	dropped int
	inSpace *list.Element
	inAll   *list.Element
}

// New returns an empty journal with the given bounds.
func New(opt Options) *Journal {
	if opt.PerNamespace <= 0 {
		opt.PerNamespace = DefaultPerNamespace
	}
	if opt.Total <= 0 {
		opt.Total = DefaultTotal
	}
	if opt.MaxEvents <= 1 {
		opt.MaxEvents = DefaultMaxEvents
	}
	return &Journal{
		opt:     opt,
		spaces:  map[string]*space{},
		all:     list.New(),
		waiters: map[string]chan struct{}{},
	}
}

// Observe records ev. Events without a namespace or a transaction id are
// ignored. Card numbers in the request and response bodies are masked
// again, whatever the caller did.
func (j *Journal) Observe(ev emulator.Event) {
	if ev.Namespace == "" || ev.ThreeDSServerTransID == "" {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	// The bodies are kept as given (the transport masks card numbers
	// already) and masked again, like the summary is parsed, only when the
	// console reads them: recording stays cheap on the request path.
	e := Event{
		Kind:     ev.Kind,
		Time:     ev.Time,
		Status:   ev.Status,
		Detail:   ev.Detail,
		Request:  ev.Request,
		Response: ev.Response,
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	sp := j.spaces[ev.Namespace]
	if sp == nil {
		sp = &space{byID: map[string]*entry{}, order: list.New()}
		j.spaces[ev.Namespace] = sp
	}
	en := sp.byID[ev.ThreeDSServerTransID]
	if en == nil {
		en = &entry{ns: ev.Namespace, summary: Summary{ID: ev.ThreeDSServerTransID, Created: ev.Time}}
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
	en.add(e, j.opt.MaxEvents)
	j.changed(ev.Namespace)
	// An eviction may have emptied other namespaces; they were told then.
}

// add appends an event and updates the summary.
func (en *entry) add(e Event, max int) {
	if len(en.events) >= max {
		// Keep the first event (usually the lookup), drop the next oldest.
		copy(en.events[1:], en.events[2:])
		en.events = en.events[:len(en.events)-1]
		en.dropped++
	}
	en.events = append(en.events, e)
	s := &en.summary
	if e.Time.After(s.Updated) {
		s.Updated = e.Time
	}
	if e.Status != "" {
		s.Status = e.Status
	}
	s.LastEvent = e.Kind
	s.Events++
	if e.Kind == emulator.EventEnquiry {
		s.Enquiries++
	}
}

// view returns the summary with the fields that come from the bodies of
// the lookup and the latest enquiry, parsed now. j.mu is held.
func (en *entry) view() Summary {
	s := en.summary
	for _, e := range en.events {
		if e.Kind == emulator.EventLookup {
			s.fromLookup(e.Request, e.Response)
			break
		}
	}
	for i := len(en.events) - 1; i >= 0; i-- {
		if e := en.events[i]; e.Kind == emulator.EventEnquiry {
			var rs struct {
				ECI string `json:"eci"`
			}
			if json.Unmarshal(e.Response, &rs) == nil {
				s.ECI = rs.ECI
			}
			break
		}
	}
	return s
}

// evict forgets en and tells its namespace.
func (j *Journal) evict(en *entry) {
	sp := j.spaces[en.ns]
	sp.order.Remove(en.inSpace)
	j.all.Remove(en.inAll)
	delete(sp.byID, en.summary.ID)
	if sp.order.Len() == 0 {
		delete(j.spaces, en.ns)
	}
	j.changed(en.ns)
}

// changed bumps the version of ns and wakes its waiters. j.mu is held.
func (j *Journal) changed(ns string) {
	j.seq++
	if sp := j.spaces[ns]; sp != nil {
		sp.version = j.seq
	}
	if ch, ok := j.waiters[ns]; ok {
		close(ch)
		delete(j.waiters, ns)
	}
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Journal) List(ns string, limit int) []Summary {
	j.mu.Lock()
	defer j.mu.Unlock()
	sp := j.spaces[ns]
	if sp == nil {
		return nil
	}
	n := sp.order.Len()
	if limit > 0 && limit < n {
		n = limit
	}
	out := make([]Summary, 0, n)
	for el := sp.order.Back(); el != nil && len(out) < n; el = el.Prev() {
		out = append(out, el.Value.(*entry).view())
	}
	return out
}

// Get returns the transaction id of namespace ns with its events; false
// when ns has no such transaction (another namespace's id included).
func (j *Journal) Get(ns, id string) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	sp := j.spaces[ns]
	if sp == nil {
		return Entry{}, false
	}
	en := sp.byID[id]
	if en == nil {
		return Entry{}, false
	}
	out := Entry{Summary: en.view(), Dropped: en.dropped, Events: make([]Event, len(en.events))}
	copy(out.Events, en.events)
	for i := range out.Events {
		out.Events[i].Request, out.Events[i].Response = Mask(out.Events[i].Request), Mask(out.Events[i].Response)
		out.Events[i].SinceStart = out.Events[i].Time.Sub(out.Created)
		if i > 0 {
			out.Events[i].SincePrevious = out.Events[i].Time.Sub(out.Events[i-1].Time)
		}
	}
	return out, true
}

// Version is a number that changes whenever the journal of ns changes (a
// transaction or an event is added, a transaction is evicted). It only
// grows while ns has transactions; it is 0 for a namespace with none.
func (j *Journal) Version(ns string) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if sp := j.spaces[ns]; sp != nil {
		return sp.version
	}
	return 0
}

// Changed returns a channel that is closed at the next change of the
// journal of ns. Take the channel before reading the state it guards
// (List, Version), so that no change goes unnoticed. The channel may also
// be closed without a change (when too many namespaces are watched at
// once, all watchers are woken to bound memory): compare versions.
func (j *Journal) Changed(ns string) <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	ch, ok := j.waiters[ns]
	if !ok {
		if len(j.waiters) >= j.opt.Total {
			for k, w := range j.waiters {
				close(w)
				delete(j.waiters, k)
			}
		}
		ch = make(chan struct{})
		j.waiters[ns] = ch
	}
	return ch
}

// Len returns how many transactions the journal holds in all.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.all.Len()
}
