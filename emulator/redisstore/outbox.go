package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// The outbox of the result callbacks, kept per namespace (a tenant) so
// that no namespace costs another its deliveries or its turns. On a
// cluster it is split into slot groups (outboxGroups, "{cb<i>}" after
// the prefix), a namespace's entries all in one, chosen by its name
// (groupOf); on a single Redis it is one group under the prefix:
//
//	cb:d       hash: transaction id -> {"n": namespace, "a": attempts, "t": lease token, "r": rearmed}
//	cb:o:<ns>  sorted set: the namespace's transaction ids, scored by when each is due (Unix ms; the lease's end while leased)
//	cb:l:<ns>  sorted set: its ids leased, scored by the lease's end
//	cb:c       sorted set: namespace, scored by its number of entries (the largest gives way when the group is full)
//	cb:w       sorted set: namespace waiting, scored by when it is looked at again (its first due, or its first lease's end)
//	cb:r       sorted set: namespace with an entry due, scored by the turn it was last served at
//	cb:s       hash: namespace -> the turn it was last served at
//
// A turn is the claim's clock in Unix ms times 1000 plus the place of
// the delivery in that claim, so that turns of every group compare (an
// earlier version counted them in cb:turn). A namespace is in at most
// one of cb:w and cb:r; one without entries in none, and its keys are
// gone. cb:q, the one sorted set of every namespace's ids that earlier
// versions kept, is emptied into the namespaces' sets by Claim.
//
// Every script is given every key it touches (KEYS): the group's, then
// a namespace's two sets for each namespace it names in ARGV. A script
// finding it needs another namespace's sets (the largest namespace, to
// push out one of its entries; the namespace an entry was scheduled
// under) answers {-3, namespace} before it changes anything, and is
// called again with them.

// outboxGroupKeys are the keys of group g that every outbox script
// takes first, in this order.
func (r *Callbacks) outboxGroupKeys(g int) []string {
	p := r.groups[g]
	return []string{p + "cb:d", p + "cb:c", p + "cb:w", p + "cb:r", p + "cb:s", p + "cb:q"}
}

// outboxKeys are the keys of group g followed by the two sets of each
// namespace of spaces.
func (r *Callbacks) outboxKeys(g int, spaces ...string) []string {
	keys := r.outboxGroupKeys(g)
	p := r.groups[g]
	for _, ns := range spaces {
		keys = append(keys, p+"cb:o:"+ns, p+"cb:l:"+ns)
	}
	return keys
}

// outboxGroup is the group of namespace ns.
func (r *Callbacks) outboxGroup(ns string) int { return groupOf(ns, len(r.groups)) }

// outboxLua begins every outbox script: the group's keys by name, the
// namespaces whose sets the script was given (ARGV[1] of them, named
// from ARGV[2] on; their sets KEYS[7] on), and the moves every change
// ends with.
const outboxLua = `
local D, C, W, R, S, LEGACY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local given, A = {}, 2 + tonumber(ARGV[1])
for i = 1, tonumber(ARGV[1]) do given[ARGV[1 + i]] = i end
local function has(ns) return given[ns] ~= nil end
local function oq(ns) return KEYS[5 + 2 * given[ns]] end
local function lq(ns) return KEYS[6 + 2 * given[ns]] end
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

// outboxExec runs script s on group g, given the sets of namespace ns
// and of those the script asks for (a reply {-3, namespace}), at most
// three more, and answers the script's last reply.
func (r *Callbacks) outboxExec(ctx context.Context, s *script, g int, args []string, spaces ...string) ([]rueidis.RedisMessage, error) {
	for range 4 {
		argv := append(append([]string{strconv.Itoa(len(spaces))}, spaces...), args...)
		vs, err := s.execMulti(ctx, r.c, rueidis.LuaExec{Keys: r.outboxKeys(g, spaces...), Args: argv})[0].ToArray()
		if err != nil {
			return nil, err
		}
		if code, _ := vs[0].AsInt64(); code != -3 || len(vs) < 2 {
			return vs, nil
		}
		ns, _ := vs[1].ToString()
		spaces = append(spaces, ns)
	}
	return nil, fmt.Errorf("the outbox kept changing")
}

// scheduleScript: ARGV (after the namespaces) id, namespace, due, now,
// most entries of the group, most per namespace. {1, pushed id, its
// namespace} for a new entry (no pushed id when none was), {1} or {2}
// (rearmed) for one kept, {-2, n} beyond the namespace's share, {-1, n}
// when the group is full, {-3, namespace} for another's sets.
var scheduleScript = newScript(outboxLua + `
local id, ns, due, now = ARGV[A], ARGV[A + 1], tonumber(ARGV[A + 2]), tonumber(ARGV[A + 3])
local v = redis.call('HGET', D, id)
if v then
  local e = cjson.decode(v)
  if not has(e.n) then return {-3, e.n} end
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
if n >= tonumber(ARGV[A + 5]) then return {-2, n} end
local pushed, from = false, false
local total = redis.call('HLEN', D)
if total >= tonumber(ARGV[A + 4]) then
  local top = redis.call('ZREVRANGE', C, 0, 0, 'WITHSCORES')
  if #top == 0 or tonumber(top[2]) <= n + 1 then return {-1, total} end
  if not has(top[1]) then return {-3, top[1]} end
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
	g := r.outboxGroup(d.Namespace)
	vs, err := r.outboxExec(ctx, scheduleScript, g, []string{d.ID, d.Namespace, ms(d.Due), ms(now),
		strconv.Itoa(groupBound(r.opt.Bounds.Outbox, len(r.groups), g)), strconv.Itoa(r.opt.Bounds.OutboxPerNamespace)}, d.Namespace)
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

