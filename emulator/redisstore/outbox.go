package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// The outbox of the result callbacks, kept per namespace (a tenant) so
// that no namespace costs another its deliveries or its turns:
//
//	cb:d       hash: transaction id -> {"n": namespace, "a": attempts, "t": lease token, "r": rearmed}
//	cb:o:{ns}  sorted set: the namespace's transaction ids, scored by when each is due (Unix ms; the lease's end while leased)
//	cb:l:{ns}  sorted set: its ids leased, scored by the lease's end
//	cb:c       sorted set: namespace, scored by its number of entries (the largest gives way when the outbox is full)
//	cb:w       sorted set: namespace waiting, scored by when it is looked at again (its first due, or its first lease's end)
//	cb:r       sorted set: namespace with an entry due, scored by the turn it was last served at (round robin)
//	cb:s       hash: namespace -> the turn it was last served at
//	cb:turn    the count of turns given
//
// A namespace is in at most one of cb:w and cb:r; one without entries in
// none, and its keys are gone. cb:q, the one sorted set of every
// namespace's ids that earlier versions kept, is emptied into the
// namespaces' sets by Claim.

// outboxKeys are the keys every outbox script takes, in this order.
func (r *Callbacks) outboxKeys() []string {
	p := r.prefix
	return []string{p + "cb:d", p + "cb:c", p + "cb:w", p + "cb:r", p + "cb:s", p + "cb:turn", p + "cb:q"}
}

// outboxLua begins every outbox script: the keys by name, a namespace's
// keys (under prefix ARGV[1]), and the two moves every change ends with.
const outboxLua = `
local D, C, W, R, S, TURN, LEGACY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local function oq(ns) return ARGV[1] .. 'cb:o:' .. ns end
local function lq(ns) return ARGV[1] .. 'cb:l:' .. ns end
-- place files ns after a change: forgotten once it has no entry; left
-- where it is when ready; else waiting until its first entry is due.
local function place(ns)
  local n = redis.call('ZCARD', oq(ns))
  if n == 0 then
    redis.call('ZREM', W, ns)
    redis.call('ZREM', R, ns)
    redis.call('ZREM', C, ns)
    redis.call('HDEL', S, ns)
    redis.call('DEL', lq(ns))
    return
  end
  redis.call('ZADD', C, n, ns)
  if not redis.call('ZSCORE', R, ns) then
    local head = redis.call('ZRANGE', oq(ns), 0, 0, 'WITHSCORES')
    redis.call('ZADD', W, head[2], ns)
  end
end
-- drop removes entry id of namespace ns.
local function drop(id, ns)
  redis.call('HDEL', D, id)
  redis.call('ZREM', oq(ns), id)
  redis.call('ZREM', lq(ns), id)
  place(ns)
end
`

// scheduleScript: ARGV id, namespace, due, now, most entries, most per
// namespace. {1, pushed id, its namespace} for a new entry (no pushed id
// when none was), {1} or {2} (rearmed) for one kept, {-2, n} beyond the
// namespace's share, {-1, n} when the outbox is full.
var scheduleScript = rueidis.NewLuaScript(outboxLua + `
local id, ns, due, now = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local v = redis.call('HGET', D, id)
if v then
  local e = cjson.decode(v)
  local cur = redis.call('ZSCORE', oq(e.n), id)
  if e.t ~= '' and cur and tonumber(cur) > now then
    e.r = 1
    redis.call('HSET', D, id, cjson.encode(e))
    return {2}
  end
  if not cur or due < tonumber(cur) then
    redis.call('ZADD', oq(e.n), due, id)
    place(e.n)
  end
  return {1}
end
local n = redis.call('ZCARD', oq(ns))
if n >= tonumber(ARGV[7]) then return {-2, n} end
local pushed, from = false, false
local total = redis.call('HLEN', D)
if total >= tonumber(ARGV[6]) then
  local top = redis.call('ZREVRANGE', C, 0, 0, 'WITHSCORES')
  if #top == 0 or tonumber(top[2]) <= n + 1 then return {-1, total} end
  local cands = redis.call('ZREVRANGE', oq(top[1]), 0, 63, 'WITHSCORES')
  for i = 1, #cands, 2 do
    local cv = redis.call('HGET', D, cands[i])
    if cv and (cjson.decode(cv).t == '' or tonumber(cands[i + 1]) <= now) then
      pushed = cands[i]
      break
    end
  end
  if not pushed then return {-1, total} end
  from = top[1]
  drop(pushed, from)
end
redis.call('HSET', D, id, cjson.encode({n = ns, a = 0, t = '', r = 0}))
redis.call('ZADD', oq(ns), due, id)
place(ns)
if pushed then return {1, pushed, from} end
return {1}`)

// Schedule adds or advances a delivery.
func (r *Callbacks) Schedule(ctx context.Context, d state.Delivery, now time.Time) (state.Delivery, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	vs, err := scheduleScript.Exec(ctx, r.c, r.outboxKeys(), []string{r.prefix, d.ID, d.Namespace, ms(d.Due), ms(now),
		strconv.Itoa(r.opt.Bounds.Outbox), strconv.Itoa(r.opt.Bounds.OutboxPerNamespace)}).ToArray()
	if err != nil {
		return state.Delivery{}, ClassifyWrite("schedule a result callback", err)
	}
	code, _ := vs[0].AsInt64()
	switch {
	case code == -2:
		n, _ := vs[1].AsInt64()
		return state.Delivery{}, fmt.Errorf("%w: %d of its deliveries wait", state.ErrCallbackQuota, n)
	case code == -1:
		n, _ := vs[1].AsInt64()
		return state.Delivery{}, fmt.Errorf("%w: the outbox is full (%d deliveries) and this token has as many waiting as any", state.ErrCallbackLimit, n)
	case len(vs) == 3:
		id, _ := vs[1].ToString()
		ns, _ := vs[2].ToString()
		return state.Delivery{ID: id, Namespace: ns}, nil
	}
	return state.Delivery{}, nil
}

