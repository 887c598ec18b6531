package redisstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Sessions keeps the console's sessions in Redis, so every replica knows
// them and a restart keeps them: a hash per session (prefix "cs:" id:
// the token's keyed hash t, the namespace n, an access token's expiry e
// in Unix milliseconds or 0) with the session's time to live, a sorted
// set of each token's sessions ("csu:" token hash) and one of all
// ("csa"), each scored by when the session expires. One script opens a
// session and ends, atomically, the token's that expires first beyond
// emulator.MaxSessionsPerToken and the first of all beyond the bound; the
// sets live as long as their newest session.
type Sessions struct {
	c       rueidis.Client
	prefix  string
	max     int
	timeout time.Duration
}

var _ emulator.SessionStore = (*Sessions)(nil)

// SessionsOptions set up Sessions.
type SessionsOptions struct {
	// Prefix of every key; DefaultPrefix when empty.
	Prefix string
	// Max bounds the sessions of all tokens; emulator.DefaultMaxSessions
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
		opt.Max = emulator.DefaultMaxSessions
	}
	return &Sessions{c: c, prefix: opt.Prefix, max: opt.Max, timeout: opt.Timeout}, nil
}

func (r *Sessions) key(id string) string { return r.prefix + "cs:" + id }
func (r *Sessions) allKey() string       { return r.prefix + "csa" }

// sessionCreateScript opens session ARGV[1] (KEYS[1]) of token hash ARGV[2]
// (its set KEYS[2]; KEYS[3] holds every session): namespace ARGV[3],
// expiry ARGV[4], for ARGV[5] ms from now ARGV[6]. Beyond ARGV[7]
// sessions of the token, or ARGV[8] of all, the one that expires first
// ends (its key under ARGV[9], its token's set under ARGV[10]).
var sessionCreateScript = rueidis.NewLuaScript(`
local now, ttl = tonumber(ARGV[6]), tonumber(ARGV[5])
local ends = now + ttl
local function finish(id)
  local t = redis.call('HGET', ARGV[9] .. id, 't')
  redis.call('DEL', ARGV[9] .. id)
  redis.call('ZREM', KEYS[3], id)
  if t then redis.call('ZREM', ARGV[10] .. t, id) end
end
for _, set in ipairs({KEYS[2], KEYS[3]}) do
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', now)) do finish(id); redis.call('ZREM', set, id) end
end
local function bound(set, max)
  while redis.call('ZCARD', set) >= max do
    local first = redis.call('ZRANGE', set, 0, 0)[1]
    finish(first)
    redis.call('ZREM', set, first)
  end
end
bound(KEYS[2], tonumber(ARGV[7]))
bound(KEYS[3], tonumber(ARGV[8]))
redis.call('HSET', KEYS[1], 't', ARGV[2], 'n', ARGV[3], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
for _, set in ipairs({KEYS[2], KEYS[3]}) do
  redis.call('ZADD', set, ends, ARGV[1])
  if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
end
return 1`)

// Create opens a session.
func (r *Sessions) Create(ctx context.Context, s emulator.Session, ttl time.Duration) (string, error) {
	if !emulator.ValidTokenHash(s.TokenHash) {
		return "", errors.New("redisstore: a console session needs the keyed hash of its token")
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	id := emulator.NewSessionID()
	expires := "0"
	if !s.Expires.IsZero() {
		expires = strconv.FormatInt(s.Expires.UnixMilli(), 10)
	}
	err := sessionCreateScript.Exec(ctx, r.c, []string{r.key(id), r.prefix + "csu:" + s.TokenHash, r.allKey()}, []string{
		id, s.TokenHash, s.Namespace, expires, strconv.FormatInt(max(ttl.Milliseconds(), 1), 10), ms(time.Now()),
		strconv.Itoa(emulator.MaxSessionsPerToken), strconv.Itoa(r.max), r.prefix + "cs:", r.prefix + "csu:",
	}).Error()
	if err != nil {
		return "", ClassifyWrite("create a console session", err)
	}
	return id, nil
}

// Session returns a live session. A key of an earlier version, which
// held the token itself, is ended when read.
func (r *Sessions) Session(ctx context.Context, id string) (emulator.Session, bool, error) {
	if !emulator.ValidSessionID(id) {
		return emulator.Session{}, false, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	vals, err := r.c.Do(ctx, r.c.B().Hmget().Key(r.key(id)).Field("t", "n", "e").Build()).ToArray()
	if err != nil {
		if isWrongType(err) {
			return emulator.Session{}, false, Classify("end a console session of an earlier version", r.c.Do(ctx, r.c.B().Del().Key(r.key(id)).Build()).Error())
		}
		return emulator.Session{}, false, Classify("read a console session", err)
	}
	var f [3]string
	for i := range min(len(vals), len(f)) {
		f[i], _ = vals[i].ToString() // nil: no such session
	}
	if f[0] == "" {
		return emulator.Session{}, false, nil
	}
	s := emulator.Session{TokenHash: f[0], Namespace: f[1]}
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
// set of all (KEYS[2]) and of its token's (under ARGV[2]).
var sessionDeleteScript = rueidis.NewLuaScript(`
local t = redis.call('HGET', KEYS[1], 't')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if t then redis.call('ZREM', ARGV[2] .. t, ARGV[1]) end
return 1`)

// Delete ends a session.
func (r *Sessions) Delete(ctx context.Context, id string) error {
	if !emulator.ValidSessionID(id) {
		return nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	err := sessionDeleteScript.Exec(ctx, r.c, []string{r.key(id), r.allKey()}, []string{id, r.prefix + "csu:"}).Error()
	if isWrongType(err) {
		err = r.c.Do(ctx, r.c.B().Del().Key(r.key(id)).Build()).Error()
	}
	return ClassifyWrite("end a console session", err)
}
