package memstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// testStore returns a store on a settable clock whose hashes keep only
// the bits of mask: 0 makes every id (and every reference) collide, 1
// sorts them into two buckets.
func testStore(t *testing.T, opts Options, mask uint64) (*Store, *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts.Now = func() time.Time { return now }
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.hashMask = mask
	return s, &now
}

// model is the store's contract in its plainest form: the implementation
// before records and hashed indexes.
type model struct {
	max     int
	maxAge  time.Duration
	txs     map[string]state.Transaction
	order   []string
	refs    map[refKey]string
	evicted []string
}

func (m *model) put(tx state.Transaction, now time.Time) error {
	if _, dup := m.txs[tx.ThreeDSServerTransID]; dup {
		return errors.New("duplicate")
	}
	m.txs[tx.ThreeDSServerTransID] = tx
	m.order = append(m.order, tx.ThreeDSServerTransID)
	if tx.ExternalReferenceID != "" {
		m.refs[refKey{tx.Namespace, tx.ExternalReferenceID}] = tx.ThreeDSServerTransID
	}
	for len(m.order) > 0 && m.txs[m.order[0]].CreatedAt.Before(now.Add(-m.maxAge)) {
		m.evict(0, "age")
	}
	for len(m.order) > m.max {
		// The namespace holding the most gives way; of equal ones, the
		// first in byte order.
		held := map[string]int{}
		for _, id := range m.order {
			held[m.txs[id].Namespace]++
		}
		most := ""
		for ns, n := range held {
			if most == "" || n > held[most] || n == held[most] && ns < most {
				most = ns
			}
		}
		for i, id := range m.order {
			if m.txs[id].Namespace == most {
				m.evict(i, "capacity")
				break
			}
		}
	}
	return nil
}

// evict drops the transaction at place i of the order.
func (m *model) evict(i int, reason string) {
	id := m.order[i]
	old := m.txs[id]
	m.order = append(m.order[:i:i], m.order[i+1:]...)
	delete(m.txs, id)
	if k := (refKey{old.Namespace, old.ExternalReferenceID}); m.refs[k] == id {
		delete(m.refs, k)
	}
	m.evicted = append(m.evicted, id+":"+reason)
}

func (m *model) get(id string, now time.Time) (state.Transaction, bool) {
	tx, ok := m.txs[id]
	if !ok || tx.CreatedAt.Before(now.Add(-m.maxAge)) {
		return state.Transaction{}, false
	}
	return tx, true
}

