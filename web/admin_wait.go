package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
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

// waitSlots bounds the waits open at once, in all and per namespace.
type waitSlots struct {
	max, perToken int

	mu    sync.Mutex
	total int
	by    map[string]int
}

func newWaitSlots(max, perToken int) *waitSlots {
	if max <= 0 {
		max = DefaultMaxWaits
	}
	if perToken <= 0 {
		perToken = DefaultMaxWaitsPerToken
	}
	return &waitSlots{max: max, perToken: perToken, by: map[string]int{}}
}

// take takes a slot for namespace ns, or answers the 429 error.
func (w *waitSlots) take(ns string) (release func(), err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.by[ns] >= w.perToken:
		return nil, emulator.NewError(emulator.CodeTooManyWaits, emulator.EMVLimitExceeded,
			fmt.Sprintf("this token already has %d waits open (the most per token); wait for one to end", w.perToken), "wait")
	case w.total >= w.max:
		return nil, emulator.NewError(emulator.CodeTooManyWaits, emulator.EMVLimitExceeded,
			fmt.Sprintf("the sandbox already holds %d waits open (the most in all); try again shortly", w.max), "wait")
	}
	w.total++
	w.by[ns]++
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.total--
		if w.by[ns]--; w.by[ns] == 0 {
			delete(w.by, ns)
		}
	}, nil
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
// passes, the client leaves or the server closes; then it reads the
// store again.
func (s *Server) waitFinal(ctx context.Context, ns, id string, timeout time.Duration) (TransactionDetail, error) {
	release, err := s.waits.take(ns)
	if err != nil {
		return TransactionDetail{}, err
	}
	defer release()
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
		case errors.Is(err, emulator.ErrNotFound):
			// Gone from the store, or never there: the journal's word.
			return s.transaction(ctx, ns, id)
		case err != nil:
			return TransactionDetail{}, err
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
		case <-ctx.Done():
			due.Stop()
			return TransactionDetail{}, fmt.Errorf("wait for transaction %s: %w", id, ctx.Err())
		case <-s.closing:
			due.Stop()
			return s.transaction(ctx, ns, id)
		}
		due.Stop()
	}
}
