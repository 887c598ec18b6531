package wire

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// TestUnknownKeysScaleLinearly decodes one lookup with 1k unknown keys and
// one with 16 times as many, in the same test, and compares the times: a
// decoder linear in the number of keys takes about 16 times as long (16
// to 30 measured, with the race detector too), one that compares each key
// with every earlier one 160 to 330 times. The bound (80) sits between; it
// is a ratio of two measures taken side by side, each the best of several
// runs with the garbage collector off, never a wall-clock limit, and it is
// measured up to three times before the test fails. The measures are of
// the thread's CPU time (threadCPU), with the test's goroutine locked to
// its thread: on a busy machine the 16k decode, a hundred times longer,
// waits for a core more often than the 1k one, and wall-clock ratios of
// 107 to 293 were seen with a second suite running beside.
func TestUnknownKeysScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures decoding times")
	}
	small, large := withUnknownKeys(t, 1000), withUnknownKeys(t, 16000)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := func(body []byte, runs int) time.Duration {
		var min time.Duration
		for i := range runs {
			start := threadCPU()
			decodeUnbounded(body)
			if d := threadCPU() - start; i == 0 || d < min {
				min = d
			}
		}
		runtime.GC()
		return min
	}
	best(small, 3) // warm up
	// A machine busy elsewhere can spoil one measure; a quadratic decoder
	// fails all three.
	var ratio float64
	for range 3 {
		ts, tl := best(small, 15), best(large, 7)
		ratio = float64(tl) / float64(ts)
		t.Logf("1k keys %v, 16k keys %v: ratio %.1f (linear 16, quadratic 256)", ts, tl, ratio)
		if ratio <= 80 {
			return
		}
	}
	t.Errorf("16 times the unknown keys took %.0f times as long, want about 16 (at most 80): unknown keys are not handled in linear time", ratio)
}

// decodeUnbounded decodes a lookup body with no practical bound on its
// keys, so that the cost of many keys can be measured, and returns whether
// it was accepted.
func decodeUnbounded(body []byte) bool {
	_, _, err := decodeLookup(body, limits{members: 1 << 30, keys: 1 << 30})
	return err == nil
}

// TestDecodeBounds checks the bounds on the members of an object and the
// keys of a body: at the bound a body is read, one key beyond it is a 101
// naming the object, wherever it is.
func TestDecodeBounds(t *testing.T) {
	base := string(baseBody(t))
	var tree map[string]any
	if err := json.Unmarshal([]byte(base), &tree); err != nil {
		t.Fatal(err)
	}
	topKeys, cardKeys, allKeys := len(tree), len(tree["card"].(map[string]any)), countKeys(tree)
	// members returns n members "k0":0,"k1":0,... followed by a comma.
	members := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `"k%d":0,`, i)
		}
		return b.String()
	}
	object := func(n int) string { return "{" + strings.TrimSuffix(members(n), ",") + "}" }
	// spread returns an unknown member "ext" holding n keys in objects of
	// maxMembers-1 members.
	spread := func(n int) string {
		var parts []string
		for ; n > 0; n -= maxMembers - 1 {
			parts = append(parts, object(min(n, maxMembers-1)))
		}
		return `"ext":[` + strings.Join(parts, ",") + `],`
	}
	insert := func(at, text string) string { return strings.Replace(base, at, at+text, 1) }
	tests := []struct {
		name  string
		body  string
		field string // "" when the body is within the bounds
	}{
		{"top level at the bound", insert("{", members(maxMembers-topKeys)), ""},
		{"top level beyond", insert("{", members(maxMembers-topKeys+1)), "body"},
		{"known object at the bound", insert(`"card": {`, members(maxMembers-cardKeys)), ""},
		{"known object beyond", insert(`"card": {`, members(maxMembers-cardKeys+1)), "card"},
		{"unknown object at the bound", insert("{", `"ext":{"a":[1,`+object(maxMembers)+`]},`), ""},
		{"unknown object beyond", insert("{", `"ext":{"a":[1,`+object(maxMembers+1)+`]},`), "ext.a[1]"},
		// "ext" is a key too.
		{"body at the bound", insert("{", spread(maxKeys-allKeys-1)), ""},
		{"body beyond, in the added keys", insert("{", spread(maxKeys)), fmt.Sprintf("ext[%d]", (maxKeys-1)/(maxMembers-1))},
		// The last key of the base request is in merchantRiskInfo.
		{"body beyond, in the request", insert("{", spread(maxKeys-allKeys)), "merchantRiskInfo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, decode := range map[string]func([]byte) error{
				"lookup":  func(b []byte) error { _, _, err := DecodeLookup(b); return err },
				"enquiry": func(b []byte) error { _, _, err := DecodeEnquiry(b); return err },
			} {
				err := decode([]byte(tt.body))
				if tt.field == "" {
					if e, ok := err.(*emv.Error); ok && e.EMVCode == "101" {
						t.Errorf("%s: refused within the bounds: %v", name, err)
					}
					continue
				}
				e := asError(t, err)
				if e.Code != emv.CodeMalformedJSON || e.EMVCode != "101" || e.Detail != tt.field {
					t.Errorf("%s: got %s/%s on %q, want %s/101 on %q (%s)", name, e.Code, e.EMVCode, e.Detail,
						emv.CodeMalformedJSON, tt.field, e.Message)
				}
				if len(e.Problems) != 1 || e.Problems[0].Field != tt.field || e.Problems[0].EMVCode != "101" || e.Problems[0].Reason == "" {
					t.Errorf("%s: problems = %+v, want one 101 on %q", name, e.Problems, tt.field)
				}
			}
		})
	}
}

// countKeys counts the object keys of a decoded JSON value.
func countKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			n += 1 + countKeys(e)
		}
	case []any:
		for _, e := range v {
			n += countKeys(e)
		}
	}
	return n
}
