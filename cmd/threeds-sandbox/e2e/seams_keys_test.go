//go:build full

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// load sends lookups from workers goroutines until stop is closed, each
// to base() with the body of next(worker, n) and the token of
// tokenOf(worker), and calls seen with each answer's time, the base it
// went to, its status and body.
type load struct {
	base    func() string
	workers int
	tokenOf func(worker int) string
	next    func(worker, n int) map[string]any
	seen    func(at time.Time, worker int, base string, status int, body []byte)
}

// run sends until stop is closed or max lookups were sent in all, and
// returns how many were sent.
func (l load) run(t *testing.T, stop <-chan struct{}, max int) int {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: l.workers}}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	sent := 0
	var wg sync.WaitGroup
	for w := range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if sent >= max {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				raw, _ := json.Marshal(l.next(w, n))
				base := l.base()
				req, _ := http.NewRequest(http.MethodPost, base+"/authentication/brw", bytes.NewReader(raw))
				req.Header.Set("Authorization", "Bearer "+l.tokenOf(w))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					l.seen(time.Now(), w, base, 0, []byte(err.Error()))
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				l.seen(time.Now(), w, base, resp.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	return sent
}

// redisInfo reads one field of INFO from srv.
func redisInfo(t *testing.T, srv *testkit.Redis, section, field string) string {
	t.Helper()
	info, err := srv.Query("INFO", section)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s:\n%s", section, field, info)
	return ""
}

// TestReadinessFollowsRefusedWrites: under load, a Redis that reaches its
// maxmemory refuses the lookups' writes while a small probe write may
// still pass now and then; /readyz must follow the refusals the replica
// sees, answering 503 from the first second of the refusals to their
// end, and 200 again once Redis takes writes.
func TestReadinessFollowsRefusedWrites(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{Policy: "noeviction"})
	p := startBinary(t, binary(t, false), "--store", srv.URL, "--state-hash-key", testHashKey, "--state-block-key", testBlockKey,
		"--store-timeout", "2s", "--log-level", "error")

	// Answers in slices of 250 ms: how many, and how many refused as full.
	const slice = 250 * time.Millisecond
	start := time.Now()
	var mu sync.Mutex
	answers, refused := map[int]int{}, map[int]int{}
	// Challenges with a long notificationUrl: each transaction takes some
	// 2 KB of Redis, many times the probe's key.
	body := testkit.LookupBody(t, challengeCard, func(m map[string]any) {
		m["notificationUrl"] = "https://shop.example.com/checkout/3ds/notify?pad=" + strings.Repeat("a", 1500)
	})
	l := load{base: func() string { return p.URL }, workers: 64, tokenOf: func(int) string { return testToken },
		next: func(int, int) map[string]any { return body },
		seen: func(at time.Time, _ int, _ string, status int, b []byte) {
			i := int(at.Sub(start) / slice)
			mu.Lock()
			answers[i]++
			if status == http.StatusServiceUnavailable && bytes.Contains(b, []byte(`"SY04"`)) {
				refused[i]++
			}
			mu.Unlock()
		}}
	// Some room left, less than a few lookups take: a Redis near its
	// maxmemory, whose small probe write may pass when lookups do not.
	for range 20 {
		p.lookup(t, body)
	}
	used, _ := strconv.ParseInt(redisInfo(t, srv, "memory", "used_memory"), 10, 64)
	if err := srv.Do("CONFIG", "SET", "maxmemory", strconv.FormatInt(used+64<<10, 10)); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	stop := make(chan struct{})
	done := make(chan int)
	go func() { done <- l.run(t, stop, 2_000_000) }()
	type probe struct {
		at     time.Time
		status int
	}
	var probes []probe
	client := &http.Client{Timeout: 3 * time.Second}
	for time.Since(start) < 7*time.Second {
		resp, err := client.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			probes = append(probes, probe{time.Now(), resp.StatusCode})
		}
		// A probe every 100 ms, as a load balancer's health check: the
		// pace of the sampling, not an assertion on time.
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	sent := <-done

	// The refusals start at the first slice where 9 of 10 answers are
	// refusals; readiness must say so within a second and hold to the end.
	mu.Lock()
	first := -1
	for i := 0; i < int(7*time.Second/slice); i++ {
		if answers[i] >= 10 && refused[i]*10 >= answers[i]*9 {
			first = i
			break
		}
	}
	total, totalRefused := 0, 0
	for i, n := range answers {
		total += n
		totalRefused += refused[i]
	}
	mu.Unlock()
	if first < 0 {
		t.Fatalf("Redis never refused the lookups at its maxmemory (%d sent, %d refused): the test did not reach its case", sent, totalRefused)
	}
	refusingFrom := start.Add(time.Duration(first) * slice)
	var ready200 []string
	var readyFor time.Duration
	for i, pr := range probes {
		if pr.at.Before(refusingFrom) || pr.status != http.StatusOK {
			continue
		}
		if i+1 < len(probes) {
			readyFor += probes[i+1].at.Sub(pr.at)
		}
		if pr.at.After(refusingFrom.Add(time.Second)) {
			ready200 = append(ready200, fmt.Sprintf("%.1fs", pr.at.Sub(refusingFrom).Seconds()))
		}
	}
	t.Logf("%d lookups, %d answered 503 SY04; refusals from %.2fs; /readyz answered 200 for %s of the refusals",
		total, totalRefused, refusingFrom.Sub(start).Seconds(), readyFor.Round(100*time.Millisecond))
	if len(ready200) > 0 {
		t.Errorf("/readyz answered 200 while the replica's writes were refused, at %s after the refusals began (%d of them)",
			strings.Join(ready200, " "), len(ready200))
	}

	// Room again: ready once the refusals leave the window, and lookups
	// pass.
	if err := srv.Do("CONFIG", "SET", "maxmemory", "0"); err != nil {
		t.Fatal(err)
	}
	if err := waitReady(p.URL, testkit.Patience, p.done); err != nil {
		t.Fatalf("once Redis takes writes again: %v", err)
	}
	if r := p.lookup(t, body); r.Status != http.StatusOK || r.Str("status") != "C" {
		t.Errorf("a lookup once Redis takes writes: HTTP %d %s", r.Status, r.Raw)
	}
}

