//go:build full

package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// The automation API against the built binary: alone on the memory
// store, and as three replicas on one Redis behind nginx, where each step
// goes to another replica than the one before.

// Tokens of these tests: two namespaces that must not see each other.
const (
	tokenA = "e2e-automation-a"
	tokenB = "e2e-automation-b"
)

// entry points a step at one of the sandbox's URLs in turn: the one
// program alone, or replica after replica.
type entry struct {
	urls []string
	next int
	// replicas are the URLs of the processes behind urls (nginx's
	// upstreams), whose /metrics count the waits open on each.
	replicas []string
	// announced, when set, says that a namespace's change reaches the
	// other replicas a moment later: on a Redis Cluster the change's
	// announcement crosses the cluster bus, and a replica that misses it
	// reads the state again within a second.
	announced bool
}

// seen waits, when the entry's changes are announced, until every entry
// point answers path for token with status, and fails after
// testkit.Patience.
func (e *entry) seen(t *testing.T, path, token string, status int) {
	t.Helper()
	if !e.announced {
		return
	}
	for _, u := range e.urls {
		testkit.Eventually(t, fmt.Sprintf("%s on %s answers %d after the change", path, u, status), func() bool {
			return testkit.Call(t, http.MethodGet, u+path, token, nil).Status == status
		})
	}
}

// waitsOpen is how many waits (?wait=final) the replicas hold open.
func (e *entry) waitsOpen(t *testing.T) int {
	t.Helper()
	open := 0
	for _, u := range e.replicas {
		m := regexp.MustCompile(`(?m)^threeds_admin_waits_open (\d+)$`).FindStringSubmatch(testkit.Call(t, http.MethodGet, u+"/metrics", "", nil).Raw)
		if m == nil {
			t.Fatalf("%s/metrics has no threeds_admin_waits_open", u)
		}
		n, _ := strconv.Atoi(m[1])
		open += n
	}
	return open
}

func (e *entry) url() string {
	u := e.urls[e.next%len(e.urls)]
	e.next++
	return u
}

// call sends one request to the next entry point.
func (e *entry) call(t *testing.T, method, path, token string, body any) testkit.Response {
	t.Helper()
	return testkit.Call(t, method, e.url()+path, token, body)
}

// lookupCard runs a lookup of card for token with reference ref and
// returns its id.
func (e *entry) lookupCard(t *testing.T, token, card, ref string, mutate func(map[string]any)) string {
	t.Helper()
	r := e.call(t, http.MethodPost, "/authentication/brw", token, testkit.LookupBody(t, card, func(m map[string]any) {
		m["externalReferenceId"] = ref
		if mutate != nil {
			mutate(m)
		}
	}))
	if r.Status != http.StatusOK {
		t.Fatalf("lookup %s: %d %s", card, r.Status, r.Raw)
	}
	return r.Str("threeDsServerTransId")
}

// events lists the types of a transaction's events.
func events(r testkit.Response) string {
	var out []string
	evs, _ := r.Body["events"].([]any)
	for _, ev := range evs {
		out = append(out, ev.(map[string]any)["type"].(string))
	}
	return strings.Join(out, ",")
}

// listIDs lists the ids of a listing.
func listIDs(r testkit.Response) []string {
	var out []string
	txs, _ := r.Body["transactions"].([]any)
	for _, tx := range txs {
		out = append(out, tx.(map[string]any)["threeDsServerTransId"].(string))
	}
	return out
}

