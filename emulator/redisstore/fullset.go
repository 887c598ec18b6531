package redisstore

import (
	"sync"
	"sync/atomic"
)

// maxFull bounds the namespaces a replica remembers at their share: each
// holds a share of transactions in Redis, so few reach it; beyond the
// bound a namespace at its share pays a second round trip per lookup, as
// one this replica has not seen there yet does.
const maxFull = 4096

// fullSet is the set of namespaces a replica last saw at their share
// (Store.Put): their lookups append and trim in one script, in the
// lookup's own MULTI.
type fullSet struct {
	m sync.Map // namespace -> struct{}
	n atomic.Int64
}

func (f *fullSet) has(ns string) bool {
	_, ok := f.m.Load(ns)
	return ok
}

func (f *fullSet) add(ns string) {
	if f.n.Load() >= maxFull {
		return
	}
	if _, loaded := f.m.LoadOrStore(ns, struct{}{}); !loaded {
		f.n.Add(1)
	}
}

func (f *fullSet) forget(ns string) {
	if _, loaded := f.m.LoadAndDelete(ns); loaded {
		f.n.Add(-1)
	}
}