// claimScript: ARGV now, the leases' end, most entries, token seed, most
// leased per namespace. It returns id, namespace, attempts, token for
// each entry leased.
var claimScript = rueidis.NewLuaScript(outboxLua + `
local now, untl, max, per = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[6])
local old = redis.call('ZRANGE', LEGACY, 0, 99, 'WITHSCORES')
for i = 1, #old, 2 do
  local v = redis.call('HGET', D, old[i])
  redis.call('ZREM', LEGACY, old[i])
  if v then
    local e = cjson.decode(v)
    redis.call('ZADD', oq(e.n), old[i + 1], old[i])
    place(e.n)
  end
end
for _, ns in ipairs(redis.call('ZRANGEBYSCORE', W, '-inf', now, 'LIMIT', 0, 256)) do
  redis.call('ZREM', W, ns)
  redis.call('ZADD', R, redis.call('HGET', S, ns) or 0, ns)
end
local out, n = {}, 0
for _ = 1, max * 4 + 64 do
  if n >= max then break end
  local ready = redis.call('ZRANGE', R, 0, 0)
  if #ready == 0 then break end
  local ns = ready[1]
  local head = redis.call('ZRANGE', oq(ns), 0, 0, 'WITHSCORES')
  redis.call('ZREMRANGEBYSCORE', lq(ns), '-inf', now)
  if #head == 0 or tonumber(head[2]) > now then
    redis.call('ZREM', R, ns)
    place(ns)
  elseif per > 0 and redis.call('ZCARD', lq(ns)) >= per then
    local first = redis.call('ZRANGE', lq(ns), 0, 0, 'WITHSCORES')
    redis.call('ZREM', R, ns)
    redis.call('ZADD', W, first[2], ns)
  else
    local id = head[1]
    local v = redis.call('HGET', D, id)
    if not v then
      redis.call('ZREM', oq(ns), id)
      place(ns)
    else
      n = n + 1
      local e = cjson.decode(v)
      e.t = ARGV[5] .. n
      e.r = 0
      redis.call('HSET', D, id, cjson.encode(e))
      redis.call('ZADD', oq(ns), untl, id)
      redis.call('ZADD', lq(ns), untl, id)
      local turn = redis.call('INCR', TURN)
      redis.call('HSET', S, ns, turn)
      redis.call('ZADD', R, turn, ns)
      out[#out + 1] = id
      out[#out + 1] = ns
      out[#out + 1] = tostring(e.a)
      out[#out + 1] = e.t
    end
  end
end
return out`)

// Claim leases the due deliveries, the namespaces in turn.
func (r *Callbacks) Claim(ctx context.Context, now time.Time, lease time.Duration, max, perNamespace int) ([]state.Delivery, error) {
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	until := now.Add(lease)
	vs, err := claimScript.Exec(ctx, r.c, r.outboxKeys(), []string{r.prefix, ms(now), ms(until), strconv.Itoa(max),
		hex.EncodeToString(seed[:]) + "-", strconv.Itoa(perNamespace)}).AsStrSlice()
	if err != nil {
		return nil, ClassifyWrite("claim result callbacks", err)
	}
	out := make([]state.Delivery, 0, len(vs)/4)
	for i := 0; i+3 < len(vs); i += 4 {
		attempt, _ := strconv.Atoi(vs[i+2])
		out = append(out, state.Delivery{ID: vs[i], Namespace: vs[i+1], Attempt: attempt, Token: vs[i+3], Due: until})
	}
	return out, nil
}

// releaseScript: ARGV id, token, due, attempts, now.
var releaseScript = rueidis.NewLuaScript(outboxLua + `
local v = redis.call('HGET', D, ARGV[2])
if not v then return 0 end
local e = cjson.decode(v)
if e.t ~= ARGV[3] then return 0 end
local due = ARGV[4]
if e.r == 1 then due = ARGV[6] end
e.t = ''
e.r = 0
e.a = tonumber(ARGV[5])
redis.call('HSET', D, ARGV[2], cjson.encode(e))
redis.call('ZADD', oq(e.n), due, ARGV[2])
redis.call('ZREM', lq(e.n), ARGV[2])
place(e.n)
return 1`)

// Release ends a lease.
func (r *Callbacks) Release(ctx context.Context, d state.Delivery, due, now time.Time) error {
	if d.Token == "" {
		return state.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := releaseScript.Exec(ctx, r.c, r.outboxKeys(),
		[]string{r.prefix, d.ID, d.Token, ms(due), strconv.Itoa(d.Attempt), ms(now)}).AsInt64()
	if err != nil {
		return ClassifyWrite("release a result callback", err)
	}
	if n == 0 {
		return state.ErrLeaseLost
	}
	return nil
}

// doneScript: ARGV id, token.
var doneScript = rueidis.NewLuaScript(outboxLua + `
local v = redis.call('HGET', D, ARGV[2])
if not v then return 0 end
local e = cjson.decode(v)
if e.t ~= ARGV[3] then return 0 end
drop(ARGV[2], e.n)
return 1`)

// Done removes a delivery.
func (r *Callbacks) Done(ctx context.Context, d state.Delivery) error {
	if d.Token == "" {
		return state.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	n, err := doneScript.Exec(ctx, r.c, r.outboxKeys(), []string{r.prefix, d.ID, d.Token}).AsInt64()
	if err != nil {
		return ClassifyWrite("finish a result callback", err)
	}
	if n == 0 {
		return state.ErrLeaseLost
	}
	return nil
}

// ms is t in Unix milliseconds, as a score.
func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