// checkAutomation runs the automation API's promises through the entry
// points: read back a request field, a wait that ends with a decision
// taken elsewhere, a clock advance that ends a challenge at once while
// another token's stays C, a clean start, and isolation between tokens
// on every route.
func checkAutomation(t *testing.T, at *entry) {
	// Each run starts clean, as a test reusing its tokens does.
	for _, token := range []string{tokenA, tokenB} {
		at.call(t, http.MethodDelete, "/admin/transactions", token, nil)
		at.call(t, http.MethodDelete, "/admin/clock", token, nil)
	}
	// Read back a request field, from another entry point than the
	// lookup's, at once.
	id := at.lookupCard(t, tokenA, "4000000000009003", "auto-read", func(m map[string]any) {
		m["browserInfo"].(map[string]any)["userAgent"] = "e2e-checkout/1.0"
	})
	r := at.call(t, http.MethodGet, "/admin/transactions/"+id, tokenA, nil)
	evs, _ := r.Body["events"].([]any)
	if r.Status != http.StatusOK || len(evs) == 0 {
		t.Fatalf("read back: %d %s", r.Status, r.Raw)
	}
	req := evs[0].(map[string]any)["request"].(map[string]any)
	if ua := req["browserInfo"].(map[string]any)["userAgent"]; ua != "e2e-checkout/1.0" {
		t.Errorf("browserInfo.userAgent read back as %v", ua)
	}
	if pan := req["card"].(map[string]any)["cardNumber"]; pan != "400000******9003" {
		t.Errorf("card number read back as %v, want it masked", pan)
	}

	// A wait on one entry point ends when the decision is taken on the
	// next: the decision is taken once the wait is open; the wait ends at
	// once, where one that timed out would end after its 60s (30s tells
	// them apart on a busy machine).
	ch := at.lookupCard(t, tokenA, challengeCard, "auto-wait", nil)
	waitAt, decideAt := at.url(), at.url()
	type answer struct {
		r    testkit.Response
		took time.Duration
	}
	waited := make(chan answer, 1)
	start := time.Now()
	opened := at.waitsOpen(t)
	go func() {
		r := testkit.Call(t, http.MethodGet, waitAt+"/admin/transactions/"+ch+"?wait=final&timeout=60s", tokenA, nil)
		waited <- answer{r, time.Since(start)}
	}()
	testkit.Eventually(t, "the wait is open", func() bool { return at.waitsOpen(t) > opened })
	if d := testkit.Call(t, http.MethodPost, decideAt+"/challenge/"+ch, tokenA, map[string]any{"action": "pass"}); d.Status != http.StatusOK {
		t.Fatalf("decision: %d %s", d.Status, d.Raw)
	}
	select {
	case a := <-waited:
		if a.r.Status != http.StatusOK || a.r.Body["final"] != true || a.r.Str("status") != "Y" || events(a.r) != "lookup,decision,cres" {
			t.Errorf("the wait answered %d after %s: %s", a.r.Status, a.took, a.r.Raw)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait (timeout 60s) did not end within 30s of a decision taken elsewhere")
	}

	// A clock advance gives N/14/05 at once, on every entry point; the
	// other token's challenge stays C.
	mine := at.lookupCard(t, tokenA, challengeCard, "auto-clock", nil)
	theirs := at.lookupCard(t, tokenB, challengeCard, "auto-clock", nil)
	if c := at.call(t, http.MethodPost, "/admin/clock", tokenA, map[string]any{"advance": "11m"}); c.Status != http.StatusOK || c.Str("offset") != "11m0s" {
		t.Fatalf("advance: %d %s", c.Status, c.Raw)
	}
	for range len(at.urls) {
		q := at.call(t, http.MethodPost, "/enquiry/", tokenA, map[string]any{"threeDsServerTransId": mine})
		if q.Str("transactionStatus") != "N" || q.Str("statusReason") != "14" || q.Str("challengeCancel") != "05" {
			t.Errorf("enquiry after the advance: %s", q.Raw)
		}
	}
	if q := at.call(t, http.MethodPost, "/enquiry/", tokenB, map[string]any{"threeDsServerTransId": theirs}); q.Str("transactionStatus") != "C" {
		t.Errorf("the other token's challenge after the advance: %s", q.Raw)
	}
	if c := at.call(t, http.MethodGet, "/admin/clock", tokenB, nil); c.Str("offset") != "0s" {
		t.Errorf("the other token's clock: %s", c.Raw)
	}
	if l := at.call(t, http.MethodGet, "/admin/transactions?status=N", tokenA, nil); !strings.Contains(strings.Join(listIDs(l), ","), mine) {
		t.Errorf("?status=N after the advance lacks the timed-out challenge: %s", l.Raw)
	}
	if c := at.call(t, http.MethodDelete, "/admin/clock", tokenA, nil); c.Str("offset") != "0s" {
		t.Errorf("reset: %s", c.Raw)
	}

	// Isolation on every route.
	if l := at.call(t, http.MethodGet, "/admin/transactions?externalReferenceId=auto-clock", tokenB, nil); strings.Join(listIDs(l), ",") != theirs {
		t.Errorf("token B lists %v, want only its own %s", listIDs(l), theirs)
	}
	for _, path := range []string{"/admin/transactions/" + id, "/admin/transactions/" + ch + "?wait=final&timeout=1s"} {
		if r := at.call(t, http.MethodGet, path, tokenB, nil); r.Status != http.StatusNotFound || r.Str("errorCode") != "TX01" {
			t.Errorf("token B GET %s: %d %s", path, r.Status, r.Raw)
		}
	}
	if r := at.call(t, http.MethodDelete, "/admin/transactions", tokenB, nil); r.Status != http.StatusNoContent {
		t.Fatalf("token B forgets: %d %s", r.Status, r.Raw)
	}
	if l := at.call(t, http.MethodGet, "/admin/transactions", tokenA, nil); len(listIDs(l)) != 3 {
		t.Errorf("token A after token B forgot its own: %v", listIDs(l))
	}

	// A clean start: forgotten on every entry point.
	if r := at.call(t, http.MethodDelete, "/admin/transactions", tokenA, nil); r.Status != http.StatusNoContent {
		t.Fatalf("forget: %d %s", r.Status, r.Raw)
	}
	at.seen(t, "/admin/transactions/"+id, tokenA, http.StatusNotFound)
	for range len(at.urls) {
		if l := at.call(t, http.MethodGet, "/admin/transactions", tokenA, nil); len(listIDs(l)) != 0 {
			t.Errorf("list after DELETE: %v", listIDs(l))
		}
		if r := at.call(t, http.MethodGet, "/admin/transactions/"+id, tokenA, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET after DELETE: %d", r.Status)
		}
		if q := at.call(t, http.MethodPost, "/enquiry/", tokenA, map[string]any{"externalReferenceId": "auto-read"}); q.Status != http.StatusNotFound {
			t.Errorf("enquiry by reference after DELETE: %d", q.Status)
		}
	}
	if again := at.lookupCard(t, tokenA, "4000000000009003", "auto-read", nil); again == "" {
		t.Error("no lookup after DELETE")
	} else if l := at.call(t, http.MethodGet, "/admin/transactions?externalReferenceId=auto-read", tokenA, nil); strings.Join(listIDs(l), ",") != again {
		t.Errorf("list after a new lookup: %v", listIDs(l))
	}
}

// TestAutomationMemory runs the automation API's promises on the binary
// alone, with the memory store.
func TestAutomationMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the binary")
	}
	p := startDefault(t)
	checkAutomation(t, &entry{urls: []string{p.URL}, replicas: []string{p.URL}})
}

// TestAutomationReplicas runs them on three replicas over one Redis,
// every step through the next replica, and then through nginx
// balancing round-robin.
func TestAutomationReplicas(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes, Redis and nginx")
	}
	testkit.Nginx(t)
	testkit.Need(t, "redis-server", "redis-server")
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	var urls, addrs []string
	for range 3 {
		r := startReplica(t, srv)
		urls, addrs = append(urls, r.URL), append(addrs, r.Addr)
	}
	t.Run("replica by replica", func(t *testing.T) { checkAutomation(t, &entry{urls: urls, replicas: urls}) })
	lb := testkit.StartNginx(t, addrs...)
	t.Run("through nginx", func(t *testing.T) { checkAutomation(t, &entry{urls: []string{lb.URL}, replicas: urls}) })
}
