package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// freshGet sends GET u on a new connection, so that a closed listener
// shows as an error rather than hiding behind a kept-alive connection.
func freshGet(u string) (int, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// slowCard is the card of the default scenario that times out (504
// after 3s); addSlowScenarios makes it take 15s for the tests' token, so
// that its lookup is surely in flight across a shutdown.
const slowCard = "4000000000009938"

// probeCard answers Y after a delay of 1ms for the tests' token (see
// addSlowScenarios): a probe of the delay slots.
const probeCard = "4000000000009946"

// addSlowScenarios adds the tests' token's scenarios of slowCard and
// probeCard to p.
func addSlowScenarios(t *testing.T, p *program) {
	t.Helper()
	scenarios := map[string]any{"scenarios": []map[string]any{
		{"id": "slow-timeout", "match": map[string]any{"cardNumber": slowCard}, "delay": "15s",
			"error": map[string]any{"httpStatus": 504, "errorCode": "SC02", "emvErrorCode": "402", "message": "Authentication timed out"}},
		{"id": "probe", "match": map[string]any{"cardNumber": probeCard}, "delay": "1ms", "frictionless": map[string]any{"status": "Y"}},
	}}
	if r := testkit.Call(t, http.MethodPost, p.URL+"/admin/scenarios", testToken, scenarios); r.Status != http.StatusCreated {
		t.Fatalf("add the slow scenarios: HTTP %d %s", r.Status, r.Raw)
	}
}

// sendSlow sends a lookup of slowCard to p and returns the channel of
// its HTTP status (0 for no answer).
func sendSlow(t *testing.T, p *program) <-chan int {
	t.Helper()
	raw, err := json.Marshal(testkit.LookupBody(t, slowCard, nil))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, p.URL+"/authentication/brw", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	got := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- 0
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	return got
}

// waitInDelay sends a lookup of slowCard to p (run with --max-delayed 1)
// and returns once it holds the one delay slot, with the channel of its
// status. While it does, a probe is refused at once with 503 SY03; a
// probe that finds the slot free takes it for 1ms and is answered, and a
// slow lookup that came during that millisecond, refused, is sent again.
func waitInDelay(t *testing.T, p *program) <-chan int {
	t.Helper()
	got := sendSlow(t, p)
	testkit.Eventually(t, "the slow lookup waits in the delay slot", func() bool {
		select {
		case <-got:
			got = sendSlow(t, p)
			return false
		default:
		}
		r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, probeCard, nil))
		return r.Status == http.StatusServiceUnavailable && r.Str("errorCode") == "SY03"
	})
	return got
}

