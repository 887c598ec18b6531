package memstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/record"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Defaults for the bounds.
const (
	DefaultMaxEntries = 100_000
	DefaultMaxAge     = 24 * time.Hour
)

// Options bound the store.
type Options struct {
	// MaxEntries is the most transactions kept, of every tenant
	// (namespace) together; at this bound the tenant holding the most
	// gives way, its own oldest transaction evicted.
	MaxEntries int
	// MaxEntriesPerTenant is a tenant's share: the most transactions of
	// one namespace kept, beyond which its own oldest is evicted. Kept
	// exactly: an eviction here costs no round trip, so the memory
	// store takes none of the slack state.ShareSlack allows (exact is
	// within that bound). MaxEntries when zero, and never above it.
	MaxEntriesPerTenant int
	// MaxAge is how long a transaction is kept after it was stored.
	MaxAge time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnEvict, when set, is told of every eviction and its reason
	// ("capacity" or "age"). It runs under the store's lock: keep it short.
	// id shares the evicted record's memory and is valid only during the
	// call: copy it to keep it.
	OnEvict func(id, reason string)
}

// recordBuf is the size of the buffers on the stack that records are
// encoded into and copied out to; a larger record (a long challenge
// session) goes through the heap instead.
const recordBuf = 1024

// updateRoom is the space reserved beyond a record for it to grow in place
// when it is updated: a pending challenge gains its open and decision
// times, decision and result. Final transactions are rarely updated and
// get none; a record that outgrows its space moves, with this room again.
const updateRoom = 64

// Store is the in-memory state.Store: safe for concurrent use, bounded
// by a number of transactions and by their age. Beyond its age a
// transaction goes; beyond a tenant's share (MaxEntriesPerTenant) the
// tenant's own oldest goes; at the bound of all (MaxEntries) the oldest
// of the tenant holding the most (package fairshare) goes, so that one
// tenant's flood of lookups never evicts another's transactions while it
// holds more than they do.
//
// The store costs the garbage collector almost nothing, however many
// transactions it holds. Kept as Go values, each transaction is some 25
// strings, and 100k of them are millions of pointers that every GC cycle
// marks. Here the live data holds a few dozen:
//
//   - each transaction is encoded into a compact record (package record), and
//     the records lie back to back in byte chunks of up to 1 MiB
//     (arena.go): one pointer per chunk, rather than one per string or
//     even one per transaction;
//   - a slice of slots lists the records in insertion order and is the
//     eviction queue; a transaction's sequence number is its place in it,
//     so a record that moves (an update that outgrew it) keeps its number
//     and its index entries;
//   - the indexes map a 64-bit hash (maphash, seeded per store) of the id,
//     and of the namespace and reference, to a sequence number. Maps of
//     integers are not scanned by the GC. A hit is checked against the
//     record; the rare id (or reference) whose hash another live one holds
//     goes to a small overflow map keyed by the strings, almost always
//     empty.
//
// At 100k stored transactions a full collection takes about as long as
// with an empty store (BenchmarkGC: 0.65 ms against 33-49 ms with
// map[string]*Transaction), and a transaction takes about 370 bytes
// rather than 820 (BenchmarkMemoryPerTransaction).
//
// The lock is held briefly: records are encoded before taking it, and a
// Get copies the record out under it and decodes it after, into a
// Transaction whose strings share a single allocation.
type Store struct {
	mu    sync.Mutex
	arena arena
	// slots are the stored records in insertion order, the oldest at
	// head. The transaction with sequence number seq is slots[seq-base].
	slots []slot
	head  int
	base  uint64
	// ids maps the hash of an id to its transaction's sequence number,
	// refs the hash of a namespace and reference to its newest one.
	ids  map[uint64]uint64
	refs map[uint64]uint64
	// idOverflow and refOverflow hold the ids and references whose hash
	// was taken by another live one when they were stored: with 64-bit
	// hashes, in practice never.
	idOverflow  map[string]uint64
	refOverflow map[refKey]uint64

	seed maphash.Seed
	// hashMask is ANDed into every hash: all ones, except in tests that
	// force collisions.
	hashMask uint64

	// live counts the stored transactions: the slots between head and
	// the end that an eviction of a tenant's oldest has not emptied.
	live int
	// liveRoom is the room the live records take in the arena.
	liveRoom int
	// held counts each namespace's transactions, tenants lists each
	// namespace's sequence numbers, the oldest first.
	held    fairshare.Holdings
	tenants map[string]*seqQueue

	opts    Options
	evicted atomic.Uint64
}

// seqQueue is a namespace's stored transactions in insertion order.
type seqQueue struct {
	seqs []uint64
	head int
}

