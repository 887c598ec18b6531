package journal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
)

// Defaults of RedisOptions.
const (
	// DefaultQueue is how many events wait to be written at most; more are
	// dropped (and counted) rather than slow a request down.
	DefaultQueue = 8192
	// DefaultQueueBytes bounds the bytes of the events waiting to be
	// written; beyond it events are dropped (and counted).
	DefaultQueueBytes = 16 << 20
	// DefaultBatch is the most events written in one round trip.
	DefaultBatch = 256
	// dropLogInterval is how often at most the log says events are dropped.
	dropLogInterval = 10 * time.Second
	// batchLinger is how long the writer waits for more events after the
	// first of a batch.
	batchLinger = time.Millisecond
	// eventsPerCall is the most events one script call applies, which
	// bounds how long Redis is busy with one call (about 50 us an event).
	eventsPerCall = 32
)

// RedisOptions configure a journal kept in Redis.
type RedisOptions struct {
	// Options bound every namespace (PerNamespace, MaxEvents,
	// MaxBytesPerNamespace); Total and MaxTotalBytes bound nothing in
	// Redis, where namespaces expire after MaxAge instead.
	Options
	// Prefix is put before every key, as for the transaction store.
	Prefix string
	// MaxAge is how long a namespace's journal and each transaction in it
	// are kept after their last event (the store's --store-max-age).
	MaxAge time.Duration
	// Timeout bounds each call to Redis.
	Timeout time.Duration
	// Queue is how many events may wait to be written, QueueBytes how
	// many bytes of them; Batch how many are written in one round trip.
	Queue, Batch int
	QueueBytes   int64
	// Logger says when events are dropped; nil discards.
	Logger *slog.Logger
}

// Redis is the journal shared by replicas over Redis. Recording never
// waits for Redis: an event is encoded and queued, and one writer sends
// the queue in pipelined batches of Lua calls, each of which applies up to
// 32 events, each atomically (the summary merged, the history appended,
// the bounds enforced), then, once per namespace of the call, evicts the
// oldest transactions beyond the bounds together, bumps the version and
// publishes the change. When the queue is full or Redis fails, events are
// dropped, counted and logged at most every ten seconds; the API does not
// notice. The console's reads go to Redis and return its errors (wrapping
// emulator.ErrUnavailable when it cannot be reached).
//
// Keys, under Prefix + "j:" + namespace + ":" (every one with a TTL of
// MaxAge, renewed by each event of the namespace or the transaction; a
// transaction that expired while its namespace lives on is skipped by
// List, and its bytes count until it is evicted, oldest first):
//
//	m       hash: "v" the version, "b" the bytes held, "z:{id}" each transaction's bytes
//	x       sorted set of transaction ids by creation time
//	t:{id}  hash: the transaction, one key for its summary and its events
//
// A transaction's hash holds its first event's summary fields packed in
// "S" (see appendSummary), with "u" the time of its latest event; a later
// event sets its own summary fields one by one over those packed, and
// counts in "ne", "nq" and "dr" (unset while they hold their first value:
// 1, 0, 0). Its events are records (see appendRecord) in fields "0" (the
// first, never dropped) and "lo" up to "hi" excluded (both 1 while unset):
// the oldest but the first are dropped beyond the bounds. A new
// transaction thus costs one key and one HSET of three fields, and its
// eviction one field of an UNLINK shared by the call.
//
// A change of namespace ns is published on Prefix + "j:changed" with ns as
// the message. The script builds the keys of the transactions it evicts,
// so the journal wants a single Redis (not a cluster), like the store.
type Redis struct {
	c     rueidis.Client
	opt   RedisOptions
	log   *slog.Logger
	queue chan queued

	queuedBytes                atomic.Int64
	recorded, dropped, evicted atomic.Uint64
	lastDropLog                atomic.Int64 // Unix nanoseconds

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: Record drops from then on
	done      chan struct{} // closed when the writer has flushed
	stopSub   context.CancelFunc
	subDone   chan struct{}

	mu      sync.Mutex
	waiters watchers

	// head are the first arguments of every recordScript call.
	head [6]string
}

