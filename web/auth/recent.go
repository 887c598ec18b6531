package auth

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// maxRecentTokens bounds the tokens a recent cache remembers; beyond it,
// it forgets them all and starts again.
const maxRecentTokens = 4096

// recent remembers what was worked out from recent bearer tokens: a
// client sends the same token request after request, and the HMAC of a
// namespace, or the signature and claims of an access token, cost as
// much as a good share of a small request. It holds no token, but a
// 128-bit hash of each under two random seeds of this process
// (hash/maphash), which tells nothing of a token outside it.
type recent[V any] struct {
	seeds [2]maphash.Seed
	m     sync.Map // [2]uint64 -> V
	n     atomic.Int64
}

func newRecent[V any]() *recent[V] {
	return &recent[V]{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// id is the cache's key of token.
func (c *recent[V]) id(token string) [2]uint64 {
	return [2]uint64{maphash.String(c.seeds[0], token), maphash.String(c.seeds[1], token)}
}

// get returns what was remembered of the token of id.
func (c *recent[V]) get(id [2]uint64) (V, bool) {
	v, ok := c.m.Load(id)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// add remembers v for the token of id.
func (c *recent[V]) add(id [2]uint64, v V) {
	if c.n.Add(1) > maxRecentTokens {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(id, v)
}