// slot is a stored record and the hashes it is indexed by (refHash is
// zero without a reference), kept so that eviction need not hash again,
// and the time it was stored (Unix nanoseconds of Options.Now), which the
// age bound counts from: a transaction's CreatedAt follows its
// namespace's clock, which may run ahead of real time. An evicted slot is
// zero (its span's cap is 0; a stored record always has room).
type slot struct {
	span
	idHash, refHash uint64
	stored          int64
}

type refKey struct{ ns, ref string }

var _ state.Store = (*Store)(nil)

// New returns an empty store. Zero bounds take the defaults.
func New(opts Options) (*Store, error) {
	if opts.MaxEntries < 0 || opts.MaxAge < 0 {
		return nil, fmt.Errorf("memstore: bounds must not be negative (max entries %d, max age %s)", opts.MaxEntries, opts.MaxAge)
	}
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.MaxEntriesPerTenant <= 0 || opts.MaxEntriesPerTenant > opts.MaxEntries {
		opts.MaxEntriesPerTenant = opts.MaxEntries
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{
		tenants:  make(map[string]*seqQueue),
		ids:      make(map[uint64]uint64),
		refs:     make(map[uint64]uint64),
		seed:     maphash.MakeSeed(),
		hashMask: ^uint64(0),
		opts:     opts,
	}, nil
}

// hashID is the index hash of a transaction id.
func (s *Store) hashID(id string) uint64 {
	return maphash.String(s.seed, id) & s.hashMask
}

// hashRef is the index hash of an external reference in a namespace.
func (s *Store) hashRef(ns, ref string) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	var n [binary.MaxVarintLen64]byte
	h.Write(binary.AppendUvarint(n[:0], uint64(len(ns))))
	h.WriteString(ns)
	h.WriteString(ref)
	return h.Sum64() & s.hashMask
}

// Put stores a new transaction, evicting the oldest ones beyond the bounds.
func (s *Store) Put(_ context.Context, t state.Transaction) error {
	id := t.ThreeDSServerTransID
	if id == "" {
		return fmt.Errorf("memstore: put: transaction without threeDSServerTransID")
	}
	var buf [recordBuf]byte
	rec := record.Append(buf[:0], &t)
	if len(rec) > maxRecord {
		return fmt.Errorf("memstore: put: transaction %s too large (%d bytes encoded)", id, len(rec))
	}
	room := 0
	if t.Phase != state.PhaseFinal {
		room = updateRoom
	}
	sl := slot{idHash: s.hashID(id)}
	if t.ExternalReferenceID != "" {
		sl.refHash = s.hashRef(t.Namespace, t.ExternalReferenceID)
	}
	now := s.opts.Now()
	sl.stored = now.UnixNano()
	cutoff := now.Add(-s.opts.MaxAge).UnixNano()

	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.lookupID(id, sl.idHash); dup {
		return fmt.Errorf("memstore: put: transaction %s already stored", id)
	}
	sl.span = s.arena.write(s.arena.alloc(len(rec)+room), rec)
	seq := s.base + uint64(len(s.slots))
	s.slots = append(s.slots, sl)
	if _, taken := s.ids[sl.idHash]; taken {
		if s.idOverflow == nil {
			s.idOverflow = make(map[string]uint64)
		}
		s.idOverflow[id] = seq
	} else {
		s.ids[sl.idHash] = seq
	}
	if t.ExternalReferenceID != "" {
		s.indexRef(t.Namespace, t.ExternalReferenceID, sl.refHash, seq)
	}
	s.live++
	s.liveRoom += int(sl.cap)
	q := s.tenants[t.Namespace]
	if q == nil {
		q = &seqQueue{}
		s.tenants[strings.Clone(t.Namespace)] = q
	}
	q.seqs = append(q.seqs, seq)
	s.held.Add(t.Namespace, 1)
	s.evictLocked(cutoff, t.Namespace)
	return nil
}

// indexRef makes seq the newest transaction for ns and ref.
func (s *Store) indexRef(ns, ref string, h, seq uint64) {
	if old, taken := s.refs[h]; !taken || s.hasRef(old, ns, ref) {
		s.refs[h] = seq
		return
	}
	if s.refOverflow == nil {
		s.refOverflow = make(map[refKey]uint64)
	}
	s.refOverflow[refKey{ns, ref}] = seq
}

// record returns the record of the stored transaction seq.
func (s *Store) record(seq uint64) []byte {
	return s.arena.bytes(s.slots[seq-s.base].span)
}

// keysOf reads the keys of the record of seq.
func (s *Store) keysOf(seq uint64) record.Keys {
	k, err := record.ReadKeys(s.record(seq))
	if err != nil {
		panic(err) // the store wrote the record itself
	}
	return k
}

