//go:build full

package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// sdkClientDir is the app channel's conformance client: a 3DS SDK
// written from docs/app-channel.md alone, with npm jose.
const sdkClientDir = "../../../docs/examples/sdk"

// sdkClientSuites are the client's test files that drive a sandbox; its
// unit tests (crypto, sdk) need none and run in CI's examples phase.
var sdkClientSuites = []string{
	"test/directory.test.mjs", "test/lookup.test.mjs", "test/challenge.test.mjs",
	"test/acs-errors.test.mjs", "test/faults.test.mjs",
}

// sdkClientRun bounds the client's run: a few minutes on a busy machine
// (on a quiet one it takes under one), far beyond what it needs.
const sdkClientRun = 10 * time.Minute

// TestSDKClientAcrossReplicas runs the conformance client against two
// replicas that share one Redis, behind nginx balancing round-robin. The
// acsURL of every challenge is the balancer's, so the CReqs of one
// exchange land on either replica: each must open the exchange key the
// other sealed, take the counter the other left, and decide through the
// shared store; the token's clock, ?wait=final and the enquiry are shared
// too. Without node or npm the test fails in CI.
func TestSDKClientAcrossReplicas(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Redis, two replicas, nginx and the Node client")
	}
	node := needNode(t)
	npm := testkit.Need(t, "npm", "npm")
	testkit.Nginx(t)
	testkit.Need(t, "redis-server", "redis-server")

	// The client is copied out of the checkout, so that its install
	// touches nothing of the repository.
	dir := filepath.Join(t.TempDir(), "sdk")
	copyTree(t, sdkClientDir, dir)
	install := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
	install.Dir = dir
	if err := startProcess(t, install).wait(testkit.Patience); err != nil {
		t.Fatalf("npm ci of the SDK client: %v", err)
	}

	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	addrs := []string{testkit.FreeAddr(t), testkit.FreeAddr(t)}
	lb := testkit.StartNginx(t, addrs...)
	bin := sandboxBinary(t)
	for i, addr := range addrs {
		r := &program{name: fmt.Sprintf("replica %d", i+1), bin: bin, Addr: addr, URL: "http://" + addr,
			args: []string{"--addr", addr, "--public-url", lb.URL, "--store", srv.URL,
				"--state-hash-key", testHashKey, "--state-block-key", testBlockKey,
				"--store-timeout", replicaStoreTimeout, "--drain-delay", "0"}}
		r.start(t)
		t.Cleanup(func() {
			if err := r.stop(); err != nil {
				t.Errorf("%s after SIGTERM: %v, want exit 0", r.name, err)
			}
			if t.Failed() {
				t.Logf("%s output:\n%s", r.name, r.tail(80))
			}
		})
	}

	args := append([]string{"--test", "--test-reporter=spec", "--test-concurrency=4", "--test-timeout=120000"}, sdkClientSuites...)
	run := exec.Command(node, args...)
	run.Dir = dir
	run.Env = append(processEnv(), "THREEDS_SANDBOX_URL="+lb.URL, "NO_COLOR=1")
	client := startProcess(t, run)
	if err := client.wait(sdkClientRun); err != nil {
		t.Fatalf("the SDK client against two replicas on Redis: %v", err)
	}
	var summary []string // the spec reporter's last lines: tests, pass, fail...
	for _, line := range strings.Split(client.out.String(), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "ℹ" {
			summary = append(summary, f[1]+" "+f[2])
		}
	}
	t.Logf("the SDK client: %s", strings.Join(summary, ", "))

	// The proof that the exchange crossed replicas: both answered CReqs.
	log, err := lb.AccessLog()
	if err != nil {
		t.Fatal(err)
	}
	creqs := map[string]int{}
	for _, e := range log {
		if e.Method == "POST" && e.Path == "/acs/sdk" {
			creqs[e.Answered()]++
		}
	}
	for _, addr := range addrs {
		if creqs[addr] == 0 {
			t.Errorf("replica %s answered no POST /acs/sdk: %v", addr, creqs)
		}
	}
	t.Logf("POST /acs/sdk answered per replica: %v", creqs)
}

// needNode is the path of node, version 20 or later: without it the
// test is skipped, or failed under CI, which installs it.
func needNode(t *testing.T) string {
	t.Helper()
	node := testkit.Need(t, "node", "nodejs")
	out, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		t.Fatalf("node -p process.versions.node: %v", err)
	}
	version := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	if major < 20 {
		if testkit.InCI() {
			t.Fatalf("the SDK client needs Node 20 or later, got %s", version)
		}
		t.Skipf("the SDK client needs Node 20 or later, got %s", version)
	}
	return node
}
