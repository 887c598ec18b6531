package memstore

import (
	"container/heap"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// outbox is the deliveries waiting, kept per namespace (a tenant): each
// tenant's entries ordered by when they are due, and the tenants in two
// queues, so that a Claim costs what it returns, not what waits:
//
//   - waiting: tenants whose first entry is not due yet, or who have as
//     many attempts in flight as they may, by when that changes;
//   - ready: tenants with an entry due, by the turn they were last served
//     at, so that they take turns (round robin).
//
// A third queue orders the tenants by their number of entries, the
// largest first: a full outbox makes room at its expense. The caller
// holds the lock of Callbacks.
type outbox struct {
	entries map[string]*outboxEntry
	tenants map[string]*tenant
	waiting tenantQueue
	ready   tenantQueue
	largest tenantQueue
	// turn counts the entries claimed: a tenant served is given the next.
	turn uint64
}

func newOutbox() outbox {
	return outbox{
		entries: map[string]*outboxEntry{},
		tenants: map[string]*tenant{},
		waiting: tenantQueue{slot: 0, less: func(a, b *tenant) bool { return a.next.Before(b.next) }},
		ready:   tenantQueue{slot: 1, less: func(a, b *tenant) bool { return a.turn < b.turn }},
		largest: tenantQueue{slot: 2, less: func(a, b *tenant) bool { return len(a.entries) > len(b.entries) }},
	}
}

// outboxEntry is a delivery and its lease.
type outboxEntry struct {
	d     state.Delivery
	owner *tenant
	// version changes with every new due: a queue item of another version
	// is stale.
	version uint64
	// rearm records a Schedule during the lease.
	rearm bool
}

// leased tells whether the entry's lease lasts at now.
func (e *outboxEntry) leased(now time.Time) bool { return e.d.Token != "" && e.d.Due.After(now) }

// tenant is one namespace's part of the outbox.
type tenant struct {
	ns      string
	entries map[string]*outboxEntry
	// leases are the entries claimed and not yet released; those whose
	// lease has not ended are in flight.
	leases map[string]*outboxEntry
	// queue orders the entries by due; order lists them as they came, the
	// newest last (both keep stale items, dropped lazily).
	queue dueQueue
	order []string
	// turn is when the tenant was last served; next when it is looked at
	// again while waiting.
	turn uint64
	next time.Time
	// idx is the tenant's place in waiting, ready and largest; -1: absent.
	idx [3]int
}

// size is the number of entries of ns.
func (o *outbox) size(ns string) int {
	if t, ok := o.tenants[ns]; ok {
		return len(t.entries)
	}
	return 0
}

// add makes a new entry of d, due at d.Due.
func (o *outbox) add(d state.Delivery) {
	t, ok := o.tenants[d.Namespace]
	if !ok {
		t = &tenant{ns: d.Namespace, entries: map[string]*outboxEntry{}, leases: map[string]*outboxEntry{}, idx: [3]int{-1, -1, -1}}
		o.tenants[t.ns] = t
		o.largest.add(t)
	}
	e := &outboxEntry{d: state.Delivery{ID: d.ID, Namespace: t.ns}, owner: t}
	o.entries[d.ID] = e
	t.entries[d.ID] = e
	t.order = append(t.order, d.ID)
	if len(t.order) > 2*len(t.entries)+64 {
		kept := t.order[:0]
		for _, id := range t.order {
			if _, ok := t.entries[id]; ok {
				kept = append(kept, id)
			}
		}
		clear(t.order[len(kept):])
		t.order = kept
	}
	o.largest.fix(t)
	o.setDue(e, d.Due)
	o.place(t)
}

// remove forgets entry e.
func (o *outbox) remove(e *outboxEntry) {
	t := e.owner
	delete(o.entries, e.d.ID)
	delete(t.entries, e.d.ID)
	delete(t.leases, e.d.ID)
	o.largest.fix(t)
	o.place(t)
}

// setDue gives e a new due and queues it; the item of its old due goes
// stale. The tenant's queue is rebuilt when stale items outnumber the
// live ones.
func (o *outbox) setDue(e *outboxEntry, due time.Time) {
	t := e.owner
	e.version++
	e.d.Due = due
	heap.Push(&t.queue, dueItem{due: due, id: e.d.ID, version: e.version})
	if len(t.queue) > 2*len(t.entries)+64 {
		t.queue = t.queue[:0]
		for _, x := range t.entries {
			t.queue = append(t.queue, dueItem{due: x.d.Due, id: x.d.ID, version: x.version})
		}
		heap.Init(&t.queue)
	}
}

// place files t after a change: forgotten once it has no entry; left
// where it is when ready (the next Claim looks at it); else waiting
// until its first entry is due.
func (o *outbox) place(t *tenant) {
	if len(t.entries) == 0 {
		o.waiting.remove(t)
		o.ready.remove(t)
		o.largest.remove(t)
		delete(o.tenants, t.ns)
		return
	}
	if o.ready.has(t) {
		return
	}
	t.next = t.head().d.Due
	if o.waiting.has(t) {
		o.waiting.fix(t)
	} else {
		o.waiting.add(t)
	}
}

// wake moves the tenants whose wait ended at now to the ready queue.
func (o *outbox) wake(now time.Time) {
	for o.waiting.Len() > 0 && !o.waiting.items[0].next.After(now) {
		t := o.waiting.items[0]
		o.waiting.remove(t)
		o.ready.add(t)
	}
}

// pushOut finds the newest entry, not leased at now, of the tenant with
// the most entries, when it has more than atLeast; nil otherwise.
func (o *outbox) pushOut(atLeast int, now time.Time) *outboxEntry {
	if o.largest.Len() == 0 {
		return nil
	}
	t := o.largest.items[0]
	if len(t.entries) <= atLeast {
		return nil
	}
	var leased []string
	defer func() { t.order = append(t.order, leased...) }()
	for len(t.order) > 0 {
		id := t.order[len(t.order)-1]
		t.order = t.order[:len(t.order)-1]
		e, ok := t.entries[id]
		switch {
		case !ok:
		case e.leased(now):
			leased = append(leased, id)
		default:
			return e
		}
	}
	return nil
}

// head is the entry of t due first; nil when it has none.
func (t *tenant) head() *outboxEntry {
	for len(t.queue) > 0 {
		it := t.queue[0]
		if e, ok := t.entries[it.id]; ok && e.version == it.version {
			return e
		}
		heap.Pop(&t.queue)
	}
	return nil
}

// inFlight counts t's leases that last at now, and returns when the
// first of them ends.
func (t *tenant) inFlight(now time.Time) (n int, first time.Time) {
	for _, e := range t.leases {
		if e.leased(now) {
			n++
			if first.IsZero() || e.d.Due.Before(first) {
				first = e.d.Due
			}
		}
	}
	return n, first
}

// tenantQueue is a heap of tenants that knows each one's place (idx[slot]),
// so that a tenant can be moved or removed where it is.
type tenantQueue struct {
	items []*tenant
	slot  int
	less  func(a, b *tenant) bool
}

func (q *tenantQueue) Len() int           { return len(q.items) }
func (q *tenantQueue) Less(i, j int) bool { return q.less(q.items[i], q.items[j]) }
func (q *tenantQueue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].idx[q.slot], q.items[j].idx[q.slot] = i, j
}
func (q *tenantQueue) Push(x any) {
	t := x.(*tenant)
	t.idx[q.slot] = len(q.items)
	q.items = append(q.items, t)
}
func (q *tenantQueue) Pop() any {
	n := len(q.items) - 1
	t := q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	t.idx[q.slot] = -1
	return t
}

func (q *tenantQueue) has(t *tenant) bool { return t.idx[q.slot] >= 0 }
func (q *tenantQueue) add(t *tenant)      { heap.Push(q, t) }
func (q *tenantQueue) fix(t *tenant) {
	if q.has(t) {
		heap.Fix(q, t.idx[q.slot])
	}
}
func (q *tenantQueue) remove(t *tenant) {
	if q.has(t) {
		heap.Remove(q, t.idx[q.slot])
	}
}

// dueItem is a delivery in a tenant's queue at one due.
type dueItem struct {
	due     time.Time
	id      string
	version uint64
}

// dueQueue is a min-heap of dues.
type dueQueue []dueItem

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(dueItem)) }
func (q *dueQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