// readyScript: ARGV (after no namespace) now, most namespaces. It moves
// the group's waiting namespaces due at now to the ready ones and
// answers the count of namespaces whose entries cb:q of an earlier
// version still holds, those namespaces, then the first ready
// namespaces, each followed by the turn it was last served at.
var readyScript = newScript(outboxLua + `
local now, most = ARGV[A], tonumber(ARGV[A + 1])
local out, seen = {0}, {}
for _, id in ipairs(redis.call('ZRANGE', LEGACY, 0, 99)) do
  local v = redis.call('HGET', D, id)
  if v then
    local ns = cjson.decode(v).n
    if not seen[ns] then
      seen[ns] = true
      out[1] = out[1] + 1
      out[#out + 1] = ns
    end
  else
    redis.call('ZREM', LEGACY, id)
  end
end
for _, ns in ipairs(redis.call('ZRANGEBYSCORE', W, '-inf', now, 'LIMIT', 0, 256)) do
  redis.call('ZREM', W, ns)
  redis.call('ZADD', R, redis.call('HGET', S, ns) or 0, ns)
end
for _, x in ipairs(redis.call('ZRANGE', R, 0, most - 1, 'WITHSCORES')) do out[#out + 1] = x end
out[1] = tostring(out[1])
return out`)

// legacyScript moves the entries of cb:q, which an earlier version kept,
// of the namespaces it is given to their namespaces' sets.
var legacyScript = newScript(outboxLua + `
local old = redis.call('ZRANGE', LEGACY, 0, 99, 'WITHSCORES')
for i = 1, #old, 2 do
  local v = redis.call('HGET', D, old[i])
  if not v then
    redis.call('ZREM', LEGACY, old[i])
  else
    local e = cjson.decode(v)
    if has(e.n) then
      redis.call('ZREM', LEGACY, old[i])
      redis.call('ZADD', oq(e.n), old[i + 1], old[i])
      place(e.n)
    end
  end
end
return {1}`)

