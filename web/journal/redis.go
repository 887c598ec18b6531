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
// 32 events, each atomically (the summary merged, the history appended, the bounds
// enforced, the version bumped), then publishes the change once per
// namespace and batch. When the queue is full or Redis fails, events are
// dropped, counted and logged at most every ten seconds; the API does not notice. The console's reads go to
// Redis and return its errors (wrapping emulator.ErrUnavailable when it
// cannot be reached).
//
// Keys, under Prefix + "j:" + namespace + ":" (every one with a TTL of
// MaxAge, renewed by each event of the namespace or the transaction; a
// transaction that expired while its namespace lives on is skipped by
// List, and its bytes count until it is evicted, oldest first):
//
//	m       hash: "v" the version, "b" the bytes held, "z:{id}" each transaction's bytes
//	x       sorted set of transaction ids by creation time
//	s:{id}  hash: the transaction's summary
//	e:{id}  list of its events, each a record (see appendRecord)
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
	waiters map[string]chan struct{}
}

var (
	_ Journal       = (*Redis)(nil)
	_ StatsReporter = (*Redis)(nil)
)

// queued is one event waiting to be written.
type queued struct {
	ns, id string
	args   []string // ARGV of recordScript
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
		waiters: map[string]chan struct{}{},
	}
	go j.write()
	go j.subscribe(subCtx)
	return j, nil
}

func (j *Redis) base(ns string) string { return j.opt.Prefix + "j:" + ns + ":" }

func (j *Redis) channel() string { return j.opt.Prefix + "j:changed" }

