package console

import (
	"sync"
	"time"
)

// DefaultMaxTokensPerClient bounds the tokens one client address holds
// console sessions for at once: with DefaultMaxStreamsPerToken each, a
// client's tokens together hold at most half of DefaultMaxStreams.
const DefaultMaxTokensPerClient = 8

// maxClients bounds the client addresses counted at once on a replica.
const maxClients = 10000

// clientTokens counts, per client address (auth.Source), the tokens
// (namespaces) it holds console sessions for, each until its session
// ends: a login with one more token than the bound is refused, so that
// one client cannot spread over tokens without end. Logging in again
// with a token already counted is not another. Safe for concurrent use;
// each replica counts its own.
type clientTokens struct {
	limit int
	now   func() time.Time

	mu sync.Mutex
	by map[string]map[string]time.Time // client -> namespace -> its session's end
}

func newClientTokens(limit int, now func() time.Time) *clientTokens {
	if now == nil {
		now = time.Now
	}
	return &clientTokens{limit: limit, now: now, by: map[string]map[string]time.Time{}}
}

// admit counts a session of namespace ns, until until, for client; false
// when client holds sessions for as many other tokens as the bound.
func (c *clientTokens) admit(client, ns string, until time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	held := c.by[client]
	for n, end := range held {
		if !now.Before(end) {
			delete(held, n)
		}
	}
	if _, ok := held[ns]; !ok && len(held) >= c.limit {
		return false
	}
	if held == nil {
		c.makeRoom(now)
		held = map[string]time.Time{}
		c.by[client] = held
	}
	if until.After(held[ns]) {
		held[ns] = until
	}
	return true
}

// release forgets the session of namespace ns of client (a logout).
func (c *clientTokens) release(client, ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if held := c.by[client]; held != nil {
		delete(held, ns)
		if len(held) == 0 {
			delete(c.by, client)
		}
	}
}

// makeRoom keeps the clients counted under maxClients: at the bound,
// those whose sessions have all ended are forgotten, then, if need be,
// any others down to 7/8 of it (a forgotten client starts again from
// none). The lock is held.
func (c *clientTokens) makeRoom(now time.Time) {
	if len(c.by) < maxClients {
		return
	}
	for client, held := range c.by {
		live := false
		for _, end := range held {
			live = live || now.Before(end)
		}
		if !live {
			delete(c.by, client)
		}
	}
	for client := range c.by {
		if len(c.by) <= maxClients*7/8 {
			break
		}
		delete(c.by, client)
	}
}
