package auth

import (
	"sync"
	"time"
)

// How the token endpoint slows down the guessing of a client's secret.
const (
	// FailureBurst is how many wrong secrets a configured client may be
	// sent in a row before it is slowed down.
	FailureBurst = 10
	// FailureInterval is, beyond the burst, how often a wrong secret of a
	// client may be tried: one more each interval.
	FailureInterval = 12 * time.Second
)

// Attempts counts the wrong secrets sent for each configured client (a
// merchant of --merchants): each may be sent FailureBurst in a row, then
// one each FailureInterval; beyond, the client's attempts are refused
// without its secret being checked until the next one is due. Its state
// is one counter per configured merchant, made at the start: a flood of
// attempts for one client, or for ids no configuration names (which have
// no secret to guess), never touches another client's. Safe for
// concurrent use; each replica counts its own.
type Attempts struct {
	now func() time.Time

	mu sync.Mutex
	by map[string]*failures
}

// failures is a client's allowance of wrong secrets: a token bucket of
// FailureBurst, refilled one each FailureInterval.
type failures struct {
	left float64
	at   time.Time
}

// NewAttempts returns the counters of the merchants m; now nil is
// time.Now.
func NewAttempts(m Merchants, now func() time.Time) *Attempts {
	if now == nil {
		now = time.Now
	}
	a := &Attempts{now: now, by: make(map[string]*failures, len(m.secrets))}
	t := now()
	for id := range m.secrets {
		a.by[id] = &failures{left: FailureBurst, at: t}
	}
	return a
}

// Allow tells whether a secret of client id may be checked now; when
// not, wait is how long until it may.
func (a *Attempts) Allow(id string) (wait time.Duration, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.by[id]
	if f == nil {
		return 0, true
	}
	f.refill(a.now())
	if f.left >= 1 {
		return 0, true
	}
	return time.Duration((1 - f.left) * float64(FailureInterval)), false
}

// Failed counts a wrong secret sent for client id.
func (a *Attempts) Failed(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.by[id]; f != nil {
		f.refill(a.now())
		f.left = max(f.left-1, 0)
	}
}

// refill adds what the time since the last change earned.
func (f *failures) refill(now time.Time) {
	if d := now.Sub(f.at); d > 0 {
		f.left = min(f.left+float64(d)/float64(FailureInterval), FailureBurst)
	}
	f.at = now
}