// acked is a lookup the sandbox acknowledged: its token, transaction id,
// reference and status.
type acked struct {
	token, id, ref, status string
	before                 bool // answered by the replica on the old keys
}

// TestKeyRotationKeepsEveryNamespace: static tokens send lookups while
// the replicas over one Redis are rotated to new state keys (a replica
// started with the new pair and the old one in --state-previous-keys
// takes the load, then the old one stops): afterwards every acknowledged
// transaction answers its own token, by id and by reference, and no
// other token; the runtime scenarios, the clock and the journal of before
// are the token's still.
func TestKeyRotationKeepsEveryNamespace(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	// Tenants a and b send the load; c, quiet, keeps its journal whole.
	tokens := []string{"rotation-tenant-a", "rotation-tenant-b", "rotation-tenant-c"}
	common := []string{"--store", srv.URL, "--store-timeout", "2s", "--tokens", strings.Join(tokens, ","), "--log-level", "warn"}
	old := startBinary(t, binary(t, false), append(common, "--state-hash-key", testHashKey, "--state-block-key", testBlockKey)...)

	call := func(p *program, token, method, path string, body any, want int) testkit.Response {
		t.Helper()
		r := testkit.Call(t, method, p.URL+path, token, body)
		if r.Status != want {
			t.Fatalf("%s %s: HTTP %d %s, want %d", method, path, r.Status, r.Raw, want)
		}
		return r
	}
	call(old, tokens[0], http.MethodPost, "/admin/scenarios", map[string]any{"scenarios": []map[string]any{{
		"id": "before-rotation", "match": map[string]any{"cardNumber": "4111111111111111"},
		"frictionless": map[string]any{"status": "N", "reason": "01"},
	}}}, http.StatusCreated)
	call(old, tokens[0], http.MethodPost, "/admin/clock", map[string]any{"advance": "1h"}, http.StatusOK)
	quiet := call(old, tokens[2], http.MethodPost, "/authentication/brw", testkit.LookupBody(t, challengeCard, func(m map[string]any) {
		m["externalReferenceId"] = "quiet-before-rotation"
	}), http.StatusOK).Str("threeDsServerTransId")

	var mu sync.Mutex
	var base = old.URL
	var all []acked
	l := load{
		base:    func() string { mu.Lock(); defer mu.Unlock(); return base },
		workers: 8,
		tokenOf: func(w int) string { return tokens[w%2] },
		next: func(w, n int) map[string]any {
			card := "4000000000009003"
			if n%2 == 1 {
				card = "4111111111111111" // tenant a's runtime scenario
			}
			return testkit.LookupBody(t, card, func(m map[string]any) { m["externalReferenceId"] = fmt.Sprintf("rot-%d-%d", w, n) })
		},
		seen: func(_ time.Time, w int, to string, status int, body []byte) {
			var r struct {
				ID     string `json:"threeDsServerTransId"`
				Ref    string `json:"externalReferenceId"`
				Status string `json:"status"`
			}
			if status != http.StatusOK || json.Unmarshal(body, &r) != nil || r.ID == "" {
				return
			}
			mu.Lock()
			all = append(all, acked{token: tokens[w%2], id: r.ID, ref: r.Ref, status: r.Status, before: to == old.URL})
			mu.Unlock()
		},
	}
	stop, done := make(chan struct{}), make(chan int)
	go func() { done <- l.run(t, stop, 20_000) }()

	// The rotation, under load: once the old replica has acknowledged a
	// hundred lookups, the new replica comes, takes the load, and the old
	// one stops; the load goes on until the new one has acknowledged a
	// hundred more.
	acknowledged := func(before bool) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, a := range all {
				if a.before == before {
					n++
				}
			}
			return n >= 100
		}
	}
	testkit.Eventually(t, "the replica on the old keys acknowledges 100 lookups", acknowledged(true))
	rotated := startBinary(t, binary(t, false), append(common, "--state-hash-key", rotatedHashKey, "--state-block-key", rotatedBlockKey,
		"--state-previous-keys", testHashKey+":"+testBlockKey)...)
	mu.Lock()
	base = rotated.URL
	mu.Unlock()
	if err := old.stop(); err != nil {
		t.Errorf("the replica on the old keys: %v", err)
	}
	testkit.Eventually(t, "the rotated replica acknowledges 100 lookups", acknowledged(false))
	close(stop)
	<-done

	// Every acknowledged transaction answers its token, by id and by
	// reference, on the rotated replica; the other token finds none.
	mu.Lock()
	defer mu.Unlock()
	before := 0
	var lost []string
	var lostMu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan acked)
	for range 8 {
		wg.Go(func() {
			for a := range work {
				byID := testkit.Call(t, http.MethodPost, rotated.URL+"/enquiry/", a.token, map[string]any{"threeDsServerTransId": a.id})
				byRef := testkit.Call(t, http.MethodPost, rotated.URL+"/enquiry/", a.token, map[string]any{"externalReferenceId": a.ref})
				if byID.Status != http.StatusOK || byRef.Status != http.StatusOK || byRef.Str("threeDsServerTransId") != a.id {
					lostMu.Lock()
					lost = append(lost, fmt.Sprintf("%s (before %v): by id HTTP %d, by reference HTTP %d %s", a.id, a.before, byID.Status,
						byRef.Status, byRef.Str("threeDsServerTransId")))
					lostMu.Unlock()
				}
			}
		})
	}
	for _, a := range all {
		if a.before {
			before++
		}
		work <- a
	}
	close(work)
	wg.Wait()
	t.Logf("%d lookups acknowledged, %d of them by the replica on the old keys; after the rotation %d of %d answer their token",
		len(all), before, len(all)-len(lost), len(all))
	if before < 100 {
		t.Fatalf("only %d lookups acknowledged before the rotation: the test did not reach its case", before)
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d acknowledged transactions lost to their token by the rotation, e.g. %s", len(lost), len(all), lost[0])
	}
	var theirs acked
	for _, a := range all {
		if a.before && a.token == tokens[0] {
			theirs = a
			break
		}
	}
	if r := testkit.Call(t, http.MethodPost, rotated.URL+"/enquiry/", tokens[1], map[string]any{"threeDsServerTransId": theirs.id}); r.Status != http.StatusNotFound {
		t.Errorf("another token's transaction after the rotation: HTTP %d, want 404", r.Status)
	}

	// The rest of the namespace: runtime scenarios, clock, journal.
	if r := call(rotated, tokens[0], http.MethodGet, "/admin/scenarios", nil, http.StatusOK); !strings.Contains(r.Raw, "before-rotation") {
		t.Errorf("the runtime scenarios after the rotation: %s", r.Raw)
	}
	if r := call(rotated, tokens[0], http.MethodGet, "/admin/clock", nil, http.StatusOK); r.Str("offset") != "1h0m0s" {
		t.Errorf("the clock after the rotation: %s, want the offset of 1h set before", r.Raw)
	}
	if r := call(rotated, tokens[2], http.MethodGet, "/admin/transactions/"+quiet, nil, http.StatusOK); !strings.Contains(r.Raw, `"type":"lookup"`) {
		t.Errorf("the journal after the rotation has no events of %s: %s", quiet, r.Raw)
	}
	if r := call(rotated, tokens[2], http.MethodPost, "/challenge/"+quiet, map[string]any{"action": "pass"}, http.StatusOK); r.Str("transStatus") != "Y" {
		t.Errorf("a challenge of before the rotation: %s", r.Raw)
	}
}

