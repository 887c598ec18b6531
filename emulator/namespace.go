package emulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

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
func (e *Engine) Namespaces() state.Namespaces { return e.cfg.Namespaces }

// state returns the state of namespace ns.
func (e *Engine) state(ctx context.Context, ns string) (state.NamespaceState, error) {
	st, err := e.cfg.Namespaces.State(ctx, ns)
	if err != nil {
		return state.NamespaceState{}, fmt.Errorf("state of the token's namespace: %w", err)
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
func (e *Engine) clockOf(st state.NamespaceState) Clock {
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
	case errors.Is(err, state.ErrClockLimit):
		return Clock{}, emv.NewError(emv.CodeClockLimit, emv.EMVInvalidFormat,
			fmt.Sprintf("advance %s: the token's clock would run more than %s ahead of real time (now %s; DELETE /admin/clock resets it)",
				d, e.cfg.MaxClockOffset, st.Offset), "advance")
	case errors.Is(err, state.ErrNamespaceLimit):
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
	if errors.Is(err, state.ErrNamespaceLimit) {
		return namespaceLimit(err)
	}
	if err != nil {
		return fmt.Errorf("forget the transactions: %w", err)
	}
	return nil
}

// Reset returns namespace ns to where a new token starts: its
// transactions and their references forgotten (Forget), its clock at
// real time, its runtime scenarios deleted and its result callback's
// registration removed (the default URL, if any, applies again). The
// callbacks' signing secret stays: it is a credential, rotated on its
// own. The journal is the caller's to clear, as for Forget. Every part
// is tried even when one fails; the failures are returned together, and
// a repeated call finishes the work.
func (e *Engine) Reset(ctx context.Context, ns string) error {
	var errs []error
	if _, err := e.cfg.Runtime.Reset(ctx, ns); err != nil {
		errs = append(errs, fmt.Errorf("delete the runtime scenarios: %w", err))
	}
	if cb := e.cfg.Callbacks; cb != nil {
		if _, err := cb.Unregister(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("remove the result callback's registration: %w", err))
		}
	}
	if _, err := e.ResetClock(ctx, ns); err != nil {
		errs = append(errs, err)
	}
	if err := e.Forget(ctx, ns); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func namespaceLimit(err error) *emv.Error {
	return emv.NewError(emv.CodeNamespaceLimit, emv.EMVLimitExceeded,
		"too many tokens keep a clock or forgot their transactions at once; try again later: "+err.Error(), "namespace")
}

// scopedStore is the engine's view of its store: a transaction its
// namespace forgot (a generation before the namespace's), or older than
// the store keeps transactions by its namespace's clock, is not found.
type scopedStore struct {
	state.Store
	e *Engine
}

// live returns ErrNotFound for a transaction its namespace no longer
// sees.
func (s scopedStore) live(ctx context.Context, t *state.Transaction) error {
	st, err := s.e.state(ctx, t.Namespace)
	if err != nil {
		return err
	}
	if t.Generation < st.Generation {
		return state.ErrNotFound
	}
	// Real time is the store's own bound; a clock moved forward ages the
	// namespace's transactions too.
	if max := s.e.cfg.StoreMaxAge; max > 0 && st.Offset > 0 && s.e.now().Add(st.Offset).Sub(t.CreatedAt) > max {
		return state.ErrNotFound
	}
	return nil
}

func (s scopedStore) Get(ctx context.Context, id string) (state.Transaction, error) {
	t, err := s.Store.Get(ctx, id)
	if err == nil {
		err = s.live(ctx, &t)
	}
	if err != nil {
		return state.Transaction{}, err
	}
	return t, nil
}

func (s scopedStore) GetByExternalRef(ctx context.Context, ns, ref string) (state.Transaction, error) {
	t, err := s.Store.GetByExternalRef(ctx, ns, ref)
	if err == nil {
		err = s.live(ctx, &t)
	}
	if err != nil {
		return state.Transaction{}, err
	}
	return t, nil
}

func (s scopedStore) Update(ctx context.Context, id string, fn func(*state.Transaction) error) (state.Transaction, error) {
	t, err := s.Store.Update(ctx, id, func(t *state.Transaction) error {
		if err := s.live(ctx, t); err != nil {
			return err
		}
		return fn(t)
	})
	s.e.writes.observe(s.e.now(), err)
	return t, err
}
