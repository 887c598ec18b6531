// Package gcheadroom keeps the garbage collector from running often while
// the live heap is small.
//
// With Go's default GOGC=100 a collection starts when the heap has grown
// by as much as is live. A sandbox that has just started, or holds few
// transactions, has a live heap of a few megabytes while each request
// allocates about 10 KB, so it would collect many times a second, and each
// collection's stop-the-world phases and assists show in the latency tail
// (on a busy machine, stopping the world waits for every thread to get a
// CPU). Here GOGC is set after every collection so that the heap may grow
// by at least a fixed headroom: the goal is max(2 x live, live + headroom).
// A large live heap keeps GOGC=100's proportion; GOMEMLIMIT, when set,
// still bounds the heap.
package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds the GOGC set for a nearly empty heap.
const maxPercent = 100_000

// Percent is the GOGC that gives a live heap of live bytes a goal of
// max(2 x live, live + headroom).
func Percent(live, headroom uint64) int {
	if live == 0 {
		return maxPercent
	}
	p := headroom * 100 / live
	return int(min(max(p, 100), maxPercent))
}

// tuner sets GOGC after each collection.
type tuner struct {
	headroom uint64
	set      func(percent int) int // debug.SetGCPercent
	live     func() uint64

	mu      sync.Mutex
	stopped bool
	last    int
	tunes   int // collections seen, for tests
}

// sentinel is allocated unreachable; its cleanup runs after the
// collection that finds it, which is the hook of the next tuning. Sixteen
// bytes keep it out of the tiny allocator, which could share its block.
type sentinel [16]byte

// Start sets GOGC now and after every collection until stop is called,
// which restores the GOGC found at start. A zero headroom does nothing.
func Start(headroom uint64) (stop func()) {
	if headroom == 0 {
		return func() {}
	}
	t := &tuner{headroom: headroom, set: debug.SetGCPercent, live: liveHeap}
	previous := t.set(Percent(t.live(), headroom))
	t.arm()
	return func() {
		t.mu.Lock()
		t.stopped = true
		t.mu.Unlock()
		t.set(previous)
	}
}

// arm hooks the next collection.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), (*tuner).tune, t)
}

// tune sets GOGC for the heap the last collection left, and hooks the
// next one.
func (t *tuner) tune() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.tunes++
	if p := Percent(t.live(), t.headroom); p != t.last {
		t.set(p)
		t.last = p
	}
	t.arm()
}

// liveHeap is the heap the last collection marked live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