// TestRequestValuesStayOutOfKeysAndSummaries: a lookup whose reference
// is a card number, with card numbers in its cardholder and merchant
// names, is answered as sent and found by its reference; no Redis key
// holds a request value (the reference index names it by a keyed hash);
// the listing, the detail and the console's pages show every card number
// masked, and the listing's filter by that reference still finds it.
func TestRequestValuesStayOutOfKeysAndSummaries(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	p := startReplica(t, srv)
	const ref, holder, merchant = "4111111111111111", "Jane 4000 0000 0000 9003", "Shop 5200000000001005"
	r := p.lookup(t, testkit.LookupBody(t, "4000000000009003", func(m map[string]any) {
		m["externalReferenceId"] = ref
		m["card"].(map[string]any)["cardholderName"] = holder
		m["merchantName"] = merchant
	}))
	id := r.Str("threeDsServerTransId")
	if r.Status != http.StatusOK || r.Str("externalReferenceId") != ref {
		t.Fatalf("lookup: HTTP %d %s, want the reference echoed as sent", r.Status, r.Raw)
	}
	p.lookup(t, testkit.LookupBody(t, "4000000000009003", func(m map[string]any) { m["externalReferenceId"] = "ORD-SEAMS-77" }))
	if e := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", testToken, map[string]any{"externalReferenceId": ref}); e.Str("threeDsServerTransId") != id ||
		e.Str("externalReferenceId") != ref {
		t.Errorf("enquiry by the reference: HTTP %d %s, want %s with the reference as sent", e.Status, e.Raw, id)
	}

	keys, err := srv.Query("KEYS", "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(keys, "\n") {
		if strings.Contains(k, ref) || strings.Contains(k, "ORD-SEAMS-77") {
			t.Errorf("Redis key %q holds a request value", k)
		}
	}

	// What the automation API and the console show: masked.
	var list testkit.Response
	if !testkit.Within(testkit.Patience, func() bool {
		list = testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions?externalReferenceId="+ref, testToken, nil)
		return strings.Contains(list.Raw, id)
	}) {
		t.Fatalf("the listing filtered by the reference does not find %s: %s", id, list.Raw)
	}
	for _, want := range []string{`"cardholderName":"Jane 4000 00** **** 9003"`, `"externalReferenceId":"411111******1111"`, `"merchantName":"Shop 520000******1005"`} {
		if !strings.Contains(list.Raw, want) {
			t.Errorf("the listing lacks %s: %s", want, list.Raw)
		}
	}
	browser := consoleClient(t, p)
	pages := map[string]string{"listing": list.Raw, "detail": testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions/"+id, testToken, nil).Raw}
	for name, path := range map[string]string{"console list": "/console/transactions", "console page": "/console/transactions/" + id} {
		resp, err := browser.Get(p.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d", name, resp.StatusCode)
		}
		pages[name] = string(body)
	}
	for name, body := range pages {
		flat := strings.NewReplacer(" ", "", "-", "").Replace(body)
		for _, pan := range []string{ref, "4000000000009003", "5200000000001005"} {
			if strings.Contains(flat, pan) {
				t.Errorf("the %s shows the card number %s", name, pan)
			}
		}
	}
}

// TestTenantShares: each shared pool of a sandbox gives every token its
// own share, and a hostile token that fills its own, or three that flood
// one together, leave a quiet token's work alone: its console session
// (one token logs in far beyond its 16 sessions), its runtime scenarios
// (one token adds until refused), and its journal (three tokens flood a
// journal whose bound in all they pass many times over).
func TestTenantShares(t *testing.T) {
	t.Parallel()
	p := startProgram(t, "--journal-size", "50", "--journal-bytes", "131072", "--journal-total-bytes", "262144",
		"--max-console-sessions", "40")
	const quiet = "quiet-tenant"
	login := func(token string) *http.Client {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.PostForm(p.URL+"/console/login", url.Values{"token": {token}})
		if err != nil || resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("console login of %s: %v %v", token, err, resp)
		}
		resp.Body.Close()
		return c
	}
	browser := login(quiet)
	id := testkit.Lookup(t, p.URL, quiet, testkit.LookupBody(t, challengeCard, nil)).Str("threeDsServerTransId")

	// Sessions: one token logs in 100 times.
	for range 100 {
		login("hostile-sessions")
	}
	resp, err := browser.Get(p.URL + "/console/transactions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the quiet token's console session after another's 100 logins: HTTP %d, want 200", resp.StatusCode)
	}

	// Runtime scenarios: one token adds until its share is full.
	refused := 0
	for i := range 25 {
		r := testkit.Call(t, http.MethodPost, p.URL+"/admin/scenarios", "hostile-scenarios", runtimeScenario(0, i).body)
		if r.Status != http.StatusCreated {
			refused++
		}
	}
	if refused == 0 {
		t.Error("a token added 25 documents of 55 KB: its share of 1 MiB refused none")
	}
	if r := testkit.Call(t, http.MethodPost, p.URL+"/admin/scenarios", quiet, runtimeScenario(1, 0).body); r.Status != http.StatusCreated {
		t.Errorf("the quiet token's runtime scenarios after another filled its share: HTTP %d %s", r.Status, r.Raw)
	}

	// The journal: three tokens flood it with padded lookups.
	padded := testkit.LookupBody(t, "4000000000009003", func(m map[string]any) {
		m["merchantRiskInfo"].(map[string]any)["deliveryEmailAddress"] = strings.Repeat("x", 40) + "@example.com"
		m["padding"] = strings.Repeat("p", 6000)
	})
	for i := range 300 {
		testkit.Lookup(t, p.URL, fmt.Sprintf("hostile-journal-%d", i%3), padded)
	}
	if r := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions", quiet, nil); !strings.Contains(r.Raw, id) {
		t.Errorf("the quiet token's journal after three others flooded it: %s, want %s listed", r.Raw, id)
	}
}