var (
	_ Journal       = (*Redis)(nil)
	_ StatsReporter = (*Redis)(nil)
)

// queued is one event waiting to be written.
type queued struct {
	ns, id string
	args   [6]string // the event's ARGV of recordScript
}

// NewRedis returns the journal kept over client c, and starts its writer
// and its subscription to changes; Close stops them.
func NewRedis(c rueidis.Client, opt RedisOptions) (*Redis, error) {
	if c == nil {
		return nil, errors.New("journal: NewRedis needs a client")
	}
	opt.Options = opt.Options.withDefaults()
	if opt.MaxAge <= 0 {
		return nil, errors.New("journal: NewRedis needs a MaxAge")
	}
	if opt.Timeout <= 0 {
		opt.Timeout = redisstore.DefaultTimeout
	}
	if opt.Queue <= 0 {
		opt.Queue = DefaultQueue
	}
	if opt.QueueBytes <= 0 {
		opt.QueueBytes = DefaultQueueBytes
	}
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	subCtx, stop := context.WithCancel(context.Background())
	j := &Redis{
		c: c, opt: opt, log: log,
		queue:   make(chan queued, opt.Queue),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
		stopSub: stop,
		subDone: make(chan struct{}),
		waiters: newWatchers(opt.Total),
	}
	j.head = [6]string{strconv.Itoa(opt.MaxEvents), strconv.Itoa(opt.PerNamespace),
		strconv.FormatInt(opt.MaxBytesPerNamespace, 10), strconv.FormatInt(opt.MaxAge.Milliseconds(), 10),
		j.channel(), strconv.Itoa(len(j.base("")))} // the namespace starts after Prefix + "j:"
	go j.write()
	go j.subscribe(subCtx)
	return j, nil
}

func (j *Redis) base(ns string) string { return j.opt.Prefix + "j:" + ns + ":" }

func (j *Redis) channel() string { return j.opt.Prefix + "j:changed" }

// appendTimeField appends a time as the summary stores it: fixed-width
// Unix nanoseconds, so that Lua compares them as strings.
func appendTimeField(b []byte, t time.Time) []byte {
	var d [19]byte
	n := strconv.AppendInt(d[:0], max(t.UnixNano(), 0), 10)
	for range 19 - len(n) {
		b = append(b, '0')
	}
	return append(b, n...)
}

// Record queues ev to be written, or drops it (counted) when the queue is
// full or the journal closed. It never waits for Redis.
func (j *Redis) Record(_ context.Context, ev emulator.Event) {
	id := ev.Transaction.ThreeDSServerTransID
	if ev.Namespace == "" || id == "" {
		return
	}
	select {
	case <-j.closed:
		j.drop(1, errors.New("journal closed"))
		return
	default:
	}
	e := newEvent(ev)
	t := ev.Transaction
	e.Status = t.Status
	// The record, the summary fields, the time and the creation score go
	// into one buffer, viewed as one string without a copy (the buffer is
	// never written again): one allocation for them all.
	buf := make([]byte, 0, 160+len(e.Request)+len(e.Response)+len(e.Detail)+len(t.MerchantName)+len(t.CardholderName))
	buf = appendRecord(buf, &e)
	nRec := len(buf)
	buf = appendSummary(buf, ev)
	nSum := len(buf)
	buf = appendTimeField(buf, ev.Time)
	nTime := len(buf)
	buf = strconv.AppendInt(buf, ev.Time.UnixMilli(), 10)
	all := rueidis.BinaryString(buf)
	enquiry := "0"
	if ev.Kind == emulator.EventEnquiry {
		enquiry = "1"
	}
	args := [...]string{id, all[nTime:], all[:nRec], all[nSum:nTime], enquiry, all[nRec:nSum]}
	rec := args[2]
	size := int64(len(rec))
	if j.queuedBytes.Load()+size > j.opt.QueueBytes {
		j.drop(1, errors.New("queue full (bytes)"))
		return
	}
	select {
	case j.queue <- queued{ns: ev.Namespace, id: id, args: args}:
		j.queuedBytes.Add(size)
	default:
		j.drop(1, errors.New("queue full"))
	}
}