// claimScript: ARGV (after the namespaces, in the order they are
// served) now, the leases' end, token seed, most leased per namespace,
// then the turns to give, one per delivery at most. It serves the
// namespaces in turn, one entry each, while turns are left: a namespace
// no longer ready, without an entry due or with its most leased leaves
// the round. It returns id, namespace, attempts, token for each entry
// leased.
var claimScript = newScript(outboxLua + `
local now, untl, per = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 3])
local turns = {}
for i = A + 4, #ARGV do turns[#turns + 1] = ARGV[i] end
local round = {}
for i = 1, tonumber(ARGV[1]) do round[i] = ARGV[1 + i] end
local out, n, at = {}, 0, 1
for _ = 1, #turns * 4 + 64 do
  if n >= #turns or #round == 0 then break end
  if at > #round then at = 1 end
  local ns, served = round[at], false
  if redis.call('ZSCORE', R, ns) then
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
      served = true
      if not v then
        redis.call('ZREM', oq(ns), id)
        place(ns)
      else
        n = n + 1
        local e = cjson.decode(v)
        e.t = ARGV[A + 2] .. n
        e.r = 0
        redis.call('HSET', D, id, cjson.encode(e))
        redis.call('ZADD', oq(ns), untl, id)
        redis.call('ZADD', lq(ns), untl, id)
        redis.call('HSET', S, ns, turns[n])
        redis.call('ZADD', R, turns[n], ns)
        out[#out + 1] = id
        out[#out + 1] = ns
        out[#out + 1] = tostring(e.a)
        out[#out + 1] = e.t
        at = at + 1
      end
    end
  end
  if not served then table.remove(round, at) end
end
return out`)

