//go:build full

package e2e

import (
	"bufio"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// postForm posts a browser form and returns the page.
func postForm(t *testing.T, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var (
	hiddenCReq  = regexp.MustCompile(`name="creq" value="([^"]+)"`)
	hiddenState = regexp.MustCompile(`name="state" value="([^"]+)"`)
	hiddenCRes  = regexp.MustCompile(`name="cres" value="([^"]+)"`)
)

// creqOf is the CReq of a challenge lookup's answer, as its challengeHtml
// form posts it.
func creqOf(t *testing.T, ch testkit.Response) string {
	t.Helper()
	m := hiddenCReq.FindStringSubmatch(ch.Str("challengeHtml"))
	if m == nil {
		t.Fatalf("no creq in challengeHtml: %s", ch.Str("challengeHtml"))
	}
	return html.UnescapeString(m[1])
}

// hopChallenge runs a challenge whose every step reaches another
// replica: the lookup on b, the CReq on a, the decision on b, the
// enquiry on a, which must answer Y with an authentication value. It
// returns the transaction's id and the challenge's state as the page
// held it, for a second decision.
func hopChallenge(t *testing.T, a, b *program) (id, pageState string) {
	t.Helper()
	ch := b.lookup(t, testkit.LookupBody(t, challengeCard, nil))
	status, page := postForm(t, a.URL+"/acs/challenge", url.Values{"creq": {creqOf(t, ch)}})
	state := hiddenState.FindStringSubmatch(page)
	if status != http.StatusOK || state == nil {
		t.Fatalf("CReq on the other replica: HTTP %d\n%s", status, page)
	}
	status, page = postForm(t, b.URL+"/acs/decision", url.Values{"state": {html.UnescapeString(state[1])}, "action": {"otp"}, "otp": {"1234"}})
	if status != http.StatusOK || hiddenCRes.FindStringSubmatch(page) == nil {
		t.Fatalf("decision on the first replica: HTTP %d\n%s", status, page)
	}
	id = ch.Str("threeDsServerTransId")
	if got := a.enquiry(t, id); got.Str("transactionStatus") != "Y" || got.Str("authenticationValue") == "" {
		t.Errorf("enquiry after the hopping challenge: %s", got.Raw)
	}
	return id, html.UnescapeString(state[1])
}

// TestReplicasShareState: two replicas over one Redis serve the same
// transactions and runtime scenarios. A challenge whose lookup, CReq,
// decision and enquiry each reach another replica ends as on one; a
// replica started later serves what the others stored.
func TestReplicasShareState(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	a, b := startReplica(t, srv), startReplica(t, srv)

	// A frictionless lookup on one is the other's enquiry.
	y := a.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
	if got := b.enquiry(t, y.Str("threeDsServerTransId")); got.Str("transactionStatus") != "Y" || got.Str("eci") != "05" {
		t.Errorf("enquiry on the other replica: %s", got.Raw)
	}

	// A challenge hopping between replicas at every step.
	id, state := hopChallenge(t, a, b)
	// The decision is taken once, whichever replica is asked again.
	if status, _ := postForm(t, a.URL+"/acs/decision", url.Values{"state": {state}, "action": {"fail"}}); status != http.StatusConflict {
		t.Errorf("a second decision on the other replica: HTTP %d, want 409", status)
	}

	// A runtime scenario added on one replica is used by the other (which
	// reads them again every second at the latest).
	add := testkit.Call(t, http.MethodPost, a.URL+"/admin/scenarios", testToken, map[string]any{"scenarios": []map[string]any{{
		"id": "shared-decline", "match": map[string]any{"cardNumber": "4111111111111111"},
		"frictionless": map[string]any{"status": "R", "reason": "11"},
	}}})
	if add.Status != http.StatusCreated {
		t.Fatalf("add a runtime scenario: %d %s", add.Status, add.Raw)
	}
	testkit.Eventually(t, "the other replica uses the runtime scenario added on the first", func() bool {
		return b.lookup(t, testkit.LookupBody(t, "4111111111111111", nil)).Str("status") == "R"
	})

	// A console session opened on one replica is good on the other, and
	// ended everywhere by a logout on either.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.PostForm(a.URL+"/console/login", url.Values{"token": {testToken}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login on the first replica: %v %v", err, resp)
	}
	resp.Body.Close()
	bu, _ := url.Parse(b.URL)
	au, _ := url.Parse(a.URL)
	jar.SetCookies(bu, jar.Cookies(au)) // a balancer would send the cookie to either
	if resp, err := browser.Get(b.URL + "/console/transactions"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the session on the other replica: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
	copied := jar.Cookies(bu) // a copy of the cookie, kept past the logout
	if len(copied) == 0 {
		t.Fatal("no session cookie")
	}
	if resp, err := browser.PostForm(b.URL+"/console/logout", nil); err == nil {
		resp.Body.Close()
	}
	jar2, _ := cookiejar.New(nil)
	jar2.SetCookies(au, copied)
	stale := &http.Client{Jar: jar2, CheckRedirect: browser.CheckRedirect}
	if resp, err := stale.Get(a.URL + "/console/transactions"); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a session ended on the other replica still opens pages: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}

	// A replica started afterwards serves every earlier transaction.
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	c := startReplica(t, srv)
	for _, id := range []string{y.Str("threeDsServerTransId"), id} {
		if got := c.enquiry(t, id); got.Str("transactionStatus") != "Y" {
			t.Errorf("new replica, transaction %s: %s", id, got.Raw)
		}
	}
	if list := testkit.Call(t, http.MethodGet, c.URL+"/admin/scenarios", testToken, nil); !strings.Contains(list.Raw, "shared-decline") {
		t.Errorf("new replica's runtime scenarios: %s", list.Raw)
	}
}

// TestStoreFailures: Redis stopped gives a clear 503 body within the
// timeout and an unready replica; Redis back, the same replica recovers.
// An unreachable Redis at start-up is a clear error, unless --store-wait.
func TestStoreFailures(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{AppendOnly: true})
	p := startReplica(t, srv)
	y := p.lookup(t, testkit.LookupBody(t, "4000000000009003", nil))
	srv.Stop()

	start := time.Now()
	r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, testkit.LookupBody(t, "4000000000009003", nil))
	if r.Status != http.StatusServiceUnavailable || r.Str("errorCode") != "SY02" {
		t.Errorf("lookup with Redis down: %d %s", r.Status, r.Raw)
	}
	if emv, _ := r.Body["emvError"].(map[string]any); emv["emvErrorCode"] != "403" || emv["emvErrorDetail"] == "" {
		t.Errorf("emvError: %v", emv)
	}
	// The store timeout (5s), and room for a busy machine.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the lookup took %s with Redis down", d)
	}
	base := strings.TrimSuffix(p.URL, "/")
	if ready := testkit.Call(t, http.MethodGet, base+"/readyz", "", nil); ready.Status != http.StatusServiceUnavailable || !strings.Contains(ready.Raw, "redis") {
		t.Errorf("readyz with Redis down: %d %s", ready.Status, ready.Raw)
	}
	if live := testkit.Call(t, http.MethodGet, base+"/healthz", "", nil); live.Status != http.StatusOK {
		t.Errorf("healthz with Redis down: %d (the process is alive)", live.Status)
	}

	srv.Start()
	testkit.Eventually(t, "readyz answers 200 once Redis is back", func() bool {
		return testkit.Call(t, http.MethodGet, base+"/readyz", "", nil).Status == http.StatusOK
	})
	if got := p.enquiry(t, y.Str("threeDsServerTransId")); got.Str("transactionStatus") != "Y" {
		t.Errorf("after the restart of Redis: %s", got.Raw)
	}

	// Start-up against a Redis that does not answer: a clear error, fast.
	dead := "redis://" + testkit.FreeAddr(t) + "/0"
	start = time.Now()
	code, out := runProgram(t, testkit.Patience, "--addr", testkit.FreeAddr(t), "--store", dead,
		"--state-hash-key", testHashKey, "--state-block-key", testBlockKey)
	if code == 0 || !strings.Contains(out, "does not answer") || !strings.Contains(out, "--store-wait") {
		t.Errorf("start-up with Redis down: exit %d\n%s", code, out)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("start-up took %s to fail", d)
	}
	// Random state keys with a shared store are refused.
	code, out = runProgram(t, testkit.Patience, "--addr", testkit.FreeAddr(t), "--store", srv.URL)
	if code != 2 || !strings.Contains(out, "THREEDS_STATE_HASH_KEY") {
		t.Errorf("Redis with random state keys: exit %d\n%s", code, out)
	}
}

