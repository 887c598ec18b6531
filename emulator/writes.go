package emulator

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// How readiness follows the writes the store refused. A probe write may
// still fit in a store that refuses the writes of real requests (a Redis
// at its maxmemory frees and takes memory by the moment, and a small key
// passes where a transaction does not), so the engine also keeps the
// outcome of its last writes and reports itself not ready while most of
// the recent ones were refused.
const (
	// WriteWindow is how many of the last writes readiness looks at.
	WriteWindow = 32
	// WriteWindowAge is how recent a write must be to count: after a
	// quiet WriteWindowAge (a balancer that stopped sending), readiness
	// rests on the probe alone again.
	WriteWindowAge = 5 * time.Second
)

// writeWatch keeps the outcome of the engine's last WriteWindow store
// writes, lock-free: each slot holds the write's time in Unix
// nanoseconds, shifted left twice, with bit 0 set when the store refused
// it and bit 1 when it refused it as full.
type writeWatch struct {
	n     atomic.Uint64
	slots [WriteWindow]atomic.Int64
}

// The low bits of a slot.
const (
	writeRefused int64 = 1 << iota
	writeFull
	writeBits = iota
)

// writeOutcome tells a write the store refused for certain (full, or
// unreachable before the write was sent) from one that succeeded (nil),
// as the bits of a slot; ok is false for a write that failed for another
// reason, which says nothing of the store (a conflict, a transaction not
// found, a write that may have been applied).
func writeOutcome(err error) (bits int64, ok bool) {
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, state.ErrStoreFull):
		return writeRefused | writeFull, true
	case errors.Is(err, state.ErrUnavailable) && !errors.Is(err, state.ErrMaybeApplied):
		return writeRefused, true
	}
	return 0, false
}

// observe records the outcome of one write at now.
func (w *writeWatch) observe(now time.Time, err error) {
	bits, ok := writeOutcome(err)
	if !ok {
		return
	}
	i := w.n.Add(1) - 1
	w.slots[i%WriteWindow].Store(now.UnixNano()<<writeBits | bits)
}

// refusals counts the writes of the window made since now minus
// WriteWindowAge, how many of them were refused, and how many as full.
func (w *writeWatch) refusals(now time.Time) (refused, full, seen int) {
	since := now.Add(-WriteWindowAge).UnixNano()
	for i := range w.slots {
		v := w.slots[i].Load()
		if v == 0 || v>>writeBits < since {
			continue
		}
		seen++
		if v&writeRefused != 0 {
			refused++
		}
		if v&writeFull != 0 {
			full++
		}
	}
	return refused, full, seen
}

// verdict is nil unless more than half of the recent writes were
// refused; then an error wrapping ErrUnavailable (and ErrStoreFull when
// most refusals were for want of room) that says how many.
func (w *writeWatch) verdict(now time.Time) error {
	refused, full, seen := w.refusals(now)
	if 2*refused <= seen {
		return nil
	}
	msg := fmt.Sprintf("the store refused %d of the last %d writes within %s", refused, seen, WriteWindowAge)
	if 2*full > refused {
		return fmt.Errorf("%w: %w: %s", state.ErrUnavailable, state.ErrStoreFull, msg)
	}
	return fmt.Errorf("%w: %s", state.ErrUnavailable, msg)
}

// Put stores a new transaction and records whether the store took it.
func (s scopedStore) Put(ctx context.Context, t state.Transaction) error {
	err := s.Store.Put(ctx, t)
	s.e.writes.observe(s.e.now(), err)
	return err
}

// Writes tells whether the store took most of the engine's recent writes:
// nil, or the error that says how many it refused.
func (e *Engine) Writes() error { return e.writes.verdict(e.now()) }
