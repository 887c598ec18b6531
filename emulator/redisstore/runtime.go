package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Defaults of RuntimeOptions.
const (
	// DefaultRevalidate is how long a replica uses a namespace's runtime
	// scenarios before it checks their version again: a change made on
	// another replica is seen within it.
	DefaultRevalidate = 500 * time.Millisecond
	// maxCached bounds the namespaces of each of a replica's caches (the
	// runtime scenarios it keeps parsed, the namespaces' states, the
	// callback URLs); beyond it a cache starts afresh.
	maxCached = 10000
)

// RuntimeOptions set up a Runtime.
type RuntimeOptions struct {
	// Prefix begins every key; DefaultPrefix when empty.
	Prefix string
	// Timeout bounds every call; DefaultTimeout when zero.
	Timeout time.Duration
	// Revalidate is how long a namespace's cached scenarios are used
	// before their version is checked; DefaultRevalidate when zero.
	Revalidate time.Duration
	// Limits bound what the namespaces hold; zero fields take the
	// scenarios package's defaults.
	Limits scenarios.RuntimeLimits
}

// Runtime is the state.RuntimeScenarios in Redis: every replica sees
// the scenarios any replica added, within Revalidate. At the total of
// every namespace's bytes, the namespace holding the most gives way its
// oldest scenarios, as in memory (addScript).
type Runtime struct {
	c      rueidis.Client
	opt    RuntimeOptions
	groups []string // the slot groups' prefixes
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]*cachedSet
}

// cachedSet is a namespace's runtime scenarios as this replica parsed them.
type cachedSet struct {
	version int64
	list    []scenarios.Scenario
	cat     *scenarios.Catalogue // nil when the namespace has none
	checked time.Time
}

var _ state.RuntimeScenarios = (*Runtime)(nil)

// NewRuntime returns the runtime scenarios kept over client c.
func NewRuntime(c rueidis.Client, opt RuntimeOptions) (*Runtime, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewRuntime needs a client")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Revalidate <= 0 {
		opt.Revalidate = DefaultRevalidate
	}
	opt.Limits = opt.Limits.WithDefaults()
	// On a cluster the runtime scenarios are split into slot groups
	// ({rs<i>}), a namespace's all in one, as many as each hold a
	// namespace's bytes and 64 namespaces (at most 16): each group keeps
	// its part of the total and of the namespaces, and makes room in its
	// own namespaces, atomically. A single Redis keeps one group.
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	r := &Runtime{c: c, opt: opt, now: time.Now, cache: map[string]*cachedSet{}}
	r.groups = make([]string, min(ks.groupCount(opt.Limits.MaxTotalBytes, opt.Limits.MaxBytes), ks.groupCount(opt.Limits.MaxNamespaces, 64)))
	for i := range r.groups {
		r.groups[i] = ks.groupN("rs", i)
	}
	return r, nil
}

// keys of a namespace: its scenarios, their selector keys, its version,
// its bytes, the set of namespaces, the bytes of every namespace, and the
// namespaces by their bytes (a sorted set, which finds the one holding
// the most).
func (r *Runtime) keys(ns string) []string {
	p := r.groups[r.group(ns)]
	return []string{p + "s:" + ns, p + "sk:" + ns, p + "sv:" + ns, p + "sb:" + ns, p + "sns", p + "sbt", p + "sbz"}
}

// group is the slot group of namespace ns.
func (r *Runtime) group(ns string) int { return groupOf(ns, len(r.groups)) }

// A stored scenario is one hash field, id -> value:
//
//	16 digits   its order: the namespace's version when it was added, then its place in that addition
//	5 digits    the length of its selector key, then the key
//	the rest    its document (Scenario.Document)