// consoleClient logs in on replica p and returns a browser with the
// session cookie, one that does not follow redirects.
func consoleClient(t *testing.T, p *program) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(p.URL+"/console/login", url.Values{"token": {testToken}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("console login: %v %v", err, resp)
	}
	resp.Body.Close()
	return c
}

// TestReplicasShareTheJournal: with the shared journal, a transaction made
// on replica A is in replica B's console (list and page) and moves B's
// live feed; with Redis gone the console answers an error status, and the
// feed ends or is refused, without hanging.
func TestReplicasShareTheJournal(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	a, b := startReplica(t, srv), startReplica(t, srv)
	browser := consoleClient(t, b)

	// B's live feed, opened before the transaction.
	resp, err := browser.Get(b.URL + "/console/events")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("live feed on B: %v %v", err, resp)
	}
	defer resp.Body.Close()
	versions := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				versions <- v
			}
		}
		close(versions)
	}()
	first := <-versions

	id := a.lookup(t, testkit.LookupBody(t, "4000000000009003", nil)).Str("threeDsServerTransId")
	select {
	case v, ok := <-versions:
		if !ok || v == first {
			t.Fatalf("B's live feed after a lookup on A: %q (open %v), was %q", v, ok, first)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("B's live feed did not move within %s of a lookup on A", testkit.Patience)
	}
	page := func(path string) (int, string) {
		r, err := browser.Get(b.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		body, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(body)
	}
	if status, body := page("/console/transactions"); status != http.StatusOK || !strings.Contains(body, id) {
		t.Errorf("B's transaction list: HTTP %d, has %s: %v", status, id, strings.Contains(body, id))
	}
	if status, body := page("/console/transactions/" + id); status != http.StatusOK || !strings.Contains(body, "Lookup answered") {
		t.Errorf("B's page of A's transaction: HTTP %d\n%.500s", status, body)
	}

	// Redis gone: an error status, a feed that ends, no hang.
	srv.Kill()
	select {
	case _, ok := <-versions:
		for ok {
			_, ok = <-versions
		}
	case <-time.After(testkit.Patience):
		t.Errorf("B's live feed did not end within %s of Redis going away", testkit.Patience)
	}
	if status, _ := page("/console/transactions"); status != http.StatusServiceUnavailable {
		t.Errorf("B's transaction list with Redis down: HTTP %d, want 503", status)
	}
	if status, _ := page("/console/events"); status != http.StatusServiceUnavailable {
		t.Errorf("B's live feed with Redis down: HTTP %d, want 503", status)
	}
}
