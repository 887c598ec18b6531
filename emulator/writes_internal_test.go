package emulator

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// TestWriteWatch: readiness follows the writes the store refused, not
// only its probe: more than half of the recent writes refused fails it
// (as full when most were refused for want of room), writes older than
// WriteWindowAge are forgotten, and failures that say nothing of the
// store (a conflict, a write that may have been applied) do not count.
func TestWriteWatch(t *testing.T) {
	full := fmt.Errorf("%w: %w: redis put: OOM", state.ErrUnavailable, state.ErrStoreFull)
	down := fmt.Errorf("%w: redis put: connection refused", state.ErrUnavailable)
	maybe := fmt.Errorf("%w: %w: redis put: i/o timeout", state.ErrUnavailable, state.ErrMaybeApplied)
	conflict := emv.NewError(emv.CodeTransactionState, emv.EMVTransientFailure, "decided already", "action")
	at := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name     string
		writes   []error
		age      time.Duration // of the writes when asked
		wantErr  bool
		wantFull bool
	}{
		{name: "none", writes: nil},
		{name: "all taken", writes: repeat(nil, 40)},
		{name: "all refused as full", writes: repeat(full, 40), wantErr: true, wantFull: true},
		{name: "half refused", writes: append(repeat(nil, 16), repeat(full, 16)...)},
		{name: "most refused among some taken", writes: append(repeat(nil, 10), repeat(full, 22)...), wantErr: true, wantFull: true},
		{name: "refused, then taken again", writes: append(repeat(full, 32), repeat(nil, 17)...)},
		{name: "one write, refused", writes: []error{full}, wantErr: true, wantFull: true},
		{name: "unreachable", writes: repeat(down, 5), wantErr: true},
		{name: "refused long ago", writes: repeat(full, 40), age: WriteWindowAge + time.Second},
		{name: "maybe applied and conflicts say nothing", writes: append(repeat(maybe, 20), append(repeat(conflict, 20), nil)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w writeWatch
			for _, err := range tt.writes {
				w.observe(at, err)
			}
			err := w.verdict(at.Add(tt.age))
			if (err != nil) != tt.wantErr || errors.Is(err, state.ErrStoreFull) != tt.wantFull || (err != nil && !errors.Is(err, state.ErrUnavailable)) {
				t.Fatalf("verdict = %v, want error %v (full %v)", err, tt.wantErr, tt.wantFull)
			}
			if err != nil && !strings.Contains(err.Error(), "of the last") {
				t.Errorf("verdict %q does not say how many writes were refused", err)
			}
		})
	}
}

// TestWriteWatchConcurrent: writes observed from many goroutines are all
// counted within the window, without a lock (run under -race).
func TestWriteWatchConcurrent(t *testing.T) {
	var w writeWatch
	at := time.Unix(1_800_000_000, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				w.observe(at, state.ErrStoreFull)
			}
		}()
	}
	wg.Wait()
	if refused, full, seen := w.refusals(at); refused != WriteWindow || full != WriteWindow || seen != WriteWindow {
		t.Errorf("refusals = %d, %d of %d, want the whole window", refused, full, seen)
	}
}

func repeat(err error, n int) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}
