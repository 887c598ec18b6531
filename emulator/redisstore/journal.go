package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
)

// Defaults of JournalOptions.
const (
	// DefaultJournalQueue is how many events wait to be written at most; more are
	// dropped (and counted) rather than slow a request down.
	DefaultJournalQueue = 8192
	// DefaultJournalQueueBytes bounds the bytes of the events waiting to be
	// written; beyond it events are dropped (and counted).
	DefaultJournalQueueBytes = 16 << 20
	// DefaultJournalBatch is the most events written in one round trip.
	DefaultJournalBatch = 256
	// dropLogInterval is how often at most the log says events are dropped.
	dropLogInterval = 10 * time.Second
	// batchLinger is how long the writer waits for more events after the
	// first of a batch.
	batchLinger = time.Millisecond
	// maxChunkBytes bounds the events of one stream entry.
	maxChunkBytes = 64 << 10
)

// JournalOptions configure the journal kept in Redis.
type JournalOptions struct {
	// Options bound every namespace (PerNamespace, MaxEvents,
	// MaxBytesPerNamespace); Total and MaxTotalBytes bound nothing in
	// Redis, where namespaces expire after MaxAge instead.
	journal.Options
	// Prefix is put before every key, as for the transaction store.
	Prefix string
	// MaxAge is how long a namespace's journal is kept after its last
	// event (the store's --store-max-age).
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

// Journal is the console's journal shared by replicas over Redis. It keeps each
// namespace as two capped streams, written without a script: the events
// that open a transaction (its lookup or its collection) and the later
// ones. Reads fold the streams into transactions as the in-memory journal
// would have kept them, with the same bounds.
//
// Recording never waits for Redis: an event is encoded and queued, and one
// writer sends the queue in pipelined batches, each namespace's part in one
// MULTI: its events in a few stream entries (one XADD per 64 KiB of
// events, each event a field), one item per entry in the list beside each
// stream, the namespace's bytes and openings counted, its version bumped,
// its keys' TTL renewed and the change published. Only when a namespace
// then holds more than its bounds does the writer call a script that
// trims it: once per eighth of its openings or of its bytes, not per
// event. When the queue is full or Redis fails, events are dropped,
// counted and logged at most every ten seconds; the API does not notice.
// The console's reads go to Redis and return its errors (wrapping
// emulator.ErrUnavailable when it cannot be reached).
//
// Keys, under Prefix + "j:" + namespace + ":" (every one with a TTL of
// MaxAge, renewed by each event of the namespace):
//
//	o   stream of the opening events (kinds lookup and ddc)
//	s   stream of the later events
//	zo  list: per entry of o, oldest first, "size count"
//	zs  list: per entry of s, oldest first, "size" then " " q id for each
//	    event (q 1 for an enquiry, 0 otherwise)
//	m   hash: "v" the version, "b" the bytes of the streams' events, "no"
//	    the openings they hold
//	d   hash: per transaction, how many of its events ("n:{id}") and of
//	    its enquiries ("q:{id}") the bounds dropped
//
// An entry's fields are its events: the transaction id, and the event as
// packEvent makes it; an event's size is the bytes of both. The lists let
// the trim count what it drops without reading the streams. It keeps at
// most twice PerNamespace openings (a transaction collected, then looked
// up, opens twice); beyond MaxBytesPerNamespace it drops the oldest later
// events, counted in d, then the oldest openings, down to seven eighths of
// the bytes; an entry goes whole, and the newest opening entry stays. A
// transaction is shown while its opening is held: the later events of one
// whose opening is gone are not, and go in their turn.
//
// A change of namespace ns is published on Prefix + "j:changed" with ns as
// the message. The script builds no key names, but the journal wants a
// single Redis (not a cluster), like the store.
type Journal struct {
	c     rueidis.Client
	opt   JournalOptions
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

	waiters *journal.Watchers

	// maxOpen is how many openings a namespace keeps, trimAt how many it
	// may hold before it is trimmed; chunkBytes the most bytes of events
	// one stream entry takes (but for one larger event).
	maxOpen, trimAt, chunkBytes int64
}

var _ journal.Queued = (*Journal)(nil)

// queued is one event waiting to be written.
type queued struct {
	ns, id           string
	opening, enquiry bool
	value            string // the event as its entry holds it, see packEvent
}

// size is what the event takes in its namespace's bytes.
func (q *queued) size() int64 { return int64(len(q.id) + len(q.value)) }

// packedSize is about what packEvent takes for e, the event of a
// transaction with summary t: never less, so that one allocation holds it.
func packedSize(e *journal.Event, t emulator.Summary) int {
	n := 4 + 64 + len(e.Kind) + len(e.Status) + len(e.Detail) + len(e.Request) + len(e.Response) // the record
	if c := e.Challenge; c != nil {
		n += 32 + len(c.ACSURL) + len(c.CReq) + len(c.SessionData)
	}
	n += 19 * 8 // each summary field's name and length
	for _, f := range [...]string{t.ThreeDSServerTransID, t.ExternalReferenceID, t.ScenarioID, t.MaskedPAN, t.CardBIN,
		t.CardScheme, t.Version, t.Status, t.StatusReason, t.ECI, t.ChallengeCancel, t.CardholderName, t.MerchantName,
		t.Amount, t.Currency, "2006-01-02T15:04:05", "false", "enquiry"} {
		n += len(f)
	}
	return n + len(t.Status) // "ls" repeats the status
}

// packEvent appends the value of an event in its stream entry: the length
// of its record in four bytes (big endian), the record (see appendRecord),
// then the summary fields it sets (see appendSummary).
func packEvent(b []byte, e *journal.Event, ev emulator.Event) []byte {
	at := len(b)
	b = appendRecord(append(b, 0, 0, 0, 0), e)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return appendSummary(b, ev)
}

// chunkField is the field of a stream entry that holds its events: the
// Snappy-compatible S2 block of their plain form (see appendChunkEvent).
// Compressed, the console's JSON bodies, much alike from one lookup to the
// next, take several times fewer bytes to send, to write to the
// append-only file and to keep.
const chunkField = "z"

// maxChunkPlain bounds the plain form of an entry when it is read back:
// far above what the journal writes (maxChunkBytes and one more event).
const maxChunkPlain = 1 << 20

// appendChunkEvent appends an event to the plain form of a stream entry:
// the uvarint length of its transaction id, the id, the uvarint length of
// its value (see packEvent), the value.
func appendChunkEvent(b []byte, id, value string) []byte {
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}

// readChunk decompresses the events of a stream entry's field and calls
// fn with each, in order: id and value are slices of the entry's own
// plain buffer, which fn copies what it keeps of. It refuses (errRecord)
// a field that does not decompress to exactly whole events, or to more
// than maxChunkPlain bytes.
func readChunk(z string, fn func(id, value []byte)) error {
	zb := []byte(z)
	n, err := s2.DecodedLen(zb)
	if err != nil || n > maxChunkPlain {
		return fmt.Errorf("%w: entry of %d bytes does not decompress within %d", errRecord, len(z), maxChunkPlain)
	}
	plain, err := s2.Decode(make([]byte, n), zb)
	if err != nil {
		return fmt.Errorf("%w: %w", errRecord, err)
	}
	d := recordDecoder{b: plain}
	var events [][]byte // id, value, ...: called only once the whole entry reads
	for len(d.b) > 0 && !d.err {
		id, value := d.field(), d.field()
		events = append(events, id, value)
	}
	if d.err {
		return fmt.Errorf("%w: truncated entry", errRecord)
	}
	for i := 0; i < len(events); i += 2 {
		fn(events[i], events[i+1])
	}
	return nil
}

// unpackEvent splits the value of an event into its record and its
// summary fields; false when it is not one.
func unpackEvent(v string) (rec, sum string, ok bool) {
	if len(v) < 4 {
		return "", "", false
	}
	n := binary.BigEndian.Uint32([]byte(v[:4]))
	if uint64(n) > uint64(len(v)-4) {
		return "", "", false
	}
	return v[4 : 4+n], v[4+n:], true
}

// NewJournal returns the journal kept over client c, and starts its
// writer and its subscription to changes; Close stops them.
func NewJournal(c rueidis.Client, opt JournalOptions) (*Journal, error) {
	if c == nil {
		return nil, errors.New("redisstore: NewJournal needs a client")
	}
	opt.Options = opt.Options.WithDefaults()
	if opt.MaxAge <= 0 {
		return nil, errors.New("redisstore: NewJournal needs a MaxAge")
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Queue <= 0 {
		opt.Queue = DefaultJournalQueue
	}
	if opt.QueueBytes <= 0 {
		opt.QueueBytes = DefaultJournalQueueBytes
	}
	if opt.Batch <= 0 {
		opt.Batch = DefaultJournalBatch
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	subCtx, stop := context.WithCancel(context.Background())
	maxOpen := 2 * int64(opt.PerNamespace)
	j := &Journal{
		c: c, opt: opt, log: log,
		queue:   make(chan queued, opt.Queue),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
		stopSub: stop,
		subDone: make(chan struct{}),
		waiters: journal.NewWatchers(opt.Total),
		maxOpen: maxOpen,
		trimAt:  maxOpen + max(maxOpen/8, 1),
		// An entry is dropped whole: a small one keeps the trim fine
		// grained against the bytes a namespace may hold.
		chunkBytes: min(maxChunkBytes, opt.MaxBytesPerNamespace/16),
	}
	go j.write()
	go j.subscribe(subCtx)
	return j, nil
}

func (j *Journal) base(ns string) string { return j.opt.Prefix + "j:" + ns + ":" }

func (j *Journal) channel() string { return j.opt.Prefix + "j:changed" }

// appendTimeField appends a time as the summary stores it: fixed-width
// Unix nanoseconds.
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
func (j *Journal) Record(_ context.Context, ev emulator.Event) {
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
	// A copy: the queue outlives the request, whose memory the id of an
	// event (an enquiry's) may share.
	id = strings.Clone(id)
	e := journal.NewEvent(ev)
	t := ev.Transaction
	e.Status = t.Status
	// The record and the summary fields go into one buffer, viewed as a
	// string without a copy (the buffer is never written again).
	buf := make([]byte, 0, packedSize(&e, t))
	q := queued{ns: ev.Namespace, id: id, opening: opens(ev.Kind), enquiry: ev.Kind == emulator.EventEnquiry,
		value: rueidis.BinaryString(packEvent(buf, &e, ev))}
	size := q.size()
	if j.queuedBytes.Load()+size > j.opt.QueueBytes {
		j.drop(1, errors.New("queue full (bytes)"))
		return
	}
	select {
	case j.queue <- q:
		j.queuedBytes.Add(size)
	default:
		j.drop(1, errors.New("queue full"))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// opens reports whether an event of kind k opens a transaction: the
// engine's transactions begin with their lookup or their collection.
func opens(k emulator.EventKind) bool { return k == emulator.EventLookup || k == emulator.EventDDC }

// drop counts n dropped events and says so in the log, at most every
// dropLogInterval.
func (j *Journal) drop(n int, why error) {
	total := j.dropped.Add(uint64(n))
	now := time.Now().UnixNano()
	last := j.lastDropLog.Load()
	if now-last < int64(dropLogInterval) || !j.lastDropLog.CompareAndSwap(last, now) {
		return
	}
	j.log.Warn("console journal: events dropped (the API is not affected)", slog.Uint64("dropped_total", total), slog.Any("err", why))
}

// trimScript brings a namespace within its bounds (see Redis). KEYS are
// its o, s, m, d, zo and zs; ARGV the openings it keeps, the bytes beyond
// which it is trimmed and those it is trimmed to, the channel of changes
// and the namespace. It reads the lists that describe the entries, never
// the streams, and returns how many openings it dropped.
var trimScript = rueidis.NewLuaScript(`
local o, s, m, d, zo, zs = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local maxOpen, maxBytes, target = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('HMGET', m, 'b', 'no')
local bytes, opened = tonumber(state[1] or '0'), tonumber(state[2] or '0')
local freed, gone = 0, 0
-- Drops the oldest entries of o (never the newest) while want says so,
-- with the items of zo that describe them: "size count".
local function dropOpenings(want)
  local n, last = 0, redis.call('LLEN', zo) - 1
  while n < last and want() do
    for _, z in ipairs(redis.call('LRANGE', zo, n, math.min(n + 15, last - 1))) do
      if not want() then break end
      local size, k = string.match(z, '^(%d+) (%d+)$')
      freed, n, gone, opened = freed + tonumber(size), n + 1, gone + tonumber(k), opened - tonumber(k)
    end
  end
  if n > 0 then
    redis.call('LTRIM', zo, n, -1)
    redis.call('XTRIM', o, 'MAXLEN', '=', redis.call('LLEN', zo))
  end
end
dropOpenings(function() return opened > maxOpen end)
if bytes - freed > maxBytes then
  -- The oldest entries of s, "size qid qid ..." in zs (q 1 for an
  -- enquiry), their events counted as dropped by their transactions.
  local counts, n = {}, 0
  while bytes - freed > target do
    local zz = redis.call('LRANGE', zs, n, n + 63)
    if #zz == 0 then break end
    for _, z in ipairs(zz) do
      if bytes - freed <= target then break end
      freed, n = freed + tonumber(string.match(z, '^%d+')), n + 1
      for q, id in string.gmatch(z, ' (%d)(%S+)') do
        local c = counts[id]
        if not c then c = {0, 0}; counts[id] = c end
        c[1], c[2] = c[1] + 1, c[2] + tonumber(q)
      end
    end
  end
  if n > 0 then
    redis.call('LTRIM', zs, n, -1)
    redis.call('XTRIM', s, 'MAXLEN', '=', redis.call('LLEN', zs))
  end
  -- The counts outlive their transactions: they are bounded instead.
  if redis.call('HLEN', d) > 8 * maxOpen then redis.call('DEL', d) end
  for id, c in pairs(counts) do
    redis.call('HINCRBY', d, 'n:' .. id, c[1])
    if c[2] > 0 then redis.call('HINCRBY', d, 'q:' .. id, c[2]) end
  end
  -- Then the oldest openings, their transactions with them.
  dropOpenings(function() return bytes - freed > target end)
end
if gone > 0 then
  redis.call('HINCRBY', m, 'no', -gone)
end
if freed > 0 then
  redis.call('HINCRBY', m, 'b', -freed)
  redis.call('HINCRBY', m, 'v', 1)
  redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return gone
`)

// write sends the queue to Redis in batches until Close, then flushes
// what is left.
func (j *Journal) write() {
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
func (j *Journal) fill(batch []queued) []queued {
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

// flush writes a batch in one pipelined round trip: one MULTI per
// namespace. Then it trims the namespaces that hold more than their
// bounds.
func (j *Journal) flush(batch []queued) {
	// The namespaces of the batch, in their order of appearance.
	type part struct {
		ns      string
		events  []*queued
		opened  int
		replies int // how many replies EXEC holds
		bytesAt int // the index of the namespace's bytes among them
	}
	var parts []*part
	at := map[string]*part{}
	for i := range batch {
		q := &batch[i]
		p := at[q.ns]
		if p == nil {
			p = &part{ns: q.ns}
			at[q.ns] = p
			parts = append(parts, p)
		}
		p.events = append(p.events, q)
		if q.opening {
			p.opened++
		}
	}
	ttl := j.opt.MaxAge.Milliseconds()
	cmds := make(rueidis.Commands, 0, len(parts)*24)
	for _, p := range parts {
		b := j.base(p.ns)
		o, st, m, d, zo, zs := b+"o", b+"s", b+"m", b+"d", b+"zo", b+"zs"
		cmds = append(cmds, j.c.B().Multi().Build())
		first := len(cmds) // the first command EXEC answers
		// Its openings, then its later events, each in entries of at most
		// chunkBytes, with one item per entry in the list beside the stream.
		var items [2][]string
		var bytes int64
		for k, key := range [2]string{o, st} {
			opening := k == 0
			var plain []byte // the entry's events, see appendChunkEvent
			var size, n int64
			item := make([]byte, 0, 64)
			end := func() {
				if n == 0 {
					return
				}
				z := rueidis.BinaryString(s2.Encode(nil, plain))
				cmds = append(cmds, j.c.B().Xadd().Key(key).Id("*").FieldValue().FieldValue(chunkField, z).Build())
				if opening {
					item = strconv.AppendInt(append(item, ' '), n, 10)
				}
				items[k] = append(items[k], strconv.FormatInt(size, 10)+string(item))
				bytes += size
				plain, size, n, item = plain[:0], 0, 0, item[:0]
			}
			for _, q := range p.events {
				if q.opening != opening {
					continue
				}
				if size > 0 && size+q.size() > j.chunkBytes {
					end()
				}
				plain = appendChunkEvent(plain, q.id, q.value)
				size, n = size+q.size(), n+1
				if !opening { // the later events' ids, for their counts of dropped events
					item = append(item, ' ', "01"[btoi(q.enquiry)])
					item = append(item, q.id...)
				}
			}
			end()
		}
		for k, key := range [2]string{zo, zs} {
			if len(items[k]) > 0 {
				cmds = append(cmds, j.c.B().Rpush().Key(key).Element(items[k]...).Build())
			}
		}
		p.bytesAt = len(cmds) - first
		cmds = append(cmds,
			j.c.B().Hincrby().Key(m).Field("b").Increment(bytes).Build(),
			j.c.B().Hincrby().Key(m).Field("no").Increment(int64(p.opened)).Build(),
			j.c.B().Hincrby().Key(m).Field("v").Increment(1).Build())
		for _, k := range [...]string{o, st, m, d, zo, zs} {
			cmds = append(cmds, j.c.B().Pexpire().Key(k).Milliseconds(ttl).Build())
		}
		cmds = append(cmds, j.c.B().Publish().Channel(j.channel()).Message(p.ns).Build())
		p.replies = len(cmds) - first
		cmds = append(cmds, j.c.B().Exec().Build())
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.opt.Timeout)
	defer cancel()
	var failed, written int
	var firstErr error
	var trims []rueidis.LuaExec
	res := j.c.DoMulti(ctx, cmds...)
	next := 0
	for _, p := range parts {
		next += p.replies + 2 // with MULTI and EXEC
		// EXEC answers the namespace's commands, or fails them all.
		vs, err := res[next-1].ToArray()
		if err == nil && len(vs) != p.replies {
			err = fmt.Errorf("EXEC answered %d replies for %d commands", len(vs), p.replies)
		}
		if err == nil {
			for _, v := range vs {
				if err = v.Error(); err != nil {
					break
				}
			}
		}
		if err != nil {
			failed += len(p.events)
			firstErr = cmpErr(firstErr, err)
			continue
		}
		written += len(p.events)
		bytes, _ := vs[p.bytesAt].AsInt64()
		opened, _ := vs[p.bytesAt+1].AsInt64()
		if bytes > j.opt.MaxBytesPerNamespace || opened > j.trimAt {
			b := j.base(p.ns)
			trims = append(trims, rueidis.LuaExec{Keys: []string{b + "o", b + "s", b + "m", b + "d", b + "zo", b + "zs"}, Args: []string{
				strconv.FormatInt(j.maxOpen, 10), strconv.FormatInt(j.opt.MaxBytesPerNamespace, 10),
				strconv.FormatInt(j.opt.MaxBytesPerNamespace-j.opt.MaxBytesPerNamespace/8, 10), j.channel(), p.ns}})
		}
	}
	if len(trims) > 0 {
		for _, r := range trimScript.ExecMulti(ctx, j.c, trims...) {
			n, err := r.AsInt64()
			if err != nil {
				// The next batch of the namespace tries again.
				j.log.Warn("console journal: trim failed", slog.Any("err", Classify("journal trim", err)))
				continue
			}
			j.evicted.Add(uint64(max(n, 0)))
		}
	}
	var size int64
	for i := range batch {
		size += batch[i].size()
	}
	j.queuedBytes.Add(-size)
	j.recorded.Add(uint64(written))
	if failed > 0 {
		j.drop(failed, Classify("journal record", firstErr))
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
func (j *Journal) Flush(ctx context.Context) error {
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
func (j *Journal) Close() {
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
func (j *Journal) subscribe(ctx context.Context) {
	defer close(j.subDone)
	subscribe(ctx, j.c, j.channel(), j.opt.Timeout, j.waiters.Wake, j.waiters.WakeAll)
}

// Changed returns a channel closed when Redis publishes a change of ns
// (made on any replica), or sooner: compare versions.
func (j *Journal) Changed(ns string) <-chan struct{} { return j.waiters.Changed(ns) }

func (j *Journal) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, j.opt.Timeout)
}

// Version returns the version of ns: the count of its changes, 0 when it
// holds nothing.
func (j *Journal) Version(ctx context.Context, ns string) (uint64, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	v, err := j.c.Do(ctx, j.c.B().Hget().Key(j.base(ns)+"m").Field("v").Build()).AsUint64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, Classify("journal version", err)
	}
	return v, nil
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Journal) List(ctx context.Context, ns string, limit int) ([]journal.Summary, error) {
	f, err := j.fold(ctx, ns, "journal list", "")
	if err != nil || f == nil {
		return nil, err
	}
	list := f.mem.List(ns, limit)
	for i := range list {
		s := &list[i]
		s.Events += f.dropped["n:"+s.ID]
		s.Enquiries += f.dropped["q:"+s.ID]
	}
	return list, nil
}

// Get returns the transaction id of namespace ns with its events.
func (j *Journal) Get(ctx context.Context, ns, id string) (journal.Entry, bool, error) {
	f, err := j.fold(ctx, ns, "journal entry", id)
	if err != nil || f == nil {
		return journal.Entry{}, false, err
	}
	e, ok := f.mem.Get(ns, id)
	if !ok {
		return journal.Entry{}, false, nil
	}
	e.Timeline()
	n := f.dropped["n:"+id]
	e.Summary.Events += n
	e.Dropped += n
	e.Enquiries += f.dropped["q:"+id]
	return e, true, nil
}

// Query returns the page of the transactions of ns that q selects,
// newest first. It reads the whole namespace, as List does.
func (j *Journal) Query(ctx context.Context, ns string, q journal.Query) (journal.Page, error) {
	f, err := j.fold(ctx, ns, "journal query", "")
	if err != nil || f == nil {
		return journal.Page{}, err
	}
	p := f.mem.Query(ns, q)
	for i := range p.Summaries {
		s := &p.Summaries[i]
		s.Events += f.dropped["n:"+s.ID]
		s.Enquiries += f.dropped["q:"+s.ID]
	}
	return p, nil
}

// Forget forgets every transaction of ns: this replica's queued events
// are written first (within the store's timeout), then the namespace's
// keys go in one step and the change is published. An event queued on
// another replica in the same instant may still arrive after it.
func (j *Journal) Forget(ctx context.Context, ns string) error {
	fctx, cancel := j.ctx(ctx)
	_ = j.Flush(fctx) // best effort: a busy queue must not hold the request
	cancel()
	ctx, cancel = j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	res := j.c.DoMulti(ctx,
		j.c.B().Multi().Build(),
		j.c.B().Del().Key(b+"o", b+"s", b+"m", b+"d", b+"zo", b+"zs").Build(),
		j.c.B().Publish().Channel(j.channel()).Message(ns).Build(),
		j.c.B().Exec().Build())
	for _, r := range res {
		if err := r.Error(); err != nil {
			return ClassifyWrite("journal forget", err)
		}
	}
	return nil
}

// folded is a namespace read back: its events kept by an in-memory
// journal with the same bounds, and the counts of the events the trim
// dropped.
type folded struct {
	mem     *journal.History
	dropped map[string]int
}

// fold reads the streams of ns and keeps their events, oldest first, in
// an in-memory journal: the transactions whose openings are held, each
// with its events; only transaction only's when only is set (the others'
// events are skipped unread). An entry that cannot be read is skipped.
// nil when ns holds nothing.
func (j *Journal) fold(ctx context.Context, ns, op, only string) (*folded, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	res := j.c.DoMulti(ctx,
		j.c.B().Xrange().Key(b+"o").Start("-").End("+").Build(),
		j.c.B().Xrange().Key(b+"s").Start("-").End("+").Build(),
		j.c.B().Hgetall().Key(b+"d").Build())
	opened, err := res[0].AsXRangeSlices()
	if err != nil {
		return nil, Classify(op, err)
	}
	if len(opened) == 0 {
		return nil, nil
	}
	later, err := res[1].AsXRangeSlices()
	if err != nil {
		return nil, Classify(op, err)
	}
	counts, err := res[2].AsStrMap()
	if err != nil {
		return nil, Classify(op, err)
	}
	type stored struct {
		ev emulator.Event
		e  journal.Event
	}
	held := make(map[string]bool, len(opened))
	read := func(xs []rueidis.XRangeSlice, opening bool) []stored {
		out := make([]stored, 0, len(xs))
		for _, x := range xs {
			// An entry holds its events compressed in one field; one it
			// cannot read (written by another version) is not shown
			// rather than an error.
			for _, fv := range x.FieldValues {
				if fv.Field != chunkField {
					continue
				}
				_ = readChunk(fv.Value, func(rawID, rawValue []byte) {
					if only != "" && string(rawID) != only {
						return
					}
					id := string(rawID)
					if opening {
						held[id] = true
					} else if !held[id] {
						return // its transaction is forgotten
					}
					rec, sum, ok := unpackEvent(string(rawValue))
					if !ok {
						return
					}
					ev, ok := eventOf(ns, id, sum)
					e, err := decodeRecord([]byte(rec))
					if !ok || err != nil {
						return
					}
					out = append(out, stored{ev: ev, e: e})
				})
			}
		}
		return out
	}
	all := read(opened, true)
	all = append(all, read(later, false)...)
	// The two streams in the order of the events; an opening first among
	// events of the same time.
	sort.SliceStable(all, func(a, b int) bool { return all[a].e.Time.Before(all[b].e.Time) })
	opt := j.opt.Options
	opt.Total, opt.MaxTotalBytes = math.MaxInt, math.MaxInt64
	f := &folded{mem: journal.NewHistory(opt), dropped: make(map[string]int, len(counts))}
	for k, v := range counts {
		f.dropped[k], _ = strconv.Atoi(v)
	}
	for _, s := range all {
		f.mem.Add(s.ev, s.e)
	}
	return f, nil
}

// appendSummary appends the summary fields ev sets, each as its name,
// "=", the length of its value in decimal, ":" and the value: the id and
// the event's time ("c"), then those the event knows (an empty one keeps
// the earlier value), and those that always follow the latest event. A
// read folds them back into the transaction's summary (see eventOf).
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

// eventOf is the engine's event as its summary fields (see appendSummary)
// describe it, for the in-memory journal to keep again; false when they
// are not a summary.
func eventOf(ns, id, packed string) (emulator.Event, bool) {
	m := make(map[string]string, 20)
	unpackSummary(m, packed)
	if m["id"] != id || m["le"] == "" {
		return emulator.Event{}, false
	}
	at, err := strconv.ParseInt(m["c"], 10, 64)
	if err != nil {
		return emulator.Event{}, false
	}
	return emulator.Event{Namespace: ns, Kind: emulator.EventKind(m["le"]), Time: time.Unix(0, at).UTC(),
		Transaction: emulator.Summary{
			ThreeDSServerTransID: id, ExternalReferenceID: m["ref"], ScenarioID: m["sc"], MaskedPAN: m["pan"],
			CardBIN: m["bin"], CardScheme: m["sch"], Version: m["ver"], Status: m["st"], StatusReason: m["sr"],
			ECI: m["eci"], ChallengeCancel: m["cc"], Fallback: m["fb"] == "true", CardholderName: m["chn"],
			MerchantName: m["mn"], Amount: m["amt"], Currency: m["cur"],
		}}, true
}

// Stats returns this replica's counters: Bytes are those queued, not yet
// written; Transactions are not counted (they are in Redis).
func (j *Journal) Stats() journal.Stats {
	return journal.Stats{Bytes: j.queuedBytes.Load(), Recorded: j.recorded.Load(), Dropped: j.dropped.Load(), Evicted: j.evicted.Load()}
}
