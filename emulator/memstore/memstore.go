// Package memstore is the in-memory emulator.Store: safe for concurrent
// use, bounded by a number of transactions and by their age, evicting the
// oldest first.
package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Defaults for the bounds.
const (
	DefaultMaxEntries = 100_000
	DefaultMaxAge     = 24 * time.Hour
)

// Options bound the store.
type Options struct {
	// MaxEntries is the most transactions kept; the oldest go first.
	MaxEntries int
	// MaxAge is how long a transaction is kept after its creation.
	MaxAge time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnEvict, when set, is told of every eviction and its reason
	// ("capacity" or "age"). It runs under the store's lock: keep it short.
	OnEvict func(id, reason string)
}

// Store is an in-memory emulator.Store.
type Store struct {
	mu    sync.Mutex
	byID  map[string]*emulator.Transaction
	byRef map[refKey]string // newest id per namespace and external reference
	queue []string          // ids in insertion order, from head
	head  int

	opts    Options
	evicted atomic.Uint64
}

type refKey struct{ ns, ref string }

var _ emulator.Store = (*Store)(nil)

// New returns an empty store. Zero bounds take the defaults.
func New(opts Options) (*Store, error) {
	if opts.MaxEntries < 0 || opts.MaxAge < 0 {
		return nil, fmt.Errorf("memstore: bounds must not be negative (max entries %d, max age %s)", opts.MaxEntries, opts.MaxAge)
	}
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{
		byID:  make(map[string]*emulator.Transaction),
		byRef: make(map[refKey]string),
		opts:  opts,
	}, nil
}

// Put stores a new transaction, evicting the oldest ones beyond the bounds.
func (s *Store) Put(_ context.Context, t emulator.Transaction) error {
	if t.ThreeDSServerTransID == "" {
		return fmt.Errorf("memstore: put: transaction without threeDSServerTransID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byID[t.ThreeDSServerTransID]; dup {
		return fmt.Errorf("memstore: put: transaction %s already stored", t.ThreeDSServerTransID)
	}
	s.byID[t.ThreeDSServerTransID] = &t
	if t.ExternalReferenceID != "" {
		s.byRef[refKey{t.Namespace, t.ExternalReferenceID}] = t.ThreeDSServerTransID
	}
	s.queue = append(s.queue, t.ThreeDSServerTransID)
	s.evictLocked()
	return nil
}

// evictLocked drops the oldest transactions beyond the count bound and all
// those older than the age bound.
func (s *Store) evictLocked() {
	cutoff := s.opts.Now().Add(-s.opts.MaxAge)
	for s.head < len(s.queue) {
		id := s.queue[s.head]
		t := s.byID[id]
		reason := ""
		switch {
		case len(s.byID) > s.opts.MaxEntries:
			reason = "capacity"
		case t.CreatedAt.Before(cutoff):
			reason = "age"
		}
		if reason == "" {
			break
		}
		s.queue[s.head] = ""
		s.head++
		delete(s.byID, id)
		k := refKey{t.Namespace, t.ExternalReferenceID}
		if s.byRef[k] == id {
			delete(s.byRef, k)
		}
		s.evicted.Add(1)
		if s.opts.OnEvict != nil {
			s.opts.OnEvict(id, reason)
		}
	}
	// Compact the queue once its dead head is the larger half.
	if s.head > 1024 && s.head*2 > len(s.queue) {
		s.queue = append(s.queue[:0:0], s.queue[s.head:]...)
		s.head = 0
	}
}

// Get returns a copy of the transaction with this id.
func (s *Store) Get(_ context.Context, id string) (emulator.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.getLocked(id)
	if !ok {
		return emulator.Transaction{}, emulator.ErrNotFound
	}
	return *t, nil
}

// GetByExternalRef returns a copy of the newest transaction of namespace
// that carries ref.
func (s *Store) GetByExternalRef(_ context.Context, namespace, ref string) (emulator.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byRef[refKey{namespace, ref}]
	if !ok {
		return emulator.Transaction{}, emulator.ErrNotFound
	}
	t, ok := s.getLocked(id)
	if !ok {
		return emulator.Transaction{}, emulator.ErrNotFound
	}
	return *t, nil
}

func (s *Store) getLocked(id string) (*emulator.Transaction, bool) {
	t, ok := s.byID[id]
	if !ok || t.CreatedAt.Before(s.opts.Now().Add(-s.opts.MaxAge)) {
		return nil, false
	}
	return t, true
}

// Update applies fn to a copy of the transaction and stores the copy when
// fn succeeds. The identifiers and namespace cannot be changed.
func (s *Store) Update(_ context.Context, id string, fn func(*emulator.Transaction) error) (emulator.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.getLocked(id)
	if !ok {
		return emulator.Transaction{}, emulator.ErrNotFound
	}
	c := *t
	if err := fn(&c); err != nil {
		return *t, err
	}
	c.ThreeDSServerTransID, c.Namespace, c.ExternalReferenceID = t.ThreeDSServerTransID, t.Namespace, t.ExternalReferenceID
	*t = c
	return c, nil
}

// Len reports how many transactions are stored.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

// Evicted reports how many transactions were evicted since start.
func (s *Store) Evicted() uint64 { return s.evicted.Load() }
