//go:build full

package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// The tenant rule for the pools that the earlier seams left shared,
// against the built binary: the transaction store, the console's
// sessions and live streams, the runtime scenarios.

// TestSeamsTransactionStoreShares: one token flooding lookups never
// evicts another token's transactions. In memory, at --store-max-entries
// the token holding the most loses its own oldest; in Redis each token
// keeps at most --store-max-entries-per-token, its own oldest going.
func TestSeamsTransactionStoreShares(t *testing.T) {
	t.Parallel()
	const quiet, flood = "e2e-store-quiet", "e2e-store-flood"
	run := func(t *testing.T, p *program, kept, flooded int) {
		mine := lookups(t, p.URL, quiet, 20)
		floods := lookups(t, p.URL, flood, flooded)
		lost := 0
		for _, id := range mine {
			if r := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", quiet, map[string]any{"threeDsServerTransId": id}); r.Status != http.StatusOK {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("another token's flood of %d lookups evicted %d of the quiet token's %d transactions", flooded, lost, len(mine))
		}
		found := 0
		for _, id := range floods {
			if testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", flood, map[string]any{"threeDsServerTransId": id}).Status == http.StatusOK {
				found++
			}
		}
		if found != kept {
			t.Errorf("the flooding token keeps %d of its %d transactions, want %d", found, flooded, kept)
		}
	}
	t.Run("memory", func(t *testing.T) {
		run(t, startDefault(t, "--store-max-entries", "100"), 80, 200)
	})
	t.Run("redis", func(t *testing.T) {
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		run(t, startReplica(t, srv, "--store-max-entries-per-token", "50"), 50, 200)
	})
}

// TestSeamsConsoleSessionsShares: at --max-console-sessions, a token
// signing in again and again ends its own sessions, never those of a
// token holding fewer, in memory and in Redis.
func TestSeamsConsoleSessionsShares(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, p *program) {
		var quiet []*http.Cookie
		for i := range 3 {
			resp, ck := login(t, p.URL, "e2e-sessions-quiet", "")
			if ck == nil {
				t.Fatalf("login %d of the quiet token: HTTP %d", i, resp.StatusCode)
			}
			quiet = append(quiet, ck)
		}
		for i := range 30 {
			if resp, ck := login(t, p.URL, fmt.Sprintf("e2e-sessions-flood-%d", i%2), ""); ck == nil {
				t.Fatalf("login %d of the flooding tokens: HTTP %d", i, resp.StatusCode)
			}
		}
		ended := 0
		for _, ck := range quiet {
			if status2(t, p.URL, ck) != http.StatusOK {
				ended++
			}
		}
		if ended > 0 {
			t.Errorf("30 logins of two other tokens at --max-console-sessions 10 ended %d of the quiet token's 3 sessions", ended)
		}
	}
	t.Run("memory", func(t *testing.T) { run(t, startDefault(t, "--max-console-sessions", "10")) })
	t.Run("redis", func(t *testing.T) {
		run(t, startReplica(t, testkit.StartRedis(t, testkit.RedisOptions{}), "--max-console-sessions", "10"))
	})
}

// TestSeamsConsoleStreamsShares: one token's console tabs, however many
// sessions it opens, hold at most --max-console-streams-per-token live
// streams, and another token still opens its own.
func TestSeamsConsoleStreamsShares(t *testing.T) {
	t.Parallel()
	p := startDefault(t, "--max-console-streams", "80", "--max-console-streams-per-token", "40")
	client := &http.Client{}
	var open []*http.Response
	t.Cleanup(func() {
		for _, r := range open {
			r.Body.Close()
		}
	})
	stream := func(ck *http.Cookie) int {
		resp, status := openConsoleStream(t, client, p.URL, ck)
		if resp == nil {
			return status
		}
		open = append(open, resp)
		return resp.StatusCode
	}
	flooded := 0
	for range 12 {
		_, ck := login(t, p.URL, "e2e-streams-flood", "")
		for range 8 {
			if stream(ck) == http.StatusOK {
				flooded++
			}
		}
	}
	if flooded != 40 {
		t.Errorf("one token opened %d live streams in 12 sessions, want its share 40", flooded)
	}
	_, ck := login(t, p.URL, "e2e-streams-quiet", "")
	for i := range 8 {
		if got := stream(ck); got != http.StatusOK {
			t.Errorf("stream %d of another token: HTTP %d, want 200", i, got)
		}
	}
}

