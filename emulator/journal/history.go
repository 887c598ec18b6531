package journal

import (
	"strings"
	"unsafe"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// History is the journal's read model of the events it is given: per
// namespace the most recent transactions, each with its summary and its
// ordered events, bounded in transactions, in events per transaction and
// in bytes, forgetting the oldest first (at a bound of the whole journal,
// the oldest of the namespace holding the most: share.go). Adding an
// event costs O(log namespaces). Both
// storages of the journal keep one: the memory journal as its state, the
// Redis journal to fold what it reads back. A History is not safe for
// concurrent use: its owner locks it.
type History struct {
	opt Options
	// OnChange, when set, is called with the namespace of every change.
	OnChange func(ns string)

	spaces map[string]*space
	all    order // oldest first, across namespaces
	// held counts each namespace's bytes: at a bound of the whole
	// journal, the namespace holding the most gives way (share.go).
	held  fairshare.Holdings
	seq   uint64 // bumped on every change; versions are taken from it
	bytes int64  // the size of every entry, as entry.size counts it

	recorded, dropped, evicted uint64

	// spare is the entry evicted last, cleared, that the next new
	// transaction takes rather than allocating one: at its bound a
	// namespace forgets one transaction for each it adds.
	spare *entry
}

// space is the part of the journal of one namespace.
type space struct {
	byID    map[string]*entry
	order   order // oldest first
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
	// links place the entry in its namespace's order (inSpace) and the
	// journal's (inAll): no list element of its own to allocate.
	links [2]link
}

// An entry's places, the index of its links and of the order using them.
const (
	inSpace = 0
	inAll   = 1
)

// link is an entry's place in an order.
type link struct{ prev, next *entry }

// order is a list of entries, oldest first, through the links numbered
// k of its entries (inSpace or inAll).
type order struct {
	k           int
	front, back *entry
	n           int
}

// Len is how many entries o holds.
func (o *order) Len() int { return o.n }

// Front is the oldest entry of o, nil when o is empty.
func (o *order) Front() *entry { return o.front }

// Back is the newest entry of o, nil when o is empty.
func (o *order) Back() *entry { return o.back }

// Next is the entry after en in o, nil at the back.
func (o *order) Next(en *entry) *entry { return en.links[o.k].next }

// Prev is the entry before en in o, nil at the front.
func (o *order) Prev(en *entry) *entry { return en.links[o.k].prev }

// PushBack adds en, in no order of this kind, as the newest.
func (o *order) PushBack(en *entry) {
	l := &en.links[o.k]
	l.prev, l.next = o.back, nil
	if o.back != nil {
		o.back.links[o.k].next = en
	} else {
		o.front = en
	}
	o.back = en
	o.n++
}

// Remove takes en, a member of o, out of it.
func (o *order) Remove(en *entry) {
	l := &en.links[o.k]
	if l.prev != nil {
		l.prev.links[o.k].next = l.next
	} else {
		o.front = l.next
	}
	if l.next != nil {
		l.next.links[o.k].prev = l.prev
	} else {
		o.back = l.prev
	}
	l.prev, l.next = nil, nil
	o.n--
}

// The fixed costs of what the journal keeps, beyond the bytes of its
// strings and bodies: an entry (its links included) with its map slot, an
// event with its slot in the events slice.
const (
	entryOverhead = int64(unsafe.Sizeof(entry{})) + 64
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

// NewHistory returns an empty history with the given bounds.
func NewHistory(opt Options) *History {
	return &History{opt: opt.WithDefaults(), spaces: map[string]*space{}, all: order{k: inAll}}
}

// Keeps tells whether the history keeps ev: events without a namespace or
// a transaction id are ignored.
func Keeps(ev state.Event) bool {
	return ev.Namespace != "" && ev.Transaction.ThreeDSServerTransID != ""
}

// Add keeps e, the stored form of ev (see NewEvent), unless Keeps(ev) is
// false.
func (j *History) Add(ev state.Event, e Event) {
	if !Keeps(ev) {
		return
	}
	id := ev.Transaction.ThreeDSServerTransID
	sp := j.spaces[ev.Namespace]
	if sp == nil {
		sp = j.addSpace(ev.Namespace)
	}
	en := sp.byID[id]
	if en == nil {
		// A copy: the id of an event (an enquiry's) may share its request's
		// memory, and the map keeps its key.
		id = strings.Clone(id)
		if en = j.spare; en != nil {
			j.spare = nil
		} else {
			en = &entry{}
		}
		en.ns, en.summary = ev.Namespace, Summary{ID: id, Created: ev.Time}
		sp.order.PushBack(en)
		j.all.PushBack(en)
		sp.byID[en.summary.ID] = en
		// Its namespace's oldest go without telling: the event is told
		// below, once.
		for sp.order.Len() > j.opt.PerNamespace {
			j.forget(sp, sp.order.Front()) // en stays: sp is not dropped
		}
		for j.all.Len() > j.opt.Total {
			j.evict(j.victim(en))
		}
	}
	strs := int64(en.summary.merge(ev))
	e.Status = en.summary.Status
	dropped := en.dropped
	en.add(e, j.opt.MaxEvents)
	j.recorded++
	// One transaction alone never takes more than its namespace may: its
	// oldest events but the first go.
	for len(en.events) > 1 && en.measure(strs) > j.opt.MaxBytesPerNamespace {
		en.dropEvent()
	}
	j.dropped += uint64(en.dropped - dropped)
	j.resize(sp, en, en.measure(strs))
	for sp.bytes > j.opt.MaxBytesPerNamespace && sp.order.Len() > 1 {
		j.evict(oldestBut(&sp.order, en))
	}
	for j.bytes > j.opt.MaxTotalBytes && j.all.Len() > 1 {
		j.evict(j.victim(en))
	}
	j.changedIn(sp, ev.Namespace)
}

// oldestBut is the oldest entry of l that is not keep; l holds two or
// more.
func oldestBut(l *order, keep *entry) *entry {
	if en := l.Front(); en != keep {
		return en
	}
	return l.Next(l.Front())
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

// resize sets the size of en, a member of sp, keeping the totals and
// the order of the namespaces by their bytes.
func (j *History) resize(sp *space, en *entry, n int64) {
	d := n - en.bytes
	en.bytes, sp.bytes, j.bytes = n, sp.bytes+d, j.bytes+d
	j.held.Add(en.ns, d)
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
func (j *History) evict(en *entry) {
	ns, sp := en.ns, j.spaces[en.ns]
	if j.forget(sp, en) {
		sp = nil
	}
	j.changedIn(sp, ns)
}

// forget forgets en, a member of sp, without telling: the caller does.
// It reports whether sp, now empty, was dropped.
func (j *History) forget(sp *space, en *entry) (dropped bool) {
	j.resize(sp, en, 0)
	sp.order.Remove(en)
	j.all.Remove(en)
	delete(sp.byID, en.summary.ID)
	if sp.order.Len() == 0 {
		j.dropSpace(en.ns, sp)
		dropped = true
	}
	j.evicted++
	j.keepSpare(en)
	return dropped
}

// keepSpare clears en, evicted, and keeps it for the next new entry:
// nothing refers to it any more (Get copies the events). Its events'
// array stays with it when it has one slot, as a new entry's first event
// makes (a frictionless lookup's only one), so that the new entry takes
// the bytes of one that allocated its own.
func (j *History) keepSpare(en *entry) {
	var events []Event
	if cap(en.events) == 1 {
		events = en.events[:0]
		events[:1][0] = Event{} // let go of its bodies
	}
	*en = entry{events: events}
	j.spare = en
}

// changed bumps the version of ns and tells OnChange.
func (j *History) changed(ns string) { j.changedIn(j.spaces[ns], ns) }

// changedIn is changed of ns, whose part is sp (nil when it has none).
func (j *History) changedIn(sp *space, ns string) {
	j.seq++
	if sp != nil {
		sp.version = j.seq
	}
	if j.OnChange != nil {
		j.OnChange(ns)
	}
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *History) List(ns string, limit int) []Summary {
	sp := j.spaces[ns]
	if sp == nil {
		return nil
	}
	n := sp.order.Len()
	if limit > 0 && limit < n {
		n = limit
	}
	out := make([]Summary, 0, n)
	for en := sp.order.Back(); en != nil && len(out) < n; en = sp.order.Prev(en) {
		out = append(out, en.summary)
	}
	return out
}

// Get returns the transaction id of namespace ns with its events; false
// when ns has no such transaction (another namespace's id included).
func (j *History) Get(ns, id string) (Entry, bool) {
	sp := j.spaces[ns]
	var en *entry
	if sp != nil {
		en = sp.byID[id]
	}
	if en == nil {
		return Entry{}, false
	}
	out := Entry{Summary: en.summary, Dropped: en.dropped, Events: make([]Event, len(en.events))}
	copy(out.Events, en.events)
	return out, true
}

// Timeline sets the times between the events of e (SincePrevious,
// SinceStart): a reader calls it on what Get returned, outside its lock.
func (e *Entry) Timeline() {
	events, created := e.Events, e.Created
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
func (j *History) Version(ns string) uint64 {
	if sp := j.spaces[ns]; sp != nil {
		return sp.version
	}
	return 0
}

// Bytes returns about how many bytes the journal's transactions take: the
// capacity of every body, the length of every string, and a fixed
// overhead per transaction and per event. It stays at most
// MaxTotalBytes (but for one transaction larger than that).
func (j *History) Bytes() int64 { return j.bytes }

// Stats returns the history's counters.
func (j *History) Stats() Stats {
	return Stats{Transactions: j.all.Len(), Bytes: j.bytes, Recorded: j.recorded, Dropped: j.dropped, Evicted: j.evicted}
}

// Len returns how many transactions the history holds in all.
func (j *History) Len() int { return j.all.Len() }