// addScript adds scenarios all at once or not at all, checking the
// bounds and that neither an id nor a selector is taken. It checks what
// scenarios.RuntimeLimits.Check and scenarios.Taken check, in one atomic
// step, and answers the rule broken by its name (scenarios.RuntimeRule,
// spliced in below) with the usage it found, which Add turns into the
// same error as the memory store's: {rule, namespaces, scenarios, bytes,
// total bytes, adding bytes, id, other}. At the total it makes room as
// scenarios.RuntimeLimits.Room and the memory store do: the namespace
// holding the most (of equal ones, the first in byte order, as package
// fairshare chooses) loses its oldest scenario, again and again, when
// those holding more than the adding one would can free enough; each
// namespace giving way gets a new version, so that every replica reads
// it again, and is answered after 'ok'.
//
// Its keys: the namespace's four (KEYS[1] to KEYS[4]), the group's three
// (KEYS[5] to KEYS[7]), then the four of each namespace named from
// ARGV[8] on (ARGV[7] of them). It plans the room it makes on what it
// reads before it changes anything, and a namespace it would read or
// change without its keys given is answered as {'need', namespaces...},
// nothing changed (but the sorted set of bytes completed), for Add to
// call it again with them.
var addScript = newScript(strings.NewReplacer(
	"RULE_NAMESPACES", string(scenarios.RuleNamespaces), "RULE_COUNT", string(scenarios.RuleCount),
	"RULE_BYTES", string(scenarios.RuleBytes), "RULE_TOTAL", string(scenarios.RuleTotal),
	"RULE_ID", string(scenarios.RuleID), "RULE_SELECTOR", string(scenarios.RuleSelector),
).Replace(dropLua + `
local ns, maxScenarios, maxNamespaces, maxBytes, n, maxTotal = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local given, B = {[ARGV[1]] = 1}, 8 + tonumber(ARGV[7])
for i = 1, tonumber(ARGV[7]) do given[ARGV[7 + i]] = 4 + 4 * i end
local function key(space, j) return KEYS[given[space] + j] end
local have = redis.call('HLEN', KEYS[1])
local spaces = redis.call('SCARD', KEYS[5])
local bytes = tonumber(redis.call('GET', KEYS[4]) or '0')
local total = tonumber(redis.call('GET', KEYS[6]) or '0')
local adding = 0
for i = 0, n - 1 do adding = adding + #ARGV[B + 2 + 3 * i] end
local function refuse(rule, id, other)
  return {rule, tostring(spaces), tostring(have), tostring(bytes), tostring(total), tostring(adding), id or '', other or ''}
end
if have == 0 and spaces >= maxNamespaces then return refuse('RULE_NAMESPACES') end
if have + n > maxScenarios then return refuse('RULE_COUNT') end
if bytes + adding > maxBytes then return refuse('RULE_BYTES') end
for i = 0, n - 1 do
  local id, k = ARGV[B + 3 * i], ARGV[B + 1 + 3 * i]
  if redis.call('HEXISTS', KEYS[1], id) == 1 then return refuse('RULE_ID', id) end
  local other = redis.call('HGET', KEYS[2], k)
  if other then return refuse('RULE_SELECTOR', id, other) end
end
local need, after, gave = total + adding - maxTotal, bytes + adding, {'ok'}
if need > 0 then
  if redis.call('ZCARD', KEYS[7]) < spaces then -- some kept by an earlier version: count their bytes once
    local want = {'need'}
    for _, space in ipairs(redis.call('SMEMBERS', KEYS[5])) do
      if not redis.call('ZSCORE', KEYS[7], space) then
        if given[space] then
          redis.call('ZADD', KEYS[7], tonumber(redis.call('GET', key(space, 3)) or '0'), space)
        elseif #want <= 256 then
          want[#want + 1] = space
        end
      end
    end
    if #want > 1 then return want end
  end
  local excess, offset = 0, 0
  while excess < need do
    local batch = redis.call('ZREVRANGEBYSCORE', KEYS[7], '+inf', '(' .. after, 'WITHSCORES', 'LIMIT', offset, 64)
    if #batch == 0 then break end
    for i = 2, #batch, 2 do
      if batch[i - 1] ~= ns then excess = excess + tonumber(batch[i]) - after end
    end
    offset = offset + 64
  end
  if excess < need then return refuse('RULE_TOTAL') end
  -- The plan, on what is read: score holds the bytes a namespace will
  -- keep once it gave way (false: nothing left to give).
  local score, lists, loaded, plan, left = {}, {}, {}, {}, need
  local function better(space, s, best, bs) return not best or s > bs or (s == bs and space < best) end
  while left > 0 do
    local best, bs
    for space, s in pairs(score) do
      if s and better(space, s, best, bs) then best, bs = space, s end
    end
    local off, stop = 0, false
    while not stop do
      local batch = redis.call('ZREVRANGEBYSCORE', KEYS[7], '+inf', '-inf', 'WITHSCORES', 'LIMIT', off, 64)
      if #batch == 0 then break end
      for i = 2, #batch, 2 do
        local space, s = batch[i - 1], tonumber(batch[i])
        if best and s < bs then stop = true break end
        if score[space] == nil and better(space, s, best, bs) then best, bs = space, s end
      end
      off = off + 64
    end
    if not best then break end
    if not given[best] then
      local want = {'need', best}
      for _, space in ipairs(redis.call('ZREVRANGEBYSCORE', KEYS[7], '+inf', '(' .. after, 'LIMIT', 0, 64)) do
        if not given[space] and space ~= best then want[#want + 1] = space end
      end
      return want
    end
    local list = lists[best]
    if not list then
      list = {}
      local all = redis.call('HGETALL', key(best, 0))
      for i = 1, #all, 2 do table.insert(list, {all[i], all[i + 1]}) end
      table.sort(list, function(a, b) return string.sub(a[2], 1, 16) < string.sub(b[2], 1, 16) end)
      list.next = 1
      lists[best] = list
      table.insert(loaded, best)
    end
    local first = list[list.next]
    if not first then
      score[best] = false
      table.insert(plan, {best})
    else
      list.next = list.next + 1
      local size = #first[2] - 21 - tonumber(string.sub(first[2], 17, 21))
      score[best] = bs - size
      left = left - size
      table.insert(plan, {best, first[1], first[2]})
    end
  end
  for _, space in ipairs(loaded) do
    redis.call('INCR', key(space, 2))
    table.insert(gave, space)
  end
  for _, d in ipairs(plan) do
    if d[2] then drop(key(d[1], 0), key(d[1], 1), key(d[1], 3), d[1], d[2], d[3]) else redis.call('ZREM', KEYS[7], d[1]) end
  end
end
local v = redis.call('INCR', KEYS[3])
for i = 0, n - 1 do
  local id, k, doc = ARGV[B + 3 * i], ARGV[B + 1 + 3 * i], ARGV[B + 2 + 3 * i]
  redis.call('HSET', KEYS[1], id, string.format('%012d%04d%05d', v, i, #k) .. k .. doc)
  redis.call('HSET', KEYS[2], k, id)
end
redis.call('ZADD', KEYS[7], redis.call('INCRBY', KEYS[4], adding), ns)
redis.call('INCRBY', KEYS[6], adding)
redis.call('SADD', KEYS[5], ns)
return gave`))

