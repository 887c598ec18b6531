package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
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
// state.ErrUnavailable when it cannot be reached).
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
// single slot on a cluster: see base.
type Journal struct {
	c     rueidis.Client
	opt   JournalOptions
	ks    keyspace // the keys' names: see base
	log   *slog.Logger
	queue chan queued

	queuedBytes                atomic.Int64
	recorded, dropped, evicted atomic.Uint64
	lastDropLog                atomic.Int64 // Unix nanoseconds

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: Record drops from then on
	done      chan struct{} // closed when the writer has flushed
	sub       *subscription // wakes the waiters of each change Redis publishes

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
func packedSize(e *journal.Event, t state.Summary) int {
	n := 4 + 64 + len(e.Kind) + len(e.Status) + len(e.Detail) + len(e.Request) + len(e.Response) // the record
	if c := e.Challenge; c != nil {
		n += 32 + len(c.ACSURL) + len(c.CReq) + len(c.SessionData)
	}
	n += 21 * 8 // each summary field's name and length
	for _, f := range [...]string{t.ThreeDSServerTransID, t.ExternalReferenceID, t.ScenarioID, t.MaskedPAN, t.CardBIN,
		t.CardScheme, t.Version, t.Status, t.StatusReason, t.ECI, t.ChallengeCancel, t.CardholderName, t.MerchantName,
		t.Amount, t.Currency, "2006-01-02T15:04:05", "false", "enquiry", t.Channel.String(), t.ThreeRIInd} {
		n += len(f)
	}
	return n + len(t.Status) // "ls" repeats the status
}

// packEvent appends the value of an event in its stream entry: the length
// of its record in four bytes (big endian), the record (see appendRecord),
// then the summary fields it sets (see appendSummary).
func packEvent(b []byte, e *journal.Event, ev state.Event) []byte {
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
	ks, err := newKeyspace(c, opt.Prefix)
	if err != nil {
		return nil, err
	}
	maxOpen := 2 * int64(opt.PerNamespace)
	j := &Journal{
		c: c, opt: opt, log: log, ks: ks,
		queue:   make(chan queued, opt.Queue),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
		waiters: journal.NewWatchers(opt.Total),
		maxOpen: maxOpen,
		trimAt:  maxOpen + max(maxOpen/8, 1),
		// An entry is dropped whole: a small one keeps the trim fine
		// grained against the bytes a namespace may hold.
		chunkBytes: min(maxChunkBytes, opt.MaxBytesPerNamespace/16),
	}
	go j.write()
	// Every waiter is woken when the subscription (re)starts or fails,
	// so that none waits on a change it missed.
	j.sub = startSubscription(c, j.channel(), opt.Timeout, j.waiters.Wake, j.waiters.WakeAll)
	return j, nil
}

// base begins the keys of namespace ns's journal: on a cluster the
// namespace is their hash tag, so that its MULTI and trim script touch
// one slot.
func (j *Journal) base(ns string) string { return j.opt.Prefix + "j:" + j.ks.tagged(ns) + ":" }

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
func (j *Journal) Record(_ context.Context, ev state.Event) {
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
	q := queued{ns: ev.Namespace, id: id, opening: opens(ev.Kind), enquiry: ev.Kind == state.EventEnquiry,
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
func opens(k state.EventKind) bool { return k == state.EventLookup || k == state.EventDDC }

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
		j.sub.Close()
	})
}

// Changed returns a channel closed when Redis publishes a change of ns
// (made on any replica), or sooner: compare versions.
func (j *Journal) Changed(ns string) <-chan struct{} { return j.waiters.Changed(ns) }

func (j *Journal) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, j.opt.Timeout)
}

// Stats returns this replica's counters: Bytes are those queued, not yet
// written; Transactions are not counted (they are in Redis).
func (j *Journal) Stats() journal.Stats {
	return journal.Stats{Bytes: j.queuedBytes.Load(), Recorded: j.recorded.Load(), Dropped: j.dropped.Load(), Evicted: j.evicted.Load()}
}
