package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// DefaultNamespaceRevalidate is how long a replica uses a namespace's
// cached state before it reads it again, should a change's announcement
// be lost.
const DefaultNamespaceRevalidate = time.Second

// NamespacesOptions set up a Namespaces.
type NamespacesOptions struct {
	// Prefix begins every key; DefaultPrefix when empty.
	Prefix string
	// MaxAge is how long a namespace's state is kept after its last
	// change (the store's maximum age, the TTL of its key); required.
	MaxAge time.Duration
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Revalidate is how long a cached state is used before it is read
	// again; DefaultNamespaceRevalidate when zero.
	Revalidate time.Duration
}

// Namespaces is the state.Namespaces in Redis: each namespace's state
// is one key, prefix "n:" namespace, holding "offset generation" (the
// offset in nanoseconds, the generation in Unix microseconds) with a TTL
// of MaxAge renewed by each change. Every change is a script that also
// publishes the namespace on prefix "n:changed".
//
// The engine reads a state on every step of a transaction, so each
// replica caches it: a state is read from Redis when it is not cached,
// and again once it is older than Revalidate; a replica subscribed to
// the channel drops a namespace's cached state as soon as a change is
// announced (and every cached state when its subscription starts again),
// so another replica's change is seen at once, without a round trip per
// request.
type Namespaces struct {
	c        rueidis.Client
	opt      NamespacesOptions
	now      func() time.Time
	watchers *journal.Watchers
	cache    *announced[state.NamespaceState]
	sub      *subscription
}

var _ state.Namespaces = (*Namespaces)(nil)

// NewNamespaces returns the namespace states kept over client c and
// starts the subscription to their changes; Close stops it.
func NewNamespaces(c rueidis.Client, opt NamespacesOptions) (*Namespaces, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewNamespaces needs a client")
	}
	if opt.MaxAge <= 0 {
		return nil, fmt.Errorf("redisstore: namespaces max age must be positive, got %s", opt.MaxAge)
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Revalidate <= 0 {
		opt.Revalidate = DefaultNamespaceRevalidate
	}
	n := &Namespaces{c: c, opt: opt, now: time.Now, watchers: journal.NewWatchers(maxCached),
		cache: newAnnounced[state.NamespaceState](opt.Revalidate)}
	n.sub = startSubscription(c, n.channel(), opt.Timeout, n.changed, n.reset)
	return n, nil
}

// Close stops the subscription. It does not close the client.
func (n *Namespaces) Close() { n.sub.Close() }

func (n *Namespaces) key(ns string) string { return n.opt.Prefix + "n:" + ns }

func (n *Namespaces) channel() string { return n.opt.Prefix + "n:changed" }

// changed drops the cached state of ns and wakes its watchers: another
// replica (or this one) changed it.
func (n *Namespaces) changed(ns string) {
	n.cache.drop(ns)
	n.watchers.Wake(ns)
}

// reset drops every cached state and wakes every watcher: changes may
// have been missed.
func (n *Namespaces) reset() {
	n.cache.dropAll()
	n.watchers.WakeAll()
}

// parseState reads a stored state, "offset generation".
func parseState(v string) (state.NamespaceState, error) {
	o, g, ok := strings.Cut(v, " ")
	offset, err1 := strconv.ParseInt(o, 10, 64)
	gen, err2 := strconv.ParseUint(g, 10, 64)
	if !ok || err1 != nil || err2 != nil || offset < 0 {
		return state.NamespaceState{}, fmt.Errorf("redisstore: namespace state %q is damaged", v)
	}
	return state.NamespaceState{Offset: time.Duration(offset), Generation: gen}, nil
}