// Add parses doc and adds its scenarios to namespace ns, all at once or
// not at all.
func (r *Runtime) Add(ctx context.Context, ns string, doc []byte) ([]scenarios.Scenario, error) {
	added, err := scenarios.ParseRuntime(doc)
	if err != nil {
		return nil, err
	}
	// The group's part of the bounds over every namespace; its refusals
	// say them.
	lim, g := r.opt.Limits, r.group(ns)
	lim.MaxNamespaces = groupBound(lim.MaxNamespaces, len(r.groups), g)
	lim.MaxTotalBytes = groupBound(lim.MaxTotalBytes, len(r.groups), g)
	args := []string{ns, strconv.Itoa(lim.MaxScenarios), strconv.Itoa(lim.MaxNamespaces),
		strconv.Itoa(lim.MaxBytes), strconv.Itoa(len(added)), strconv.Itoa(lim.MaxTotalBytes)}
	var triples []string
	for i := range added {
		triples = append(triples, added[i].ID, added[i].SelectorKey(), string(added[i].Document()))
	}
	ctx, cancel := bounded(ctx, r.opt.Timeout)
	defer cancel()
	var given []string
	var reply []string
	for range 64 {
		keys := r.keys(ns)
		for _, space := range given {
			keys = append(keys, r.keys(space)[:4]...)
		}
		argv := append(append(append(slices.Clip(args), strconv.Itoa(len(given))), given...), triples...)
		reply, err = addScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: keys, Args: argv})[0].AsStrSlice()
		if err != nil {
			return nil, ClassifyWrite("add runtime scenarios", err)
		}
		if len(reply) == 0 || reply[0] != "need" {
			break
		}
		given = append(given, reply[1:]...)
	}
	r.forget(ns)
	if len(reply) > 0 && reply[0] == "ok" {
		r.forget(reply[1:]...) // the namespaces that gave way
		return added, nil
	}
	if len(reply) != 8 {
		return nil, fmt.Errorf("redisstore: add runtime scenarios: unexpected reply %q", reply)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	return nil, lim.Err(&scenarios.RuntimeRefusal{
		Rule: scenarios.RuntimeRule(reply[0]),
		Usage: scenarios.RuntimeUsage{Namespaces: num(reply[1]), Scenarios: num(reply[2]), Bytes: num(reply[3]),
			TotalBytes: num(reply[4]), Adding: len(added), AddingBytes: num(reply[5])},
		ID: reply[6], Other: reply[7],
	})
}