// TestKeyRotationKeepsOpenClientsAndCaptures: over Redis, in the open
// default, an OAuth client's transactions and a capture registered
// before a key rotation (new state keys, the old pair in
// --state-previous-keys) stay reachable after it: the client's new access
// token finds its transactions by id and by reference, a lookup naming
// the ddcId continues the capture, and a second use of the capture's JWT
// id is still refused as a replay.
func TestKeyRotationKeepsOpenClientsAndCaptures(t *testing.T) {
	t.Parallel()
	const card, client, secret = "4000000000009409", "rotation-shop", "rotation-shop-secret-0123"
	const ddcID, jti = "rotation-order-7", "rotation-jti-7"
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	common := []string{"--store", srv.URL, "--store-timeout", "2s"}
	old := startProgram(t, append(common, "--state-hash-key", testHashKey, "--state-block-key", testBlockKey)...)
	tok := accessToken(t, old.URL, client, secret)
	looked := testkit.Lookup(t, old.URL, tok, testkit.LookupBody(t, frictionlessCard, func(m map[string]any) {
		m["externalReferenceId"] = "rotation-ref-1"
	})).Str("threeDsServerTransId")
	captured := captureID(t, capturePost(t, old.URL, card, ddcID, captureJWT(t, client, secret, jti, nil)))
	if err := old.stop(); err != nil {
		t.Fatal(err)
	}

	rotated := startProgram(t, append(common, "--state-hash-key", rotatedHashKey, "--state-block-key", rotatedBlockKey,
		"--state-previous-keys", testHashKey+":"+testBlockKey)...)
	tok = accessToken(t, rotated.URL, client, secret)
	if r := testkit.Call(t, http.MethodPost, rotated.URL+"/enquiry/", tok, map[string]any{"threeDsServerTransId": looked}); r.Status != http.StatusOK {
		t.Errorf("the open client's transaction by id after the rotation: HTTP %d %s", r.Status, r.Raw)
	}
	if r := testkit.Call(t, http.MethodPost, rotated.URL+"/enquiry/", tok, map[string]any{"externalReferenceId": "rotation-ref-1"}); r.Status != http.StatusOK || r.Str("threeDsServerTransId") != looked {
		t.Errorf("the open client's transaction by reference after the rotation: HTTP %d %s", r.Status, r.Raw)
	}
	page := capturePost(t, rotated.URL, card, "rotation-order-8", captureJWT(t, client, secret, jti, nil))
	if methodDataRe.MatchString(page) {
		t.Error("the capture's JWT id, used before the rotation, was taken again after it: a replay")
	}
	r := testkit.Lookup(t, rotated.URL, tok, testkit.LookupBody(t, card, func(m map[string]any) { m["ddcId"] = ddcID }))
	if got := r.Str("threeDsServerTransId"); got != captured {
		t.Errorf("the lookup naming the ddcId after the rotation continued %s, want the capture %s", got, captured)
	}
}

