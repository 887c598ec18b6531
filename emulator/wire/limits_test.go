package wire

import (
	"testing"
	"time"
)

// TestUnknownKeysScaleLinearly decodes one lookup with 1k unknown keys and
// one with 16 times as many, in the same test, and compares the times: a
// decoder linear in the number of keys takes about 16 times as long, one
// that compares each key with every earlier one about 256 times. The bound
// (64) is generous both ways, so that a busy machine does not fail it; it
// is a ratio of two measures taken side by side, never a wall-clock limit.
func TestUnknownKeysScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures decoding times")
	}
	small, large := withUnknownKeys(t, 1000), withUnknownKeys(t, 16000)
	best := func(body []byte) time.Duration {
		var min time.Duration
		for i := 0; i < 5; i++ {
			start := time.Now()
			decodeUnbounded(body)
			if d := time.Since(start); i == 0 || d < min {
				min = d
			}
		}
		return min
	}
	best(small) // warm up
	ts, tl := best(small), best(large)
	ratio := float64(tl) / float64(ts)
	t.Logf("1k keys %v, 16k keys %v: ratio %.1f (linear 16, quadratic 256)", ts, tl, ratio)
	if ratio > 64 {
		t.Errorf("16 times the unknown keys took %.0f times as long, want about 16 (at most 64): unknown keys are not handled in linear time", ratio)
	}
}

// decodeUnbounded decodes a lookup body and returns whether it was
// accepted.
func decodeUnbounded(body []byte) bool {
	_, _, err := DecodeLookup(body)
	return err == nil
}
