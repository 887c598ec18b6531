package web_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// TestJWTShapedTokensMustVerify: a bearer token shaped as a JWT (three
// or five dot-separated Base64url parts) is an access token, so it must
// verify, in the open default too: an unsecured JWT ("alg":"none"), a
// bare a.b.c and a five-part JWE answer 401 with error="invalid_token"
// and the interface's error body. A configured static token that
// happens to have dots is still the static token, and an opaque token
// still opens a namespace of its own in the open default.
func TestJWTShapedTokensMustVerify(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	none := b64([]byte(`{"alg":"none"}`)) + "." + b64([]byte(`{"iss":"x","client_id":"shop-1"}`)) + "."
	open := newEnv(t, func(o *envOptions) { o.journal = true })
	for name, tok := range map[string]string{
		"alg none":    none,
		"a.b.c":       "a.b.c",
		"a JWE shape": "eyJhbGciOiJkaXIifQ..aXY.Y3Q.dGFn",
		"padded":      "eyJhbGciOiJIUzI1NiJ9=.e30.c2ln",
	} {
		r := open.call(http.MethodGet, "/admin/transactions", tok, nil)
		if r.Status != http.StatusUnauthorized || r.Str("errorCode") != "AU03" ||
			!strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer ") || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s: HTTP %d %s, WWW-Authenticate %q; want 401 AU03 invalid_token", name, r.Status, r.Raw, r.Header.Get("WWW-Authenticate"))
		}
		checkErrorBody(t, r, http.StatusUnauthorized, "303")
	}
	for _, tok := range []string{"team-token", "ci_42", "one.dot"} {
		if r := open.call(http.MethodGet, "/admin/transactions", tok, nil); r.Status != http.StatusOK {
			t.Errorf("opaque token %q in the open default: HTTP %d %s", tok, r.Status, r.Raw)
		}
	}

	closed := newEnv(t, func(o *envOptions) { o.tokens, o.journal = []string{"team.a.b", "plain"}, true })
	for _, tok := range []string{"team.a.b", "plain"} {
		if r := closed.call(http.MethodGet, "/admin/transactions", tok, nil); r.Status != http.StatusOK {
			t.Errorf("configured token %q: HTTP %d %s", tok, r.Status, r.Raw)
		}
	}
	if r := closed.call(http.MethodGet, "/admin/transactions", "team.a.c", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("an unconfigured dotted token: HTTP %d %s, want 401", r.Status, r.Raw)
	}
}
