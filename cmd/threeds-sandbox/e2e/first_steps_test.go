//go:build full

package e2e

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestResetState: DELETE /admin/state starts a token clean in one call
// against the built binary: its transactions, clock, runtime scenarios
// and callback registration are gone; another token keeps its own.
func TestResetState(t *testing.T) {
	p := startDefault(t)
	const doc = "scenarios:\n  - id: mine\n    match: {cardNumber: \"4000000000009003\"}\n    frictionless: {status: R, reason: \"11\"}\n"
	call := func(method, path, token string, body any) testkit.Response {
		return testkit.Call(t, method, p.URL+path, token, body)
	}
	ids := map[string]string{}
	for _, tok := range []string{testToken, "e2e-other"} {
		ids[tok] = testkit.Lookup(t, p.URL, tok, testkit.LookupBody(t, challengeCard, nil)).Str("threeDsServerTransId")
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/admin/scenarios", strings.NewReader(doc))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/yaml")
		if r := testkit.Do(t, http.DefaultClient, req); r.Status != http.StatusCreated {
			t.Fatalf("%s: add a scenario: %d %s", tok, r.Status, r.Raw)
		}
		if r := call(http.MethodPost, "/admin/clock", tok, map[string]any{"advance": "1h"}); r.Status != http.StatusOK {
			t.Fatalf("%s: advance: %d %s", tok, r.Status, r.Raw)
		}
		if r := call(http.MethodPut, "/admin/callback", tok, map[string]any{"url": "http://127.0.0.1:9/results"}); r.Status != http.StatusOK {
			t.Fatalf("%s: register: %d %s", tok, r.Status, r.Raw)
		}
	}
	if r := call(http.MethodDelete, "/admin/state", testToken, nil); r.Status != http.StatusNoContent {
		t.Fatalf("DELETE /admin/state: %d %s, want 204", r.Status, r.Raw)
	}
	for tok, kept := range map[string]bool{testToken: false, "e2e-other": true} {
		q := call(http.MethodPost, "/enquiry/", tok, map[string]any{"threeDsServerTransId": ids[tok]})
		if (q.Status == http.StatusOK) != kept {
			t.Errorf("%s: enquiry %d", tok, q.Status)
		}
		if c := call(http.MethodGet, "/admin/clock", tok, nil); (c.Str("offset") == "1h0m0s") != kept {
			t.Errorf("%s: clock %s", tok, c.Raw)
		}
		if s := call(http.MethodGet, "/admin/scenarios", tok, nil); (strings.Contains(s.Raw, `"mine"`)) != kept {
			t.Errorf("%s: runtime scenarios %s", tok, s.Raw)
		}
		if cb := call(http.MethodGet, "/admin/callback", tok, nil); (cb.Str("source") == "registered") != kept {
			t.Errorf("%s: callback %s", tok, cb.Raw)
		}
	}
	if r := p.lookup(t, testkit.LookupBody(t, "4000000000009003", nil)); r.Str("status") != "Y" {
		t.Errorf("after the reset the default scenario answers: %s", r.Raw)
	}
}

// TestRedisClusterRecipe runs the recipe of docs/redis-scale.md, "A
// cluster of three on one machine", as written: three primaries joined
// by redis-cli --cluster create, the binary built and started on them,
// a lookup answered Y, everything stopped by its last block. Only the
// ports and the directory are the test's own, through the variables the
// recipe reads.
func TestRedisClusterRecipe(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and starts a Redis Cluster")
	}
	needTools(t, "bash", "curl", "jq", "openssl", "redis-server", "redis-cli")
	r := recipeOf(t, "docs/redis-scale.md", "### A cluster of three on one machine")
	dir := t.TempDir()
	r.run(t, dir, append(processEnv(), "DIR="+dir, "PORT="+strconv.Itoa(clusterPorts(t)), "SANDBOX="+strconv.Itoa(testkit.FreePort(t))))
	if log, err := os.ReadFile(filepath.Join(dir, "cluster-create.log")); err != nil || !strings.Contains(string(log), "All 16384 slots covered") {
		t.Errorf("redis-cli --cluster create (%v):\n%s", err, log)
	}
}

// clusterPorts returns the first of three consecutive loopback ports that
// nothing listens on, nor on the cluster bus ports 10000 higher, all below
// the kernel's ephemeral range (32768 by default), where no connection
// takes them as its source port before the nodes bind them.
func clusterPorts(t *testing.T) int {
	t.Helper()
	free := func(p int) bool {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		ln.Close()
		return true
	}
	for range 50 {
		first := freePortRun(t, 3)
		if first+2+10000 >= 32768 {
			continue
		}
		if free(first+10000) && free(first+10001) && free(first+10002) {
			return first
		}
	}
	t.Fatal("no three free ports with free cluster bus ports")
	return 0
}

// TestPytestExampleAsWritten runs the commands of the pytest example's
// README ("Run it") in a copy of its folder, as its README says to copy
// it, with the built binary on PATH as threeds-sandbox and, first on
// PATH, a python3 without pytest (a pyenv or virtualenv interpreter
// without the packages): the commands pick the system's interpreter,
// which has them, and the example's tests pass, its fixture resetting
// each token with DELETE /admin/state.
func TestPytestExampleAsWritten(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the pytest example under the binary")
	}
	needTools(t, "bash")
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest, requests").Run(); err != nil {
		if testkit.InCI() {
			t.Fatalf("/usr/bin/python3 lacks pytest or requests (%v): .ci/run installs python3-pytest and python3-requests", err)
		}
		t.Skipf("/usr/bin/python3 lacks pytest or requests: %v (skipped; fails when CI=true)", err)
	}
	blocks := fences(t, "docs/examples/pytest/README.md", "## Run it")
	if len(blocks) == 0 || blocks[0].lang != "sh" {
		t.Fatalf("the pytest example's Run it has no sh block first: %v", blocks)
	}
	dir := filepath.Join(t.TempDir(), "pytest")
	copyTree(t, "../../../docs/examples/pytest", dir)
	bin := t.TempDir()
	if err := os.Symlink(sandboxBinary(t), filepath.Join(bin, "threeds-sandbox")); err != nil {
		t.Fatal(err)
	}
	// A python3 that finds none of the system's packages, as a pyenv or
	// virtualenv one without them.
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+blocks[0].text)
	cmd.Dir = dir
	cmd.Env = append(processEnv(), "PATH="+bin+":"+os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1", "PYTEST_ADDOPTS=-p no:cacheprovider")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "pytest runs with /usr/bin/python3") || !strings.Contains(string(out), " passed") {
		t.Errorf("the README's commands did not run pytest with the system's interpreter:\n%s", out)
	}
}
