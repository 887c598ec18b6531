package emulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// DefaultMaxClockOffset bounds how far a namespace's clock may run ahead
// of real time.
const DefaultMaxClockOffset = 30 * 24 * time.Hour

// NamespaceState is what a namespace (a bearer token) sets for its own
// transactions through the admin API: its clock and the line below which
// its transactions are forgotten. The zero state is real time, nothing
// forgotten.
type NamespaceState struct {
	// Offset is how far the namespace's clock runs ahead of real time;
	// never negative. Every time-based outcome of the namespace's
	// transactions follows its clock.
	Offset time.Duration
	// Generation grows at each forgetting (DELETE /admin/transactions):
	// a transaction made under an earlier generation is not found any
	// more. It is a Unix time in microseconds, or one more than the one
	// before when that is larger, so that it only grows, even after a
	// state that expired; it fits a Lua number exactly (below 2^53).
	Generation uint64
}

// Namespaces keeps each namespace's NamespaceState. It is state that
// outlives a request: in memory by default, shared by every replica in a
// shared store. A namespace's state is kept for as long as transactions
// are (the store's maximum age) after its last change. Implementations
// are safe for concurrent use.
type Namespaces interface {
	// State returns the state of ns: the zero state when it set none.
	// The engine reads it on every step of a transaction, so it answers
	// from memory but for a rare check: a change made on another replica
	// is seen as soon as the shared store announces it, and within a
	// second at the latest.
	State(ctx context.Context, ns string) (NamespaceState, error)
	// Advance moves the clock of ns forward by d (> 0), unless its offset
	// would then exceed max: then it changes nothing and returns an error
	// wrapping ErrClockLimit. It returns the new state.
	Advance(ctx context.Context, ns string, d, max time.Duration) (NamespaceState, error)
	// ResetClock sets the offset of ns back to zero and returns the new
	// state.
	ResetClock(ctx context.Context, ns string) (NamespaceState, error)
	// Forget raises the generation of ns above every one before and
	// returns the new state: the transactions made before are forgotten.
	Forget(ctx context.Context, ns string) (NamespaceState, error)
	// Changed returns a channel closed at the next change of the state
	// of ns, made on any replica, or sooner: read the state again.
	Changed(ns string) <-chan struct{}
}

// ErrClockLimit is wrapped by Namespaces.Advance when the offset would
// exceed its bound.
var ErrClockLimit = errors.New("clock offset beyond its bound")

// ErrNamespaceLimit is wrapped by a Namespaces that holds as many
// namespaces as it may and refuses one more.
var ErrNamespaceLimit = errors.New("too many namespaces with a state")

// NextGeneration is the generation that follows prev at time now: now in
// Unix microseconds, or prev+1 when that is not larger.
func NextGeneration(prev uint64, now time.Time) uint64 {
	if n := now.UnixMicro(); n > 0 && uint64(n) > prev {
		return uint64(n)
	}
	return prev + 1
}

// Clock is a namespace's clock as the admin API shows it.
type Clock struct {
	// Offset is how far it runs ahead of real time.
	Offset time.Duration
	// Now is the namespace's now.
	Now time.Time
	// Max is the largest offset it may reach.
	Max time.Duration
}

// Namespaces returns the state of the namespaces, whose Changed the
// admin API waits on.
func (e *Engine) Namespaces() Namespaces { return e.cfg.Namespaces }

// state returns the state of namespace ns.
func (e *Engine) state(ctx context.Context, ns string) (NamespaceState, error) {
	st, err := e.cfg.Namespaces.State(ctx, ns)
	if err != nil {
		return NamespaceState{}, fmt.Errorf("state of the token's namespace: %w", err)
	}
	return st, nil
}

// clock returns the now of namespace ns: real time plus its offset.
func (e *Engine) clock(ctx context.Context, ns string) (time.Time, error) {
	st, err := e.state(ctx, ns)
	if err != nil {
		return time.Time{}, err
	}
	return e.now().Add(st.Offset), nil
}

// clockOr is the now of namespace ns, or real time when its state cannot
// be read: for the times of events, which never fail a request.
func (e *Engine) clockOr(ctx context.Context, ns string) time.Time {
	if now, err := e.clock(ctx, ns); err == nil {
		return now
	}
	return e.now()
}

// clockOf turns a state into the Clock the admin API shows.
func (e *Engine) clockOf(st NamespaceState) Clock {
	return Clock{Offset: st.Offset, Now: e.now().Add(st.Offset), Max: e.cfg.MaxClockOffset}
}

