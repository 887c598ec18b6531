package memstore

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Bounds of Callbacks.
const (
	// DefaultMaxCallbackURLs bounds the namespaces with a callback URL.
	DefaultMaxCallbackURLs = 10_000
	// DefaultMaxOutbox bounds the deliveries waiting in the outbox.
	DefaultMaxOutbox = 100_000
)

// Callbacks keeps the result callbacks in this process: each namespace's
// URL, and the outbox of deliveries, ordered by when they are due (a
// heap), so that a Claim costs what it returns, not what waits.
type Callbacks struct {
	maxURLs, maxOutbox int

	mu     sync.Mutex
	urls   map[string]string
	outbox map[string]*outboxEntry
	queue  dueQueue
}

// outboxEntry is a delivery and its lease.
type outboxEntry struct {
	d emulator.Delivery
	// version changes with every new due: a queue item of another version
	// is stale.
	version uint64
	// rearm records a Schedule during the lease.
	rearm bool
}

// leased tells whether the entry's lease lasts at now.
func (e *outboxEntry) leased(now time.Time) bool { return e.d.Token != "" && e.d.Due.After(now) }

var _ emulator.Callbacks = (*Callbacks)(nil)

// NewCallbacks returns empty callbacks keeping at most maxURLs
// registrations and maxOutbox deliveries (the defaults when <= 0).
func NewCallbacks(maxURLs, maxOutbox int) *Callbacks {
	if maxURLs <= 0 {
		maxURLs = DefaultMaxCallbackURLs
	}
	if maxOutbox <= 0 {
		maxOutbox = DefaultMaxOutbox
	}
	return &Callbacks{maxURLs: maxURLs, maxOutbox: maxOutbox, urls: map[string]string{}, outbox: map[string]*outboxEntry{}}
}

// Register sets the URL of ns.
func (c *Callbacks) Register(_ context.Context, ns, url string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.urls[ns]; !ok && len(c.urls) >= c.maxURLs {
		return fmt.Errorf("%w: %d namespaces have a callback URL", emulator.ErrCallbackLimit, len(c.urls))
	}
	c.urls[strings.Clone(ns)] = strings.Clone(url)
	return nil
}

// Registered returns the URL of ns.
func (c *Callbacks) Registered(_ context.Context, ns string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.urls[ns], nil
}

// Unregister removes the URL of ns.
func (c *Callbacks) Unregister(_ context.Context, ns string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.urls[ns]
	delete(c.urls, ns)
	return ok, nil
}

// Schedule adds or advances a delivery.
func (c *Callbacks) Schedule(_ context.Context, d emulator.Delivery, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.outbox[d.ID]
	switch {
	case !ok:
		if len(c.outbox) >= c.maxOutbox {
			return fmt.Errorf("%w: %d deliveries wait", emulator.ErrCallbackLimit, len(c.outbox))
		}
		e = &outboxEntry{d: emulator.Delivery{ID: strings.Clone(d.ID), Namespace: strings.Clone(d.Namespace)}}
		c.outbox[e.d.ID] = e
		c.setDue(e, d.Due)
	case e.leased(now):
		e.rearm = true
	case d.Due.Before(e.d.Due):
		c.setDue(e, d.Due)
	}
	return nil
}

// Claim leases the due deliveries.
func (c *Callbacks) Claim(_ context.Context, now time.Time, lease time.Duration, max int) ([]emulator.Delivery, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []emulator.Delivery
	for len(out) < max && len(c.queue) > 0 && !c.queue[0].due.After(now) {
		item := heap.Pop(&c.queue).(dueItem)
		e, ok := c.outbox[item.id]
		if !ok || e.version != item.version {
			continue // stale: delivered, or due at another time
		}
		e.d.Token, e.rearm = newToken(), false
		c.setDue(e, now.Add(lease))
		out = append(out, e.d)
	}
	return out, nil
}

// Release ends a lease.
func (c *Callbacks) Release(_ context.Context, d emulator.Delivery, due, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.outbox[d.ID]
	if !ok || d.Token == "" || e.d.Token != d.Token {
		return emulator.ErrLeaseLost
	}
	if e.rearm {
		due = now
	}
	e.d.Token, e.d.Attempt, e.rearm = "", d.Attempt, false
	c.setDue(e, due)
	return nil
}

// Done removes a delivery.
func (c *Callbacks) Done(_ context.Context, d emulator.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.outbox[d.ID]
	if !ok || d.Token == "" || e.d.Token != d.Token {
		return emulator.ErrLeaseLost
	}
	delete(c.outbox, d.ID)
	return nil
}

// setDue gives e a new due and queues it; the item of its old due goes
// stale. The queue is rebuilt when stale items outnumber the live ones.
func (c *Callbacks) setDue(e *outboxEntry, due time.Time) {
	e.version++
	e.d.Due = due
	heap.Push(&c.queue, dueItem{due: due, id: e.d.ID, version: e.version})
	if len(c.queue) > 2*len(c.outbox)+64 {
		c.queue = c.queue[:0]
		for _, x := range c.outbox {
			c.queue = append(c.queue, dueItem{due: x.d.Due, id: x.d.ID, version: x.version})
		}
		heap.Init(&c.queue)
	}
}

// newToken is a random lease token.
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// dueItem is a delivery in the queue at one due.
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
