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
// them and a restart keeps them. On a cluster they are split into slot
// groups ("{cs<i>}" after the prefix), a token's sessions all in the
// group of its hash (groupOf), whose number the first hex digit of a
// session's id carries; a single Redis keeps one group under the prefix.
// A group is four keys, each living as long as its newest session:
//
//	csd  hash: session id -> "<token hash> <end, Unix ms> <access token's expiry, Unix ms or 0> <namespace>"
//	cse  sorted set: session id, scored by its end
//	csn  sorted set: token hash, scored by its number of sessions
//	csx  sorted set (all scores 0, in byte order): "<token hash>:<end, 15 digits>:<session id>", a token's sessions by their end
//
// One script opens a session and ends, atomically, the expired ones, the
// token's that ends first beyond state.MaxSessionsPerToken and, at the
// group's part of the bound of all (groupBound), the one that ends first
// of the token holding the most (of equal ones, the first in byte order,
// as package fairshare chooses in memory). Every key it touches is one
// of the four. Sessions of an earlier version (a hash "cs:<id>" with its
// time to live, in the "{cs}" slot on a cluster) are read and ended as
// before until they expire; they count towards no bound.
type Sessions struct {
	c       rueidis.Client
	groups  []string
	earlier string // the prefix of an earlier version's session keys
	max     int
	timeout time.Duration
}

var _ state.SessionStore = (*Sessions)(nil)

// SessionsOptions set up Sessions.
type SessionsOptions struct {
	// Prefix of every key; DefaultPrefix when empty.
	Prefix string
	// Max bounds the sessions of all tokens; state.DefaultMaxSessions
	// when zero. On a cluster each slot group holds its part of it.
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
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	s := &Sessions{c: c, groups: make([]string, ks.groupCount(opt.Max, state.MaxSessionsPerToken)), earlier: ks.group("cs") + "cs:", max: opt.Max, timeout: opt.Timeout}
	for i := range s.groups {
		s.groups[i] = ks.groupN("cs", i)
	}
	return s, nil
}

// keys are the four keys of group g.
func (r *Sessions) keys(g int) []string {
	p := r.groups[g]
	return []string{p + "csd", p + "cse", p + "csn", p + "csx"}
}

// groupOfID is the group of session id: that of its first hex digit.
func (r *Sessions) groupOfID(id string) int {
	if len(r.groups) <= 1 {
		return 0
	}
	d, _ := strconv.ParseUint(id[:1], 16, 8)
	return int(d) % len(r.groups)
}

// sessionCreateScript opens session ARGV[1] of token hash ARGV[2]:
// namespace ARGV[3], expiry ARGV[4], for ARGV[5] ms from now ARGV[6].
// Beyond ARGV[7] sessions of the token, the token's that ends first
// ends; at ARGV[8] in the group, that of the token holding the most.
var sessionCreateScript = newScript(`
local D, E, N, X = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, ttl, tok = tonumber(ARGV[6]), tonumber(ARGV[5]), ARGV[2]
local ends = now + ttl
local function member(t, e, id) return t .. ':' .. string.format('%015d', e) .. ':' .. id end
local function finish(id)
  local v = redis.call('HGET', D, id)
  redis.call('HDEL', D, id)
  redis.call('ZREM', E, id)
  if v then
    local t, e = string.match(v, '^(%x+) (%d+) ')
    if t and redis.call('ZREM', X, member(t, tonumber(e), id)) == 1 then
      if tonumber(redis.call('ZINCRBY', N, -1, t)) <= 0 then redis.call('ZREM', N, t) end
    end
  end
end
local function first(t)
  local m = redis.call('ZRANGEBYLEX', X, '[' .. t .. ':', '(' .. t .. ';', 'LIMIT', 0, 1)[1]
  if m then return string.sub(m, -32) end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', E, '-inf', now)) do finish(id) end
while redis.call('ZLEXCOUNT', X, '[' .. tok .. ':', '(' .. tok .. ';') >= tonumber(ARGV[7]) do finish(first(tok)) end
while redis.call('ZCARD', E) >= tonumber(ARGV[8]) do
  local top = redis.call('ZREVRANGEBYSCORE', N, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not top[1] then finish(redis.call('ZRANGE', E, 0, 0)[1]) else
    -- of equal counts, the first in byte order gives way
    local most = redis.call('ZRANGEBYSCORE', N, top[2], top[2], 'LIMIT', 0, 1)[1] or top[1]
    local id = first(most)
    if id then finish(id) else redis.call('ZREM', N, most) end
  end
end
redis.call('HSET', D, ARGV[1], tok .. ' ' .. ends .. ' ' .. ARGV[4] .. ' ' .. ARGV[3])
redis.call('ZADD', E, ends, ARGV[1])
redis.call('ZADD', X, 0, member(tok, ends, ARGV[1]))
redis.call('ZINCRBY', N, 1, tok)
for _, k in ipairs(KEYS) do
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
return 1`)

