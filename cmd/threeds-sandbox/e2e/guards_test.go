//go:build e2e

package e2e

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

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
