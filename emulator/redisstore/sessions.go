package redisstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Sessions keeps the console's sessions in Redis, so every replica knows
// them and a restart keeps them: a hash per session (prefix "cs:" id:
// the token's keyed hash t, the namespace n, an access token's expiry e
// in Unix milliseconds or 0) with the session's time to live, a sorted
// set of each token's sessions ("csu:" token hash) and one of all
// ("csa"), each scored by when the session expires, and a sorted set of
// the tokens by how many sessions each holds ("cst"). One script opens a
// session and ends, atomically, the token's that expires first beyond
// state.MaxSessionsPerToken and, at the bound of all, the one that
// expires first of the token holding the most (of equal ones, the first
// in byte order, as package fairshare chooses in memory); the sets live
// as long as their newest session.
type Sessions struct {
	c       rueidis.Client
	prefix  string
	max     int
	timeout time.Duration
}

var _ state.SessionStore = (*Sessions)(nil)

// SessionsOptions set up Sessions.
type SessionsOptions struct {
	// Prefix of every key; DefaultPrefix when empty.
	Prefix string
	// Max bounds the sessions of all tokens; state.DefaultMaxSessions
	// when zero.
	Max int
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
}

// NewSessions returns the sessions kept over client c.
func NewSessions(c rueidis.Client, opt SessionsOptions) (*Sessions, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewSessions needs a client")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Max <= 0 {
		opt.Max = state.DefaultMaxSessions
	}
	// On a cluster every key of the sessions shares one slot: a session
	// opened may end another token's (the bound of all).
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	return &Sessions{c: c, prefix: ks.group("cs"), max: opt.Max, timeout: opt.Timeout}, nil
}

func (r *Sessions) key(id string) string { return r.prefix + "cs:" + id }
func (r *Sessions) allKey() string       { return r.prefix + "csa" }
func (r *Sessions) heldKey() string      { return r.prefix + "cst" }

// sessionCreateScript opens session ARGV[1] (KEYS[1]) of token hash ARGV[2]
// (its set KEYS[2]; KEYS[3] holds every session, KEYS[4] the tokens by
// their count): namespace ARGV[3], expiry ARGV[4], for ARGV[5] ms from
// now ARGV[6]. Beyond ARGV[7] sessions of the token, the token's that
// expires first ends; at ARGV[8] of all, that of the token holding the
// most (its key under ARGV[9], its token's set under ARGV[10]).
var sessionCreateScript = rueidis.NewLuaScript(`
local now, ttl = tonumber(ARGV[6]), tonumber(ARGV[5])
local ends = now + ttl
local function finish(id)
  local t = redis.call('HGET', ARGV[9] .. id, 't')
  redis.call('DEL', ARGV[9] .. id)
  redis.call('ZREM', KEYS[3], id)
  if t and redis.call('ZREM', ARGV[10] .. t, id) == 1 then
    if tonumber(redis.call('ZINCRBY', KEYS[4], -1, t)) <= 0 then redis.call('ZREM', KEYS[4], t) end
  end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do finish(id) end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do finish(id) end
while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) do finish(redis.call('ZRANGE', KEYS[2], 0, 0)[1]) end
while redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[8]) do
  local top = redis.call('ZREVRANGEBYSCORE', KEYS[4], '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local most = top[1]
  if not most then finish(redis.call('ZRANGE', KEYS[3], 0, 0)[1]) else
    -- of equal counts, the first in byte order gives way
    local tied = redis.call('ZRANGEBYSCORE', KEYS[4], top[2], top[2], 'LIMIT', 0, 1)
    most = tied[1] or most
    local first = redis.call('ZRANGE', ARGV[10] .. most, 0, 0)[1]
    if first then finish(first) else redis.call('ZREM', KEYS[4], most) end
  end
end
redis.call('HSET', KEYS[1], 't', ARGV[2], 'n', ARGV[3], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
for _, set in ipairs({KEYS[2], KEYS[3]}) do
  redis.call('ZADD', set, ends, ARGV[1])
  if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
end
redis.call('ZINCRBY', KEYS[4], 1, ARGV[2])
if redis.call('PTTL', KEYS[4]) < ttl then redis.call('PEXPIRE', KEYS[4], ttl) end
return 1`)

// Create opens a session.
func (r *Sessions) Create(ctx context.Context, s state.Session, ttl time.Duration) (string, error) {
	if !state.ValidTokenHash(s.TokenHash) {
		return "", errors.New("redisstore: a console session needs the keyed hash of its token")
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	id := state.NewSessionID()
	expires := "0"
	if !s.Expires.IsZero() {
		expires = strconv.FormatInt(s.Expires.UnixMilli(), 10)
	}
	err := sessionCreateScript.Exec(ctx, r.c, []string{r.key(id), r.prefix + "csu:" + s.TokenHash, r.allKey(), r.heldKey()}, []string{
		id, s.TokenHash, s.Namespace, expires, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10), ms(time.Now()),
		strconv.Itoa(state.MaxSessionsPerToken), strconv.Itoa(r.max), r.prefix + "cs:", r.prefix + "csu:",
	}).Error()
	if err != nil {
		return "", ClassifyWrite("create a console session", err)
	}
	return id, nil
}

// Session returns a live session. A key of an earlier version, which
// held the token itself, is ended when read.
func (r *Sessions) Session(ctx context.Context, id string) (state.Session, bool, error) {
	if !state.ValidSessionID(id) {
		return state.Session{}, false, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	vals, err := r.c.Do(ctx, r.c.B().Hmget().Key(r.key(id)).Field("t", "n", "e").Build()).ToArray()
	if err != nil {
		if isWrongType(err) {
			return state.Session{}, false, Classify("end a console session of an earlier version", r.c.Do(ctx, r.c.B().Del().Key(r.key(id)).Build()).Error())
		}
		return state.Session{}, false, Classify("read a console session", err)
	}
	var f [3]string
	for i := range min(len(vals), len(f)) {
		f[i], _ = vals[i].ToString() // nil: no such session
	}
	if f[0] == "" {
		return state.Session{}, false, nil
	}
	s := state.Session{TokenHash: f[0], Namespace: f[1]}
	if e, err := strconv.ParseInt(f[2], 10, 64); err == nil && e > 0 {
		s.Expires = time.UnixMilli(e)
	}
	return s, true, nil
}

// isWrongType tells the reply of a command run on a key of another type.
func isWrongType(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	return ok && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// sessionDeleteScript ends session ARGV[1] (KEYS[1]) and takes it out of the
// set of all (KEYS[2]), of its token's (under ARGV[2]) and of the count
// of its token (KEYS[3]).
var sessionDeleteScript = rueidis.NewLuaScript(`
local t = redis.call('HGET', KEYS[1], 't')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if t and redis.call('ZREM', ARGV[2] .. t, ARGV[1]) == 1 then
  if tonumber(redis.call('ZINCRBY', KEYS[3], -1, t)) <= 0 then redis.call('ZREM', KEYS[3], t) end
end
return 1`)

// Delete ends a session.
func (r *Sessions) Delete(ctx context.Context, id string) error {
	if !state.ValidSessionID(id) {
		return nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	err := sessionDeleteScript.Exec(ctx, r.c, []string{r.key(id), r.allKey(), r.heldKey()}, []string{id, r.prefix + "csu:"}).Error()
	if isWrongType(err) {
		err = r.c.Do(ctx, r.c.B().Del().Key(r.key(id)).Build()).Error()
	}
	return ClassifyWrite("end a console session", err)
}
