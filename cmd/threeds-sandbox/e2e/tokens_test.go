//go:build full

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Bearer tokens at rest: what a sandbox over Redis keeps of a token, how
// many console sessions it keeps, and what its console login takes.

// redisValues returns every key of srv with every value it holds (each
// string, hash field and value, list, set and sorted set member, stream
// entry field and value), decompressed too where a value is compressed
// as the shared journal keeps its events.
func redisValues(t *testing.T, srv *testkit.Redis) map[string][][]byte {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[string][][]byte{}
	do := func(cmd rueidis.Completed) rueidis.RedisResult { return c.Do(ctx, cmd) }
	var cursor uint64
	for {
		e, err := do(c.B().Scan().Cursor(cursor).Count(1000).Build()).AsScanEntry()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range e.Elements {
			typ, err := do(c.B().Type().Key(k).Build()).ToString()
			if err != nil {
				t.Fatal(err)
			}
			var vals []string
			switch typ {
			case "string":
				s, _ := do(c.B().Get().Key(k).Build()).ToString()
				vals = []string{s}
			case "hash":
				m, _ := do(c.B().Hgetall().Key(k).Build()).AsStrMap()
				for f, v := range m {
					vals = append(vals, f, v)
				}
			case "list":
				vals, _ = do(c.B().Lrange().Key(k).Start(0).Stop(-1).Build()).AsStrSlice()
			case "set":
				vals, _ = do(c.B().Smembers().Key(k).Build()).AsStrSlice()
			case "zset":
				vals, _ = do(c.B().Zrange().Key(k).Min("0").Max("-1").Build()).AsStrSlice()
			case "stream":
				entries, _ := do(c.B().Xrange().Key(k).Start("-").End("+").Build()).AsXRange()
				for _, en := range entries {
					for f, v := range en.FieldValues {
						vals = append(vals, f, v)
					}
				}
			case "none":
				// Gone since the SCAN: the replicas keep working while the
				// test reads (the callback outbox's wake key, for one).
				continue
			default:
				t.Fatalf("key %q of type %s", k, typ)
			}
			for _, v := range vals {
				out[k] = append(out[k], []byte(v))
				if plain, err := s2.Decode(nil, []byte(v)); err == nil {
					out[k] = append(out[k], plain)
				}
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			break
		}
	}
	return out
}

// unkeyedNamespace is what the namespace of a token was before it was a
// keyed hash: 8 bytes of its SHA-256, which anyone can compute from a
// guessed token.
func unkeyedNamespace(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:8])
}

// TestTokensAtRest: after a console login and every kind of state a token
// makes (a lookup, a challenge, an enquiry, runtime scenarios used by a
// lookup, a clock moved, a result callback registered, the shared
// journal's events), no key or value in Redis holds the token, nor its
// unkeyed hash, on replicas that share their keys.
func TestTokensAtRest(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	a, b := startReplica(t, srv), startReplica(t, srv)
	token := fmt.Sprintf("at-rest-%d", time.Now().UnixNano())

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.PostForm(a.URL+"/console/login", url.Values{"token": {token}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("console login: %v %v", err, resp)
	}
	resp.Body.Close()

	call := func(p *program, method, path string, body any, want int) testkit.Response {
		t.Helper()
		r := testkit.Call(t, method, p.URL+path, token, body)
		if r.Status != want {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
		}
		return r
	}
	call(a, http.MethodPost, "/admin/scenarios", map[string]any{"scenarios": []map[string]any{{
		"id": "at-rest", "match": map[string]any{"cardNumber": "4111111111111111"},
		"frictionless": map[string]any{"status": "N", "reason": "01"},
	}}}, http.StatusCreated)
	if r := call(b, http.MethodPost, "/authentication/brw", testkit.LookupBody(t, "4111111111111111", nil), http.StatusOK); r.Str("status") != "N" {
		t.Errorf("lookup under the runtime scenario: %s", r.Raw)
	}
	call(a, http.MethodPut, "/admin/callback", map[string]any{"url": "http://127.0.0.1:9/results"}, http.StatusOK)
	ch := call(b, http.MethodPost, "/authentication/brw", testkit.LookupBody(t, challengeCard, nil), http.StatusOK)
	id := ch.Str("threeDsServerTransId")
	call(a, http.MethodPost, "/challenge/"+id, map[string]any{"action": "pass"}, http.StatusOK)
	call(b, http.MethodPost, "/enquiry/", map[string]any{"threeDsServerTransId": id}, http.StatusOK)
	call(a, http.MethodPost, "/admin/clock", map[string]any{"advance": "1m"}, http.StatusOK)

	// The console shows the token's transactions, from its session.
	testkit.Eventually(t, "the console of the session lists "+id, func() bool {
		r, err := browser.Get(b.URL + "/console/transactions")
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		r.Body.Close()
		return r.StatusCode == http.StatusOK && strings.Contains(body.String(), id)
	})

	values := redisValues(t, srv)
	if len(values) < 5 {
		t.Fatalf("only %d keys in Redis: the test made no state", len(values))
	}
	sessions := 0
	for k, vals := range values {
		if k == "3ds:csd" {
			sessions += len(vals) / 2 // id, then what it holds
		}
		for _, secret := range []string{token, unkeyedNamespace(token)} {
			if strings.Contains(k, secret) {
				t.Errorf("key %q holds %q", k, secret)
			}
			for _, v := range vals {
				if bytes.Contains(v, []byte(secret)) {
					t.Errorf("a value of key %q holds %q: %.200q", k, secret, v)
				}
			}
		}
	}
	if sessions == 0 {
		t.Error("no console session in Redis")
	}
}

// sessionKeys counts the console sessions in Redis: the fields of the
// hash csd, a session's id to its token and end (see
// redisstore.Sessions).
func sessionKeys(t *testing.T, srv *testkit.Redis) int {
	t.Helper()
	v, err := srv.Query("HLEN", "3ds:csd")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("HLEN 3ds:csd: %q: %v", v, err)
	}
	return n
}