// hasRef tells whether the transaction seq has this namespace and
// reference.
func (s *Store) hasRef(seq uint64, ns, ref string) bool {
	h := s.keysOf(seq)
	return string(h.NS) == ns && string(h.Ref) == ref
}

// lookupID returns the sequence number of the stored transaction with
// this id and hash, expired or not.
func (s *Store) lookupID(id string, h uint64) (uint64, bool) {
	if seq, ok := s.ids[h]; ok && string(s.keysOf(seq).ID) == id {
		return seq, true
	}
	if len(s.idOverflow) == 0 {
		return 0, false
	}
	seq, ok := s.idOverflow[id]
	return seq, ok
}

// lookupRef returns the sequence number of the newest stored transaction
// with this namespace, reference and hash, expired or not.
func (s *Store) lookupRef(ns, ref string, h uint64) (uint64, bool) {
	if seq, ok := s.refs[h]; ok && s.hasRef(seq, ns, ref) {
		return seq, true
	}
	if len(s.refOverflow) == 0 {
		return 0, false
	}
	seq, ok := s.refOverflow[refKey{ns, ref}]
	return seq, ok
}

// expired tells whether the transaction seq was stored before cutoff.
func (s *Store) expired(seq uint64, cutoff int64) bool {
	return s.slots[seq-s.base].stored < cutoff
}

// cutoff is the time (Unix nanoseconds) before which stored transactions
// are expired. The store's methods read the clock before taking the lock.
func (s *Store) cutoff() int64 { return s.opts.Now().Add(-s.opts.MaxAge).UnixNano() }

// evictLocked drops the transactions stored before cutoff, then the
// oldest of ns beyond its share, then, beyond the bound of all, the
// oldest of the namespace holding the most.
func (s *Store) evictLocked(cutoff int64, ns string) {
	for s.head < len(s.slots) && s.slots[s.head].stored < cutoff {
		s.drop(s.base+uint64(s.head), "age")
	}
	for s.held.Of(ns) > int64(s.opts.MaxEntriesPerTenant) {
		s.drop(s.tenants[ns].oldest(), "capacity")
	}
	for s.live > s.opts.MaxEntries {
		most, _ := s.held.Largest()
		s.drop(s.tenants[most].oldest(), "capacity")
	}
	s.compactLocked()
	// Compact the queue once its dead head is the larger half.
	if s.head > 1024 && s.head*2 > len(s.slots) {
		s.base += uint64(s.head)
		s.slots = dropHead(s.slots, s.head)
		s.head = 0
	}
}

// compactLocked moves the live records out of the arena's older chunks
// once the chunks take more than twice the room of the records (and two
// chunks more): the records of other tenants left behind when a tenant
// lost its oldest would otherwise pin their chunks. Each move costs the
// copy of a record, once per doubling of the waste.
func (s *Store) compactLocked() {
	if s.arena.size() <= 2*s.liveRoom+2*maxChunk {
		return
	}
	newest := s.arena.first + uint32(len(s.arena.chunks)-1)
	for i := s.head; i < len(s.slots); i++ {
		sl := &s.slots[i]
		if sl.cap == 0 || int32(sl.chunk-newest) >= 0 {
			continue
		}
		moved := s.arena.write(s.arena.alloc(int(sl.cap)), s.arena.bytes(sl.span))
		s.arena.free(sl.span)
		sl.span = moved
	}
}

// dropHead returns q without its first head elements. While q's array
// is at most four times what is left, the rest moves to its front: a
// queue at its bound compacts in place, allocating nothing (a new array
// of exactly what is left would grow again, a copy at a time, by the
// next bound's worth of appends). A queue that shrank far gets an array
// with room to double.
func dropHead[T any](q []T, head int) []T {
	n := len(q) - head
	if cap(q) <= 4*n {
		copy(q, q[head:])
		clear(q[n:])
		return q[:n]
	}
	out := make([]T, n, 2*n)
	copy(out, q[head:])
	return out
}

// oldest is the sequence number of the namespace's oldest transaction.
func (q *seqQueue) oldest() uint64 { return q.seqs[q.head] }