// dropLua defines drop, which the scripts below share: it removes
// scenario id, stored as val, of namespace space (its hash set, its
// selector keys and its bytes), counts it out of the bytes of every
// namespace (KEYS[6]) and of the namespaces by their bytes (KEYS[7]),
// takes space out of the namespaces (KEYS[5]) when it was its last, and
// answers the size of its document.
const dropLua = `
local function drop(set, selectors, bytes, space, id, val)
  local kl = tonumber(string.sub(val, 17, 21))
  local size = #val - 21 - kl
  redis.call('HDEL', set, id)
  redis.call('HDEL', selectors, string.sub(val, 22, 21 + kl))
  redis.call('DECRBY', KEYS[6], size)
  if redis.call('HLEN', set) == 0 then
    redis.call('SREM', KEYS[5], space)
    redis.call('DEL', bytes, selectors)
    redis.call('ZREM', KEYS[7], space)
  else
    redis.call('ZADD', KEYS[7], redis.call('DECRBY', bytes, size), space)
  end
  return size
end
`

// deleteScript removes one scenario and its selector key.
var deleteScript = newScript(dropLua + `
local val = redis.call('HGET', KEYS[1], ARGV[2])
if not val then return 0 end
drop(KEYS[1], KEYS[2], KEYS[4], ARGV[1], ARGV[2], val)
redis.call('INCR', KEYS[3])
return 1`)

// Delete removes the scenario id of namespace ns and reports whether it
// was there.
func (r *Runtime) Delete(ctx context.Context, ns, id string) (bool, error) {
	ctx, cancel := bounded(ctx, r.opt.Timeout)
	defer cancel()
	n, err := deleteScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: r.keys(ns), Args: []string{ns, id}})[0].AsInt64()
	if err != nil {
		return false, ClassifyWrite("delete a runtime scenario", err)
	}
	r.forget(ns)
	return n == 1, nil
}

// resetScript removes every scenario of a namespace.
var resetScript = newScript(`
local n = redis.call('HLEN', KEYS[1])
if n == 0 then return 0 end
redis.call('DECRBY', KEYS[6], tonumber(redis.call('GET', KEYS[4]) or '0'))
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
redis.call('INCR', KEYS[3])
return n`)

// Reset removes every scenario of namespace ns and returns how many there
// were.
func (r *Runtime) Reset(ctx context.Context, ns string) (int, error) {
	ctx, cancel := bounded(ctx, r.opt.Timeout)
	defer cancel()
	n, err := resetScript.execMulti(ctx, r.c, rueidis.LuaExec{Keys: r.keys(ns), Args: []string{ns}})[0].AsInt64()
	if err != nil {
		return 0, ClassifyWrite("reset runtime scenarios", err)
	}
	r.forget(ns)
	return int(n), nil
}