// timeField is a time as the summary stores it: fixed-width Unix
// nanoseconds, so that Lua compares them as strings.
func timeField(t time.Time) string {
	var b [19]byte
	n := strconv.AppendInt(b[:0], max(t.UnixNano(), 0), 10)
	return strings.Repeat("0", 19-len(n)) + string(n)
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
	rec := string(appendRecord(make([]byte, 0, 64+len(e.Request)+len(e.Response)+len(e.Detail)), &e))
	tf := timeField(ev.Time)
	enquiry := "0"
	if ev.Kind == emulator.EventEnquiry {
		enquiry = "1"
	}
	args := make([]string, 0, 64)
	args = append(args,
		id, strconv.FormatInt(ev.Time.UnixMilli(), 10), rec,
		strconv.Itoa(j.opt.MaxEvents), strconv.Itoa(j.opt.PerNamespace),
		strconv.FormatInt(j.opt.MaxBytesPerNamespace, 10), strconv.FormatInt(j.opt.MaxAge.Milliseconds(), 10),
		j.base(ev.Namespace), tf, enquiry,
		// The summary fields this event sets: those it knows (an empty
		// one keeps the earlier value), and those that always follow the
		// latest event.
		"sr", t.StatusReason, "cc", t.ChallengeCancel, "le", string(ev.Kind))
	for _, f := range [...]struct{ k, v string }{
		{"st", t.Status}, {"eci", t.ECI}, {"sc", t.ScenarioID}, {"ver", t.Version}, {"pan", t.MaskedPAN},
		{"bin", t.CardBIN}, {"sch", t.CardScheme}, {"chn", t.CardholderName}, {"mn", t.MerchantName},
		{"amt", t.Amount}, {"cur", t.Currency}, {"ref", t.ExternalReferenceID},
	} {
		if f.v != "" {
			args = append(args, f.k, f.v)
		}
	}
	if ev.Kind == emulator.EventLookup {
		args = append(args, "ls", t.Status, "fb", strconv.FormatBool(t.Fallback))
	}
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

// recordScript applies events in order: KEYS are, for each event, the
// namespace's m and x and the transaction's s and e; ARGV are, for each
// event, the count of its arguments, then the arguments as Record builds
// them: the id, the creation score (Unix ms), the record, the bounds, the
// key base, the event's time as a summary field, whether it is an
// enquiry, then the summary's field/value pairs to set. Each event
// updates its transaction; then each namespace of the call is brought
// within its bounds once, and its version bumped once. It returns how many
// transactions it evicted. The change is published per batch.
var recordScript = rueidis.NewLuaScript(`
local summaryBytes = 512
local spaces, order, evicted, o = {}, {}, 0, 0
for k = 1, #KEYS, 4 do
  local m, x, s, e = KEYS[k], KEYS[k+1], KEYS[k+2], KEYS[k+3]
  local a, n = o + 1, tonumber(ARGV[o+1])
  local id, created, rec = ARGV[a+1], tonumber(ARGV[a+2]), ARGV[a+3]
  local maxEvents, maxTx, maxBytes, ttl = tonumber(ARGV[a+4]), tonumber(ARGV[a+5]), tonumber(ARGV[a+6]), tonumber(ARGV[a+7])
  local base, at, enquiry = ARGV[a+8], ARGV[a+9], ARGV[a+10]
  local fields = {}
  for i = a+11, a+n do fields[#fields+1] = ARGV[i] end
  local grow, size = #rec, 0
  if redis.call('ZADD', x, 'NX', created, id) == 1 then
    grow = grow + summaryBytes
    fields[#fields+1] = 'id'; fields[#fields+1] = id
    fields[#fields+1] = 'c'; fields[#fields+1] = at
    fields[#fields+1] = 'u'; fields[#fields+1] = at
    fields[#fields+1] = 'ne'; fields[#fields+1] = '1'
    redis.call('HSET', s, unpack(fields))
    redis.call('HSET', m, 'z:' .. id, grow)
    size = grow
  else
    redis.call('HINCRBY', s, 'ne', 1)
    local u = redis.call('HGET', s, 'u')
    if not u or u < at then fields[#fields+1] = 'u'; fields[#fields+1] = at end
    redis.call('HSET', s, unpack(fields))
    size = redis.call('HINCRBY', m, 'z:' .. id, grow)
  end
  if enquiry == '1' then redis.call('HINCRBY', s, 'nq', 1) end
  local len = redis.call('RPUSH', e, rec)
  -- Beyond its bounds, the transaction loses its oldest events but the first.
  while len > 1 and (len > maxEvents or size > maxBytes) do
    local old = redis.call('LINDEX', e, 1)
    redis.call('LSET', e, 1, '')
    redis.call('LREM', e, 1, '')
    redis.call('HINCRBY', s, 'dr', 1)
    size = redis.call('HINCRBY', m, 'z:' .. id, -#old)
    grow, len = grow - #old, len - 1
  end
  redis.call('PEXPIRE', s, ttl)
  redis.call('PEXPIRE', e, ttl)
  local sp = spaces[m]
  if not sp then
    sp = {x = x, base = base, maxTx = maxTx, maxBytes = maxBytes, ttl = ttl, grow = 0}
    spaces[m] = sp
    order[#order+1] = m
  end
  sp.grow, sp.last = sp.grow + grow, id
  o = a + n
end
-- Then each namespace once: its bytes, its bounds (the oldest
-- transactions go first, never the one of its latest event), its version
-- and its TTL.
for _, m in ipairs(order) do
  local sp = spaces[m]
  local total = redis.call('HINCRBY', m, 'b', sp.grow)
  local count, freed = redis.call('ZCARD', sp.x), 0
  while count > 1 and (count > sp.maxTx or total - freed > sp.maxBytes) do
    local old = redis.call('ZPOPMIN', sp.x)
    if old[1] == sp.last then
      local nxt = redis.call('ZPOPMIN', sp.x)
      redis.call('ZADD', sp.x, old[2], sp.last)
      old = nxt
    end
    freed = freed + tonumber(redis.call('HGET', m, 'z:' .. old[1]) or '0')
    redis.call('HDEL', m, 'z:' .. old[1])
    redis.call('DEL', sp.base .. 's:' .. old[1], sp.base .. 'e:' .. old[1])
    count, evicted = count - 1, evicted + 1
  end
  if freed > 0 then redis.call('HINCRBY', m, 'b', -freed) end
  redis.call('HINCRBY', m, 'v', 1)
  redis.call('PEXPIRE', m, sp.ttl)
  redis.call('PEXPIRE', sp.x, sp.ttl)
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
	changed := make(map[string]bool, 1)
	for len(batch) > 0 {
		part := batch[:min(len(batch), eventsPerCall)]
		batch = batch[len(part):]
		ex := rueidis.LuaExec{Keys: make([]string, 0, 4*len(part))}
		for _, q := range part {
			b := j.base(q.ns)
			ex.Keys = append(ex.Keys, b+"m", b+"x", b+"s:"+q.id, b+"e:"+q.id)
			ex.Args = append(append(ex.Args, strconv.Itoa(len(q.args))), q.args...)
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
		for _, q := range calls[i] {
			changed[q.ns] = true
		}
	}
	// One message per namespace changed by the batch.
	if len(changed) > 0 {
		cmds := make(rueidis.Commands, 0, len(changed))
		for ns := range changed {
			cmds = append(cmds, j.c.B().Publish().Channel(j.channel()).Message(ns).Build())
		}
		for _, r := range j.c.DoMulti(ctx, cmds...) {
			if err := r.Error(); err != nil {
				j.drop(0, redisstore.Classify("journal publish", err))
				break
			}
		}
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

func (j *Redis) wake(ns string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if ch, ok := j.waiters[ns]; ok {
		close(ch)
		delete(j.waiters, ns)
	}
}

func (j *Redis) wakeAll() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, ch := range j.waiters {
		close(ch)
		delete(j.waiters, k)
	}
}

// Changed returns a channel closed when Redis publishes a change of ns
// (made on any replica), or sooner: compare versions.
func (j *Redis) Changed(ns string) <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	ch, ok := j.waiters[ns]
	if !ok {
		if len(j.waiters) >= j.opt.Total {
			for k, w := range j.waiters {
				close(w)
				delete(j.waiters, k)
			}
		}
		ch = make(chan struct{})
		j.waiters[ns] = ch
	}
	return ch
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
		cmds[i] = j.c.B().Hgetall().Key(b + "s:" + id).Build()
	}
	out := make([]Summary, 0, len(ids))
	for _, r := range j.c.DoMulti(ctx, cmds...) {
		m, err := r.AsStrMap()
		if err != nil {
			return nil, redisstore.Classify("journal list", err)
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
	rs := j.c.DoMulti(ctx, j.c.B().Hgetall().Key(b+"s:"+id).Build(), j.c.B().Lrange().Key(b+"e:"+id).Start(0).Stop(-1).Build())
	m, err := rs[0].AsStrMap()
	if err != nil {
		return Entry{}, false, redisstore.Classify("journal entry", err)
	}
	recs, err := rs[1].AsStrSlice()
	if err != nil {
		return Entry{}, false, redisstore.Classify("journal entry", err)
	}
	s, dropped, ok := summaryOf(m)
	if !ok {
		return Entry{}, false, nil
	}
	out := Entry{Summary: s, Dropped: dropped, Events: make([]Event, 0, len(recs))}
	for _, r := range recs {
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

// summaryOf reads a summary hash; false when it is empty (no such
// transaction, or expired).
func summaryOf(m map[string]string) (Summary, int, bool) {
	if m["id"] == "" {
		return Summary{}, 0, false
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
