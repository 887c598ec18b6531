package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// DefaultCallbackRevalidate is how long a replica uses a namespace's
// cached callback URL before it reads it again, should a change's
// announcement be lost.
const DefaultCallbackRevalidate = time.Second

// Callbacks keeps the result callbacks in Redis, shared by the replicas:
//
//	cb:u  hash: namespace -> callback URL
//	cb:k  hash: namespace -> its signing key's generation and when it was rotated ("2 1732190400000")
//
// and the outbox, whose keys outbox.go lists. Every change is one Lua
// script, so a delivery is leased to one replica at a time: a Claim moves
// its due to the end of the lease and gives it a new token, which its
// Release or Done must show.
//
// The engine reads a namespace's URL at every lookup, so each replica
// caches it as Namespaces caches states: a registration or removal is
// announced on prefix "cb:changed" and drops the URL from every
// replica's cache as the announcement arrives (this replica's at once);
// a URL is read again after Revalidate should an announcement be lost.
type Callbacks struct {
	c       rueidis.Client
	prefix  string   // of the URLs and signing keys: one slot on a cluster
	groups  []string // the outbox's groups' prefixes (outbox.go)
	timeout time.Duration
	opt     CallbacksOptions
	now     func() time.Time
	urls    *announced[string]
	sub     *subscription
}

var _ state.Callbacks = (*Callbacks)(nil)

// CallbacksOptions set up Callbacks.
type CallbacksOptions struct {
	// Prefix begins every key; DefaultPrefix when empty.
	Prefix string
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Bounds bound the registrations, the rotated secrets and the outbox
	// (the defaults for its zero fields).
	Bounds state.CallbackBounds
	// Revalidate is how long a cached URL is used before it is read
	// again; DefaultCallbackRevalidate when zero.
	Revalidate time.Duration
}

// NewCallbacks returns the callbacks kept over client c and starts the
// subscription to the announcements of their URLs' changes; Close stops
// it.
func NewCallbacks(c rueidis.Client, opt CallbacksOptions) (*Callbacks, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewCallbacks needs a client")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	opt.Bounds = opt.Bounds.WithDefaults()
	if opt.Revalidate <= 0 {
		opt.Revalidate = DefaultCallbackRevalidate
	}
	// On a cluster the URLs and signing keys (a hash each, cached or
	// read rarely) share one slot; the outbox is split into groups of
	// a slot each, a namespace's entries in one (outbox.go).
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	r := &Callbacks{c: c, prefix: ks.group("cb"), timeout: opt.Timeout, opt: opt, now: time.Now, urls: newAnnounced[string](opt.Revalidate)}
	r.groups = make([]string, ks.groupCount(opt.Bounds.Outbox, opt.Bounds.OutboxPerNamespace))
	for i := range r.groups {
		r.groups[i] = ks.groupN("cb", i)
	}
	r.sub = startSubscription(c, r.channel(), opt.Timeout, r.urls.drop, r.urls.dropAll)
	return r, nil
}

// Close stops the subscription. It does not close the client.
func (r *Callbacks) Close() { r.sub.Close() }

func (r *Callbacks) channel() string { return r.prefix + "cb:changed" }
func (r *Callbacks) urlsKey() string { return r.prefix + "cb:u" }
func (r *Callbacks) keysKey() string { return r.prefix + "cb:k" }

var registerScript = rueidis.NewLuaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 1`)

// unregisterScript removes the URL of ARGV[1] from KEYS[1] and, when it
// had one, announces the change on ARGV[2].
var unregisterScript = rueidis.NewLuaScript(`
local n = redis.call('HDEL', KEYS[1], ARGV[1])
if n > 0 then redis.call('PUBLISH', ARGV[2], ARGV[1]) end
return n`)

// Register sets the URL of ns.
func (r *Callbacks) Register(ctx context.Context, ns, url string) error {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := registerScript.Exec(ctx, r.c, []string{r.urlsKey()}, []string{ns, url, strconv.Itoa(r.opt.Bounds.URLs), r.channel()}).AsInt64()
	r.urls.drop(ns)
	if err != nil {
		return ClassifyWrite("register a callback URL", err)
	}
	if n < 0 {
		return fmt.Errorf("%w: %d namespaces have a callback URL", state.ErrCallbackLimit, r.opt.Bounds.URLs)
	}
	return nil
}

// Registered returns the URL of ns: from this replica's cache while no
// change of it was announced and it is younger than Revalidate, else
// read from Redis. A change made on another replica is seen as soon as
// its announcement arrives: Redis sends it as it answers the change.
func (r *Callbacks) Registered(ctx context.Context, ns string) (string, error) {
	now := r.now()
	url, ok, drops := r.urls.get(ns, now)
	if ok {
		return url, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	url, err := r.c.Do(ctx, r.c.B().Hget().Key(r.urlsKey()).Field(ns).Build()).ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return "", Classify("read a callback URL", err)
	}
	r.urls.put(ns, url, now, drops)
	return url, nil
}

// Unregister removes the URL of ns.
func (r *Callbacks) Unregister(ctx context.Context, ns string) (bool, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := unregisterScript.Exec(ctx, r.c, []string{r.urlsKey()}, []string{ns, r.channel()}).AsInt64()
	r.urls.drop(ns)
	if err != nil {
		return false, ClassifyWrite("remove a callback URL", err)
	}
	return n > 0, nil
}

// rotateScript moves namespace ARGV[1] of hash KEYS[1] to its next
// generation, rotated at ARGV[2] (Unix ms), unless ARGV[3] namespaces
// have one and it has none (-1); it returns the new generation.
var rotateScript = rueidis.NewLuaScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
local gen = 1
if v then gen = tonumber(string.match(v, '^(%d+)')) + 1 end
redis.call('HSET', KEYS[1], ARGV[1], gen .. ' ' .. ARGV[2])
return gen`)

// SigningKey returns the generation of the signing secret of ns, read
// from Redis each time: a rotation holds on every replica at once.
func (r *Callbacks) SigningKey(ctx context.Context, ns string) (state.SigningKey, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	v, err := r.c.Do(ctx, r.c.B().Hget().Key(r.keysKey()).Field(ns).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return state.SigningKey{}, nil
	}
	if err != nil {
		return state.SigningKey{}, Classify("read a callback signing key", err)
	}
	gen, at, _ := strings.Cut(v, " ")
	g, err1 := strconv.ParseUint(gen, 10, 64)
	t, err2 := strconv.ParseInt(at, 10, 64)
	if err1 != nil || err2 != nil {
		return state.SigningKey{}, fmt.Errorf("redisstore: the callback signing key of %s reads %q", ns, v)
	}
	return state.SigningKey{Generation: g, Rotated: time.UnixMilli(t)}, nil
}

// RotateSigningKey moves ns to its next generation.
func (r *Callbacks) RotateSigningKey(ctx context.Context, ns string, now time.Time) (state.SigningKey, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := rotateScript.Exec(ctx, r.c, []string{r.keysKey()}, []string{ns, ms(now), strconv.Itoa(r.opt.Bounds.URLs)}).AsInt64()
	if err != nil {
		return state.SigningKey{}, ClassifyWrite("rotate a callback signing key", err)
	}
	if n < 0 {
		return state.SigningKey{}, fmt.Errorf("%w: %d namespaces have rotated their signing secret", state.ErrCallbackLimit, r.opt.Bounds.URLs)
	}
	return state.SigningKey{Generation: uint64(n), Rotated: time.UnixMilli(now.UnixMilli())}, nil
}
