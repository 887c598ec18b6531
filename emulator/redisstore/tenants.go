package redisstore

import (
	"sync"
	"sync/atomic"
	"time"
)

// maxTenants bounds the namespaces a replica remembers (Store.Put); a
// namespace beyond the bound is stored as if seen for the first time:
// its list's TTL renewed by every lookup.
const maxTenants = 4096

// tenants is what a replica remembers of the namespaces it stores into:
// when it last renewed the TTL of each one's list.
type tenants struct {
	m sync.Map // namespace -> *tenant
	n atomic.Int64
}

// tenant is one namespace's entry in tenants.
type tenant struct {
	renewed atomic.Int64 // Unix milliseconds; 0 never
}

// get returns the namespace's entry, nil when the bound is reached.
func (ts *tenants) get(ns string) *tenant {
	if v, ok := ts.m.Load(ns); ok {
		return v.(*tenant)
	}
	if ts.n.Load() >= maxTenants {
		return nil
	}
	v, loaded := ts.m.LoadOrStore(ns, &tenant{})
	if !loaded {
		ts.n.Add(1)
	}
	return v.(*tenant)
}

// renewal tells whether this lookup renews the list's TTL: when this
// replica has not done so for every of the last period, so that the
// list, renewed to MaxAge plus period, outlives each of its members.
// It takes the renewal on itself.
func (t *tenant) renewal(now time.Time, period time.Duration) bool {
	if t == nil {
		return true
	}
	last, ms := t.renewed.Load(), now.UnixMilli()
	return ms-last >= period.Milliseconds() && t.renewed.CompareAndSwap(last, ms)
}

// renewFailed forgets the last renewal: it did not reach Redis.
func (t *tenant) renewFailed() {
	if t != nil {
		t.renewed.Store(0)
	}
}
