package web_test

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestSoak runs many goroutines through lookup -> headless challenge ->
// enquiry across several tokens and checks that every transaction is found
// with exactly its own outcome and that no namespace sees another's. It
// is bounded in time and count; SOAK_DURATION (e.g. 2m) makes it longer.
func TestSoak(t *testing.T) {
	t.Parallel()
	duration := 2 * time.Second
	if d, err := time.ParseDuration(os.Getenv("SOAK_DURATION")); err == nil {
		duration = d
	}
	const workers, maxPerWorker = 16, 400
	e := newEnv(t)
	type flow struct {
		card, action, want string
	}
	flows := []flow{
		{e.card("visa-frictionless-y"), "", "Y"},
		{e.card("mastercard-frictionless-n"), "", "N"},
		{e.card("visa-challenge"), "pass", "Y"},
		{e.card("visa-challenge"), "fail", "N"},
		{e.card("mastercard-challenge"), "cancel", "N"},
	}
	deadline := time.Now().Add(duration)
	var done, failures atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := fmt.Sprintf("team-%d", w%4)
			other := fmt.Sprintf("team-%d", (w+1)%4)
			for i := 0; i < maxPerWorker && time.Now().Before(deadline); i++ {
				f := flows[(w+i)%len(flows)]
				ref := fmt.Sprintf("soak-%d-%d", w, i)
				fail := func(format string, args ...any) {
					failures.Add(1)
					t.Errorf("worker %d, %s: "+format, append([]any{w, ref}, args...)...)
				}
				r := e.lookup(token, testkit.LookupBody(t, f.card, func(m map[string]any) { m["externalReferenceId"] = ref }))
				if r.Status != http.StatusOK {
					fail("lookup %d: %s", r.Status, r.Raw)
					return
				}
				id := r.Str("threeDsServerTransId")
				if f.action != "" {
					c := e.call(http.MethodPost, "/challenge/"+id, token, map[string]any{"action": f.action})
					if c.Str("transStatus") != f.want {
						fail("challenge %s gave %s", f.action, c.Raw)
					}
				}
				for _, body := range []map[string]any{{"threeDsServerTransId": id}, {"externalReferenceId": ref}} {
					q := e.enquiry(token, body)
					if q.Str("threeDsServerTransId") != id || q.Str("transactionStatus") != f.want {
						fail("enquiry %v: %s", body, q.Raw)
					}
				}
				if q := e.enquiry(other, map[string]any{"threeDsServerTransId": id}); q.Status != http.StatusNotFound {
					fail("token %s sees another namespace's transaction: %s", other, q.Raw)
				}
				done.Add(1)
				if failures.Load() > 10 {
					return
				}
			}
		}()
	}
	wg.Wait()
	if done.Load() < workers {
		t.Errorf("only %d flows completed", done.Load())
	}
	t.Logf("%d flows in %s by %d workers", done.Load(), duration, workers)
}
