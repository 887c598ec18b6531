package redisstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Captures keeps the merchants' ddcIds and the JWT ids their captures
// used, so that every replica refuses a replayed JWT or a ddcId in use,
// atomically. No key name holds a ddcId, a jti or a namespace: each is
// named by a keyed hash (HMAC-SHA256 under a key derived from the state
// hash key, 16 bytes in hex), so a dump of Redis tells nothing of the
// merchants' ids without the key:
//
//	dd:{hash of scope and ddcId}  the threeDSServerTransID the ddcId names; TTL the capture's
//	jt:{hash of tenant and jti}   a JWT id used; TTL the JWT's remaining life
//	ddt:{hash of tenant}          sorted set of the tenant's dd: hashes, by expiry
//	jtt:{hash of tenant}          sorted set of the tenant's jt: hashes, by expiry
//
// (On a cluster each hash is also the key's hash tag: see setOnceCluster.)
//
// One script sets an entry once and keeps the tenant's set within
// state.MaxCapturesPerTenant, ending the tenant's own entry that
// expires first beyond it, never another tenant's. After a key rotation
// the entries hashed under a previous key (Keys) are still found and
// still refuse a second use, until they expire.
type Captures struct {
	c         rueidis.Client
	prefix    string
	timeout   time.Duration
	perTenant int
	keys      [][]byte // the current first
	// cluster: each entry and each tenant's set is its own hash tag
	// (keys.go), and setOnce and DDC take the cluster's path.
	cluster bool
}

var _ state.Captures = (*Captures)(nil)

// CapturesOptions set up Captures.
type CapturesOptions struct {
	// Prefix of every key; DefaultPrefix when empty.
	Prefix string
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Keys are the state hash keys, the current first: the keyed hashes
	// of the key names are made under the current one and looked up
	// under each. At least one is required.
	Keys [][]byte
	// PerTenant bounds each tenant's entries of each kind;
	// state.MaxCapturesPerTenant when zero.
	PerTenant int
}

// NewCaptures returns the captures kept over client c.
func NewCaptures(c rueidis.Client, opt CapturesOptions) (*Captures, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewCaptures needs a client")
	}
	if len(opt.Keys) == 0 || len(opt.Keys[0]) == 0 {
		return nil, errors.New("redisstore: NewCaptures needs the state hash key")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.PerTenant <= 0 {
		opt.PerTenant = state.MaxCapturesPerTenant
	}
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	r := &Captures{c: c, prefix: opt.Prefix, cluster: ks.cluster, timeout: opt.Timeout, perTenant: opt.PerTenant}
	for _, k := range opt.Keys {
		m := hmac.New(sha256.New, k)
		m.Write([]byte("threeds-sandbox\x00redis capture names"))
		r.keys = append(r.keys, m.Sum(nil))
	}
	return r, nil
}

// entry is the key of an entry or a tenant's set: its kind and its keyed
// hash, the hash a tag of its own on a cluster.
func (r *Captures) entry(kind, hash string) string {
	if r.cluster {
		return r.prefix + kind + "{" + hash + "}"
	}
	return r.prefix + kind + hash
}

// name is the keyed hash, under key i, of the parts of a key name.
func (r *Captures) name(i int, parts ...string) string {
	m := hmac.New(sha256.New, r.keys[i])
	for _, p := range parts {
		m.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// BindDDC binds k to transaction id unless it is bound already.
func (r *Captures) BindDDC(ctx context.Context, k state.DDCKey, id string, ttl time.Duration) (bool, error) {
	return r.setOnce(ctx, "bind a ddcId", "dd:", "ddt:", k.Tenant, []string{k.Scope(), k.DDCID}, id, ttl)
}

// DDC returns the transaction id k names.
func (r *Captures) DDC(ctx context.Context, k state.DDCKey) (string, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	names := make([]string, len(r.keys))
	for i := range r.keys {
		names[i] = r.entry("dd:", r.name(i, k.Scope(), k.DDCID))
	}
	if r.cluster {
		return r.ddcCluster(ctx, names)
	}
	vals, err := r.c.Do(ctx, r.c.B().Mget().Key(names...).Build()).ToArray()
	if err != nil {
		return "", Classify("read a ddcId", err)
	}
	for _, v := range vals {
		if id, err := v.ToString(); err == nil {
			return id, nil
		}
	}
	return "", state.ErrNotFound
}

// UseJTI records jti of tenant unless it was recorded already.
func (r *Captures) UseJTI(ctx context.Context, tenant, jti string, ttl time.Duration) (bool, error) {
	return r.setOnce(ctx, "record a JWT id", "jt:", "jtt:", tenant, []string{tenant, jti}, "1", ttl)
}

// setOnceScript sets KEYS[2] to ARGV[1] for ARGV[2] ms unless it, or any
// of its ARGV[6] names under the previous keys (KEYS[3] on), exists;
// KEYS[1] is the tenant's set, which holds at most ARGV[4] members (the
// hashes of the tenant's entries, scored by expiry): the expired ones
// are dropped first, then those that expire first, their entries
// deleted. ARGV[3] is now in ms, ARGV[5] the new entry's member; the
// members from ARGV[7] on are those whose entries' keys follow the
// previous names in KEYS. 1 when set, 0 when not; the members it would
// end without their keys given, nothing changed, for setOnce to call it
// again with them.
var setOnceScript = newScript(`
local p = tonumber(ARGV[6])
for i = 2, 2 + p do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
local ttl, now = tonumber(ARGV[2]), tonumber(ARGV[3])
local given = {}
for i = 7, #ARGV do given[ARGV[i]] = KEYS[3 + p + i - 7] end
local over = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') - tonumber(ARGV[4]) + 1
local ending = {}
if over > 0 then ending = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'LIMIT', 0, over) end
local need = {}
for _, m in ipairs(ending) do if not given[m] then need[#need + 1] = m end end
if #need > 0 then return need end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, m in ipairs(ending) do
  redis.call('DEL', given[m])
  redis.call('ZREM', KEYS[1], m)
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[5])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`)

// setOnce sets the entry named by parts (under kind) to value for ttl
// unless it exists, in tenant's set (under set).
func (r *Captures) setOnce(ctx context.Context, op, kind, set, tenant string, parts []string, value string, ttl time.Duration) (bool, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	member := r.name(0, parts...)
	keys := []string{r.entry(set, r.name(0, "tenant", tenant)), r.entry(kind, member)}
	for i := 1; i < len(r.keys); i++ {
		keys = append(keys, r.entry(kind, r.name(i, parts...)))
	}
	if r.cluster {
		return r.setOnceCluster(ctx, op, kind, keys, member, value, ttl)
	}
	args := []string{value, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10), ms(time.Now()),
		strconv.Itoa(r.perTenant), member, strconv.Itoa(len(keys) - 2)}
	for range 4 {
		res := setOnceScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: keys, Args: args})[0]
		if n, err := res.AsInt64(); err == nil {
			return n == 1, nil
		}
		need, err := res.AsStrSlice()
		if err != nil {
			return false, ClassifyWrite(op, err)
		}
		for _, m := range need {
			keys = append(keys, r.entry(kind, m))
			args = append(args, m)
		}
	}
	return false, ClassifyWrite(op, fmt.Errorf("%w: the tenant's entries kept changing", state.ErrUnavailable))
}