// drop counts n dropped events and says so in the log, at most every
// dropLogInterval.
func (j *Redis) drop(n int, why error) {
	total := j.dropped.Add(uint64(n))
	now := time.Now().UnixNano()
	last := j.lastDropLog.Load()
	if now-last < int64(dropLogInterval) || !j.lastDropLog.CompareAndSwap(last, now) {
		return
	}
	j.log.Warn("console journal: events dropped (the API is not affected)", slog.Uint64("dropped_total", total), slog.Any("err", why))
}

// recordScript applies events in order. ARGV starts with the bounds
// (events per transaction, transactions and bytes per namespace), the TTL
// in ms, the channel of changes and where a key's namespace starts; KEYS
// are, for each event, the namespace's m and x and the transaction's t;
// then ARGV has six arguments per event, as Record builds them: the id,
// the creation score (Unix ms), the record, the event's time as a summary
// field, whether it is an enquiry, and its summary fields packed. A new
// transaction takes one HSET; a later event one HMGET and one HSET. Then
// each namespace of the call is brought within its bounds once (its
// oldest transactions taken together, their keys unlinked in one call),
// its version bumped and the change published. It returns how many
// transactions it evicted.
var recordScript = rueidis.NewLuaScript(`
local summaryBytes = 512
local maxEvents, maxTx, maxBytes, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local channel, nsFrom = ARGV[5], tonumber(ARGV[6])
local spaces, order, evicted = {}, {}, 0
for k = 1, #KEYS, 3 do
  local m, x, t = KEYS[k], KEYS[k+1], KEYS[k+2]
  local a = 6 + (k - 1) / 3 * 6
  local id, created, rec, at, enquiry, packed = ARGV[a+1], ARGV[a+2], ARGV[a+3], ARGV[a+4], ARGV[a+5], ARGV[a+6]
  local grow = #rec
  local new = redis.call('ZADD', x, 'NX', created, id) == 1
  local h
  if not new then
    h = redis.call('HMGET', t, 'u', 'hi', 'lo', 'ne', 'nq', 'dr')
  end
  if new or not h[1] then
    -- A new transaction (or one whose hash expired while its namespace
    -- lives on: it starts again): its first event, its summary packed and
    -- its time; the counters stay unset while they hold their first value.
    if new then grow = grow + summaryBytes end
    if enquiry == '1' then
      redis.call('HSET', t, 'u', at, '0', rec, 'S', packed, 'nq', 1)
    else
      redis.call('HSET', t, 'u', at, '0', rec, 'S', packed)
    end
    if new then redis.call('HSET', m, 'z:' .. id, grow) else redis.call('HINCRBY', m, 'z:' .. id, grow) end
  else
    local hi, lo, dr = tonumber(h[2] or 1), tonumber(h[3] or 1), tonumber(h[6] or 0)
    -- The event's summary fields, each set on its own: they override
    -- those packed in S by the first event.
    local fields, i = {}, 1
    while i <= #packed do
      local f, l, j = string.match(packed, '^(%a+)=(%d+):()', i)
      if not f then return redis.error_reply('bad summary fields') end
      l = tonumber(l)
      if f ~= 'id' and f ~= 'c' then
        fields[#fields+1] = f
        fields[#fields+1] = string.sub(packed, j, j + l - 1)
      end
      i = j + l
    end
    if h[1] < at then fields[#fields+1] = 'u'; fields[#fields+1] = at end
    local ne, nq = tonumber(h[4] or 1) + 1, tonumber(h[5] or 0)
    if enquiry == '1' then nq = nq + 1 end
    local size = redis.call('HINCRBY', m, 'z:' .. id, grow)
    -- Beyond its bounds, the transaction loses its oldest events but the
    -- first: the new one too when it is alone beyond them.
    local kept, gone, freed = hi - lo + 2, {}, 0
    while kept > 1 and (kept > maxEvents or size > maxBytes) do
      local old = rec
      if lo < hi then
        old = redis.call('HGET', t, tostring(lo)) or ''
        gone[#gone+1] = tostring(lo)
      else
        rec = nil
      end
      size, freed = size - #old, freed + #old
      lo, kept, dr = lo + 1, kept - 1, dr + 1
    end
    if #gone > 0 then redis.call('HDEL', t, unpack(gone)) end
    if freed > 0 then redis.call('HINCRBY', m, 'z:' .. id, -freed) end
    grow = grow - freed
    if rec then fields[#fields+1] = tostring(hi); fields[#fields+1] = rec end
    redis.call('HSET', t, 'hi', hi + 1, 'lo', lo, 'ne', ne, 'nq', nq, 'dr', dr, unpack(fields))
  end
  redis.call('PEXPIRE', t, ttl)
  local sp = spaces[m]
  if not sp then
    sp = {x = x, base = string.sub(x, 1, -2), grow = 0}
    spaces[m] = sp
    order[#order+1] = m
  end
  sp.grow, sp.last = sp.grow + grow, id
end
-- Then each namespace once: its bytes, its bounds (the oldest
-- transactions go first, never the one of its latest event), its version
-- and its TTL.
for _, m in ipairs(order) do
  local sp = spaces[m]
  local total = redis.call('HINCRBY', m, 'b', sp.grow)
  local count, freed = redis.call('ZCARD', sp.x), 0
  local victims = {}
  local need = count - maxTx
  if need > 0 then
    for _, id in ipairs(redis.call('ZRANGE', sp.x, 0, need)) do
      if id ~= sp.last and #victims < need then victims[#victims+1] = id end
    end
  end
  local fields = {}
  for i, id in ipairs(victims) do fields[i] = 'z:' .. id end
  if #victims > 0 then
    redis.call('ZREM', sp.x, unpack(victims))
    for _, z in ipairs(redis.call('HMGET', m, unpack(fields))) do freed = freed + tonumber(z or '0') end
    count = count - #victims
  end
  while count > 1 and total - freed > maxBytes do
    local ids = redis.call('ZRANGE', sp.x, 0, 1)
    local id = ids[1]
    if id == sp.last then id = ids[2] end
    redis.call('ZREM', sp.x, id)
    freed = freed + tonumber(redis.call('HGET', m, 'z:' .. id) or '0')
    victims[#victims+1], fields[#fields+1] = id, 'z:' .. id
    count = count - 1
  end
  if #victims > 0 then
    local keys = {}
    for i, id in ipairs(victims) do keys[i] = sp.base .. 't:' .. id end
    redis.call('HDEL', m, unpack(fields))
    redis.call('UNLINK', unpack(keys))
    redis.call('HINCRBY', m, 'b', -freed)
    evicted = evicted + #victims
  end
  redis.call('HINCRBY', m, 'v', 1)
  redis.call('PEXPIRE', m, ttl)
  redis.call('PEXPIRE', sp.x, ttl)
  redis.call('PUBLISH', channel, string.sub(sp.x, nsFrom, -3))
end
return evicted
`)