// Create opens a session.
func (r *Sessions) Create(ctx context.Context, s state.Session, ttl time.Duration) (string, error) {
	if !state.ValidTokenHash(s.TokenHash) {
		return "", errors.New("redisstore: a console session needs the keyed hash of its token")
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	g := groupOf(s.TokenHash, len(r.groups))
	id := state.NewSessionID()
	if len(r.groups) > 1 {
		// The group, found again by groupOfID: 124 random bits are left.
		id = strconv.FormatInt(int64(g), 16) + id[1:]
	}
	expires := "0"
	if !s.Expires.IsZero() {
		expires = strconv.FormatInt(s.Expires.UnixMilli(), 10)
	}
	err := sessionCreateScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: r.keys(g), Args: []string{
		id, s.TokenHash, s.Namespace, expires, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10), ms(time.Now()),
		strconv.Itoa(state.MaxSessionsPerToken), strconv.Itoa(groupBound(r.max, len(r.groups), g)),
	}})[0].Error()
	if err != nil {
		return "", ClassifyWrite("create a console session", err)
	}
	return id, nil
}

// Session returns a live session, or one of an earlier version. A key
// of an even earlier version, which held the token itself, is ended
// when read.
func (r *Sessions) Session(ctx context.Context, id string) (state.Session, bool, error) {
	if !state.ValidSessionID(id) {
		return state.Session{}, false, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	v, err := r.c.Do(ctx, r.c.B().Hget().Key(r.keys(r.groupOfID(id))[0]).Field(id).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return r.earlierSession(ctx, id)
	}
	if err != nil {
		return state.Session{}, false, Classify("read a console session", err)
	}
	f := strings.SplitN(v, " ", 4)
	if len(f) != 4 {
		return state.Session{}, false, nil
	}
	if end, err := strconv.ParseInt(f[1], 10, 64); err != nil || end <= time.Now().UnixMilli() {
		return state.Session{}, false, nil
	}
	s := state.Session{TokenHash: f[0], Namespace: f[3]}
	if e, err := strconv.ParseInt(f[2], 10, 64); err == nil && e > 0 {
		s.Expires = time.UnixMilli(e)
	}
	return s, true, nil
}

// earlierSession reads session id in an earlier version's key.
func (r *Sessions) earlierSession(ctx context.Context, id string) (state.Session, bool, error) {
	key := r.earlier + id
	vals, err := r.c.Do(ctx, r.c.B().Hmget().Key(key).Field("t", "n", "e").Build()).ToArray()
	if err != nil {
		if isWrongType(err) {
			return state.Session{}, false, Classify("end a console session of an earlier version", r.c.Do(ctx, r.c.B().Del().Key(key).Build()).Error())
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

// sessionDeleteScript ends session ARGV[1] of the group.
var sessionDeleteScript = newScript(`
local D, E, N, X = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local v = redis.call('HGET', D, ARGV[1])
if not v then return 0 end
redis.call('HDEL', D, ARGV[1])
redis.call('ZREM', E, ARGV[1])
local t, e = string.match(v, '^(%x+) (%d+) ')
if t and redis.call('ZREM', X, t .. ':' .. string.format('%015d', tonumber(e)) .. ':' .. ARGV[1]) == 1 then
  if tonumber(redis.call('ZINCRBY', N, -1, t)) <= 0 then redis.call('ZREM', N, t) end
end
return 1`)

// Delete ends a session (and an earlier version's key of its id).
func (r *Sessions) Delete(ctx context.Context, id string) error {
	if !state.ValidSessionID(id) {
		return nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := sessionDeleteScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: r.keys(r.groupOfID(id)), Args: []string{id}})[0].AsInt64()
	if err == nil && n == 0 {
		err = r.c.Do(ctx, r.c.B().Del().Key(r.earlier+id).Build()).Error()
	}
	return ClassifyWrite("end a console session", err)
}
