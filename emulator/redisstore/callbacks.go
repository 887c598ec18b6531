package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Bounds of Callbacks, as in the memory store.
const (
	DefaultMaxCallbackURLs = 10_000
	DefaultMaxOutbox       = 100_000
)

// DefaultCallbackRevalidate is how long a replica uses a namespace's
// cached callback URL before it reads it again, should a change's
// announcement be lost.
const DefaultCallbackRevalidate = time.Second

// Callbacks keeps the result callbacks in Redis, shared by the replicas:
//
//	cb:u  hash: namespace -> callback URL
//	cb:q  sorted set: transaction id, scored by when its delivery is due (Unix ms)
//	cb:d  hash: transaction id -> {"n": namespace, "a": attempts, "t": lease token, "r": rearmed}
//
// Every change is one Lua script over these keys, so a delivery is leased
// to one replica at a time: a Claim moves its due to the end of the lease
// and gives it a new token, which its Release or Done must show.
//
// The engine reads a namespace's URL at every lookup, so each replica
// caches it as Namespaces caches states: a registration or removal is
// announced on prefix "cb:changed" and drops the URL from every
// replica's cache as the announcement arrives (this replica's at once);
// a URL is read again after Revalidate should an announcement be lost.
type Callbacks struct {
	c                  rueidis.Client
	prefix             string
	timeout            time.Duration
	maxURLs, maxOutbox int
	now                func() time.Time
	urls               *announced[string]
	sub                *subscription
}

var _ emulator.Callbacks = (*Callbacks)(nil)

// CallbacksOptions set up Callbacks.
type CallbacksOptions struct {
	// Prefix begins every key; DefaultPrefix when empty.
	Prefix string
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// MaxURLs and MaxOutbox bound the registrations and the waiting
	// deliveries; the defaults when zero.
	MaxURLs, MaxOutbox int
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
	if opt.MaxURLs <= 0 {
		opt.MaxURLs = DefaultMaxCallbackURLs
	}
	if opt.MaxOutbox <= 0 {
		opt.MaxOutbox = DefaultMaxOutbox
	}
	if opt.Revalidate <= 0 {
		opt.Revalidate = DefaultCallbackRevalidate
	}
	r := &Callbacks{c: c, prefix: opt.Prefix, timeout: opt.Timeout, maxURLs: opt.MaxURLs, maxOutbox: opt.MaxOutbox,
		now: time.Now, urls: newAnnounced[string](opt.Revalidate)}
	r.sub = startSubscription(c, r.channel(), opt.Timeout, r.urls.drop, r.urls.dropAll)
	return r, nil
}

// Close stops the subscription. It does not close the client.
func (r *Callbacks) Close() { r.sub.Close() }

func (r *Callbacks) channel() string  { return r.prefix + "cb:changed" }
func (r *Callbacks) urlsKey() string  { return r.prefix + "cb:u" }
func (r *Callbacks) queueKey() string { return r.prefix + "cb:q" }
func (r *Callbacks) dataKey() string  { return r.prefix + "cb:d" }

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
	n, err := registerScript.Exec(ctx, r.c, []string{r.urlsKey()}, []string{ns, url, strconv.Itoa(r.maxURLs), r.channel()}).AsInt64()
	r.urls.drop(ns)
	if err != nil {
		return ClassifyWrite("register a callback URL", err)
	}
	if n < 0 {
		return fmt.Errorf("%w: %d namespaces have a callback URL", emulator.ErrCallbackLimit, r.maxURLs)
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

var scheduleScript = rueidis.NewLuaScript(`
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then
  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode({n = ARGV[2], a = 0, t = '', r = 0}))
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
local e = cjson.decode(v)
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if e.t ~= '' and cur and tonumber(cur) > tonumber(ARGV[4]) then
  e.r = 1
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(e))
  return 2
end
if not cur or tonumber(ARGV[3]) < tonumber(cur) then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1`)

// Schedule adds or advances a delivery.
func (r *Callbacks) Schedule(ctx context.Context, d emulator.Delivery, now time.Time) error {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := scheduleScript.Exec(ctx, r.c, []string{r.queueKey(), r.dataKey()},
		[]string{d.ID, d.Namespace, ms(d.Due), ms(now), strconv.Itoa(r.maxOutbox)}).AsInt64()
	if err != nil {
		return ClassifyWrite("schedule a result callback", err)
	}
	if n < 0 {
		return fmt.Errorf("%w: %d deliveries wait", emulator.ErrCallbackLimit, r.maxOutbox)
	}
	return nil
}

var claimScript = rueidis.NewLuaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for i, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[2], id)
  if not v then
    redis.call('ZREM', KEYS[1], id)
  else
    local e = cjson.decode(v)
    e.t = ARGV[4] .. i
    e.r = 0
    redis.call('HSET', KEYS[2], id, cjson.encode(e))
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    out[#out + 1] = id
    out[#out + 1] = e.n
    out[#out + 1] = tostring(e.a)
    out[#out + 1] = e.t
  end
end
return out`)

// Claim leases the due deliveries.
func (r *Callbacks) Claim(ctx context.Context, now time.Time, lease time.Duration, max int) ([]emulator.Delivery, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	until := now.Add(lease)
	vs, err := claimScript.Exec(ctx, r.c, []string{r.queueKey(), r.dataKey()},
		[]string{ms(now), ms(until), strconv.Itoa(max), hex.EncodeToString(seed[:]) + "-"}).AsStrSlice()
	if err != nil {
		return nil, ClassifyWrite("claim result callbacks", err)
	}
	out := make([]emulator.Delivery, 0, len(vs)/4)
	for i := 0; i+3 < len(vs); i += 4 {
		attempt, _ := strconv.Atoi(vs[i+2])
		out = append(out, emulator.Delivery{ID: vs[i], Namespace: vs[i+1], Attempt: attempt, Token: vs[i+3], Due: until})
	}
	return out, nil
}

var releaseScript = rueidis.NewLuaScript(`
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then return 0 end
local e = cjson.decode(v)
if e.t ~= ARGV[2] then return 0 end
local due = ARGV[3]
if e.r == 1 then due = ARGV[5] end
e.t = ''
e.r = 0
e.a = tonumber(ARGV[4])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(e))
redis.call('ZADD', KEYS[1], due, ARGV[1])
return 1`)

// Release ends a lease.
func (r *Callbacks) Release(ctx context.Context, d emulator.Delivery, due, now time.Time) error {
	if d.Token == "" {
		return emulator.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := releaseScript.Exec(ctx, r.c, []string{r.queueKey(), r.dataKey()},
		[]string{d.ID, d.Token, ms(due), strconv.Itoa(d.Attempt), ms(now)}).AsInt64()
	if err != nil {
		return ClassifyWrite("release a result callback", err)
	}
	if n == 0 {
		return emulator.ErrLeaseLost
	}
	return nil
}

var doneScript = rueidis.NewLuaScript(`
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v or cjson.decode(v).t ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1`)

// Done removes a delivery.
func (r *Callbacks) Done(ctx context.Context, d emulator.Delivery) error {
	if d.Token == "" {
		return emulator.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := doneScript.Exec(ctx, r.c, []string{r.queueKey(), r.dataKey()}, []string{d.ID, d.Token}).AsInt64()
	if err != nil {
		return ClassifyWrite("finish a result callback", err)
	}
	if n == 0 {
		return emulator.ErrLeaseLost
	}
	return nil
}

// ms is t in Unix milliseconds, as a score.
func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
