package memstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// DefaultMaxNamespaces bounds how many namespaces keep a state at once.
const DefaultMaxNamespaces = 10000

// NamespacesOptions bound a Namespaces.
type NamespacesOptions struct {
	// MaxAge is how long a namespace's state is kept after its last
	// change (the store's maximum age); DefaultMaxAge when zero.
	MaxAge time.Duration
	// Max is the most namespaces with a state at once;
	// DefaultMaxNamespaces when zero. Beyond it, a change of one more is
	// refused (state.ErrNamespaceLimit).
	Max int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Namespaces is the state.Namespaces of this process: each
// namespace's clock offset and generation in a map, read under a shared
// lock on every step of a transaction.
type Namespaces struct {
	opt      NamespacesOptions
	watchers *journal.Watchers

	mu     sync.RWMutex
	states map[string]kept
}

// kept is a namespace's state and the time of its last change.
type kept struct {
	state.NamespaceState
	changed time.Time
}

var _ state.Namespaces = (*Namespaces)(nil)

// NewNamespaces returns namespaces that all have the zero state.
func NewNamespaces(opt NamespacesOptions) *Namespaces {
	if opt.MaxAge <= 0 {
		opt.MaxAge = DefaultMaxAge
	}
	if opt.Max <= 0 {
		opt.Max = DefaultMaxNamespaces
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Namespaces{opt: opt, watchers: journal.NewWatchers(opt.Max), states: map[string]kept{}}
}

// State returns the state of ns: the zero state when it set none, or
// when its last change is older than MaxAge.
func (n *Namespaces) State(_ context.Context, ns string) (state.NamespaceState, error) {
	n.mu.RLock()
	k, ok := n.states[ns]
	n.mu.RUnlock()
	if !ok || n.opt.Now().Sub(k.changed) > n.opt.MaxAge {
		return state.NamespaceState{}, nil
	}
	return k.NamespaceState, nil
}

// change applies fn to the state of ns and keeps the result, dropping
// the zero state; fn's error leaves everything as it was.
func (n *Namespaces) change(ns string, fn func(*state.NamespaceState) error) (state.NamespaceState, error) {
	now := n.opt.Now()
	n.mu.Lock()
	k, ok := n.states[ns]
	if ok && now.Sub(k.changed) > n.opt.MaxAge {
		// Expired: the zero state. A later forgetting still takes a
		// larger generation, a time after this one's.
		k = kept{}
	}
	st := k.NamespaceState
	if err := fn(&st); err != nil {
		n.mu.Unlock()
		return k.NamespaceState, err
	}
	if !ok && st != (state.NamespaceState{}) && len(n.states) >= n.opt.Max {
		n.prune(now)
		if len(n.states) >= n.opt.Max {
			n.mu.Unlock()
			return state.NamespaceState{}, fmt.Errorf("memstore: %w (%d)", state.ErrNamespaceLimit, n.opt.Max)
		}
	}
	if st == (state.NamespaceState{}) {
		delete(n.states, ns)
	} else {
		n.states[ns] = kept{NamespaceState: st, changed: now}
	}
	n.mu.Unlock()
	n.watchers.Wake(ns)
	return st, nil
}

// prune forgets the states whose last change is older than MaxAge.
func (n *Namespaces) prune(now time.Time) {
	for ns, k := range n.states {
		if now.Sub(k.changed) > n.opt.MaxAge {
			delete(n.states, ns)
		}
	}
}

// Advance moves the clock of ns forward by d, unless its offset would
// then exceed max.
func (n *Namespaces) Advance(_ context.Context, ns string, d, max time.Duration) (state.NamespaceState, error) {
	return n.change(ns, func(st *state.NamespaceState) error {
		if d > max-st.Offset {
			return fmt.Errorf("memstore: %w: %s + %s > %s", state.ErrClockLimit, st.Offset, d, max)
		}
		st.Offset += d
		return nil
	})
}

// ResetClock sets the offset of ns back to zero.
func (n *Namespaces) ResetClock(_ context.Context, ns string) (state.NamespaceState, error) {
	return n.change(ns, func(st *state.NamespaceState) error {
		st.Offset = 0
		return nil
	})
}

// Forget raises the generation of ns above every one before.
func (n *Namespaces) Forget(_ context.Context, ns string) (state.NamespaceState, error) {
	now := n.opt.Now()
	return n.change(ns, func(st *state.NamespaceState) error {
		st.Generation = state.NextGeneration(st.Generation, now)
		return nil
	})
}

// Changed returns a channel closed at the next change of the state of
// ns.
func (n *Namespaces) Changed(ns string) <-chan struct{} { return n.watchers.Changed(ns) }