// Claim leases the due deliveries, the namespaces in turn. It reads the
// ready namespaces of every group with their last turns (readyScript,
// every group in one round trip), orders them by that turn (of equal
// ones, by name), and gives the max deliveries out one per namespace
// in that order, round after round, as one script would over one set:
// each group's claimScript then serves its namespaces in that order for
// the turns it got (a second round trip). A group whose namespaces run
// out of entries leaves turns unused; Claim then asks again, at most
// four times in all.
func (r *Callbacks) Claim(ctx context.Context, now time.Time, lease time.Duration, max, perNamespace int) ([]state.Delivery, error) {
	if max <= 0 {
		return nil, nil
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	until := now.Add(lease)
	out := make([]state.Delivery, 0, max)
	turn := now.UnixMilli() * 1000
	for range 4 {
		left := max - len(out)
		if left <= 0 {
			break
		}
		ready, err := r.ready(ctx, now, left)
		if err != nil {
			return claimed(out, err)
		}
		if len(ready) == 0 {
			break
		}
		// Deal the turns: the i-th delivery to the i-th namespace of the
		// order, round after round.
		type plan struct {
			spaces []string
			turns  []string
		}
		plans := map[int]*plan{}
		var order []int
		for i := range left {
			c := ready[i%len(ready)]
			p := plans[c.group]
			if p == nil {
				p = &plan{}
				plans[c.group] = p
				order = append(order, c.group)
			}
			if i < len(ready) {
				p.spaces = append(p.spaces, c.ns)
			}
			p.turns = append(p.turns, strconv.FormatInt(turn+int64(min(len(out)+i, 999)), 10))
		}
		execs := make([]rueidis.LuaExec, len(order))
		for k, g := range order {
			p := plans[g]
			args := append([]string{strconv.Itoa(len(p.spaces))}, p.spaces...)
			token := hex.EncodeToString(seed[:]) + "-" + strconv.Itoa(len(out)) + "." + strconv.Itoa(g) + "-"
			args = append(args, ms(now), ms(until), token, strconv.Itoa(perNamespace))
			args = append(args, p.turns...)
			execs[k] = rueidis.LuaExec{Keys: r.outboxKeys(g, p.spaces...), Args: args}
		}
		got := 0
		var failed error
		for _, res := range claimScript.execMulti(ctx, r.c, execs...) {
			vs, err := res.AsStrSlice()
			if err != nil {
				failed = cmp.Or(failed, ClassifyWrite("claim result callbacks", err))
				continue
			}
			for i := 0; i+3 < len(vs); i += 4 {
				attempt, _ := strconv.Atoi(vs[i+2])
				out = append(out, state.Delivery{ID: vs[i], Namespace: vs[i+1], Attempt: attempt, Token: vs[i+3], Due: until})
				got++
			}
		}
		if failed != nil {
			return claimed(out, failed)
		}
		if got == left || got == 0 {
			break
		}
	}
	return out, nil
}

// claimed answers what a Claim leased before it failed with err: those
// deliveries, to be made (they are leased; the failure shows again at
// the next Claim); err when none.
func claimed(out []state.Delivery, err error) ([]state.Delivery, error) {
	if len(out) > 0 {
		return out, nil
	}
	return nil, err
}

// readyNS is a ready namespace, its group, and the turn it was last
// served at.
type readyNS struct {
	ns    string
	group int
	turn  float64
}

// ready moves every group's namespaces due at now to the ready ones (and
// an earlier version's cb:q to the namespaces' sets), and answers at
// most most of each group's ready namespaces, the one served longest
// ago first (of equal turns, by name).
func (r *Callbacks) ready(ctx context.Context, now time.Time, most int) ([]readyNS, error) {
	execs := make([]rueidis.LuaExec, len(r.groups))
	for g := range r.groups {
		execs[g] = rueidis.LuaExec{Keys: r.outboxKeys(g), Args: []string{"0", ms(now), strconv.Itoa(most)}}
	}
	var out []readyNS
	for g, res := range readyScript.execMulti(ctx, r.c, execs...) {
		vs, err := res.AsStrSlice()
		if err != nil {
			return nil, ClassifyWrite("claim result callbacks", err)
		}
		legacy, _ := strconv.Atoi(vs[0])
		if legacy > 0 {
			// Once moved, the namespaces are read again, ready at once.
			if _, err := r.outboxExec(ctx, legacyScript, g, nil, vs[1:1+legacy]...); err != nil {
				return nil, ClassifyWrite("claim result callbacks", err)
			}
			if vs, err = readyScript.execMulti(ctx, r.c, execs[g])[0].AsStrSlice(); err != nil {
				return nil, ClassifyWrite("claim result callbacks", err)
			}
			legacy, _ = strconv.Atoi(vs[0])
		}
		for i := 1 + legacy; i+1 < len(vs); i += 2 {
			t, _ := strconv.ParseFloat(vs[i+1], 64)
			out = append(out, readyNS{ns: vs[i], group: g, turn: t})
		}
	}
	slices.SortFunc(out, func(a, b readyNS) int { return cmp.Or(cmp.Compare(a.turn, b.turn), cmp.Compare(a.ns, b.ns)) })
	return out, nil
}

// releaseScript: ARGV (after the namespaces) id, token, due, attempts,
// now.
var releaseScript = newScript(outboxLua + `
local v = redis.call('HGET', D, ARGV[A])
if not v then return {0} end
local e = cjson.decode(v)
if e.t ~= ARGV[A + 1] then return {0} end
if not has(e.n) then return {-3, e.n} end
local due = ARGV[A + 2]
if e.r == 1 then due = ARGV[A + 4] end
e.t = ''
e.r = 0
e.a = tonumber(ARGV[A + 3])
redis.call('HSET', D, ARGV[A], cjson.encode(e))
redis.call('ZADD', oq(e.n), due, ARGV[A])
redis.call('ZREM', lq(e.n), ARGV[A])
place(e.n)
return {1}`)

// Release ends a lease.
func (r *Callbacks) Release(ctx context.Context, d state.Delivery, due, now time.Time) error {
	if d.Token == "" {
		return state.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	vs, err := r.outboxExec(ctx, releaseScript, r.outboxGroup(d.Namespace),
		[]string{d.ID, d.Token, ms(due), strconv.Itoa(d.Attempt), ms(now)}, d.Namespace)
	if err != nil {
		return ClassifyWrite("release a result callback", err)
	}
	if n, _ := vs[0].AsInt64(); n != 1 {
		return state.ErrLeaseLost
	}
	return nil
}

// doneScript: ARGV (after the namespaces) id, token.
var doneScript = newScript(outboxLua + `
local v = redis.call('HGET', D, ARGV[A])
if not v then return {0} end
local e = cjson.decode(v)
if e.t ~= ARGV[A + 1] then return {0} end
if not has(e.n) then return {-3, e.n} end
drop(ARGV[A], e.n)
return {1}`)

// Done removes a delivery.
func (r *Callbacks) Done(ctx context.Context, d state.Delivery) error {
	if d.Token == "" {
		return state.ErrLeaseLost
	}
	ctx, cancel := bounded(ctx, r.timeout)
	defer cancel()
	vs, err := r.outboxExec(ctx, doneScript, r.outboxGroup(d.Namespace), []string{d.ID, d.Token}, d.Namespace)
	if err != nil {
		return ClassifyWrite("finish a result callback", err)
	}
	if n, _ := vs[0].AsInt64(); n != 1 {
		return state.ErrLeaseLost
	}
	return nil
}

// ms is t in Unix milliseconds, as a score.
func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