// TestAgainstModel runs random operations on the store and on the model,
// with full hashes and with hashes so weak that ids and references
// collide all the time, and expects the same answers and evictions.
func TestAgainstModel(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 1, 0} {
		t.Run(fmt.Sprintf("mask-%x", mask), func(t *testing.T) {
			ctx := context.Background()
			var evicted []string
			s, now := testStore(t, Options{MaxEntries: 40, MaxAge: time.Hour, OnEvict: func(id, reason string) {
				evicted = append(evicted, id+":"+reason)
			}}, mask)
			m := &model{max: 40, maxAge: time.Hour, txs: map[string]state.Transaction{}, refs: map[refKey]string{}}
			rnd := rand.New(rand.NewPCG(1, mask))
			id := func() string { return fmt.Sprintf("tx-%d", rnd.IntN(150)) }
			ns := func() string { return fmt.Sprintf("ns-%d", rnd.IntN(3)) }
			ref := func() string {
				if rnd.IntN(4) == 0 {
					return ""
				}
				return fmt.Sprintf("ref-%d", rnd.IntN(20))
			}
			for i := range 8000 {
				switch op := rnd.IntN(10); {
				case op < 4:
					tx := state.Transaction{ThreeDSServerTransID: id(), Namespace: ns(), ExternalReferenceID: ref(), CreatedAt: *now,
						Status: "C", Phase: state.Phase(rnd.IntN(3)), Challenge: state.ChallengeState{Session: strings.Repeat("s", rnd.IntN(100))}}
					got, want := s.Put(ctx, tx), m.put(tx, *now)
					if (got == nil) != (want == nil) {
						t.Fatalf("op %d: Put(%s) = %v, model %v", i, tx.ThreeDSServerTransID, got, want)
					}
				case op < 6:
					id := id()
					got, err := s.Get(ctx, id)
					want, ok := m.get(id, *now)
					if (err == nil) != ok || !reflect.DeepEqual(got, want) {
						t.Fatalf("op %d: Get(%s) = %+v, %v; model %+v, %v", i, id, got, err, want, ok)
					}
				case op < 8:
					ns, ref := ns(), ref()
					got, err := s.GetByExternalRef(ctx, ns, ref)
					want, ok := m.get(m.refs[refKey{ns, ref}], *now)
					if (err == nil) != ok || !reflect.DeepEqual(got, want) {
						t.Fatalf("op %d: GetByExternalRef(%s, %s) = %+v, %v; model %+v, %v", i, ns, ref, got, err, want, ok)
					}
				case op < 9:
					id, session, status := id(), strings.Repeat("u", rnd.IntN(200)), fmt.Sprint(i)
					got, err := s.Update(ctx, id, func(tx *state.Transaction) error {
						tx.Challenge.Session, tx.Status = session, status
						tx.Challenge.Interactions++
						return nil
					})
					want, ok := m.get(id, *now)
					if ok {
						want.Challenge.Session, want.Status = session, status
						want.Challenge.Interactions++
						m.txs[id] = want
					}
					if (err == nil) != ok || !reflect.DeepEqual(got, want) {
						t.Fatalf("op %d: Update(%s) = %+v, %v; model %+v, %v", i, id, got, err, want, ok)
					}
				default:
					*now = now.Add(time.Duration(rnd.IntN(200)) * time.Second)
				}
				if s.Len() != len(m.order) {
					t.Fatalf("op %d: Len = %d, model %d", i, s.Len(), len(m.order))
				}
				checkInvariants(t, s)
			}
			if !reflect.DeepEqual(evicted, m.evicted) {
				t.Errorf("evictions differ from the model's")
			}
			if s.Evicted() != uint64(len(m.evicted)) || len(evicted) < 1000 {
				t.Errorf("Evicted = %d, model %d (at least 1000 expected)", s.Evicted(), len(m.evicted))
			}
			if mask == 0 && (len(s.idOverflow) == 0 || len(s.refOverflow) == 0) {
				t.Errorf("overflow maps hold %d ids and %d references, want collisions", len(s.idOverflow), len(s.refOverflow))
			}
			// Once everything expired, the indexes are empty again.
			*now = now.Add(2 * time.Hour)
			if err := s.Put(ctx, state.Transaction{ThreeDSServerTransID: "last", CreatedAt: *now}); err != nil {
				t.Fatal(err)
			}
			// (The last id may sit in the overflow: its hash was taken
			// when it was stored, just before the eviction.)
			if s.Len() != 1 || len(s.ids)+len(s.idOverflow) != 1 || len(s.refs) != 0 || len(s.refOverflow) != 0 {
				t.Errorf("after expiry: Len %d, ids %d+%d, references %d+%d; want 1, 1, 0",
					s.Len(), len(s.ids), len(s.idOverflow), len(s.refs), len(s.refOverflow))
			}
		})
	}
}

// checkInvariants checks that the indexes and the arena agree with the
// queue of records.
func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var live []slot
	var seqs []uint64
	room := 0
	for i, sl := range s.slots[s.head:] {
		if sl.cap != 0 {
			live, seqs, room = append(live, sl), append(seqs, s.base+uint64(s.head+i)), room+int(sl.cap)
		}
	}
	if n := len(s.ids) + len(s.idOverflow); n != len(live) || s.live != len(live) || s.liveRoom != room {
		t.Fatalf("%d ids indexed, %d stored, %d counted live (room %d, counted %d)", n, len(live), s.live, room, s.liveRoom)
	}
	queued := 0
	for ns, q := range s.tenants {
		queued += len(q.seqs) - q.head
		if int64(len(q.seqs)-q.head) != s.held.Of(ns) {
			t.Fatalf("namespace %q: %d queued, %d held", ns, len(q.seqs)-q.head, s.held.Of(ns))
		}
	}
	if queued != len(live) {
		t.Fatalf("%d queued by namespace, %d stored", queued, len(live))
	}
	chunkLive := 0
	for _, c := range s.arena.chunks {
		chunkLive += c.live
	}
	if chunkLive != len(live) {
		t.Fatalf("arena counts %d live records, %d stored", chunkLive, len(live))
	}
	for i, sl := range live {
		seq := seqs[i]
		k := s.keysOf(seq)
		if got, ok := s.lookupID(string(k.ID), s.hashID(string(k.ID))); !ok || got != seq {
			t.Fatalf("id %s: lookup finds %d, %v; want %d", k.ID, got, ok, seq)
		}
		if sl.len > sl.cap {
			t.Fatalf("record %d: length %d beyond its room %d", seq, sl.len, sl.cap)
		}
	}
}