// Clock returns the clock of namespace ns.
func (e *Engine) Clock(ctx context.Context, ns string) (Clock, error) {
	st, err := e.state(ctx, ns)
	if err != nil {
		return Clock{}, err
	}
	return e.clockOf(st), nil
}

// AdvanceClock moves the clock of namespace ns forward by d: every
// timeout and automatic decision of its transactions that falls due
// within d happens at once. The offset may not exceed MaxClockOffset.
func (e *Engine) AdvanceClock(ctx context.Context, ns string, d time.Duration) (Clock, error) {
	if d <= 0 {
		return Clock{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("advance %s: the clock only moves forward (DELETE /admin/clock sets it back to real time)", d), "advance")
	}
	st, err := e.cfg.Namespaces.Advance(ctx, ns, d, e.cfg.MaxClockOffset)
	switch {
	case errors.Is(err, ErrClockLimit):
		return Clock{}, emv.NewError(emv.CodeClockLimit, emv.EMVInvalidFormat,
			fmt.Sprintf("advance %s: the token's clock would run more than %s ahead of real time (now %s; DELETE /admin/clock resets it)",
				d, e.cfg.MaxClockOffset, st.Offset), "advance")
	case errors.Is(err, ErrNamespaceLimit):
		return Clock{}, namespaceLimit(err)
	case err != nil:
		return Clock{}, fmt.Errorf("advance the clock: %w", err)
	}
	return e.clockOf(st), nil
}

// ResetClock sets the clock of namespace ns back to real time.
func (e *Engine) ResetClock(ctx context.Context, ns string) (Clock, error) {
	st, err := e.cfg.Namespaces.ResetClock(ctx, ns)
	if err != nil {
		return Clock{}, fmt.Errorf("reset the clock: %w", err)
	}
	return e.clockOf(st), nil
}

// Forget forgets every transaction of namespace ns, and so its external
// references: lookups of them find nothing from now on. The journal is
// the caller's to clear.
func (e *Engine) Forget(ctx context.Context, ns string) error {
	_, err := e.cfg.Namespaces.Forget(ctx, ns)
	if errors.Is(err, ErrNamespaceLimit) {
		return namespaceLimit(err)
	}
	if err != nil {
		return fmt.Errorf("forget the transactions: %w", err)
	}
	return nil
}

func namespaceLimit(err error) *emv.Error {
	return emv.NewError(emv.CodeNamespaceLimit, emv.EMVLimitExceeded,
		"too many tokens keep a clock or forgot their transactions at once; try again later: "+err.Error(), "namespace")
}

// scopedStore is the engine's view of its store: a transaction its
// namespace forgot (a generation before the namespace's), or older than
// the store keeps transactions by its namespace's clock, is not found.
type scopedStore struct {
	Store
	e *Engine
}

// live returns ErrNotFound for a transaction its namespace no longer
// sees.
func (s scopedStore) live(ctx context.Context, t *Transaction) error {
	st, err := s.e.state(ctx, t.Namespace)
	if err != nil {
		return err
	}
	if t.Generation < st.Generation {
		return ErrNotFound
	}
	// Real time is the store's own bound; a clock moved forward ages the
	// namespace's transactions too.
	if max := s.e.cfg.StoreMaxAge; max > 0 && st.Offset > 0 && s.e.now().Add(st.Offset).Sub(t.CreatedAt) > max {
		return ErrNotFound
	}
	return nil
}

func (s scopedStore) Get(ctx context.Context, id string) (Transaction, error) {
	t, err := s.Store.Get(ctx, id)
	if err == nil {
		err = s.live(ctx, &t)
	}
	if err != nil {
		return Transaction{}, err
	}
	return t, nil
}

func (s scopedStore) GetByExternalRef(ctx context.Context, ns, ref string) (Transaction, error) {
	t, err := s.Store.GetByExternalRef(ctx, ns, ref)
	if err == nil {
		err = s.live(ctx, &t)
	}
	if err != nil {
		return Transaction{}, err
	}
	return t, nil
}

func (s scopedStore) Update(ctx context.Context, id string, fn func(*Transaction) error) (Transaction, error) {
	t, err := s.Store.Update(ctx, id, func(t *Transaction) error {
		if err := s.live(ctx, t); err != nil {
			return err
		}
		return fn(t)
	})
	s.e.writes.observe(s.e.now(), err)
	return t, err
}