// State returns the state of ns, from this replica's cache while it is
// younger than Revalidate and no change was announced.
func (n *Namespaces) State(ctx context.Context, ns string) (state.NamespaceState, error) {
	now := n.now()
	cached, ok, drops := n.cache.get(ns, now)
	if ok {
		return cached, nil
	}
	rctx, cancel := bounded(ctx, n.opt.Timeout)
	defer cancel()
	v, err := n.c.Do(rctx, n.c.B().Get().Key(n.key(ns)).Build()).ToString()
	var st state.NamespaceState
	switch {
	case rueidis.IsRedisNil(err):
	case err != nil:
		return state.NamespaceState{}, Classify("namespace state", err)
	default:
		if st, err = parseState(v); err != nil {
			return state.NamespaceState{}, err
		}
	}
	n.cache.put(ns, st, now, drops)
	return st, nil
}

// changeScript changes a namespace's state: KEYS[1] its key; ARGV the
// change (advance, reset or forget), its amount (the nanoseconds to
// advance by, or the generation a forgetting takes at least), the largest
// offset, the TTL in milliseconds, the channel and the namespace. It
// answers {1, state} when changed, {0, state} when the offset would
// exceed the largest. The numbers stay below 2^53, exact in Lua.
var changeScript = rueidis.NewLuaScript(`
local v = redis.call('GET', KEYS[1]) or '0 0'
local o, g = string.match(v, '^(%d+) (%d+)$')
o, g = tonumber(o or '0'), tonumber(g or '0')
local op, amount, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if op == 'advance' then
  if amount > max - o then return {0, v} end
  o = o + amount
elseif op == 'reset' then
  o = 0
else
  if amount > g then g = amount else g = g + 1 end
end
local nv = string.format('%.0f %.0f', o, g)
if nv == '0 0' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], nv, 'PX', ARGV[4])
end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return {1, nv}`)

// change runs changeScript and forgets this replica's cached state.
func (n *Namespaces) change(ctx context.Context, ns, op string, amount int64, max time.Duration) (state.NamespaceState, error) {
	ctx, cancel := bounded(ctx, n.opt.Timeout)
	defer cancel()
	reply, err := changeScript.Exec(ctx, n.c, []string{n.key(ns)}, []string{op, strconv.FormatInt(amount, 10),
		strconv.FormatInt(int64(max), 10), strconv.FormatInt(n.opt.MaxAge.Milliseconds(), 10), n.channel(), ns}).ToArray()
	n.changed(ns)
	if err != nil {
		return state.NamespaceState{}, ClassifyWrite("change a namespace state", err)
	}
	if len(reply) != 2 {
		return state.NamespaceState{}, fmt.Errorf("redisstore: change a namespace state: %d replies", len(reply))
	}
	done, err1 := reply[0].AsInt64()
	v, err2 := reply[1].ToString()
	if err := errors.Join(err1, err2); err != nil {
		return state.NamespaceState{}, fmt.Errorf("redisstore: change a namespace state: %w", err)
	}
	st, err := parseState(v)
	if err != nil {
		return state.NamespaceState{}, err
	}
	if done == 0 {
		return st, fmt.Errorf("redisstore: %w: %s + %s > %s", state.ErrClockLimit, st.Offset, time.Duration(amount), max)
	}
	return st, nil
}

// Advance moves the clock of ns forward by d, unless its offset would
// then exceed max.
func (n *Namespaces) Advance(ctx context.Context, ns string, d, max time.Duration) (state.NamespaceState, error) {
	return n.change(ctx, ns, "advance", int64(d), max)
}

// ResetClock sets the offset of ns back to zero.
func (n *Namespaces) ResetClock(ctx context.Context, ns string) (state.NamespaceState, error) {
	return n.change(ctx, ns, "reset", 0, 0)
}

// Forget raises the generation of ns above every one before: to this
// replica's time in Unix microseconds, or one more than the last.
func (n *Namespaces) Forget(ctx context.Context, ns string) (state.NamespaceState, error) {
	return n.change(ctx, ns, "forget", int64(state.NextGeneration(0, n.now())), 0)
}

// Changed returns a channel closed when a change of the state of ns is
// announced, or sooner.
func (n *Namespaces) Changed(ns string) <-chan struct{} { return n.watchers.Changed(ns) }
