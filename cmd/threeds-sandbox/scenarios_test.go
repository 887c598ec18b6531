package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

const userScenarios = `scenarios:
  - id: my-card
    match: {cardNumber: "4111111111111111"}
    frictionless: {status: %s, reason: "05"}
`

func writeScenarios(t *testing.T, path, status string) {
	t.Helper()
	doc := strings.Replace(userScenarios, "%s", status, 1)
	if status == "Y" {
		doc = strings.Replace(doc, `, reason: "05"`, "", 1)
	}
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHotReload edits a user scenario file under traffic: a valid edit is
// picked up, an invalid one is refused with file:line in the log and the
// previous set stays active; concurrent lookups never fail.
func TestHotReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	writeScenarios(t, file, "N")
	p := startDefault(t, "--scenarios", dir, "--scenarios-poll", "20ms")
	status := func() string {
		return testkit.Lookup(t, p.URL, testToken, testkit.LookupBody(t, "4111111111111111", nil)).Str("status")
	}
	if got := status(); got != "N" {
		t.Fatalf("before reload: status %s, want N", got)
	}

	// Traffic during the reloads: every lookup must answer N or Y.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, "4111111111111111", nil))
				if s := r.Str("status"); s != "N" && s != "Y" {
					bad.Add(1)
				}
			}
		}()
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
		if n := bad.Load(); n > 0 {
			t.Errorf("%d lookups failed during the reloads", n)
		}
	}()

	// Each edit gets a modification time of its own, a second after the
	// last, as the poller tells files apart by size and time.
	edited := time.Now()
	touch := func() {
		t.Helper()
		edited = edited.Add(time.Second)
		if err := os.Chtimes(file, edited, edited); err != nil {
			t.Fatal(err)
		}
	}
	writeScenarios(t, file, "Y")
	touch()
	testkit.Eventually(t, "the status becomes Y", func() bool { return status() == "Y" })

	if err := os.WriteFile(file, []byte("scenarios:\n  - id: my-card\n    colour: red\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	touch()
	if !testkit.Within(testkit.Patience, func() bool { return strings.Contains(p.stdout.String(), "scenario reload refused") }) {
		t.Fatalf("no refused reload in the log:\n%s", p.stdout)
	}
	if !strings.Contains(p.stdout.String(), "mine.yaml:3") {
		t.Errorf("the refused reload does not name file:line:\n%s", p.stdout)
	}
	if got := status(); got != "Y" {
		t.Errorf("after an invalid edit: status %s, want the previous set's Y", got)
	}
	if m := testkit.Call(t, http.MethodGet, p.URL+"/metrics", "", nil); !strings.Contains(m.Raw, `threeds_scenario_reloads_total{result="invalid"}`) {
		t.Errorf("metrics lack the refused reload")
	}
}

func TestValidateCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	writeScenarios(t, good, "N")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("scenarios:\n  - id: x\n    match: {cardNumber: 4111111111111111}\n    frictionless: {status: Q}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		out  []string
	}{
		{"valid file", []string{"validate", good}, 0, []string{"ok: "}},
		{"valid file alone", []string{"validate", "--alone", good}, 0, []string{"ok: 1 scenarios"}},
		{"invalid file", []string{"validate", bad}, 1, []string{"bad.yaml:3:", "bad.yaml:4:"}},
		{"no file", []string{"validate"}, 2, []string{"Usage:"}},
		{"missing file", []string{"validate", filepath.Join(dir, "nope.yaml")}, 1, []string{"nope.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, envOf(nil), environOf(nil), &stdout, &stderr, nil)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("run: exit code %d (%v), want %d\n%s", got, err, tt.code, stderr.String())
			}
			if tt.code == 1 && !errors.Is(err, errInvalid) {
				t.Errorf("run = %v, want errInvalid", err)
			}
			all := stdout.String() + stderr.String()
			for _, want := range tt.out {
				if !strings.Contains(all, want) {
					t.Errorf("output lacks %q:\n%s", want, all)
				}
			}
		})
	}
}

// TestLogsCarryNoSecrets: the request log names the token's namespace,
// never the token, the card number or the body.
func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	p := startDefault(t, "--log-level", "debug")
	const secretToken = "s3cr3t-token-value"
	body := testkit.LookupBody(t, challengeCard, func(m map[string]any) { m["unknownField"] = "x" })
	if r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", secretToken, body); r.Status != http.StatusOK {
		t.Fatalf("lookup: %d %s", r.Status, r.Raw)
	}
	testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", secretToken, map[string]any{"card": map[string]any{"cardNumber": challengeCard}})
	testkit.Call(t, http.MethodGet, p.URL+"/healthz", "", nil) // the log's last line
	logs := p.stdout.WaitFor("path=/healthz") + p.stderr.String()
	if !strings.Contains(logs, "path=/authentication/brw") {
		t.Fatalf("no request log line:\n%s", logs)
	}
	for _, secret := range []string{secretToken, challengeCard, "eyJvcmRlciI6IjAwMDEyMyJ9"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log carries %q:\n%s", secret, logs)
		}
	}
}

// TestMetricsEndpoint: /metrics speaks the Prometheus text format and
// counts requests by route, transactions by status and the store.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	testkit.Lookup(t, p.URL, testToken, testkit.LookupBody(t, challengeCard, nil))
	m := testkit.Call(t, http.MethodGet, p.URL+"/metrics", "", nil)
	for _, want := range []string{
		`threeds_http_requests_total{code="200",method="POST",route="/authentication/brw"} 1`,
		`threeds_transactions_total{status="C",step="lookup"} 1`,
		`threeds_store_transactions 1`,
		`threeds_store_evictions_total 0`,
		`threeds_http_request_duration_seconds_bucket{route="/authentication/brw"`,
	} {
		if !strings.Contains(m.Raw, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if r := testkit.Call(t, http.MethodGet, p.URL+"/readyz", "", nil); r.Status != http.StatusOK || r.Str("status") != "ready" {
		t.Errorf("/readyz = %d %s", r.Status, r.Raw)
	}
}