// TestDrainKeepsServingThenRefuses cancels the program (as SIGTERM does)
// with a drain delay while a slow lookup is in flight: /readyz answers
// 503 at once while /healthz and the API still answer, until the delay
// ends; then new connections are refused, the slow lookup still gets its
// answer, and run returns nil. The drain (6s) leaves room for the checks
// during it on a busy machine; the slow lookup (15s) outlives it.
func TestDrainKeepsServingThenRefuses(t *testing.T) {
	t.Parallel()
	const delay = 6 * time.Second
	p := startProgram(t, map[string]string{"THREEDS_DRAIN_DELAY": delay.String(), "THREEDS_SHUTDOWN_TIMEOUT": "1m"}, "--addr", "127.0.0.1:0")
	if status, err := freshGet(p.URL + "/readyz"); err != nil || status != http.StatusOK {
		t.Fatalf("GET /readyz before the shutdown: %d %v, want 200", status, err)
	}

	addSlowScenarios(t, p)
	slow := sendSlow(t, p)

	cancelled := time.Now()
	p.cancel()
	waitNotReady(t, p)
	// The drain surely lasts until cancelled+delay: the checks run for
	// its first second, with the rest as a margin for a slow machine.
	for first := true; first || time.Since(cancelled) < time.Second; first = false {
		if status, err := freshGet(p.URL + "/readyz"); err != nil || status != http.StatusServiceUnavailable {
			t.Errorf("GET /readyz while draining: %d %v, want 503", status, err)
		}
		if status, err := freshGet(p.URL + "/healthz"); err != nil || status != http.StatusOK {
			t.Errorf("GET /healthz while draining: %d %v, want 200", status, err)
		}
		if r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, challengeCard, nil)); r.Status != http.StatusOK || r.Str("status") != "C" {
			t.Errorf("lookup while draining: HTTP %d %s, want 200 and status C", r.Status, r.Raw)
		}
	}

	testkit.Eventually(t, "connections refused once the drain ends", func() bool {
		_, err := freshGet(p.URL + "/healthz")
		return err != nil
	})
	if elapsed := time.Since(cancelled); elapsed < delay {
		t.Errorf("connections refused %s after the cancel, before the drain delay of %s ended", elapsed, delay)
	}
	select {
	case status := <-slow:
		if status != http.StatusGatewayTimeout {
			t.Errorf("the lookup in flight during the shutdown: HTTP %d, want %d (0: no answer)", status, http.StatusGatewayTimeout)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("the lookup in flight got no answer")
	}
	if err := p.stop(); err != nil {
		t.Errorf("run after the drain = %v, want nil", err)
	}
	logs := p.stdout.String()
	for _, want := range []string{`msg="draining: /readyz answers 503 while every route still serves" delay=6s`, "shutting down", "stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

// TestNoDrainStopsAtOnce: with --drain-delay 0 the listener closes as
// soon as the context ends, as before the drain existed.
func TestNoDrainStopsAtOnce(t *testing.T) {
	t.Parallel()
	p := startProgram(t, nil, "--addr", "127.0.0.1:0", "--drain-delay", "0")
	done := make(chan error, 1)
	go func() { done <- p.stop() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after the cancel = %v, want nil", err)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("run did not return within %s with no drain delay", testkit.Patience)
	}
	if _, err := freshGet(p.URL + "/healthz"); err == nil {
		t.Error("GET /healthz after the shutdown answered, want a refused connection")
	}
	if strings.Contains(p.stdout.String(), "draining:") {
		t.Errorf("the log mentions a drain with --drain-delay 0:\n%s", p.stdout)
	}
}

// TestMemoryStoreStopsAtOnce: with the memory store and no drain delay
// set, the program returns soon after the context ends (as Ctrl-C on a
// laptop), without the drain that replicas behind a load balancer need:
// its log goes from the cancel straight to the shutdown, with no drain
// (the drain logs itself whenever it waits), and run returns.
func TestMemoryStoreStopsAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testkit.Buffer
	ready, done := make(chan string, 1), make(chan error, 1)
	// No THREEDS_DRAIN_DELAY: the store's default applies.
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, envOf(nil), environOf(nil), &stdout, &stderr, ready)
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("run returned before serving: %v\n%s", err, stderr.String())
	case <-time.After(testkit.Patience):
		t.Fatalf("run did not serve within %s", testkit.Patience)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after the cancel = %v, want nil", err)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("run did not return within %s of the cancel", testkit.Patience)
	}
	logs := stdout.String()
	if strings.Contains(logs, "draining:") || !strings.Contains(logs, "shutting down") {
		t.Errorf("the log of the shutdown, want no drain with the memory store:\n%s", logs)
	}
}

// waitNotReady waits until /readyz of p answers 503, as it does from the
// start of the drain, for at most 10s.
func waitNotReady(t *testing.T, p *program) {
	t.Helper()
	testkit.Eventually(t, "GET /readyz answers 503 after the cancel", func() bool {
		status, err := freshGet(p.URL + "/readyz")
		if err != nil {
			t.Fatalf("GET /readyz right after the cancel: %v, want 503", err)
		}
		return status == http.StatusServiceUnavailable
	})
}
