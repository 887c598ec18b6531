//go:build full

package e2e

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStoreFull: a Redis at its maxmemory under noeviction refuses
// writes. Every write then answers 503 SY04, whose message says the store
// is full (not "try again"), on the API as JSON and on the browser routes
// (console and ACS) as a page; reads still answer; /readyz answers 503
// while writes are refused, and 200 again once they succeed; a metric
// counts the refusals. Nothing acknowledged is lost.
func TestStoreFull(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{Policy: "noeviction"})
	p := startReplica(t, srv)
	y := p.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
	ch := p.lookup(t, testkit.LookupBody(t, challengeCard, nil))
	creq := creqOf(t, ch)

	// maxmemory 1 byte: Redis is over it at once, and refuses every write.
	if err := srv.Do("CONFIG", "SET", "maxmemory", "1"); err != nil {
		t.Fatal(err)
	}
	full := func(what string, r testkit.Response) {
		t.Helper()
		if r.Status != http.StatusServiceUnavailable || r.Str("errorCode") != "SY04" || r.EMV("emvErrorCode") != "404" ||
			!strings.Contains(r.Str("error"), "full") || strings.Contains(r.Str("error"), "try again") {
			t.Errorf("%s with Redis full: HTTP %d %s, want 503 SY04 (EMV 404) saying the store is full", what, r.Status, r.Raw)
		}
	}
	full("lookup", testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, "4000000000009003", nil)))
	full("a runtime scenario", testkit.Call(t, http.MethodPost, p.URL+"/admin/scenarios", testToken, map[string]any{"scenarios": []map[string]any{{
		"id": "full", "match": map[string]any{"cardNumber": "4111111111111111"}, "frictionless": map[string]any{"status": "N", "reason": "01"},
	}}}))
	full("headless challenge", testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+ch.Str("threeDsServerTransId"), testToken, map[string]any{"action": "pass"}))

	// Reads answer: what was acknowledged is there.
	if got := p.enquiry(t, y.Str("threeDsServerTransId")); got.Str("transactionStatus") != "Y" {
		t.Errorf("enquiry with Redis full: %s", got.Raw)
	}
	if ready := testkit.Call(t, http.MethodGet, p.URL+"/readyz", "", nil); ready.Status != http.StatusServiceUnavailable || !strings.Contains(ready.Raw, "full") {
		t.Errorf("readyz with Redis full: %d %s, want 503 naming the full store", ready.Status, ready.Raw)
	}

	// The browser routes answer a page.
	page := func(what, path string, form url.Values) {
		t.Helper()
		resp, err := http.PostForm(p.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "full") {
			t.Errorf("%s with Redis full: HTTP %d %s, want a 503 page saying the store is full\n%.400s",
				what, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	page("console login", "/console/login", url.Values{"token": {testToken}})
	page("challenge page", "/acs/challenge", url.Values{"creq": {creq}})

	metrics := testkit.Call(t, http.MethodGet, p.URL+"/metrics", "", nil).Raw
	if m := regexp.MustCompile(`(?m)^threeds_store_full_total (\d+)`).FindStringSubmatch(metrics); m == nil {
		t.Error("no threeds_store_full_total in /metrics")
	} else if n, _ := strconv.Atoi(m[1]); n < 5 {
		t.Errorf("threeds_store_full_total = %d, want at least the 5 refused requests", n)
	}
	if !strings.Contains(p.out.String(), "state store full") {
		t.Errorf("the log does not say the store is full:\n%s", p.tail(20))
	}

	// Memory back: ready again without a restart, and writes succeed.
	if err := srv.Do("CONFIG", "SET", "maxmemory", "0"); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "readyz answers 200 once Redis takes writes again", func() bool {
		return testkit.Call(t, http.MethodGet, p.URL+"/readyz", "", nil).Status == http.StatusOK
	})
	p.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
	if got := testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+ch.Str("threeDsServerTransId"), testToken, map[string]any{"action": "pass"}); got.Str("transStatus") != "Y" {
		t.Errorf("the challenge after Redis took writes again: %s", got.Raw)
	}
}

// TestEvictionPolicy: under an allkeys-* policy Redis would drop
// acknowledged transactions when full, so start-up refuses it (exit 2)
// with a message that names the policy and the fix; a volatile-* policy
// starts with a warning that says what it evicts; where Redis forbids
// CONFIG GET (managed services), start-up says so once and goes on.
func TestEvictionPolicy(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{MaxMemory: "64mb", Policy: "allkeys-lru"})
	keys := []string{"--state-hash-key", testHashKey, "--state-block-key", testBlockKey}
	code, out := runProgram(t, testkit.Patience, append([]string{"--addr", testkit.FreeAddr(t), "--store", srv.URL}, keys...)...)
	for _, want := range []string{"allkeys-lru", "acknowledged transactions", "CONFIG SET maxmemory-policy noeviction", "redis.conf"} {
		if code != 2 || !strings.Contains(out, want) {
			t.Errorf("start-up over allkeys-lru: exit %d, want 2 and a message with %q:\n%s", code, want, out)
		}
	}

	if err := srv.Do("CONFIG", "SET", "maxmemory-policy", "volatile-lru"); err != nil {
		t.Fatal(err)
	}
	p := startReplica(t, srv)
	warned := regexp.MustCompile(`level=WARN msg="Redis evicts keys under maxmemory-policy volatile-lru: .*acknowledged transactions can vanish`)
	if !warned.MatchString(p.out.String()) {
		t.Errorf("start-up over volatile-lru does not warn what it evicts:\n%s", p.tail(10))
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}

	// A user that may not run CONFIG, as on a managed Redis.
	if err := srv.Do("ACL", "SETUSER", "managed", "on", ">secret", "~*", "&*", "+@all", "-config"); err != nil {
		t.Fatal(err)
	}
	q := startProgram(t, append([]string{"--store", "redis://managed:secret@" + srv.Addr + "/0", "--store-timeout", replicaStoreTimeout}, keys...)...)
	q.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
	for range 3 {
		if ready := testkit.Call(t, http.MethodGet, q.URL+"/readyz", "", nil); ready.Status != http.StatusOK {
			t.Errorf("readyz where CONFIG is forbidden: %d %s", ready.Status, ready.Raw)
		}
	}
	if n := strings.Count(q.out.String(), "cannot read Redis's eviction policy"); n != 1 {
		t.Errorf("said %d times that the policy cannot be read, want once:\n%s", n, q.tail(10))
	}
}
