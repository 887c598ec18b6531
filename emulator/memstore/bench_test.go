package memstore_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Allocation budgets of the store's operations, in allocations per call:
// about twice today's count (measured values in the comments), so only a
// real regression trips TestAllocBudgets.
const (
	budgetPut    = 1 // measured 0 (encoded on the stack into the arena; chunks and map growth amortised)
	budgetGet    = 2 // measured 1 (the strings of the copy, all in one)
	budgetUpdate = 4 // measured 2 (the strings, and the copy fn gets, which escapes)
)

// realisticTx is a frictionless transaction with the field sizes
// Engine.Lookup gives it: three UUIDs, a 16-hex namespace, a merchant
// reference, the fake ACS identity and a 28-character CAVV. Every string
// is its own allocation, as after decoding a request. The strings are
// built with appends, not fmt, so that the benchmarks that make one per
// operation measure the store rather than the formatting.
func realisticTx(i int, now time.Time) state.Transaction {
	n := uint64(i)
	uuid := func(kind uint64) string {
		var b [36]byte
		out := appendHex(b[:0], n, 8)
		out = appendHex(append(out, '-'), kind, 4)
		out = appendHex(append(out, '-', '4'), n&0xfff, 3)
		out = appendHex(append(out, '-', '8'), n&0xfff, 3)
		out = appendHex(append(out, '-'), n, 12)
		return string(out)
	}
	var ref [32]byte
	dec := strconv.AppendUint(nil, n, 10)
	refb := append(ref[:0], "ORD-20240611-"...)
	for range 6 - len(dec) {
		refb = append(refb, '0')
	}
	var ns [16]byte
	return state.Transaction{
		Namespace:            string(appendHex(ns[:0], 0xa11ce, 16)),
		ThreeDSServerTransID: uuid(1),
		ACSTransID:           uuid(2),
		DSTransID:            uuid(3),
		ExternalReferenceID:  string(append(refb, dec...)),
		CreatedAt:            now,
		ScenarioID:           "visa-frictionless-y",
		CardScheme:           scenarios.SchemeVisa,
		CardBIN:              "400000",
		PANLength:            16,
		PANLast4:             [4]byte{'1', '0', '0', '0'},
		Version:              "2.2.0",
		Phase:                state.PhaseFinal,
		Status:               "Y",
		ECI:                  "05",
		ACSReferenceNumber:   "3DS_LOA_ACS_PRIC_020200_17135",
		ACSOperatorID:        "ACS-PRIC-9444-7396",
	}
}

// appendHex appends v in lower-case hex, zero-padded to width digits.
func appendHex(b []byte, v uint64, width int) []byte {
	var digits [16]byte
	h := strconv.AppendUint(digits[:0], v, 16)
	for range width - len(h) {
		b = append(b, '0')
	}
	return append(b, h...)
}

