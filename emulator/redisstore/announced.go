package redisstore

import (
	"sync"
	"time"
)

// announced is a replica's cache of one value per namespace read from
// Redis, for state whose every change is announced on a channel (see
// subscribe): a value is used while it is younger than revalidate and no
// change of its namespace was announced since it was read. A value read
// while an announcement arrived is not kept, for it may be older than
// the change. At most maxCached namespaces are kept; beyond them the
// cache starts afresh.
type announced[V any] struct {
	revalidate time.Duration

	mu sync.Mutex
	m  map[string]announcedValue[V]
	// drops counts the announcements heard: a read that spans one is
	// not kept.
	drops uint64
}

// announcedValue is a value with when it was read.
type announcedValue[V any] struct {
	v    V
	read time.Time
}

func newAnnounced[V any](revalidate time.Duration) *announced[V] {
	return &announced[V]{revalidate: revalidate, m: map[string]announcedValue[V]{}}
}

// get returns the value of ns when one is kept and was read less than
// revalidate before now; and, for the put that follows a read, the
// count of announcements so far.
func (a *announced[V]) get(ns string, now time.Time) (v V, ok bool, drops uint64) {
	a.mu.Lock()
	c, kept := a.m[ns]
	drops = a.drops
	a.mu.Unlock()
	if kept && now.Sub(c.read) < a.revalidate {
		return c.v, true, drops
	}
	return v, false, drops
}

// put keeps v, read from Redis at now, unless a change was announced
// since get returned drops.
func (a *announced[V]) put(ns string, v V, now time.Time, drops uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.drops != drops {
		return
	}
	if _, had := a.m[ns]; !had && len(a.m) >= maxCached {
		clear(a.m)
	}
	a.m[ns] = announcedValue[V]{v: v, read: now}
}

// drop forgets the value of ns: a change of it was announced, or made
// by this replica.
func (a *announced[V]) drop(ns string) {
	a.mu.Lock()
	delete(a.m, ns)
	a.drops++
	a.mu.Unlock()
}

// dropAll forgets every value: announcements may have been missed.
func (a *announced[V]) dropAll() {
	a.mu.Lock()
	clear(a.m)
	a.drops++
	a.mu.Unlock()
}
