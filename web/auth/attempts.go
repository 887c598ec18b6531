package auth

import (
	"net/netip"
	"sync"
	"time"
)

// How the token endpoint slows down the guessing of a client's secret.
const (
	// FailureBurst is how many wrong secrets of a configured client one
	// source may send in a row before it is slowed down.
	FailureBurst = 10
	// FailureInterval is, beyond the burst, how often that source may
	// send another wrong secret of the client: one more each interval.
	FailureInterval = 12 * time.Second
	// MaxAttemptSources bounds the (client, source) pairs counted at
	// once on a replica; beyond, some are forgotten (see makeRoom).
	MaxAttemptSources = 10000
)

// Attempts counts the wrong secrets sent for each configured client (a
// merchant of --merchants), per source address: from one source a client
// may be sent FailureBurst wrong secrets in a row, then one each
// FailureInterval. A source's guesses never spend another source's
// allowance, and the right secret is never refused: the token endpoint
// checks it first, so nobody can lock a client out by guessing. Ids no
// configuration names have no secret to guess and no state. Safe for
// concurrent use; each replica counts its own.
type Attempts struct {
	now     func() time.Time
	clients map[string]bool // the configured merchants

	mu sync.Mutex
	by map[attemptKey]*failures
}

// attemptKey is a client and a source of its wrong secrets.
type attemptKey struct{ client, source string }

// failures is the allowance of wrong secrets of one client from one
// source: a token bucket of FailureBurst, refilled one each
// FailureInterval.
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
	a := &Attempts{now: now, clients: make(map[string]bool, len(m.secrets)), by: map[attemptKey]*failures{}}
	for id := range m.secrets {
		a.clients[id] = true
	}
	return a
}

// Failed counts a wrong secret of client id sent from source (see
// Source) and tells whether it was within that source's allowance; when
// not, the attempt is refused and wait is how long until the source may
// send the next one.
func (a *Attempts) Failed(id, source string) (wait time.Duration, ok bool) {
	if !a.clients[id] {
		return 0, true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	k := attemptKey{id, source}
	f := a.by[k]
	if f == nil {
		a.makeRoom(now)
		f = &failures{left: FailureBurst, at: now}
		a.by[k] = f
	}
	f.refill(now)
	if f.left < 1 {
		return time.Duration((1 - f.left) * float64(FailureInterval)), false
	}
	f.left--
	return 0, true
}

// makeRoom keeps the pairs counted under MaxAttemptSources: when they
// reach it, the ones whose allowance is whole again are forgotten, then,
// if need be, any others down to 7/8 of it (a forgotten pair starts
// again with a full allowance), so that the cost of a flood of sources
// is spread over the next MaxAttemptSources/8 of them.
func (a *Attempts) makeRoom(now time.Time) {
	if len(a.by) < MaxAttemptSources {
		return
	}
	for k, f := range a.by {
		if now.Sub(f.at) >= time.Duration((FailureBurst-f.left)*float64(FailureInterval)) {
			delete(a.by, k)
		}
	}
	for k := range a.by {
		if len(a.by) <= MaxAttemptSources*7/8 {
			break
		}
		delete(a.by, k)
	}
}

// refill adds what the time since the last change earned.
func (f *failures) refill(now time.Time) {
	if d := now.Sub(f.at); d > 0 {
		f.left = min(f.left+float64(d)/float64(FailureInterval), FailureBurst)
	}
	f.at = now
}

// Source is the source of a request as the limits count it, from its
// remote address (host:port): the IP address, an IPv6 one by its /64
// (what one host or site is usually given). A remote address that is not
// an IP and port counts as itself. Behind a reverse proxy every request
// has the proxy's address.
func Source(remoteAddr string) string {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	ip := ap.Addr().Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}
