package memstore

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// DefaultMaxCaptures bounds the ddcIds, and apart the JWT ids, Captures
// keeps for every tenant together.
const DefaultMaxCaptures = 100_000

// Captures keeps the merchants' ddcIds and the JWT ids of their captures
// in this process: of each kind at most PerTenant entries of one tenant
// and Max of all, each until its time to live ends. A tenant at its share
// forgets its own entry that expires first (the expired ones of a random
// sample first); at the bound of all, the tenant holding the most does,
// so that a flood by one tenant never evicts another's.
type Captures struct {
	now func() time.Time

	mu   sync.Mutex
	ddcs *shares
	jtis *shares
}

var _ state.Captures = (*Captures)(nil)

// CapturesOptions set up Captures.
type CapturesOptions struct {
	// Max bounds the entries of each kind of all tenants together;
	// DefaultMaxCaptures when <= 0.
	Max int
	// PerTenant bounds those of one tenant; state.MaxCapturesPerTenant
	// when <= 0, and never above Max.
	PerTenant int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// NewCaptures returns empty captures.
func NewCaptures(opt CapturesOptions) *Captures {
	if opt.Max <= 0 {
		opt.Max = DefaultMaxCaptures
	}
	if opt.PerTenant <= 0 {
		opt.PerTenant = state.MaxCapturesPerTenant
	}
	opt.PerTenant = min(opt.PerTenant, opt.Max)
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Captures{now: opt.Now, ddcs: newShares(opt.PerTenant, opt.Max), jtis: newShares(opt.PerTenant, opt.Max)}
}

// ddcKey is the key of k in the map of ddcIds: its scope, then the ddcId.
func ddcKey(k state.DDCKey) string { return k.Scope() + "\x00" + k.DDCID }

// BindDDC binds k to transaction id unless it is bound already.
func (c *Captures) BindDDC(_ context.Context, k state.DDCKey, id string, ttl time.Duration) (bool, error) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ddcs.setOnce(k.Tenant, ddcKey(k), strings.Clone(id), now, now.Add(ttl)), nil
}

// DDC returns the transaction id k names.
func (c *Captures) DDC(_ context.Context, k state.DDCKey) (string, error) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ddcs.entries[ddcKey(k)]
	if !ok || !e.expires.After(now) {
		return "", state.ErrNotFound
	}
	return e.value, nil
}

// UseJTI records jti of tenant unless it was recorded already.
func (c *Captures) UseJTI(_ context.Context, tenant, jti string, ttl time.Duration) (bool, error) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.jtis.setOnce(tenant, tenant+"\x00"+jti, "", now, now.Add(ttl)), nil
}

// shares is a map of expiring entries, each counted in the share of the
// tenant that set it: at most per of a tenant, total of all.
type shares struct {
	per, total int
	entries    map[string]shareEntry
	// of holds each tenant's keys; sizes finds the tenant holding most.
	of    map[string]map[string]struct{}
	sizes fairshare.Holdings
}

// shareEntry is a value, when it ends, and whose share it counts in.
type shareEntry struct {
	value   string
	expires time.Time
	tenant  string
}

func newShares(per, total int) *shares {
	return &shares{per: per, total: total, entries: map[string]shareEntry{}, of: map[string]map[string]struct{}{}}
}

// setOnce sets key, in tenant's share, to value until expires unless a
// live entry holds it; at tenant's share the tenant forgets one of its
// own, at the bound of all the tenant holding the most does.
func (s *shares) setOnce(tenant, key, value string, now, expires time.Time) bool {
	if e, ok := s.entries[key]; ok {
		if e.expires.After(now) {
			return false
		}
		s.remove(key, e.tenant)
	}
	if len(s.of[tenant]) >= s.per {
		s.forget(tenant, now)
	}
	if len(s.entries) >= s.total {
		most, _ := s.sizes.Largest()
		s.forget(most, now)
	}
	tenant, key = strings.Clone(tenant), strings.Clone(key)
	s.entries[key] = shareEntry{value: value, expires: expires, tenant: tenant}
	keys := s.of[tenant]
	if keys == nil {
		keys = map[string]struct{}{}
		s.of[tenant] = keys
	}
	keys[key] = struct{}{}
	s.sizes.Add(tenant, 1)
	return true
}

// remove deletes key of tenant.
func (s *shares) remove(key, tenant string) {
	delete(s.entries, key)
	keys := s.of[tenant]
	delete(keys, key)
	if len(keys) == 0 {
		delete(s.of, tenant)
	}
	s.sizes.Add(tenant, -1)
}

// forget makes room in tenant's share, at a bounded cost: of a random
// sample of 64 of its entries, the expired ones go; when none has, the
// one that expires first.
func (s *shares) forget(tenant string, now time.Time) {
	first, at, n, freed := "", time.Time{}, 0, false
	for k := range s.of[tenant] { // map iteration starts at a random place
		e := s.entries[k]
		if !e.expires.After(now) {
			s.remove(k, tenant)
			freed = true
		} else if first == "" || e.expires.Before(at) {
			first, at = k, e.expires
		}
		if n++; n == 64 {
			break
		}
	}
	if !freed && first != "" {
		s.remove(first, tenant)
	}
}
