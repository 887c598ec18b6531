//go:build full

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// post sends a JSON body to u with token and returns the status and the
// answer. Unlike call, it fails no test: goroutines use it.
func post(ctx context.Context, client *http.Client, u, token string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// mustJSON encodes v or fails t.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplicasBehindNginx runs three replica processes over one Redis
// (append-only) behind a real nginx balancing round-robin, and checks
// what a shared test service must do: a challenge in a real browser whose
// steps reach different replicas, the same enquiry everywhere, one winner
// among concurrent decisions, nothing acknowledged lost when a replica is
// killed or Redis restarts, clear 503s while Redis is down, and recovery
// without restarting a replica. The steps run in order in this goroutine:
// each builds on the state the one before left.
func TestReplicasBehindNginx(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes, Redis, nginx and Chromium")
	}
	testkit.Nginx(t)
	testkit.Need(t, "redis-server", "redis-server")
	browser := newBrowser(t)
	bin := replicaBinary(t)
	srv := testkit.StartRedis(t, testkit.RedisOptions{AppendOnly: true})

	// The replicas' ports are chosen first: nginx needs them, and they
	// need nginx's address as their public URL.
	replicas := make([]*program, 3)
	var upstreams []string
	for i := range replicas {
		addr := testkit.FreeAddr(t)
		replicas[i] = &program{name: fmt.Sprintf("replica %d", i+1), bin: bin, Addr: addr, URL: "http://" + addr}
		upstreams = append(upstreams, addr)
	}
	lb := testkit.StartNginx(t, upstreams...)
	// The browser reaches the emulator as localhost and the merchant as
	// 127.0.0.1: two sites, as in production.
	publicURL := strings.Replace(lb.URL, "127.0.0.1", "localhost", 1)
	// Far beyond a call's time on a busy machine: a 503 of a slow
	// machine would read as a lost transaction. With Redis down, a call
	// fails after it.
	const storeTimeout = 5 * time.Second
	for _, r := range replicas {
		r.args = []string{"--addr", r.Addr, "--public-url", publicURL, "--store", srv.URL,
			"--state-hash-key", testHashKey, "--state-block-key", testBlockKey,
			"--store-timeout", storeTimeout.String(), "--drain-delay", "0"}
	}
	var all []*program // every process started, a restarted replica twice
	t.Cleanup(func() {
		for _, r := range all {
			if r.done == nil {
				continue
			}
			if r.running() {
				_ = r.cmd.Process.Kill()
				<-r.done
			}
			if t.Failed() {
				t.Logf("%s (pid %d) output:\n%s", r.name, r.cmd.Process.Pid, r.tail(120))
			}
		}
	})
	// launch starts a process of the replica spec describes; a restart
	// is a new process with the same name, flags and port.
	launch := func(spec *program) *program {
		t.Helper()
		r := &program{name: spec.name, bin: spec.bin, args: spec.args, URL: spec.URL, Addr: spec.Addr}
		all = append(all, r)
		r.start(t)
		return r
	}
	for i, r := range replicas {
		replicas[i] = launch(r)
	}
	viaLB := &program{URL: lb.URL}
	client := &http.Client{Timeout: 10 * time.Second}

	// a. A challenge in Chromium through the balancer.
	shop := newMerchant(t)
	c := lookupChallenge(t, viaLB, shop.URL+"/notify", "replicas-session", 3)
	if !strings.HasPrefix(c.HostedURL, publicURL+"/") {
		t.Errorf("hostedChallengeUrl %q does not point at the balancer %s", c.HostedURL, publicURL)
	}
	if want := `action="` + publicURL + "/"; !strings.Contains(c.HTML, want) {
		t.Errorf("challengeHtml's form does not post to the balancer (%s):\n%s", want, c.HTML)
	}
	tb := newTab(t, browser)
	tb.frame = true
	tb.do("open the checkout", chromedp.Navigate(shop.add(checkout{ChallengeHTML: c.HTML, WindowSize: 3})))
	tb.typeText("input[name=otp]", "1234")
	tb.click("[data-action=otp]")
	n := shop.wait(t, tb.ctx)
	tb.waitVisible("#notified")
	checkNotification(t, viaLB, c, n, outcome{"Y", "", ""})
	log, err := lb.AccessLog()
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string][]string{}
	for _, e := range log {
		answered[e.Answered()] = append(answered[e.Answered()], e.Method+" "+e.Path)
	}
	if len(answered) < 2 {
		t.Errorf("the challenge's steps were all answered by one replica: %v", answered)
	}
	t.Logf("a. challenge in Chromium: steps answered by %d replicas: %v", len(answered), answered)

	// b. The same enquiry from every replica and from the balancer.
	earlier := []string{c.ServerTransID} // transactions of steps a to c
	for _, tt := range []struct{ card, status string }{
		{"4000000000009003", "Y"}, {"4000000000009011", "A"}, {"4000000000009045", "R"},
	} {
		ref := "replicas-" + tt.status
		r := viaLB.lookup(t, testkit.LookupBody(t, tt.card, func(m map[string]any) { m["externalReferenceId"] = ref }))
		id := r.Str("threeDsServerTransId")
		earlier = append(earlier, id)
		for _, q := range []map[string]any{{"threeDsServerTransId": id}, {"externalReferenceId": ref}} {
			want := testkit.Call(t, http.MethodPost, lb.URL+"/enquiry/", testToken, q)
			if want.Status != http.StatusOK || want.Str("transactionStatus") != tt.status || want.Str("threeDsServerTransId") != id {
				t.Errorf("enquiry %v through the balancer: %d %s, want status %s of %s", q, want.Status, want.Raw, tt.status, id)
			}
			for _, rp := range replicas {
				if got := testkit.Call(t, http.MethodPost, rp.URL+"/enquiry/", testToken, q); got.Status != want.Status || got.Raw != want.Raw {
					t.Errorf("enquiry %v on %s:\n%d %s\nwant, as through the balancer:\n%d %s", q, rp.name, got.Status, got.Raw, want.Status, want.Raw)
				}
			}
		}
	}

	// c. 50 concurrent decisions on one challenge: exactly one wins.
	race := lookupChallenge(t, viaLB, shop.URL+"/notify", "race", 3)
	earlier = append(earlier, race.ServerTransID)
	actions := []string{"pass", "fail", "cancel"}
	outcomes := map[string]outcome{"pass": {"Y", "", ""}, "fail": {"N", "01", ""}, "cancel": {"N", "01", "01"}}
	type decision struct {
		action string
		status int
		body   []byte
		err    error
	}
	decisions := make([]decision, 50)
	var wg sync.WaitGroup
	startLine := make(chan struct{})
	for i := range decisions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := decision{action: actions[i%len(actions)]}
			<-startLine
			d.status, d.body, d.err = post(context.Background(), client, lb.URL+"/challenge/"+race.ServerTransID, testToken, []byte(`{"action":"`+d.action+`"}`))
			decisions[i] = d
		}()
	}
	close(startLine)
	wg.Wait()
	var winners []string
	for _, d := range decisions {
		switch {
		case d.err != nil:
			t.Errorf("decision %s: %v", d.action, d.err)
		case d.status == http.StatusOK:
			winners = append(winners, d.action)
		case d.status == http.StatusConflict:
			var body struct {
				Status    string `json:"status"`
				ErrorCode string `json:"errorCode"`
				Error     string `json:"error"`
			}
			if err := json.Unmarshal(d.body, &body); err != nil || body.ErrorCode != "TX05" || body.Status != "U" || body.Error == "" {
				t.Errorf("a losing decision answered 409 %s, want the TX05 body", d.body)
			}
			var emv map[string]string
			var whole map[string]json.RawMessage
			_ = json.Unmarshal(d.body, &whole)
			_ = json.Unmarshal(whole["emvError"], &emv)
			if emv["emvErrorCode"] != "305" || emv["emvErrorComponent"] == "" || emv["emvErrorDescription"] == "" || emv["emvErrorDetail"] == "" {
				t.Errorf("a losing decision's emvError = %v, want 305 with every field", emv)
			}
		default:
			t.Errorf("decision %s: HTTP %d %s, want 200 or 409", d.action, d.status, d.body)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d of 50 concurrent decisions won (%v), want exactly 1", len(winners), winners)
	}
	for _, rp := range replicas {
		checkEnquiry(t, &program{URL: rp.URL}, race.ServerTransID, outcomes[winners[0]])
	}
	t.Logf("c. 50 concurrent decisions: one winner (%s), 49 answered 409 TX05", winners[0])

	// d. kill -9 of a replica in the middle of traffic. A lookup may fail
	// only if it was in flight at the kill: answered after the SIGKILL was
	// sent, and sent before the process was gone.
	frictionless := mustJSON(t, testkit.LookupBody(t, "4000000000009003", nil))
	var (
		mu        sync.Mutex
		acked     []string
		failures  []string
		attempts  atomic.Int64
		killSent  atomic.Int64 // unix nanoseconds of the SIGKILL
		killedAt  atomic.Int64 // unix nanoseconds once the killed process is gone
		killNow   = make(chan struct{})
		killOnce  sync.Once
		trafficWG sync.WaitGroup
	)
	deadline := time.Now().Add(30 * time.Second)
	for range 4 {
		trafficWG.Add(1)
		go func() {
			defer trafficWG.Done()
			for attempts.Add(1) <= 400 && time.Now().Before(deadline) {
				sent := time.Now().UnixNano()
				status, body, err := post(context.Background(), client, lb.URL+"/authentication/brw", testToken, frictionless)
				answered := time.Now().UnixNano()
				var r struct {
					ID string `json:"threeDsServerTransId"`
				}
				mu.Lock()
				if err == nil && status == http.StatusOK && json.Unmarshal(body, &r) == nil && r.ID != "" {
					acked = append(acked, r.ID)
					if len(acked) == 100 {
						killOnce.Do(func() { close(killNow) })
					}
				} else {
					first, _, _ := strings.Cut(string(body), "\n")
					what := fmt.Sprintf("HTTP %d %v %.80s", status, err, first)
					if k, gone := killSent.Load(), killedAt.Load(); k == 0 || answered < k || gone != 0 && sent > gone {
						failures = append(failures, "not in flight at the kill: "+what)
					} else {
						failures = append(failures, "in flight at the kill: "+what)
					}
				}
				mu.Unlock()
			}
		}()
	}
	victim := replicas[1]
	select {
	case <-killNow:
		oldPID := victim.cmd.Process.Pid
		killSent.Store(time.Now().UnixNano())
		_ = victim.signal(syscall.SIGKILL, 10*time.Second)
		killedAt.Store(time.Now().UnixNano())
		t.Logf("d. killed %s (pid %d) after 100 acknowledged lookups", victim.name, oldPID)
	case <-time.After(30 * time.Second):
		t.Error("100 lookups were not acknowledged within 30s")
	}
	trafficWG.Wait()
	mu.Lock()
	t.Logf("d. %d lookups acknowledged, %d failed: %q", len(acked), len(failures), failures)
	for _, f := range failures {
		if strings.HasPrefix(f, "not in flight") {
			t.Errorf("a lookup failed: %s", f)
		}
	}
	ids := append([]string(nil), acked...)
	mu.Unlock()
	findAll := func(what, base string) {
		t.Helper()
		var missing []string
		for _, id := range ids {
			status, body, err := post(context.Background(), client, base+"/enquiry/", testToken, mustJSON(t, map[string]string{"threeDsServerTransId": id}))
			if err != nil || status != http.StatusOK || !bytes.Contains(body, []byte(`"transactionStatus":"Y"`)) {
				missing = append(missing, fmt.Sprintf("%s: %d %v %.120s", id, status, err, body))
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: %d of %d acknowledged transactions not found: %v", what, len(missing), len(ids), missing[:min(len(missing), 5)])
		}
	}
	findAll("after the kill, through the balancer", lb.URL)
	replicas[1] = launch(victim) // the same flags, the same port
	findAll("on the restarted replica", replicas[1].URL)
	for _, id := range earlier {
		q := map[string]string{"threeDsServerTransId": id}
		want := testkit.Call(t, http.MethodPost, replicas[0].URL+"/enquiry/", testToken, q)
		if got := testkit.Call(t, http.MethodPost, replicas[1].URL+"/enquiry/", testToken, q); got.Status != http.StatusOK || got.Raw != want.Raw {
			t.Errorf("the restarted replica's enquiry of %s:\n%d %s\nwant, as another replica's:\n%d %s", id, got.Status, got.Raw, want.Status, want.Raw)
		}
	}

	// e. Redis restarted, cleanly then by SIGKILL: nothing acknowledged is lost.
	allReady := func(what string) {
		t.Helper()
		for _, rp := range replicas {
			if err := waitReady(rp.URL, testkit.Patience, rp.done); err != nil {
				t.Fatalf("%s: %s: %v", what, rp.name, err)
			}
		}
	}
	for _, restart := range []struct {
		name string
		stop func()
	}{{"clean shutdown", srv.Stop}, {"SIGKILL", srv.Kill}} {
		for range 20 { // acknowledged just before Redis goes
			r := viaLB.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
			ids = append(ids, r.Str("threeDsServerTransId"))
		}
		restart.stop()
		srv.Start()
		allReady("Redis restarted after a " + restart.name)
		findAll("Redis restarted after a "+restart.name, lb.URL)
	}
	t.Logf("e. %d acknowledged transactions survived two restarts of Redis", len(ids))

	// f. Redis stopped: clear 503s within the store timeout; back: recovery
	// without restarting a replica.
	pending := lookupChallenge(t, viaLB, shop.URL+"/notify", "outage", 3)
	pids := map[string]int{}
	for _, rp := range replicas {
		pids[rp.name] = rp.cmd.Process.Pid
	}
	srv.Stop()
	var slowest time.Duration
	var slowestMu sync.Mutex
	var calls sync.WaitGroup // each call waits out the store timeout: all at once
	// The calls' bound is checked below; the client waits beyond it, so
	// that a slow answer fails as too slow, not as the client's timeout.
	patient := &http.Client{Timeout: testkit.Patience}
	for _, tt := range []struct {
		name, path string
		body       []byte
	}{
		{"lookup", "/authentication/brw", frictionless},
		{"enquiry", "/enquiry/", mustJSON(t, map[string]string{"threeDsServerTransId": ids[0]})},
		{"decision", "/challenge/" + pending.ServerTransID, []byte(`{"action":"pass"}`)},
	} {
		for _, base := range []string{lb.URL, replicas[0].URL, replicas[1].URL, replicas[2].URL} {
			calls.Go(func() {
				sent := time.Now()
				status, body, err := post(context.Background(), patient, base+tt.path, testToken, tt.body)
				took := time.Since(sent)
				slowestMu.Lock()
				slowest = max(slowest, took)
				slowestMu.Unlock()
				if err != nil {
					t.Errorf("%s with Redis down via %s: %v", tt.name, base, err)
					return
				}
				var whole map[string]json.RawMessage
				var emv map[string]string
				_ = json.Unmarshal(body, &whole)
				_ = json.Unmarshal(whole["emvError"], &emv)
				if status != http.StatusServiceUnavailable || string(whole["errorCode"]) != `"SY02"` || string(whole["status"]) != `"U"` || len(whole["error"]) < 3 {
					t.Errorf("%s with Redis down via %s: HTTP %d %s, want 503 SY02", tt.name, base, status, body)
				}
				if emv["emvErrorCode"] != "403" || emv["emvErrorComponent"] == "" || emv["emvErrorDescription"] == "" || emv["emvErrorDetail"] == "" {
					t.Errorf("%s with Redis down via %s: emvError %v, want 403 with every field", tt.name, base, emv)
				}
				if bound := 4*storeTimeout + time.Second; took > bound {
					t.Errorf("%s with Redis down via %s took %s, want under %s (--store-timeout %s)", tt.name, base, took, bound, storeTimeout)
				}
			})
		}
	}
	calls.Wait()
	for _, rp := range replicas {
		if got := testkit.Call(t, http.MethodGet, rp.URL+"/readyz", "", nil); got.Status != http.StatusServiceUnavailable {
			t.Errorf("%s /readyz with Redis down: %d %s, want 503", rp.name, got.Status, got.Raw)
		}
		if got := testkit.Call(t, http.MethodGet, rp.URL+"/healthz", "", nil); got.Status != http.StatusOK {
			t.Errorf("%s /healthz with Redis down: %d %s, want 200 (the process is alive)", rp.name, got.Status, got.Raw)
		}
	}
	t.Logf("f. Redis down: lookup, enquiry and decision answered 503 SY02 on every replica and the balancer, the slowest in %s", slowest)
	srv.Start()
	allReady("Redis back")
	for _, rp := range replicas {
		if !rp.running() || rp.cmd.Process.Pid != pids[rp.name] {
			t.Errorf("%s was restarted (pid %d, was %d) or ended: it should recover by itself", rp.name, rp.cmd.Process.Pid, pids[rp.name])
		}
		r := (&program{URL: rp.URL}).lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
		ids = append(ids, r.Str("threeDsServerTransId"))
	}
	if got := viaLB.enquiry(t, pending.ServerTransID); got.Str("transactionStatus") != "C" {
		t.Errorf("the decision refused during the outage changed the challenge: %s", got.Raw)
	}
	if got := testkit.Call(t, http.MethodPost, lb.URL+"/challenge/"+pending.ServerTransID, testToken, map[string]string{"action": "fail"}); got.Status != http.StatusOK {
		t.Errorf("a decision after the outage: %d %s", got.Status, got.Raw)
	}
	checkEnquiry(t, viaLB, pending.ServerTransID, outcomes["fail"])
	findAll("after the outage", lb.URL)

	// g. SIGTERM: each replica ends cleanly, and none raced or panicked.
	for _, rp := range replicas {
		if err := rp.signal(syscall.SIGTERM, testkit.Patience); err != nil {
			t.Errorf("%s after SIGTERM: %v, want exit status 0", rp.name, err)
		}
	}
	for _, rp := range all {
		for _, bad := range []string{"DATA RACE", "panic:"} {
			if strings.Contains(rp.out.String(), bad) {
				t.Errorf("%s (pid %d) wrote %q", rp.name, rp.cmd.Process.Pid, bad)
			}
		}
	}
}