// login posts the console's login form and returns the status and the
// session cookie, if any.
func login(t *testing.T, base, token, next string) (*http.Response, *http.Cookie) {
	t.Helper()
	form := url.Values{"token": {token}}
	if next != "" {
		form.Set("next", next)
	}
	req, err := http.NewRequest(http.MethodPost, base+"/console/login", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// The transport alone: a client would refuse a Location a browser
	// takes (with a tab, say) before the test could look at it.
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	resp.Body = nil
	resp.Header.Set("X-Test-Body", strings.Join(strings.Fields(body.String()), " "))
	for _, ck := range resp.Cookies() {
		if ck.Name == "threeds_console" && ck.Value != "" {
			return resp, ck
		}
	}
	return resp, nil
}

// TestConsoleSessionsCapped: a token keeps at most 16 console sessions
// (a new login ends its oldest) and all tokens together at most
// --max-console-sessions, in Redis as in memory; the newest session of a
// token stays good.
func TestConsoleSessionsCapped(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	// One address logs in with 61 tokens here: the bound of tokens per
	// client is TestConsoleStreamsGiveWay's.
	p := startReplica(t, srv, "--max-console-sessions", "40", "--max-console-tokens-per-client", "100")
	var first, last *http.Cookie
	for i := range 30 {
		resp, ck := login(t, p.URL, testToken, "")
		if resp.StatusCode != http.StatusSeeOther || ck == nil {
			t.Fatalf("login %d: HTTP %d", i, resp.StatusCode)
		}
		if i == 0 {
			first = ck
		}
		last = ck
	}
	if n := sessionKeys(t, srv); n != 16 {
		t.Errorf("after 30 logins with one token: %d sessions in Redis, want 16", n)
	}
	if got := status2(t, p.URL, last); got != http.StatusOK {
		t.Errorf("the newest session: HTTP %d, want 200", got)
	}
	if got := status2(t, p.URL, first); got != http.StatusSeeOther {
		t.Errorf("the oldest of 30 sessions of one token: HTTP %d, want 303 to the login", got)
	}
	for i := range 60 {
		if resp, ck := login(t, p.URL, fmt.Sprintf("many-%d", i), ""); resp.StatusCode != http.StatusSeeOther || ck == nil {
			t.Fatalf("login of token %d: HTTP %d", i, resp.StatusCode)
		}
	}
	if n := sessionKeys(t, srv); n != 40 {
		t.Errorf("after 60 more logins of other tokens: %d sessions in Redis, want --max-console-sessions 40", n)
	}

	mem := startDefault(t, "--max-console-sessions", "5", "--max-console-tokens-per-client", "100")
	var cookies []*http.Cookie
	for i := range 20 {
		_, ck := login(t, mem.URL, testToken, "")
		cookies = append(cookies, ck)
		if i%2 == 0 {
			login(t, mem.URL, fmt.Sprintf("mem-%d", i), "")
		}
	}
	if got := status2(t, mem.URL, cookies[len(cookies)-1]); got != http.StatusOK {
		t.Errorf("memory store, the newest session: HTTP %d", got)
	}
	live := 0
	for _, ck := range cookies {
		if status2(t, mem.URL, ck) == http.StatusOK {
			live++
		}
	}
	if live > 5 {
		t.Errorf("memory store: %d live sessions of one token, want at most --max-console-sessions 5", live)
	}
}

// status2 is the status of the console's transaction list with cookie ck.
func status2(t *testing.T, base string, ck *http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/console/transactions", nil)
	req.AddCookie(ck)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
