package memstore_test

import (
	"context"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// plainStore is the store as it would be without its arena and record
// codec: the transactions as Go values in maps, the oldest evicted first.
// It stores, and nothing else: BenchmarkMemoryPerTransaction and
// BenchmarkGC measure what the arena and the codec save against it.
type plainStore struct {
	max   int
	byID  map[string]*state.Transaction
	byRef map[[2]string]*state.Transaction
	queue []string
}

func newPlainStore(max int) *plainStore {
	return &plainStore{max: max, byID: map[string]*state.Transaction{}, byRef: map[[2]string]*state.Transaction{}}
}

// Put stores a copy of t, evicting the oldest beyond the bound.
func (p *plainStore) Put(_ context.Context, t state.Transaction) error {
	p.byID[t.ThreeDSServerTransID] = &t
	p.byRef[[2]string{t.Namespace, t.ExternalReferenceID}] = &t
	p.queue = append(p.queue, t.ThreeDSServerTransID)
	for len(p.byID) > p.max {
		old := p.byID[p.queue[0]]
		delete(p.byID, p.queue[0])
		delete(p.byRef, [2]string{old.Namespace, old.ExternalReferenceID})
		p.queue = p.queue[1:]
	}
	return nil
}

// Len is the number of stored transactions.
func (p *plainStore) Len() int { return len(p.byID) }

// putter is what the memory benchmarks need of a store.
type putter interface {
	Put(context.Context, state.Transaction) error
	Len() int
}
