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

// TestDrainKeepsServingThenRefuses cancels the program (as SIGTERM does)
// with a drain delay while a slow lookup is in flight: /readyz answers
// 503 at once while /healthz and the API still answer, until the delay
// ends; then new connections are refused, the slow lookup still gets its
// answer, and run returns nil.
func TestDrainKeepsServingThenRefuses(t *testing.T) {
	t.Parallel()
	const delay = 2 * time.Second
	p := startProgram(t, map[string]string{"THREEDS_DRAIN_DELAY": delay.String()}, "--addr", "127.0.0.1:0")
	if status, err := freshGet(p.URL + "/readyz"); err != nil || status != http.StatusOK {
		t.Fatalf("GET /readyz before the shutdown: %d %v, want 200", status, err)
	}

	// A lookup of the card that answers 504 after 3s: it outlives the drain.
	raw, err := json.Marshal(testkit.LookupBody(t, "4000000000009938", nil))
	if err != nil {
		t.Fatal(err)
	}
	slow := make(chan int, 1)
	go func() {
		req, err := http.NewRequest(http.MethodPost, p.URL+"/authentication/brw", bytes.NewReader(raw))
		if err != nil {
			slow <- 0
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			slow <- 0
			return
		}
		resp.Body.Close()
		slow <- resp.StatusCode
	}()

	cancelled := time.Now()
	p.cancel()
	waitNotReady(t, p)
	// The drain surely lasts until cancelled+delay; leave half of it as
	// a margin for a slow machine.
	for first := true; first || time.Since(cancelled) < delay/2; first = false {
		if status, err := freshGet(p.URL + "/readyz"); err != nil || status != http.StatusServiceUnavailable {
			t.Errorf("GET /readyz while draining: %d %v, want 503", status, err)
		}
		if status, err := freshGet(p.URL + "/healthz"); err != nil || status != http.StatusOK {
			t.Errorf("GET /healthz while draining: %d %v, want 200", status, err)
		}
		if r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, challengeCard, nil)); r.Status != http.StatusOK || r.Str("status") != "C" {
			t.Errorf("lookup while draining: HTTP %d %s, want 200 and status C", r.Status, r.Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}

	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := freshGet(p.URL + "/healthz")
		if err != nil {
			if elapsed := time.Since(cancelled); elapsed < delay {
				t.Errorf("connections refused %s after the cancel, before the drain delay of %s ended", elapsed, delay)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("connections still accepted 15s after the cancel")
		}
	}
	select {
	case status := <-slow:
		if status != http.StatusGatewayTimeout {
			t.Errorf("the lookup in flight during the shutdown: HTTP %d, want %d (0: no answer)", status, http.StatusGatewayTimeout)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the lookup in flight got no answer")
	}
	if err := p.stop(); err != nil {
		t.Errorf("run after the drain = %v, want nil", err)
	}
	logs := p.stdout.String()
	for _, want := range []string{`msg="draining: /readyz answers 503 while every route still serves" delay=2s`, "shutting down", "stopped"} {
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
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10s with no drain delay")
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
// laptop), without the drain that replicas behind a load balancer need.
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
	case <-time.After(10 * time.Second):
		t.Fatal("run did not serve within 10s")
	}
	cancelled := time.Now()
	cancel()
	// The old default drained for 5s; returning within 4s shows there is
	// no drain without timing the shutdown itself tightly.
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after the cancel = %v, want nil", err)
		}
		if elapsed := time.Since(cancelled); elapsed >= 4*time.Second {
			t.Errorf("run returned %s after the cancel, want well under the 5s drain of replicas", elapsed)
		}
	case <-time.After(4 * time.Second):
		t.Errorf("run did not return within 4s of the cancel; want no drain with the memory store")
		<-done
	}
	if strings.Contains(stdout.String(), "draining:") {
		t.Errorf("the log mentions a drain with the memory store:\n%s", stdout.String())
	}
}

// waitNotReady waits until /readyz of p answers 503, as it does from the
// start of the drain, for at most 10s.
func waitNotReady(t *testing.T, p *program) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		status, err := freshGet(p.URL + "/readyz")
		if err != nil {
			t.Fatalf("GET /readyz right after the cancel: %v, want 503", err)
		}
		if status == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /readyz still answers %d 10s after the cancel, want 503", status)
		}
	}
}
