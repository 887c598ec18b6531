package memstore

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// DefaultMaxCaptures bounds the ddcIds, and apart the JWT ids, Captures
// keeps.
const DefaultMaxCaptures = 100_000

// Captures keeps the merchants' ddcIds and the JWT ids of their captures
// in this process: of each kind at most max entries, each until its time
// to live ends. At the bound, the expired entries of a random sample are
// forgotten, or the one of them that expires first.
type Captures struct {
	max int
	now func() time.Time

	mu   sync.Mutex
	ddcs map[string]expiring
	jtis map[string]expiring
}

// expiring is a value and when it ends.
type expiring struct {
	value   string
	expires time.Time
}

var _ emulator.Captures = (*Captures)(nil)

// NewCaptures returns empty captures keeping at most max of each kind
// (DefaultMaxCaptures when max <= 0); now nil is time.Now.
func NewCaptures(max int, now func() time.Time) *Captures {
	if max <= 0 {
		max = DefaultMaxCaptures
	}
	if now == nil {
		now = time.Now
	}
	return &Captures{max: max, now: now, ddcs: map[string]expiring{}, jtis: map[string]expiring{}}
}

// BindDDC binds ddcID to transaction id unless it is bound already.
func (c *Captures) BindDDC(_ context.Context, ddcID, id string, ttl time.Duration) (bool, error) {
	return c.setOnce(c.ddcs, strings.Clone(ddcID), strings.Clone(id), ttl), nil
}

// DDC returns the transaction id ddcID names.
func (c *Captures) DDC(_ context.Context, ddcID string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ddcs[ddcID]
	if !ok || !e.expires.After(c.now()) {
		return "", emulator.ErrNotFound
	}
	return e.value, nil
}

// UseJTI records jti of issuer unless it was recorded already.
func (c *Captures) UseJTI(_ context.Context, issuer, jti string, ttl time.Duration) (bool, error) {
	return c.setOnce(c.jtis, strconv.Itoa(len(issuer))+":"+issuer+":"+jti, "", ttl), nil
}

// setOnce sets key in m to value for ttl unless a live entry holds it.
func (c *Captures) setOnce(m map[string]expiring, key, value string, ttl time.Duration) bool {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := m[key]; ok && e.expires.After(now) {
		return false
	}
	if len(m) >= c.max {
		forget(m, now)
	}
	m[key] = expiring{value: value, expires: now.Add(ttl)}
	return true
}

// forget makes room in a full map, at a bounded cost: of a random sample
// of 64 entries, the expired ones go; when none has, the one that expires
// first.
func forget(m map[string]expiring, now time.Time) {
	first, at, n, freed := "", time.Time{}, 0, false
	for k, e := range m { // map iteration starts at a random place
		if !e.expires.After(now) {
			delete(m, k)
			freed = true
		} else if first == "" || e.expires.Before(at) {
			first, at = k, e.expires
		}
		if n++; n == 64 {
			break
		}
	}
	if !freed {
		delete(m, first)
	}
}