// List returns the scenarios of namespace ns in the order they were
// added, read afresh.
func (r *Runtime) List(ctx context.Context, ns string) ([]scenarios.Scenario, error) {
	set, err := r.load(ctx, ns)
	if err != nil {
		return nil, err
	}
	return slices.Clone(set.list), nil
}

// Catalogue returns the scenarios of namespace ns as a catalogue, or nil
// when it has none. It uses this replica's parsed copy while it is younger
// than Revalidate, then checks the namespace's version (one round trip)
// and reads the scenarios again only when it changed.
func (r *Runtime) Catalogue(ctx context.Context, ns string) (*scenarios.Catalogue, error) {
	now := r.now()
	r.mu.Lock()
	c := r.cache[ns]
	r.mu.Unlock()
	if c != nil && now.Sub(c.checked) < r.opt.Revalidate {
		return c.cat, nil
	}
	if c != nil {
		v, err := r.version(ctx, ns)
		if err != nil {
			return nil, err
		}
		if v == c.version {
			r.store(ns, &cachedSet{version: v, list: c.list, cat: c.cat, checked: now})
			return c.cat, nil
		}
	}
	set, err := r.load(ctx, ns)
	if err != nil {
		return nil, err
	}
	return set.cat, nil
}

// version reads the version of namespace ns.
func (r *Runtime) version(ctx context.Context, ns string) (int64, error) {
	ctx, cancel := bounded(ctx, r.opt.Timeout)
	defer cancel()
	v, err := r.c.Do(ctx, r.c.B().Get().Key(r.keys(ns)[2]).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, Classify("runtime scenarios version", err)
	}
	return v, nil
}

// loadScript reads a namespace's version and scenarios in one step.
var loadScript = newScript(`
local all = redis.call('HGETALL', KEYS[1])
table.insert(all, 1, redis.call('GET', KEYS[3]) or '0')
return all`)

// load reads and parses the scenarios of namespace ns and caches them.
func (r *Runtime) load(ctx context.Context, ns string) (*cachedSet, error) {
	now := r.now()
	lctx, cancel := bounded(ctx, r.opt.Timeout)
	defer cancel()
	reply, err := loadScript.execMulti(lctx, r.c, rueidis.LuaExec{Keys: r.keys(ns)})[0].AsStrSlice()
	if err != nil {
		return nil, Classify("load runtime scenarios", err)
	}
	version, err := strconv.ParseInt(reply[0], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("redisstore: runtime scenarios version %q: %w", reply[0], err)
	}
	type stored struct{ order, id, doc string }
	var all []stored
	for i := 1; i+1 < len(reply); i += 2 {
		id, val := reply[i], reply[i+1]
		if len(val) < 21 {
			return nil, fmt.Errorf("redisstore: runtime scenario %s of %s is damaged", id, ns)
		}
		kl, err := strconv.Atoi(val[16:21])
		if err != nil || 21+kl > len(val) {
			return nil, fmt.Errorf("redisstore: runtime scenario %s of %s is damaged", id, ns)
		}
		all = append(all, stored{order: val[:16], id: id, doc: val[21+kl:]})
	}
	slices.SortFunc(all, func(a, b stored) int { return cmp.Compare(a.order, b.order) })
	set := &cachedSet{version: version, checked: now}
	for _, s := range all {
		parsed, err := scenarios.ParseRuntime([]byte(s.doc))
		if err != nil || len(parsed) != 1 {
			return nil, fmt.Errorf("redisstore: runtime scenario %s of %s does not parse any more: %v", s.id, ns, err)
		}
		set.list = append(set.list, parsed[0])
	}
	if len(set.list) > 0 {
		set.cat = scenarios.NewRuntimeCatalogue(set.list)
	}
	r.store(ns, set)
	return set, nil
}

// store caches a namespace's set.
func (r *Runtime) store(ns string, set *cachedSet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[ns]; !ok && len(r.cache) >= maxCached {
		clear(r.cache)
	}
	r.cache[ns] = set
}

// forget drops namespaces' cached sets after this replica changed them.
func (r *Runtime) forget(spaces ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ns := range spaces {
		delete(r.cache, ns)
	}
}
