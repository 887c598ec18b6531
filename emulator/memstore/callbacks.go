package memstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Callbacks keeps the result callbacks in this process: each namespace's
// URL and signing key generation, and the outbox of deliveries, kept per
// namespace (see outbox.go) so that no namespace costs another its
// deliveries or its turns.
type Callbacks struct {
	opt state.CallbackBounds

	mu     sync.Mutex
	urls   map[string]string
	keys   map[string]state.SigningKey
	outbox outbox
}

var _ state.Callbacks = (*Callbacks)(nil)

// NewCallbacks returns empty callbacks bounded by b (the defaults for
// its zero fields).
func NewCallbacks(b state.CallbackBounds) *Callbacks {
	return &Callbacks{opt: b.WithDefaults(), urls: map[string]string{}, keys: map[string]state.SigningKey{}, outbox: newOutbox()}
}

// Register sets the URL of ns.
func (c *Callbacks) Register(_ context.Context, ns, url string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.urls[ns]; !ok && len(c.urls) >= c.opt.URLs {
		return fmt.Errorf("%w: %d namespaces have a callback URL", state.ErrCallbackLimit, len(c.urls))
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

// SigningKey returns the generation of the signing secret of ns.
func (c *Callbacks) SigningKey(_ context.Context, ns string) (state.SigningKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys[ns], nil
}

// RotateSigningKey moves ns to its next generation.
func (c *Callbacks) RotateSigningKey(_ context.Context, ns string, now time.Time) (state.SigningKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[ns]
	if !ok && len(c.keys) >= c.opt.URLs {
		return state.SigningKey{}, fmt.Errorf("%w: %d namespaces have rotated their signing secret", state.ErrCallbackLimit, len(c.keys))
	}
	k = state.SigningKey{Generation: k.Generation + 1, Rotated: now}
	c.keys[strings.Clone(ns)] = k
	return k, nil
}

// Schedule adds or advances a delivery; a new one within the namespace's
// share, pushing out another namespace's newest when the outbox is full.
func (c *Callbacks) Schedule(_ context.Context, d state.Delivery, now time.Time) (state.Delivery, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := &c.outbox
	if e, ok := o.entries[d.ID]; ok {
		switch {
		case e.leased(now):
			e.rearm = true
		case d.Due.Before(e.d.Due):
			o.setDue(e, d.Due)
			o.place(e.owner)
		}
		return state.Delivery{}, nil
	}
	n := o.size(d.Namespace)
	if n >= c.opt.OutboxPerNamespace {
		return state.Delivery{}, fmt.Errorf("%w: %d of its deliveries wait", state.ErrCallbackQuota, n)
	}
	var pushed state.Delivery
	if len(o.entries) >= c.opt.Outbox {
		victim := o.pushOut(n+1, now)
		if victim == nil {
			return state.Delivery{}, fmt.Errorf("%w: the outbox is full (%d deliveries) and this token has as many waiting as any", state.ErrCallbackLimit, len(o.entries))
		}
		pushed = victim.d
		pushed.Token = ""
		o.remove(victim)
	}
	o.add(state.Delivery{ID: strings.Clone(d.ID), Namespace: strings.Clone(d.Namespace), Due: d.Due})
	return pushed, nil
}

// Claim leases the due deliveries, the namespaces in turn.
func (c *Callbacks) Claim(_ context.Context, now time.Time, lease time.Duration, max, perNamespace int) ([]state.Delivery, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := &c.outbox
	o.wake(now)
	var out []state.Delivery
	for len(out) < max && o.ready.Len() > 0 {
		t := o.ready.items[0]
		e := t.head()
		if e == nil || e.d.Due.After(now) {
			o.ready.remove(t)
			o.place(t)
			continue
		}
		if perNamespace > 0 {
			if n, first := t.inFlight(now); n >= perNamespace {
				o.ready.remove(t)
				t.next = first
				o.waiting.add(t)
				continue
			}
		}
		e.d.Token, e.rearm = newToken(), false
		t.leases[e.d.ID] = e
		o.setDue(e, now.Add(lease))
		o.turn++
		t.turn = o.turn
		o.ready.fix(t)
		out = append(out, e.d)
	}
	return out, nil
}

// Release ends a lease.
func (c *Callbacks) Release(_ context.Context, d state.Delivery, due, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := &c.outbox
	e, ok := o.entries[d.ID]
	if !ok || d.Token == "" || e.d.Token != d.Token {
		return state.ErrLeaseLost
	}
	if e.rearm {
		due = now
	}
	e.d.Token, e.d.Attempt, e.rearm = "", d.Attempt, false
	delete(e.owner.leases, d.ID)
	o.setDue(e, due)
	o.place(e.owner)
	return nil
}

// Done removes a delivery.
func (c *Callbacks) Done(_ context.Context, d state.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.outbox.entries[d.ID]
	if !ok || d.Token == "" || e.d.Token != d.Token {
		return state.ErrLeaseLost
	}
	c.outbox.remove(e)
	return nil
}

// newToken is a random lease token.
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