// write sends the queue to Redis in batches until Close, then flushes
// what is left.
func (j *Redis) write() {
	defer close(j.done)
	batch := make([]queued, 0, j.opt.Batch)
	for {
		select {
		case q := <-j.queue:
			// A moment's wait gathers the events of concurrent requests
			// into one round trip, which costs Redis far less than many.
			time.Sleep(batchLinger)
			j.flush(j.fill(append(batch[:0], q)))
		case <-j.closed:
			for {
				if batch = j.fill(batch[:0]); len(batch) == 0 {
					return
				}
				j.flush(batch)
			}
		}
	}
}

// fill adds to batch what the queue holds, up to a batch.
func (j *Redis) fill(batch []queued) []queued {
	for len(batch) < j.opt.Batch {
		select {
		case q := <-j.queue:
			batch = append(batch, q)
		default:
			return batch
		}
	}
	return batch
}

// flush writes a batch in one pipelined round trip.
func (j *Redis) flush(batch []queued) {
	// One script call applies up to eventsPerCall events: a call costs
	// Redis a fixed price besides its events' work.
	var execs []rueidis.LuaExec
	var calls [][]queued
	var size int64
	var ns, b, m, x string // the keys of the latest namespace, reused while it does not change
	for len(batch) > 0 {
		part := batch[:min(len(batch), eventsPerCall)]
		batch = batch[len(part):]
		ex := rueidis.LuaExec{Keys: make([]string, 0, 3*len(part)), Args: make([]string, 0, len(j.head)+len(queued{}.args)*len(part))}
		ex.Args = append(ex.Args, j.head[:]...)
		for _, q := range part {
			if q.ns != ns || b == "" {
				ns, b = q.ns, j.base(q.ns)
				m, x = b+"m", b+"x"
			}
			ex.Keys = append(ex.Keys, m, x, b+"t:"+q.id)
			ex.Args = append(ex.Args, q.args[:]...)
			size += int64(len(q.args[2]))
		}
		execs, calls = append(execs, ex), append(calls, part)
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.opt.Timeout)
	defer cancel()
	var failed, written int
	var firstErr error
	for i, r := range recordScript.ExecMulti(ctx, j.c, execs...) {
		n, err := r.AsInt64()
		if err != nil {
			failed += len(calls[i])
			firstErr = cmpErr(firstErr, err)
			continue
		}
		written += len(calls[i])
		j.evicted.Add(uint64(max(n, 0)))
	}
	j.queuedBytes.Add(-size)
	j.recorded.Add(uint64(written))
	if failed > 0 {
		j.drop(failed, redisstore.Classify("journal record", firstErr))
	}
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// Flush waits until every event queued so far is written (or dropped),
// or ctx ends.
func (j *Redis) Flush(ctx context.Context) error {
	for len(j.queue) > 0 || j.queuedBytes.Load() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("journal flush: %w", ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// Close stops taking events, writes those queued (within the timeout of
// one call per batch) and ends the subscription. It does not close the
// client.
func (j *Redis) Close() {
	j.closeOnce.Do(func() {
		close(j.closed)
		<-j.done
		j.stopSub()
		<-j.subDone
	})
}

// subscribe wakes the waiters of each namespace whose change Redis
// publishes, and every waiter when the subscription (re)starts or fails,
// so that none waits on a change it missed.
func (j *Redis) subscribe(ctx context.Context) {
	defer close(j.subDone)
	for ctx.Err() == nil {
		j.listen(ctx)
		j.wakeAll()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	j.wakeAll()
}

// listen holds one subscription on a connection of its own until the
// connection fails or ctx ends. A dedicated connection reports its loss
// at once, where a shared one would resubscribe silently and hide the
// changes missed meanwhile.
func (j *Redis) listen(ctx context.Context) {
	dc, release := j.c.Dedicate()
	defer release()
	lost := dc.SetPubSubHooks(rueidis.PubSubHooks{
		OnMessage: func(m rueidis.PubSubMessage) { j.wake(m.Message) },
		OnSubscription: func(s rueidis.PubSubSubscription) {
			if s.Kind == "subscribe" {
				j.wakeAll() // changes made before now were missed
			}
		},
	})
	sctx, cancel := j.ctx(ctx)
	err := dc.Do(sctx, dc.B().Subscribe().Channel(j.channel()).Build()).Error()
	cancel()
	if err != nil {
		dc.Close()
		return
	}
	select {
	case <-lost:
	case <-ctx.Done():
		dc.Close()
	}
}

// wake wakes the watchers of ns.
func (j *Redis) wake(ns string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.waiters.wake(ns)
}

// wakeAll wakes every watcher: a change may have been missed.
func (j *Redis) wakeAll() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.waiters.wakeAll()
}

// Changed returns a channel closed when Redis publishes a change of ns
// (made on any replica), or sooner: compare versions.
func (j *Redis) Changed(ns string) <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.waiters.changed(ns)
}

func (j *Redis) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, j.opt.Timeout)
}