// BenchmarkPut stores new transactions from every CPU at once, with the
// default bound of 100k entries, so eviction runs in steady state.
func BenchmarkPut(b *testing.B) {
	s, err := memstore.New(memstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := s.Put(ctx, realisticTx(int(next.Add(1)), now)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// filled returns a store holding n realistic transactions, and their ids.
func filled(tb testing.TB, n int) (*memstore.Store, []string) {
	tb.Helper()
	s, err := memstore.New(memstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	ids := make([]string, n)
	for i := range n {
		t := realisticTx(i, now)
		ids[i] = t.ThreeDSServerTransID
		if err := s.Put(context.Background(), t); err != nil {
			tb.Fatal(err)
		}
	}
	return s, ids
}

// BenchmarkGet reads transactions by id and by reference from every CPU,
// as concurrent enquiries do.
func BenchmarkGet(b *testing.B) {
	s, ids := filled(b, 10_000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := 0
		for pb.Next() {
			if _, err := s.Get(ctx, ids[i%len(ids)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchmarkMixed is the store's share of realistic traffic from every CPU:
// per 10 operations 6 puts (lookups), 3 gets (enquiries) and 1 update (a
// challenge decision), the reads aimed at the goroutine's recent puts.
func BenchmarkMixed(b *testing.B) {
	s, err := memstore.New(memstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		var recent [64]string
		i := 0
		for pb.Next() {
			var err error
			switch {
			case i < len(recent) || i%10 < 6:
				t := realisticTx(int(next.Add(1)), now)
				recent[i%len(recent)] = t.ThreeDSServerTransID
				err = s.Put(ctx, t)
			case i%10 < 9:
				_, err = s.Get(ctx, recent[i%len(recent)])
			default:
				_, err = s.Update(ctx, recent[i%len(recent)], func(t *state.Transaction) error {
					t.Challenge.Interactions++
					return nil
				})
			}
			if err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

// BenchmarkMemoryPerTransaction stores 100k realistic transactions in a
// fresh store per iteration and reports the live heap the store holds
// (after a full GC): per stored transaction (bytes/tx) and in all (MB),
// without a bound and with a bound of 10k entries; "arena" is the Store,
// "plain" the same transactions as Go values in maps (plainStore), what
// the arena and the record codec save. The figures of the whole sandbox
// in docs/performance.md come from loadbench (scripts/tools), which
// stores them through the API.
func BenchmarkMemoryPerTransaction(b *testing.B) {
	const n = 100_000
	for _, max := range []int{n, n / 10} {
		for _, kind := range []string{"arena", "plain"} {
			b.Run(fmt.Sprintf("%s/max-entries-%d", kind, max), func(b *testing.B) {
				now := time.Now()
				var live, stored int
				for b.Loop() {
					before := heapAlloc()
					s, err := newPutter(kind, max)
					if err != nil {
						b.Fatal(err)
					}
					for i := range n {
						if err := s.Put(context.Background(), realisticTx(i, now)); err != nil {
							b.Fatal(err)
						}
					}
					live, stored = int(heapAlloc())-int(before), s.Len()
					runtime.KeepAlive(s)
				}
				b.ReportMetric(float64(live)/float64(stored), "bytes/tx")
				b.ReportMetric(float64(live)/1e6, "MB")
			})
		}
	}
}

// newPutter is a memstore (kind "arena") or a plainStore (kind "plain")
// bounded at max.
func newPutter(kind string, max int) (putter, error) {
	if kind == "plain" {
		return newPlainStore(max), nil
	}
	return memstore.New(memstore.Options{MaxEntries: max})
}

// BenchmarkGC times a full garbage collection (runtime.GC) of a heap
// holding a store of 100k realistic transactions, next to an empty store:
// the difference is what the store costs every GC cycle to mark, for the
// Store ("arena") and for plainStore ("plain"). It reports ns/GC; the test's own data (no id list is kept) is negligible.
func BenchmarkGC(b *testing.B) {
	for _, kind := range []string{"arena", "plain"} {
		for _, n := range []int{0, 100_000} {
			b.Run(fmt.Sprintf("%s/stored-%d", kind, n), func(b *testing.B) {
				s, err := newPutter(kind, memstore.DefaultMaxEntries)
				if err != nil {
					b.Fatal(err)
				}
				now := time.Now()
				for i := range n {
					if err := s.Put(context.Background(), realisticTx(i, now)); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				start := time.Now()
				for b.Loop() {
					runtime.GC()
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/GC")
				runtime.KeepAlive(s)
			})
		}
	}
}

// heapAlloc is the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAllocBudgets fails when a store operation allocates far beyond its
// budget. It counts allocations, never time, and is skipped under the race
// detector, which changes the counts.
func TestAllocBudgets(t *testing.T) {
	s, ids := filled(t, 1000)
	ctx := context.Background()
	now := time.Now()
	// Transactions built ahead, so that only the store's own allocations
	// are counted.
	fresh := make([]state.Transaction, 200)
	for i := range fresh {
		fresh[i] = realisticTx(len(ids)+i, now)
	}
	next := 0
	testkit.CheckBudgets(t, 100,
		testkit.Budget{Name: "Put", Max: budgetPut, Fn: func() error {
			next++
			return s.Put(ctx, fresh[next%len(fresh)])
		}},
		testkit.Budget{Name: "Get", Max: budgetGet, Fn: func() error {
			_, err := s.Get(ctx, ids[0])
			return err
		}},
		testkit.Budget{Name: "Update", Max: budgetUpdate, Fn: func() error {
			_, err := s.Update(ctx, ids[1], func(t *state.Transaction) error { t.Status = "N"; return nil })
			return err
		}},
	)
}

// TestAllocBudgetsPutAtBound bounds what a store at its bound allocates per
// Put, the transaction built beforehand, with an eviction callback as the
// binary sets one: its queues compact in place, its arena reuses the
// chunk it released, and an eviction copies nothing out of the evicted
// record, so a lookup's write allocates nothing of the store's own
// (beyond an occasional growth of its index maps). Before, every Put
// paid the evicted namespace's and id's copies and, once per bound's
// worth, a new queue grown again copy by copy and a fresh 1 MiB chunk.
func TestAllocBudgetsPutAtBound(t *testing.T) {
	const bound, warm, runs = 2000, 20000, 10000
	s, err := memstore.New(memstore.Options{MaxEntries: bound, OnEvict: func(id, reason string) {}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	txs := make([]state.Transaction, warm+runs+1)
	for i := range txs {
		txs[i] = realisticTx(i, now)
	}
	ctx := context.Background()
	next := 0
	put := func() error {
		err := s.Put(ctx, txs[next])
		next++
		return err
	}
	for range warm {
		if err := put(); err != nil {
			t.Fatal(err)
		}
	}
	testkit.CheckBudgets(t, runs, testkit.Budget{Name: "put at the bound", Max: 0.1, MaxBytes: 64, Fn: put})
}
