//go:build full

package e2e

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestJWTShapedTokensRefused: in the open default, a bearer token shaped
// as a JWT that does not verify (an unsecured "alg":"none" JWT, a bare
// a.b.c) is refused with 401, WWW-Authenticate error="invalid_token" and
// the interface's error body, instead of opening an empty namespace; an
// opaque token still opens its own, and a configured static token with
// dots still works.
func TestJWTShapedTokensRefused(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	none := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + b64([]byte(`{"iss":"urn:threeds-sandbox","aud":"threeds-sandbox-api","client_id":"shop-1"}`)) + "."
	open := startDefault(t)
	for name, tok := range map[string]string{"alg none": none, "a.b.c": "a.b.c"} {
		r := testkit.Call(t, http.MethodGet, open.URL+"/admin/transactions", tok, nil)
		challenge := r.Header.Get("WWW-Authenticate")
		if r.Status != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, `error="invalid_token"`) ||
			r.Str("errorCode") != "AU03" || r.EMV("emvErrorCode") != "303" {
			t.Errorf("%s: HTTP %d %s, WWW-Authenticate %q; want 401 invalid_token with the error body", name, r.Status, r.Raw, challenge)
		}
	}
	if r := testkit.Call(t, http.MethodGet, open.URL+"/admin/transactions", "opaque-team-token", nil); r.Status != http.StatusOK {
		t.Errorf("an opaque token in the open default: HTTP %d %s", r.Status, r.Raw)
	}
	closed := startDefault(t, "--tokens", "team.a.b,other")
	if r := testkit.Call(t, http.MethodGet, closed.URL+"/admin/transactions", "team.a.b", nil); r.Status != http.StatusOK {
		t.Errorf("a configured static token with dots: HTTP %d %s", r.Status, r.Raw)
	}
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (127.0.0.0/8 is all loopback on Linux): another source
// address for the sandbox's limits.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// TestTokenEndpointGuessingLocksNobodyOut: a hostile address guessing a
// configured client's secret past its allowance gets 429, while the
// client's right secret gets a token every time, from another address
// and from the guessing one, and another address's wrong secret is still
// answered 401 from its own allowance.
func TestTokenEndpointGuessingLocksNobodyOut(t *testing.T) {
	const id, secret = "shop-1", "shop-1-secret-0123456789"
	p := startDefault(t, "--merchants", id+":"+secret)
	hostile, shop := clientFrom("127.0.0.2"), clientFrom("127.0.0.1")
	token := func(c *http.Client, secret string) int {
		resp, err := c.PostForm(p.URL+"/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	limited, fromShop, fromHostile := 0, 0, 0
	for i := range 30 {
		if token(hostile, fmt.Sprint("guess-", i)) == http.StatusTooManyRequests {
			limited++
		}
		if token(shop, secret) == http.StatusOK {
			fromShop++
		}
		if token(hostile, secret) == http.StatusOK {
			fromHostile++
		}
	}
	if limited < 15 {
		t.Errorf("%d of 30 wrong secrets from the hostile address were slowed down, want all beyond its first 10", limited)
	}
	if fromShop != 30 || fromHostile != 30 {
		t.Errorf("the right secret got %d of 30 tokens from another address and %d of 30 from the guessing one, want all", fromShop, fromHostile)
	}
	if got := token(shop, "a typo"); got != http.StatusUnauthorized {
		t.Errorf("a wrong secret from another address: HTTP %d, want 401 (its own allowance)", got)
	}
}

// loginFrom opens a console session for token with client and returns its
// cookie, or nil and the status of a refused login.
func loginFrom(t *testing.T, client *http.Client, base, token string) (*http.Cookie, int) {
	t.Helper()
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.PostForm(base+"/console/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "threeds_console" && ck.Value != "" && resp.StatusCode == http.StatusSeeOther {
			return ck, resp.StatusCode
		}
	}
	return nil, resp.StatusCode
}

// TestConsoleStreamsGiveWay: a hostile client logs in with as many tokens
// as one client may (a further one gets 429) and opens every live stream
// of the sandbox; a quiet tenant's stream is still opened, the hostile
// token holding the most giving up its oldest (which ends with "event:
// closed"), and however often the hostile client reopens, only its own
// streams give way.
func TestConsoleStreamsGiveWay(t *testing.T) {
	const perToken, tokens = 10, 2
	// A token may hold the whole pool, so that only the total binds: which
	// of two hostile tokens of 10 gives way to the quiet one is a tie, and
	// a token at a bound of its own would refuse its next stream.
	p := startDefault(t, "--max-console-streams", fmt.Sprint(perToken*tokens), "--max-console-streams-per-token", fmt.Sprint(perToken*tokens),
		"--max-console-tokens-per-client", fmt.Sprint(tokens))
	hostile, quiet := clientFrom("127.0.0.2"), clientFrom("127.0.0.1")
	var cookies []*http.Cookie
	for i := range tokens {
		ck, status := loginFrom(t, hostile, p.URL, fmt.Sprint("e2e-hostile-", i))
		if ck == nil {
			t.Fatalf("login of hostile token %d: HTTP %d", i, status)
		}
		cookies = append(cookies, ck)
	}
	if ck, status := loginFrom(t, hostile, p.URL, "e2e-hostile-one-more"); ck != nil || status != http.StatusTooManyRequests {
		t.Errorf("a login with one token more than a client may hold: HTTP %d, want 429", status)
	}

	// endings counts the streams that ended by giving way.
	gaveWay := make(chan string, 256)
	var bodies []io.Closer
	t.Cleanup(func() {
		for _, b := range bodies {
			b.Close()
		}
	})
	stream := func(client *http.Client, ck *http.Cookie, who string) int {
		resp, status := openConsoleStream(t, client, p.URL, ck)
		if resp == nil {
			return status
		}
		bodies = append(bodies, resp.Body)
		go func() {
			b, _ := io.ReadAll(resp.Body) // until the stream ends
			if strings.Contains(string(b), "event: closed") {
				gaveWay <- who
			}
		}()
		return resp.StatusCode
	}
	for i := range perToken * tokens {
		// Each session holds at most 8: a session per 5 streams.
		ck := cookies[i%tokens]
		if i%5 == 0 && i >= tokens {
			ck, _ = loginFrom(t, hostile, p.URL, fmt.Sprint("e2e-hostile-", i%tokens))
			cookies[i%tokens] = ck
		}
		if got := stream(hostile, ck, "hostile"); got != http.StatusOK {
			t.Fatalf("hostile stream %d: HTTP %d", i, got)
		}
	}

	qck, status := loginFrom(t, quiet, p.URL, "e2e-quiet")
	if qck == nil {
		t.Fatalf("the quiet tenant's login: HTTP %d", status)
	}
	if got := stream(quiet, qck, "quiet"); got != http.StatusOK {
		t.Fatalf("the quiet tenant's stream with every stream taken: HTTP %d, want 200", got)
	}
	const reopened = 12
	for i := range reopened {
		ck, _ := loginFrom(t, hostile, p.URL, fmt.Sprint("e2e-hostile-", i%tokens))
		if got := stream(hostile, ck, "hostile"); got != http.StatusOK {
			t.Fatalf("the hostile client reopening (%d): HTTP %d", i, got)
		}
	}
	for n, deadline := 0, time.After(30*time.Second); n < 1+reopened; n++ {
		select {
		case who := <-gaveWay:
			if who != "hostile" {
				t.Fatal("the quiet tenant's only stream gave way to the hostile client's")
			}
		case <-deadline:
			t.Fatalf("%d of the %d streams that made room ended with event: closed within 30s", n, 1+reopened)
		}
	}
}

// TestCrossSiteFormsRefused: a login form posted from another site's page
// (an Origin of another host, with or without Sec-Fetch-Site) is refused
// with 403 and a page that says why, opening no session; the same post
// from the console's own page, or from no browser, logs in. The banking
// app's answer from another site is refused alike, and its page may be
// framed by nobody.
func TestCrossSiteFormsRefused(t *testing.T) {
	p := startDefault(t)
	post := func(path string, form url.Values, header map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, p.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	login := url.Values{"token": {"e2e-attacker-token"}}
	for name, header := range map[string]map[string]string{
		"Origin of another host (plain http)": {"Origin": "http://evil.example"},
		"cross-site":                          {"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"},
	} {
		resp, body := post("/console/login", login, header)
		if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) > 0 || !strings.Contains(body, "another site") {
			t.Errorf("login, %s: HTTP %d, cookies %v; want 403 saying why, no session\n%.300s", name, resp.StatusCode, resp.Cookies(), body)
		}
	}
	for name, header := range map[string]map[string]string{
		"the console's own page": {"Sec-Fetch-Site": "same-origin", "Origin": p.URL},
		"Origin of the sandbox":  {"Origin": p.URL},
		"no browser":             nil,
	} {
		if resp, body := post("/console/login", login, header); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) == 0 {
			t.Errorf("login, %s: HTTP %d; want 303 and a session\n%.300s", name, resp.StatusCode, body)
		}
	}
	id := p.lookup(t, testkit.LookupBody(t, "4000000000009300", nil)).Str("threeDsServerTransId")
	if resp, _ := post("/acs/app/"+id, url.Values{"action": {"approve"}}, map[string]string{"Origin": "http://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the banking app's answer from another site: HTTP %d, want 403", resp.StatusCode)
	}
	resp, err := http.Get(p.URL + "/acs/app/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("the banking app's policy %q, want frame-ancestors 'none'", csp)
	}
}

// openConsoleStream opens the console's live stream at base with the
// session cookie ck: the open response, or nil and the status that
// refused it.
func openConsoleStream(t *testing.T, client *http.Client, base string, ck *http.Cookie) (*http.Response, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/console/events", nil)
	req.AddCookie(ck)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	return resp, resp.StatusCode
}
