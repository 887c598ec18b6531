package auth_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

var (
	masterA = []byte("master key A of thirty-two bytes")
	masterB = []byte("master key B of thirty-two bytes")
)

// TestAccessTokens: a token verifies until its lifetime ends, on every
// replica sharing the master key and across a key rotation; a token of
// another key, issuer or algorithm is foreign, garbage is malformed.
func TestAccessTokens(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	a, err := auth.NewAccessTokens("https://sandbox.example/3ds", [][]byte{masterA}, time.Minute, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := a.Issue("shop-1", "threeds", false)
	if err != nil {
		t.Fatal(err)
	}
	replica, _ := auth.NewAccessTokens("https://sandbox.example/3ds", [][]byte{masterA}, time.Minute, clock.Now)
	c, err := replica.Verify(tok)
	if err != nil || c.ClientID != "shop-1" || c.Subject != "shop-1" || c.Scope != "threeds" || c.Open || c.Audience != auth.Audience {
		t.Fatalf("Verify on a replica = %+v, %v", c, err)
	}
	rotated, _ := auth.NewAccessTokens("https://sandbox.example/3ds", [][]byte{masterB, masterA}, time.Minute, clock.Now)
	if _, err := rotated.Verify(tok); err != nil {
		t.Errorf("after a key rotation, a token of the previous key: %v", err)
	}
	for name, tt := range map[string]struct {
		verifier *auth.AccessTokens
		token    string
		kind     error
	}{
		"other key":    {mustTokens(t, "https://sandbox.example/3ds", masterB, clock), tok, auth.ErrTokenForeign},
		"other issuer": {mustTokens(t, "https://elsewhere.example", masterA, clock), tok, auth.ErrTokenForeign},
		"garbage":      {a, "eyJ.x.y", auth.ErrTokenMalformed},
		"alg none":     {a, "eyJhbGciOiJub25lIn0." + strings.Split(tok, ".")[1] + ".eA", auth.ErrTokenForeign},
	} {
		if _, err := tt.verifier.Verify(tt.token); !errors.Is(err, tt.kind) {
			t.Errorf("%s: Verify = %v, want %v", name, err, tt.kind)
		}
	}
	clock.Advance(time.Minute)
	var ae *auth.AccessError
	if _, err := a.Verify(tok); !errors.As(err, &ae) || !errors.Is(err, auth.ErrTokenExpired) {
		t.Errorf("after its lifetime: Verify = %v, want ErrTokenExpired", err)
	}
}

func mustKeys(t *testing.T, masters ...[]byte) *auth.TokenKeys {
	t.Helper()
	k, err := auth.NewTokenKeys(masters, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustAuthority(t *testing.T, tokens auth.Tokens, access *auth.AccessTokens, keys *auth.TokenKeys, clock *testkit.Clock) *auth.Authority {
	t.Helper()
	a, err := auth.NewAuthority(tokens, access, keys, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustTokens(t *testing.T, issuer string, master []byte, clock *testkit.Clock) *auth.AccessTokens {
	t.Helper()
	a, err := auth.NewAccessTokens(issuer, [][]byte{master}, time.Minute, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIdentify: static tokens, access tokens and the open default, each
// to its namespace.
// TestAccessTokenRemembered: a token that verified is remembered, so
// verifying it again costs no allocation, and is still checked against
// the clock: it expires as a new one does. Refused tokens are not
// remembered: a tampered copy of a remembered token stays refused.
func TestAccessTokenRemembered(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	a := mustTokens(t, "https://sandbox.example/3ds", masterA, clock)
	tok, err := a.Issue("shop-1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	first, err := a.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if c, err := a.Verify(tok); err != nil || c != first {
			t.Fatalf("Verify again = %+v, %v; want %+v", c, err, first)
		}
	}); n != 0 {
		t.Errorf("verifying a remembered token allocates %.0f times", n)
	}
	tampered := tok[:len(tok)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(tok, "AA")]
	for range 2 {
		if _, err := a.Verify(tampered); !errors.Is(err, auth.ErrTokenForeign) {
			t.Errorf("a tampered copy: Verify = %v, want ErrTokenForeign", err)
		}
	}
	clock.Advance(time.Minute)
	if _, err := a.Verify(tok); !errors.Is(err, auth.ErrTokenExpired) {
		t.Errorf("a remembered token after its lifetime: Verify = %v, want ErrTokenExpired", err)
	}
}

func TestIdentify(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	access := mustTokens(t, "http://sandbox", masterA, clock)
	tok, _ := access.IssueFor("http://sandbox", "shop-1", "", "0123456789abcdef")
	foreign, _ := jws.Sign([]byte("k"), "", map[string]any{"iss": "http://sandbox"})
	keys := mustKeys(t, masterA)
	open := mustAuthority(t, auth.NewTokens(nil), access, keys, clock)
	closed := mustAuthority(t, auth.NewTokens([]string{"team-a"}), access, keys, clock)

	for _, a := range []*auth.Authority{open, closed} {
		id, err := a.Identify(tok)
		if err != nil || id.Namespace != "0123456789abcdef" || id.Client != "shop-1" || !id.Open {
			t.Errorf("access token: %+v, %v", id, err)
		}
		if _, err := a.Identify(foreign); !errors.Is(err, auth.ErrTokenForeign) {
			t.Errorf("foreign JWT: %v, want ErrTokenForeign (even in the open default)", err)
		}
	}
	if id, err := open.Identify("anything"); err != nil || id.Namespace != keys.Namespace("anything") || id.Client != "" {
		t.Errorf("open default, opaque token: %+v, %v", id, err)
	}
	if id, err := closed.Identify("team-a"); err != nil || id.Namespace != keys.Namespace("team-a") {
		t.Errorf("configured token: %+v, %v", id, err)
	}
	if _, err := closed.Identify("team-b"); !errors.Is(err, auth.ErrTokenRejected) {
		t.Errorf("unknown static token: %v, want ErrTokenRejected", err)
	}
	if auth.ClientNamespace("team-a") == keys.Namespace("team-a") {
		t.Error("a client's namespace is a static token's")
	}
	clock.Advance(time.Hour)
	if _, err := open.Identify(tok); !errors.Is(err, auth.ErrTokenExpired) {
		t.Errorf("expired access token in the open default: %v, want ErrTokenExpired", err)
	}
}

func TestParseMerchants(t *testing.T) {
	m, err := auth.ParseMerchants(" shop-1:secret-with:colon-0123 ,shop.2:another-secret-0123")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Configured() || !m.Authenticate("shop-1", "secret-with:colon-0123") || m.Authenticate("shop-1", "secret-with:colon-012") ||
		m.Authenticate("shop-3", "secret-with:colon-0123") {
		t.Error("Authenticate disagrees with the configuration")
	}
	if s, ok := m.Secret("shop.2"); !ok || string(s) != "another-secret-0123" {
		t.Errorf("Secret(shop.2) = %q, %v", s, ok)
	}
	if none, err := auth.ParseMerchants(""); err != nil || none.Configured() {
		t.Errorf("empty: %v, %v", none, err)
	}
	for _, bad := range []string{"shop", "shop:short", "a b:0123456789abcdef", ":0123456789abcdef", "s:0123456789abcdef,s:0123456789abcdef"} {
		if _, err := auth.ParseMerchants(bad); err == nil {
			t.Errorf("ParseMerchants(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("ParseMerchants(%q): the error shows the secret: %v", bad, err)
		}
	}
}

// TestOpenClientNamespace: in the open default an OAuth client's
// namespace is the keyed hash of its whole credential: the same id with
// another secret is another tenant, and no static token shares it; an
// open client's token carries it, and one without it is refused.
func TestOpenClientNamespace(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	access := mustTokens(t, "http://sandbox", masterA, clock)
	a := mustAuthority(t, auth.NewTokens(nil), access, mustKeys(t, masterA), clock)
	first, again, other := a.OpenClientNamespace("shop-1", "secret-a"), a.OpenClientNamespace("shop-1", "secret-a"), a.OpenClientNamespace("shop-1", "secret-b")
	if first != again || first == other || !auth.ValidNamespace(first) {
		t.Errorf("namespaces %q, %q, %q: want one per credential", first, again, other)
	}
	for _, ns := range []string{auth.ClientNamespace("shop-1"), mustKeys(t, masterA).Namespace("shop-1"), mustKeys(t, masterA).Namespace("secret-a")} {
		if ns == first {
			t.Errorf("the open client's namespace is %q, another credential's", ns)
		}
	}
	if b := mustAuthority(t, auth.NewTokens(nil), access, mustKeys(t, masterB), clock); b.OpenClientNamespace("shop-1", "secret-a") == first {
		t.Error("the namespace does not depend on the state hash key")
	}
	tok, err := access.IssueFor("http://sandbox", "shop-1", "", first)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := a.Identify(tok); err != nil || id.Namespace != first || !id.Open || id.Client != "shop-1" {
		t.Errorf("Identify = %+v, %v", id, err)
	}
	if _, err := access.Issue("shop-1", "", true); err == nil {
		t.Error("an open token without its namespace was issued")
	}
	if _, err := access.IssueFor("http://sandbox", "shop-1", "", "not a namespace"); err == nil {
		t.Error("an open token with a malformed namespace was issued")
	}
}
