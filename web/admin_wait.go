package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
)

// Bounds of the waits (GET {base}/admin/transactions/{id}?wait=final).
const (
	// DefaultWaitTimeout is the wait's timeout when none is given;
	// MaxWaitTimeout the longest one may ask for.
	DefaultWaitTimeout = 30 * time.Second
	MaxWaitTimeout     = 60 * time.Second
	// DefaultMaxWaits and DefaultMaxWaitsPerToken bound the waits open
	// at once, in all and per token.
	DefaultMaxWaits         = 1024
	DefaultMaxWaitsPerToken = 64
	// pollWithoutJournal is how often a wait reads the store again when
	// no journal announces changes (--journal-size 0).
	pollWithoutJournal = time.Second
)

// waitParams reads ?wait=final&timeout=30s: the wait's timeout, or 0
// for an answer at once.
func waitParams(r *http.Request) (time.Duration, error) {
	v, err := params(r, "wait", "timeout")
	if err != nil {
		return 0, err
	}
	if !v.Has("wait") {
		if v.Has("timeout") {
			return 0, badParam("timeout", "only with wait=final")
		}
		return 0, nil
	}
	if v.Get("wait") != "final" {
		return 0, badParam("wait", "%q: the only value is final", v.Get("wait"))
	}
	if !v.Has("timeout") {
		return DefaultWaitTimeout, nil
	}
	d, err := time.ParseDuration(v.Get("timeout"))
	if err != nil || d <= 0 || d > MaxWaitTimeout {
		return 0, badParam("timeout", "%q: want a duration above 0s and at most %s, such as 30s", v.Get("timeout"), MaxWaitTimeout)
	}
	return d, nil
}

// waitSlots bounds the waits open at once, in all and per namespace, and
// shares them fairly: a namespace holds at most perToken, and when every
// slot is taken a namespace holding fewer than another (by two or more)
// takes the slot of that other's oldest wait, which answers at once with
// the transaction as it stands, as at its timeout. So no group of
// namespaces can keep another out while it holds more than that one.
type waitSlots struct {
	max, perToken int

	mu    sync.Mutex
	total int
	by    map[string][]*waitSlot // each namespace's open waits, the oldest first
}

// waitSlot is one open wait; yield is closed when another namespace takes
// its slot.
type waitSlot struct {
	ns    string
	yield chan struct{}
	gone  bool // its slot was taken or released
}

func newWaitSlots(max, perToken int) *waitSlots {
	if max <= 0 {
		max = DefaultMaxWaits
	}
	if perToken <= 0 {
		perToken = DefaultMaxWaitsPerToken
	}
	return &waitSlots{max: max, perToken: min(perToken, max), by: map[string][]*waitSlot{}}
}

// take takes a slot for namespace ns, or answers the 429 error.
func (w *waitSlots) take(ns string) (*waitSlot, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	mine := len(w.by[ns])
	if mine >= w.perToken {
		return nil, emv.NewError(emv.CodeTooManyWaits, emv.EMVLimitExceeded,
			fmt.Sprintf("this token already has %d waits open (the most per token); wait for one to end", w.perToken), "wait")
	}
	if w.total >= w.max {
		most, held := "", 0
		for other, open := range w.by {
			if len(open) > held {
				most, held = other, len(open)
			}
		}
		if held < mine+2 {
			return nil, emv.NewError(emv.CodeTooManyWaits, emv.EMVLimitExceeded,
				fmt.Sprintf("the sandbox already holds %d waits open (the most in all), none of a token holding more than one above this token's %d; try again shortly", w.max, mine), "wait")
		}
		w.drop(w.by[most][0])
	}
	slot := &waitSlot{ns: ns, yield: make(chan struct{})}
	w.by[ns] = append(w.by[ns], slot)
	w.total++
	return slot, nil
}

// release gives back the slot of a wait that ended.
func (w *waitSlots) release(slot *waitSlot) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slot.gone {
		w.drop(slot)
	}
}

// drop removes slot from its namespace's and tells its wait, under w.mu.
func (w *waitSlots) drop(slot *waitSlot) {
	slot.gone = true
	close(slot.yield)
	open := w.by[slot.ns]
	for i, s := range open {
		if s == slot {
			open = append(open[:i:i], open[i+1:]...)
			break
		}
	}
	if len(open) == 0 {
		delete(w.by, slot.ns)
	} else {
		w.by[slot.ns] = open
	}
	w.total--
}

// open returns how many waits are open.
func (w *waitSlots) open() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// waitFinal answers transaction id of namespace ns once it is final, or
// as it stands when timeout passes (final false). It holds no goroutine
// busy: it sleeps until the journal announces a change of the namespace
// (a decision taken on any replica), the token's clock moves, the
// transaction's own timeout or automatic decision falls due, the timeout
// passes, the client leaves, the server closes or another token takes
// its slot (waitSlots); then it reads the store again.
func (s *Server) waitFinal(ctx context.Context, ns, id string, timeout time.Duration) (adminapi.Transaction, error) {
	slot, err := s.waits.take(ns)
	if err != nil {
		return adminapi.Transaction{}, err
	}
	defer s.waits.release(slot)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	spaces := s.cfg.Engine.Namespaces()
	for {
		var changed <-chan struct{}
		if s.cfg.Journal != nil {
			changed = s.cfg.Journal.Changed(ns)
		}
		clock := spaces.Changed(ns)
		st, err := s.cfg.Engine.Settle(ctx, ns, id)
		switch {
		case errors.Is(err, state.ErrNotFound):
			// Gone from the store, or never there: the journal's word.
			return s.transaction(ctx, ns, id)
		case err != nil:
			return adminapi.Transaction{}, err
		case st.Final:
			return s.transaction(ctx, ns, id)
		}
		next := pollWithoutJournal
		if changed != nil {
			next = timeout
		}
		if st.Pending && st.Due < next {
			next = st.Due
		}
		due := time.NewTimer(next)
		select {
		case <-changed:
		case <-clock:
		case <-due.C:
		case <-deadline.C:
			due.Stop()
			return s.transaction(ctx, ns, id)
		case <-slot.yield:
			due.Stop()
			return s.transaction(ctx, ns, id)
		case <-ctx.Done():
			due.Stop()
			return adminapi.Transaction{}, fmt.Errorf("wait for transaction %s: %w", id, ctx.Err())
		case <-s.closing:
			due.Stop()
			return s.transaction(ctx, ns, id)
		}
		due.Stop()
	}
}
