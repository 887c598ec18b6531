//go:build full

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
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
	bin := replicaBinary(t)
	replicas := make([]*program, len(addrs))
	for i, addr := range addrs {
		r := &program{name: fmt.Sprintf("replica %d", i+1), bin: bin, Addr: addr, URL: "http://" + addr,
			args: []string{"--addr", addr, "--public-url", lb.URL, "--store", srv.URL,
				"--state-hash-key", testHashKey, "--state-block-key", testBlockKey,
				"--store-timeout", replicaStoreTimeout, "--drain-delay", "0"}}
		r.start(t)
		replicas[i] = r
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

	appWithoutSDK(t, replicas[0], replicas[1])
}

// appWithoutSDK checks, replica by replica, what the client cannot see
// through the balancer: both publish the same directory servers, and an
// app challenge looked up on a finishes headlessly on b (POST
// /challenge/{id}), after which b's acsURL refuses a CReq with Erro 305.
func appWithoutSDK(t *testing.T, a, b *program) {
	t.Helper()
	ctx := context.Background()
	var published []string
	for _, p := range []*program{a, b} {
		r := testkit.Call(t, http.MethodGet, p.URL+"/sdk/directory-servers", "", nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET /sdk/directory-servers on %s: %d %s", p.name, r.Status, r.Raw)
		}
		published = append(published, r.Raw)
	}
	if published[0] != published[1] {
		t.Errorf("the replicas publish different directory servers:\n%s\n%s", published[0], published[1])
	}

	on := func(p *program) *sandboxtest.Client {
		return &sandboxtest.Client{URL: p.URL, Token: "e2e-app-headless", HTTP: &http.Client{Timeout: 30 * time.Second}}
	}
	servers, err := on(a).DirectoryServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(servers, func(d sandboxtest.DirectoryServer) bool { return d.Scheme == "VISA" })
	if i < 0 {
		t.Fatalf("no VISA directory server in %+v", servers)
	}
	sdk, err := sandboxtest.NewSDK()
	if err != nil {
		t.Fatal(err)
	}
	body, err := sdk.AppLookupBody(challengeCard, servers[i])
	if err != nil {
		t.Fatal(err)
	}
	lookup, err := on(a).AppLookup(ctx, sdk, body)
	if err != nil || lookup.Status != "C" || lookup.ACSURL == "" {
		t.Fatalf("app lookup on %s: %+v, %v", a.name, lookup, err)
	}
	if done, err := on(b).CompleteChallenge(ctx, lookup.ThreeDSServerTransID, sandboxtest.Pass); err != nil || !done.Final {
		t.Fatalf("headless pass on %s: %+v, %v", b.name, done, err)
	}
	if e, err := on(a).Enquiry(ctx, lookup.ThreeDSServerTransID); err != nil || e.TransactionStatus != "Y" || !strings.Contains(string(e.Raw), sdk.TransID) {
		t.Errorf("enquiry on %s after the headless pass on %s: %+v, %v; want Y naming sdkTransId %s", a.name, b.name, e, err, sdk.TransID)
	}
	creq, err := json.Marshal(map[string]string{"threeDSServerTransID": lookup.ThreeDSServerTransID, "acsTransID": lookup.ACSTransID,
		"sdkTransID": sdk.TransID, "messageType": "CReq", "messageVersion": lookup.Version, "sdkCounterStoA": "000"})
	if err != nil {
		t.Fatal(err)
	}
	jwe, err := jose.EncryptDirect(creq, lookup.ExchangeKey, jose.A128GCM, lookup.ACSTransID, jose.SDKToACS, 0)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(b.URL+"/acs/sdk", "application/jose; charset=UTF-8", bytes.NewReader(jwe))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var erro struct{ MessageType, ErrorCode string }
	if err := json.NewDecoder(resp.Body).Decode(&erro); err != nil || resp.StatusCode != http.StatusOK || erro.MessageType != "Erro" || erro.ErrorCode != "305" {
		t.Errorf("a CReq on %s after the headless pass: %d %+v (%v), want Erro 305", b.name, resp.StatusCode, erro, err)
	}
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