// TestCollidingIDs checks the overflow paths one by one, with every id
// hashing alike: an id whose hash is taken lives in the overflow, stays a
// duplicate, and stays found once the id that held the hash is evicted.
func TestCollidingIDs(t *testing.T) {
	ctx := context.Background()
	s, now := testStore(t, Options{MaxEntries: 2}, 0)
	put := func(id, ref string) {
		t.Helper()
		if err := s.Put(ctx, state.Transaction{ThreeDSServerTransID: id, Namespace: "ns", ExternalReferenceID: ref, CreatedAt: *now}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "r1")
	put("b", "r2") // hash taken by a: overflow
	if len(s.idOverflow) != 1 || len(s.refOverflow) != 1 {
		t.Fatalf("overflow holds %d ids and %d references, want 1 and 1", len(s.idOverflow), len(s.refOverflow))
	}
	for id, ref := range map[string]string{"a": "r1", "b": "r2"} {
		if got, err := s.Get(ctx, id); err != nil || got.ThreeDSServerTransID != id {
			t.Errorf("Get(%s) = %s, %v", id, got.ThreeDSServerTransID, err)
		}
		if got, err := s.GetByExternalRef(ctx, "ns", ref); err != nil || got.ThreeDSServerTransID != id {
			t.Errorf("GetByExternalRef(%s) = %s, %v; want %s", ref, got.ThreeDSServerTransID, err, id)
		}
	}
	if _, err := s.Get(ctx, "c"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Get of an unknown id with a taken hash: %v, want ErrNotFound", err)
	}
	put("c", "r2") // evicts a; r2 now names c, the newest
	if got, err := s.GetByExternalRef(ctx, "ns", "r2"); err != nil || got.ThreeDSServerTransID != "c" {
		t.Errorf("GetByExternalRef(r2) = %s, %v; want c", got.ThreeDSServerTransID, err)
	}
	if err := s.Put(ctx, state.Transaction{ThreeDSServerTransID: "b"}); err == nil {
		t.Error("duplicate of an id in the overflow accepted")
	}
	if got, err := s.Update(ctx, "b", func(tx *state.Transaction) error { tx.Status = "Y"; return nil }); err != nil || got.Status != "Y" {
		t.Errorf("Update(b) = %+v, %v", got, err)
	}
	put("d", "")
	put("e", "")
	if len(s.idOverflow) != 1 || len(s.refOverflow) != 0 || s.Len() != 2 {
		t.Errorf("overflow holds %d ids and %d references with d and e stored, want 1 and 0", len(s.idOverflow), len(s.refOverflow))
	}
}

// TestUpdateGrowsRecord checks that an update that outgrows the record's
// room moves it, and that one that fits is written in place.
func TestUpdateGrowsRecord(t *testing.T) {
	ctx := context.Background()
	s, now := testStore(t, Options{}, ^uint64(0))
	for i := range 3 {
		if err := s.Put(ctx, state.Transaction{ThreeDSServerTransID: fmt.Sprint(i), ExternalReferenceID: "r", CreatedAt: *now}); err != nil {
			t.Fatal(err)
		}
	}
	before := s.slots[1]
	grow := func(tx *state.Transaction) error {
		tx.Challenge.Session = strings.Repeat("Ω", 2*recordBuf) // beyond the stack buffers too
		tx.Challenge.OpenedAt = *now
		return nil
	}
	got, err := s.Update(ctx, "1", grow)
	if err != nil {
		t.Fatal(err)
	}
	moved := s.slots[1]
	if moved.span == before.span || moved.cap < moved.len || moved.cap-moved.len != updateRoom {
		t.Errorf("grown record at %+v (was %+v), want moved with %d bytes of room", moved.span, before.span, updateRoom)
	}
	if stored, err := s.Get(ctx, "1"); err != nil || !reflect.DeepEqual(stored, got) {
		t.Errorf("Get after growing Update = %+v, %v; want %+v", stored, err, got)
	}
	if _, err := s.Update(ctx, "1", func(tx *state.Transaction) error { tx.Challenge.Session = "short"; return nil }); err != nil {
		t.Fatal(err)
	}
	if s.slots[1].span.off != moved.off || s.slots[1].chunk != moved.chunk {
		t.Errorf("shrinking Update moved the record from %+v to %+v", moved.span, s.slots[1].span)
	}
	for _, id := range []string{"0", "2"} {
		if tx, err := s.Get(ctx, id); err != nil || tx.Challenge.Session != "" {
			t.Errorf("neighbour %s = %+v, %v", id, tx, err)
		}
	}
	if tx, err := s.GetByExternalRef(ctx, "", "r"); err != nil || tx.ThreeDSServerTransID != "2" {
		t.Errorf("GetByExternalRef = %s, %v; want 2", tx.ThreeDSServerTransID, err)
	}
	checkInvariants(t, s)
}

// TestArenaStaysBounded stores far more challenge transactions than the
// store keeps and updates each one so that many records move, and expects
// the arena to release its chunks: its size stays near the live records'.
func TestArenaStaysBounded(t *testing.T) {
	ctx := context.Background()
	const keep = 500
	s, now := testStore(t, Options{MaxEntries: keep}, ^uint64(0))
	for i := range 20 * keep {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		tx := state.Transaction{ThreeDSServerTransID: id, ExternalReferenceID: id[:8], Namespace: "ns", CreatedAt: *now, Phase: state.PhaseChallengePending}
		if err := s.Put(ctx, tx); err != nil {
			t.Fatal(err)
		}
		for _, grow := range []int{10, 200} {
			if _, err := s.Update(ctx, id, func(tx *state.Transaction) error {
				tx.Challenge.Decision = strings.Repeat("d", grow)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkInvariants(t, s)
	live := 0
	for _, sl := range s.slots[s.head:] {
		live += int(sl.cap)
	}
	if live != s.liveRoom {
		t.Errorf("liveRoom %d, records take %d", s.liveRoom, live)
	}
	if size := s.arena.size(); size > live+2*maxChunk {
		t.Errorf("arena holds %d bytes in %d chunks for %d bytes of records", size, len(s.arena.chunks), live)
	}
	// Once all expired, a single record is left.
	*now = now.Add(DefaultMaxAge + time.Second)
	if err := s.Put(ctx, state.Transaction{ThreeDSServerTransID: "last", CreatedAt: *now}); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 || len(s.arena.chunks) != 1 {
		t.Errorf("after expiry: %d stored in %d chunks, want 1 in 1", s.Len(), len(s.arena.chunks))
	}
}

func TestArenaReusesEmptyNewestChunk(t *testing.T) {
	var a arena
	x := a.alloc(100)
	a.free(x)
	y := a.alloc(100)
	if y != x || len(a.chunks) != 1 {
		t.Errorf("second record at %+v in %d chunks, want %+v in 1", y, len(a.chunks), x)
	}
	big := a.alloc(maxChunk + 1) // its own chunk
	if big.chunk == y.chunk || cap(a.chunks[len(a.chunks)-1].buf) != maxChunk+1 {
		t.Errorf("oversized record shares chunk %d", big.chunk)
	}
	a.free(y) // the first chunk empties, but is not the newest: released
	if len(a.chunks) != 1 || a.first != big.chunk {
		t.Errorf("%d chunks from %d, want the oversized one alone", len(a.chunks), a.first)
	}
}

// TestTenantEvictionKeepsTheArenaSmall: a tenant that floods the store
// evicts its own oldest records, out of the order they were written; the
// records of a quiet tenant scattered among them must not pin the
// chunks they lie in. The arena stays within twice the room of its
// records (and three chunks).
func TestTenantEvictionKeepsTheArenaSmall(t *testing.T) {
	s, _ := testStore(t, Options{MaxEntries: 20_000, MaxEntriesPerTenant: 15_000}, ^uint64(0))
	ctx := context.Background()
	put := func(ns string, i int) {
		tx := state.Transaction{Namespace: ns, ThreeDSServerTransID: fmt.Sprintf("%s-%d", ns, i), Phase: state.PhaseFinal,
			Challenge: state.ChallengeState{Session: strings.Repeat("s", 100)}}
		if err := s.Put(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200_000 {
		put("flood", i)
		if i < 100_000 && i%20 == 0 {
			put("quiet", i)
		}
	}
	checkInvariants(t, s)
	if n := s.held.Of("quiet"); n != 5000 {
		t.Fatalf("the quiet tenant holds %d, want all its 5000", n)
	}
	if size, limit := s.arena.size(), 2*s.liveRoom+3*maxChunk; size > limit {
		t.Errorf("arena of %d bytes for %d bytes of records (limit %d)", size, s.liveRoom, limit)
	}
}
