//go:build e2e

package e2e

import (
	"encoding/base64"
	"net/http"
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