// Version returns the version of ns: the count of its changes, 0 when it
// holds nothing.
func (j *Redis) Version(ctx context.Context, ns string) (uint64, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	v, err := j.c.Do(ctx, j.c.B().Hget().Key(j.base(ns)+"m").Field("v").Build()).AsUint64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, redisstore.Classify("journal version", err)
	}
	return v, nil
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Redis) List(ctx context.Context, ns string, limit int) ([]Summary, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	stop := int64(-1)
	if limit > 0 {
		stop = int64(limit) - 1
	}
	ids, err := j.c.Do(ctx, j.c.B().Zrange().Key(b+"x").Min("0").Max(strconv.FormatInt(stop, 10)).Rev().Build()).AsStrSlice()
	if err != nil {
		return nil, redisstore.Classify("journal list", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make(rueidis.Commands, len(ids))
	for i, id := range ids {
		cmds[i] = j.c.B().Hmget().Key(b + "t:" + id).Field(summaryFields[:]...).Build()
	}
	out := make([]Summary, 0, len(ids))
	m := make(map[string]string, len(summaryFields))
	for _, r := range j.c.DoMulti(ctx, cmds...) {
		vs, err := r.ToArray()
		if err != nil {
			return nil, redisstore.Classify("journal list", err)
		}
		clear(m)
		for i, v := range vs {
			if s, err := v.ToString(); err == nil && i < len(summaryFields) {
				m[summaryFields[i]] = s
			}
		}
		if s, _, ok := summaryOf(m); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// Get returns the transaction id of namespace ns with its events.
func (j *Redis) Get(ctx context.Context, ns, id string) (Entry, bool, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	m, err := j.c.Do(ctx, j.c.B().Hgetall().Key(b+"t:"+id).Build()).AsStrMap()
	if err != nil {
		return Entry{}, false, redisstore.Classify("journal entry", err)
	}
	s, dropped, ok := summaryOf(m)
	if !ok {
		return Entry{}, false, nil
	}
	// The events are the first ("0") and those from "lo" up to "hi".
	lo, hi := 1, 1 // unset while the transaction has one event
	if v, ok := m["lo"]; ok {
		lo, _ = strconv.Atoi(v)
	}
	if v, ok := m["hi"]; ok {
		hi, _ = strconv.Atoi(v)
	}
	idx := make([]int, 0, 1+max(hi-lo, 0))
	idx = append(idx, 0)
	for i := max(lo, 1); i < hi && len(idx) < j.opt.MaxEvents+1; i++ {
		idx = append(idx, i)
	}
	out := Entry{Summary: s, Dropped: dropped, Events: make([]Event, 0, len(idx))}
	for _, i := range idx {
		r, ok := m[strconv.Itoa(i)]
		if !ok {
			continue
		}
		e, err := decodeRecord([]byte(r))
		if err != nil {
			out.Dropped++ // a record of another version: shown as dropped, not as an error
			continue
		}
		out.Events = append(out.Events, e)
	}
	timeline(out.Events, out.Created)
	return out, true, nil
}

// summaryFields are the fields of a transaction's hash that List reads:
// every one but its events.
var summaryFields = [...]string{"S", "u", "st", "sr", "cc", "eci", "le", "ne", "nq", "sc", "fb", "ver", "pan",
	"bin", "sch", "chn", "mn", "amt", "cur", "ref", "ls", "dr"}

// appendSummary appends the summary fields ev sets, each as its name,
// "=", the length of its value in decimal, ":" and the value: the id and
// the time as the creation ("c"), then those the event knows (an empty
// one keeps the earlier value), and those that always follow the latest
// event. The first event's are kept packed in the field S; a later
// event's are set one by one over them (but id and c).
func appendSummary(b []byte, ev emulator.Event) []byte {
	t := ev.Transaction
	field := func(b []byte, k, v string) []byte {
		b = append(b, k...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		return append(b, v...)
	}
	b = appendTimeField(append(b, "c=19:"...), ev.Time)
	b = field(b, "id", t.ThreeDSServerTransID)
	b = field(b, "sr", t.StatusReason)
	b = field(b, "cc", t.ChallengeCancel)
	b = field(b, "le", string(ev.Kind))
	for _, f := range [...]struct{ k, v string }{
		{"st", t.Status}, {"eci", t.ECI}, {"sc", t.ScenarioID}, {"ver", t.Version}, {"pan", t.MaskedPAN},
		{"bin", t.CardBIN}, {"sch", t.CardScheme}, {"chn", t.CardholderName}, {"mn", t.MerchantName},
		{"amt", t.Amount}, {"cur", t.Currency}, {"ref", t.ExternalReferenceID},
	} {
		if f.v != "" {
			b = field(b, f.k, f.v)
		}
	}
	if ev.Kind == emulator.EventLookup {
		b = field(b, "ls", t.Status)
		b = field(b, "fb", strconv.FormatBool(t.Fallback))
	}
	return b
}

// unpackSummary adds to m the fields packed in s (see appendSummary) that
// m does not hold: those set one by one since override them. It stops at
// the first malformed field.
func unpackSummary(m map[string]string, s string) {
	for s != "" {
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			return
		}
		ls, rest, ok := strings.Cut(rest, ":")
		n, err := strconv.Atoi(ls)
		if !ok || err != nil || n < 0 || n > len(rest) {
			return
		}
		if _, set := m[k]; !set {
			m[k] = rest[:n]
		}
		s = rest[n:]
	}
}

// summaryOf reads a summary hash; false when it is empty (no such
// transaction, or expired).
func summaryOf(m map[string]string) (Summary, int, bool) {
	unpackSummary(m, m["S"])
	if m["id"] == "" {
		return Summary{}, 0, false
	}
	// A counter is unset while it holds its first value.
	if _, ok := m["ne"]; !ok {
		m["ne"] = "1"
	}
	num := func(k string) int { n, _ := strconv.Atoi(m[k]); return n }
	tm := func(k string) time.Time {
		n, _ := strconv.ParseInt(m[k], 10, 64)
		return time.Unix(0, n).UTC()
	}
	s := Summary{
		ID: m["id"], Created: tm("c"), Updated: tm("u"), Status: m["st"], StatusReason: m["sr"], ChallengeCancel: m["cc"],
		ECI: m["eci"], LastEvent: emulator.EventKind(m["le"]), Events: num("ne"), Enquiries: num("nq"),
		ScenarioID: m["sc"], Fallback: m["fb"] == "true", Version: m["ver"], MaskedPAN: m["pan"], CardBIN: m["bin"],
		Scheme: m["sch"], CardholderName: m["chn"], MerchantName: m["mn"], Amount: m["amt"], Currency: m["cur"],
		ExternalReferenceID: m["ref"], LookupStatus: m["ls"],
	}
	return s, num("dr"), true
}

// Stats returns this replica's counters: Bytes are those queued, not yet
// written; Transactions are not counted (they are in Redis).
func (j *Redis) Stats() Stats {
	return Stats{Bytes: j.queuedBytes.Load(), Recorded: j.recorded.Load(), Dropped: j.dropped.Load(), Evicted: j.evicted.Load()}
}
