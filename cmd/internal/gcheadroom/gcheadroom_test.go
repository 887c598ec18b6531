package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live, headroom uint64
		want           int
	}{
		{0, 64 * mib, maxPercent},         // nothing live yet
		{1 * mib, 64 * mib, 6400},         // small heap: grow by the headroom
		{32 * mib, 64 * mib, 200},         // goal 96 MiB
		{64 * mib, 64 * mib, 100},         // the two rules meet
		{500 * mib, 64 * mib, 100},        // large heap: GOGC=100's proportion
		{10, 64 * mib, maxPercent},        // bounded
		{3 * mib, 0, 100},                 // no headroom: Go's default
		{100 * mib, 128 * mib, 128},       // rounded down
		{1 << 40, 1 << 20, 100},           // no overflow
		{1, ^uint64(0) / 200, maxPercent}, // no overflow either
	}
	for _, tt := range tests {
		if got := Percent(tt.live, tt.headroom); got != tt.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tt.live, tt.headroom, got, tt.want)
		}
	}
}

// waitFor asks cond until it holds, collecting garbage before each time
// so that cleanups run, within testkit.Patience.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, "the tuner's condition", func() bool {
		runtime.GC()
		return cond()
	})
}

// TestTunesAfterEachCollection checks the hook: every collection sets
// GOGC from the live heap it left, until stopped.
func TestTunesAfterEachCollection(t *testing.T) {
	var mu sync.Mutex
	var set []int
	live := uint64(8 << 20)
	tu := &tuner{
		headroom: 64 << 20,
		set: func(p int) int {
			mu.Lock()
			defer mu.Unlock()
			set = append(set, p)
			return 100
		},
		live: func() uint64 { mu.Lock(); defer mu.Unlock(); return live },
	}
	tu.arm()
	waitFor(t, func() bool { tu.mu.Lock(); defer tu.mu.Unlock(); return tu.tunes >= 2 })
	mu.Lock()
	if len(set) != 1 || set[0] != 800 {
		t.Errorf("GOGC set to %v, want [800] (set once: the heap did not change)", set)
	}
	live = 256 << 20
	mu.Unlock()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(set) == 2 })
	mu.Lock()
	if set[1] != 100 {
		t.Errorf("GOGC for a 256 MiB heap: got %d, want 100", set[1])
	}
	mu.Unlock()

	tu.mu.Lock()
	tu.stopped = true
	n := tu.tunes
	tu.mu.Unlock()
	for range 3 {
		runtime.GC()
	}
	// The collections' cleanups run a moment later: a hook still armed
	// would tune then. A slow machine can only make this check miss a
	// late tune, never fail a right one.
	time.Sleep(50 * time.Millisecond)
	tu.mu.Lock()
	defer tu.mu.Unlock()
	if tu.tunes != n {
		t.Errorf("tuned %d more times after stop", tu.tunes-n)
	}
}

// TestStartAndStop runs the real thing: GOGC goes above 100 for the small
// heap of a test binary, and stop puts the old setting back.
func TestStartAndStop(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	stop := Start(256 << 20)
	runtime.GC()
	current := debug.SetGCPercent(-1)
	debug.SetGCPercent(current)
	if current <= 100 {
		t.Errorf("GOGC after Start: %d, want above 100 for a small heap", current)
	}
	stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after stop: %d, want the 100 found at Start", got)
	}
	if noop := Start(0); noop == nil {
		t.Error("Start(0) returned a nil stop")
	}
}