// drop evicts the transaction seq, which is the oldest of its namespace.
func (s *Store) drop(seq uint64, reason string) {
	i := int(seq - s.base)
	sl := s.slots[i]
	h := s.keysOf(seq)
	if cur, ok := s.ids[sl.idHash]; ok && cur == seq {
		delete(s.ids, sl.idHash)
	} else {
		delete(s.idOverflow, string(h.ID))
	}
	if len(h.Ref) > 0 {
		if cur, ok := s.refs[sl.refHash]; ok && cur == seq {
			delete(s.refs, sl.refHash)
		} else if len(s.refOverflow) > 0 {
			k := refKey{string(h.NS), string(h.Ref)}
			if cur, ok := s.refOverflow[k]; ok && cur == seq {
				delete(s.refOverflow, k)
			}
		}
	}
	// Views of the record's bytes, not copies: the record stays as it is
	// until the arena writes over it, after this eviction, and no map here
	// keeps them (the tenant's key was cloned when it was added;
	// Holdings keeps no tenant it is given a negative amount of).
	ns := unsafe.String(unsafe.SliceData(h.NS), len(h.NS))
	if q := s.tenants[ns]; q != nil {
		q.head++
		if q.head == len(q.seqs) {
			delete(s.tenants, ns)
		} else if q.head > 64 && q.head*2 > len(q.seqs) {
			q.seqs = dropHead(q.seqs, q.head)
			q.head = 0
		}
	}
	s.held.Add(ns, -1)
	s.slots[i] = slot{}
	s.live--
	s.liveRoom -= int(sl.cap)
	for s.head < len(s.slots) && s.slots[s.head].cap == 0 {
		s.head++
	}
	s.evicted.Add(1)
	if s.opts.OnEvict != nil {
		s.opts.OnEvict(unsafe.String(unsafe.SliceData(h.ID), len(h.ID)), reason)
	}
	s.arena.free(sl.span) // the record's bytes are not read after this
}

// copyLive appends to dst the record of seq if found and not stored
// before cutoff.
func (s *Store) copyLive(dst []byte, seq uint64, found bool, cutoff int64) ([]byte, bool) {
	if !found || s.expired(seq, cutoff) {
		return nil, false
	}
	return append(dst, s.record(seq)...), true
}

// decodeFound decodes what copyLive copied.
func decodeFound(rec []byte, found bool) (state.Transaction, error) {
	if !found {
		return state.Transaction{}, state.ErrNotFound
	}
	return record.Decode(rec)
}

// Get returns a copy of the transaction with this id.
func (s *Store) Get(_ context.Context, id string) (state.Transaction, error) {
	h, cutoff := s.hashID(id), s.cutoff()
	var buf [recordBuf]byte
	s.mu.Lock()
	seq, ok := s.lookupID(id, h)
	rec, ok := s.copyLive(buf[:0], seq, ok, cutoff)
	s.mu.Unlock()
	return decodeFound(rec, ok)
}

// GetByExternalRef returns a copy of the newest transaction of namespace
// that carries ref.
func (s *Store) GetByExternalRef(_ context.Context, namespace, ref string) (state.Transaction, error) {
	if ref == "" {
		return state.Transaction{}, state.ErrNotFound
	}
	h, cutoff := s.hashRef(namespace, ref), s.cutoff()
	var buf [recordBuf]byte
	s.mu.Lock()
	seq, ok := s.lookupRef(namespace, ref, h)
	rec, ok := s.copyLive(buf[:0], seq, ok, cutoff)
	s.mu.Unlock()
	return decodeFound(rec, ok)
}

// Update applies fn to a copy of the transaction and stores the copy when
// fn succeeds. The identifiers and namespace cannot be changed.
func (s *Store) Update(_ context.Context, id string, fn func(*state.Transaction) error) (state.Transaction, error) {
	h, cutoff := s.hashID(id), s.cutoff()
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, ok := s.lookupID(id, h)
	if !ok || s.expired(seq, cutoff) {
		return state.Transaction{}, state.ErrNotFound
	}
	old, err := record.Decode(s.record(seq))
	if err != nil {
		return state.Transaction{}, err
	}
	c := old
	if err := fn(&c); err != nil {
		return old, err
	}
	c.ThreeDSServerTransID, c.Namespace, c.ExternalReferenceID = old.ThreeDSServerTransID, old.Namespace, old.ExternalReferenceID
	var buf [recordBuf]byte
	rec := record.Append(buf[:0], &c)
	if len(rec) > maxRecord {
		return old, fmt.Errorf("memstore: update: transaction %s too large (%d bytes encoded)", id, len(rec))
	}
	sl := &s.slots[seq-s.base]
	if len(rec) > int(sl.cap) {
		moved := s.arena.alloc(len(rec) + updateRoom)
		s.arena.free(sl.span)
		s.liveRoom += int(moved.cap) - int(sl.cap)
		sl.span = moved
	}
	sl.span = s.arena.write(sl.span, rec)
	return c, nil
}

// Len reports how many transactions are stored.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

// Evicted reports how many transactions were evicted since start.
func (s *Store) Evicted() uint64 { return s.evicted.Load() }