// TestSeamsRuntimeScenariosShares: with 16 tokens holding their full
// share of runtime scenarios (16 MiB of documents in all), a newcomer
// token's document is added, and the tokens that make room for it lose
// only their own oldest scenarios, in memory and in Redis. A load of
// some 300 documents of 55 KB, twice: it runs the binary without the race
// detector, as the load tests do (the runtime scenarios' code runs under
// it in the tests of web and the stores).
func TestSeamsRuntimeScenariosShares(t *testing.T) {
	t.Parallel()
	const tokens = 16
	token := func(c int) string { return fmt.Sprintf("e2e-runtime-%02d", c) }
	run := func(t *testing.T, p *program) {
		installed := make([][]string, tokens+1) // ids of each token, oldest first
		add := func(c int, body []byte, ids []string) int {
			r := testkit.Call(t, http.MethodPost, p.URL+"/admin/scenarios", token(c), body)
			if r.Status == http.StatusCreated {
				installed[c] = append(installed[c], ids...)
			}
			return r.Status
		}
		// Each token in turn adds documents of 50 scenarios, then of
		// one, until it is refused: its share, or the total, is full.
		for _, size := range []int{50, 1} {
			full := make([]bool, tokens)
			for i := 0; slices.Contains(full, false); i++ {
				for c := range tokens {
					if !full[c] {
						body, ids := runtimeDocument(c, i, size)
						full[c] = add(c, body, ids) != http.StatusCreated
					}
				}
			}
		}
		body, ids := runtimeDocument(tokens, 0, 50)
		if status := add(tokens, body, ids); status != http.StatusCreated {
			t.Fatalf("a newcomer's document of 50 scenarios with 16 tokens at their share: HTTP %d, want 201", status)
		}
		lost, losers, least, most := 0, 0, len(installed[0]), 0
		for c := range tokens + 1 {
			held := runtimeIDs(t, p, token(c))
			n := len(installed[c]) - len(held)
			if !slices.Equal(held, installed[c][max(n, 0):]) {
				t.Errorf("%s holds %d scenarios that are not the newest %d it installed", token(c), len(held), len(held))
				continue
			}
			if c < tokens {
				least, most = min(least, n), max(most, n)
			}
			if n > 0 {
				lost += n
				losers++
				t.Logf("%s lost its %d oldest of %d", token(c), n, len(installed[c]))
			}
		}
		if lost == 0 || len(installed[tokens]) != 50 {
			t.Errorf("the newcomer holds %d scenarios, the others lost %d", len(installed[tokens]), lost)
		}
		if most-least > 2 {
			t.Errorf("tokens holding as much lost from %d to %d of their scenarios: the one holding the most did not give way first", least, most)
		}
		t.Logf("a newcomer's 50 scenarios at the total: %d tokens lost %d of their oldest", losers, lost)
	}
	plain := binary(t, false)
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		run(t, startBinary(t, plain))
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		run(t, startBinary(t, plain, "--store", srv.URL, "--state-hash-key", testHashKey, "--state-block-key", testBlockKey,
			"--store-timeout", replicaStoreTimeout))
	})
}

// runtimeDocument is a document of n scenarios of about 1 KB each (the
// longest description allowed), its ids and selectors its own (token or
// connection c, document i, while c*10000+i is below a million), and
// their ids.
func runtimeDocument(c, i, n int) ([]byte, []string) {
	var b strings.Builder
	var ids []string
	b.WriteString("scenarios:\n")
	for k := range n {
		id := fmt.Sprintf("rt-%d-%d-%d-%d", c, n, i, k)
		ids = append(ids, id)
		fmt.Fprintf(&b, "  - id: %s\n    description: %q\n    match: {cardPrefix: \"4%d%02d%06d\"}\n    frictionless: {status: N, reason: \"05\"}\n",
			id, strings.Repeat("x", 1000), min(n, 9), k, c*10000+i)
	}
	return []byte(b.String()), ids
}

// runtimeIDs lists the ids of a token's runtime scenarios, in the order
// they were added.
func runtimeIDs(t *testing.T, p *program, tok string) []string {
	t.Helper()
	r := testkit.Call(t, http.MethodGet, p.URL+"/admin/scenarios", tok, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list %s's scenarios: HTTP %d %s", tok, r.Status, r.Raw)
	}
	list, _ := r.Body["scenarios"].([]any)
	var ids []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		id, _ := m["id"].(string)
		ids = append(ids, id)
	}
	return ids
}
