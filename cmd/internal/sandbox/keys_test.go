package sandbox

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// verdicts answers its verdicts one by one, then the last again; it
// keeps the namespace key as the memory registry does.
type verdicts struct {
	*memstore.KeyRegistry
	seq []state.KeysVerdict
	err error
}

func (v *verdicts) Check(context.Context, state.KeyFingerprints, time.Duration) (state.KeysVerdict, error) {
	if v.err != nil {
		return state.KeysMismatch, v.err
	}
	out := v.seq[0]
	if len(v.seq) > 1 {
		v.seq = v.seq[1:]
	}
	return out, nil
}

// gauge reads threeds_state_keys_mismatch from m.
func gauge(t *testing.T, m *web.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "threeds_state_keys_mismatch "); ok {
			return v
		}
	}
	return "(absent)"
}

// TestKeyCheck: a mismatch is logged once as a warning, however many
// checks find it, and sets the gauge; agreeing again is logged and
// clears it; a store that does not answer keeps the last verdict.
func TestKeyCheck(t *testing.T) {
	var out testkit.Buffer
	reg := &verdicts{seq: []state.KeysVerdict{state.KeysFirst, state.KeysMismatch, state.KeysMismatch, state.KeysMismatch, state.KeysSame, state.KeysSame}}
	m := web.NewMetrics(nil)
	k := &keyCheck{reg: reg, fps: state.KeyFingerprints{Current: "0123456789abcdef"}, log: slog.New(slog.NewTextHandler(&out, nil)), metrics: m}
	want := []string{"0", "1", "1", "1", "0", "0"}
	for i, w := range want {
		k.check(context.Background())
		if got := gauge(t, m); got != w {
			t.Errorf("check %d: threeds_state_keys_mismatch = %s, want %s", i, got, w)
		}
	}
	log := out.String()
	if n := strings.Count(log, "match neither the current nor a previous key"); n != 1 {
		t.Errorf("the mismatch was logged %d times, want once:\n%s", n, log)
	}
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "key_fingerprint=0123456789abcdef") || strings.Count(log, "match the other replicas' again") != 1 {
		t.Errorf("log:\n%s", log)
	}
	reg.err = errors.New("redis down")
	k.check(context.Background())
	if got := gauge(t, m); got != "0" {
		t.Errorf("after a failed check: %s, want the last verdict's 0", got)
	}
}
