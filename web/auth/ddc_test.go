package auth_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

const shopSecret = "shop-api-key-0123456789abcdef"

// ddcJWT signs claims with key (HS256), as a merchant's server does.
func ddcJWT(t testing.TB, key string, claims map[string]any) string {
	t.Helper()
	tok, err := jws.Sign([]byte(key), "", claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// cruiseClaims are the claims of Cardinal Cruise's JWT, issued at now.
func cruiseClaims(now time.Time, mutate func(map[string]any)) map[string]any {
	c := map[string]any{
		"jti": "a1b2c3", "iat": now.Unix(), "iss": "shop-1", "OrgUnitId": "org-42",
		"ReferenceId": "ddc-ref", "Payload": map[string]any{"OrderDetails": map[string]any{"OrderNumber": "42"}},
	}
	if mutate != nil {
		mutate(c)
	}
	return c
}

func TestDDCVerify(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	merchants, err := auth.ParseMerchants("shop-1:" + shopSecret + ", other:another-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	consoleKey := auth.ConsoleDDCKey([]byte("master key of thirty-two bytes!!"))
	previousKey := auth.ConsoleDDCKey([]byte("the master key before a rotation"))
	closed := auth.DDCVerifier{Merchants: merchants, ConsoleKeys: [][]byte{consoleKey, previousKey}, Now: clock.Now}
	open := auth.DDCVerifier{ConsoleKeys: [][]byte{consoleKey}, Now: clock.Now}
	now := clock.Now()

	t.Run("a merchant's JWT verifies", func(t *testing.T) {
		cred, err := closed.Verify(ddcJWT(t, shopSecret, cruiseClaims(now, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if !cred.Verified || cred.Issuer != "shop-1" || cred.JTI != "a1b2c3" || cred.OrgUnitID != "org-42" || cred.ReferenceID != "ddc-ref" {
			t.Errorf("credential = %+v", cred)
		}
		if want := now.Add(auth.DDCMaxAge); !cred.Expires.Equal(want) {
			t.Errorf("Expires = %s, want iat + 2h = %s", cred.Expires, want)
		}
		if len(cred.Notes) != 0 {
			t.Errorf("notes %q", cred.Notes)
		}
	})
	t.Run("exp shortens the life, never lengthens it", func(t *testing.T) {
		cred, err := closed.Verify(ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["exp"] = now.Add(time.Minute).Unix() })))
		if err != nil || !cred.Expires.Equal(now.Add(time.Minute)) {
			t.Errorf("exp in a minute: %+v, %v", cred, err)
		}
		cred, err = closed.Verify(ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["exp"] = now.Add(5 * time.Hour).Unix() })))
		if err != nil || !cred.Expires.Equal(now.Add(2*time.Hour)) || len(cred.Notes) != 1 {
			t.Errorf("exp in 5h: %+v, %v", cred, err)
		}
	})
	t.Run("open sandbox: any well-formed HS256 JWT, noted", func(t *testing.T) {
		cred, err := open.Verify(ddcJWT(t, "whatever key", cruiseClaims(now, func(c map[string]any) { delete(c, "Payload"); delete(c, "OrgUnitId") })))
		if err != nil {
			t.Fatal(err)
		}
		if cred.Verified || cred.Issuer != "shop-1" || len(cred.Notes) != 3 || !strings.Contains(cred.Notes[0], "not verified") {
			t.Errorf("credential = %+v", cred)
		}
	})
	t.Run("the console's JWT", func(t *testing.T) {
		cred, err := closed.Verify(ddcJWT(t, string(consoleKey), cruiseClaims(now, func(c map[string]any) { c["iss"] = auth.ConsoleMerchant; c["OrgUnitId"] = "ns1" })))
		if err != nil || !cred.Console || !cred.Verified || cred.OrgUnitID != "ns1" {
			t.Errorf("console JWT: %+v, %v", cred, err)
		}
		if _, err := closed.Verify(ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["iss"] = auth.ConsoleMerchant }))); err == nil {
			t.Error("a JWT naming the console, signed with another key, was accepted")
		}
		// One made with the key before a rotation still verifies.
		cred, err = closed.Verify(ddcJWT(t, string(previousKey), cruiseClaims(now, func(c map[string]any) { c["iss"] = auth.ConsoleMerchant; c["jti"] = "rot" })))
		if err != nil || !cred.Console || !cred.Verified {
			t.Errorf("console JWT of the previous key: %+v, %v", cred, err)
		}
		if _, err := open.Verify(ddcJWT(t, string(previousKey), cruiseClaims(now, func(c map[string]any) { c["iss"] = auth.ConsoleMerchant }))); err == nil {
			t.Error("a console JWT of a key the verifier does not have was accepted")
		}
	})

	refused := []struct {
		name     string
		verifier auth.DDCVerifier
		token    string
		issuer   string // readable despite the refusal
		reason   string
	}{
		{"bad signature", closed, ddcJWT(t, "not the shop's secret", cruiseClaims(now, nil)), "shop-1", "does not verify"},
		{"unknown merchant", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["iss"] = "stranger" })), "stranger", "names no merchant"},
		{"no iss", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { delete(c, "iss") })), "", "no iss"},
		{"iss not an identifier", open, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["iss"] = "a b" })), "", "not an API identifier"},
		{"iss not a string", open, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["iss"] = 7 })), "", "claim iss is the number 7: it must be a string"},
		{"no jti", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { delete(c, "jti") })), "shop-1", "no jti"},
		{"no iat", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { delete(c, "iat") })), "shop-1", "no iat"},
		{"iat as text", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["iat"] = "now" })), "", `claim iat is the string "now": it must be a number, the seconds since 1970`},
		{"iat in the future", closed, ddcJWT(t, shopSecret, cruiseClaims(now.Add(time.Hour), nil)), "shop-1", "future"},
		{"older than 2h", closed, ddcJWT(t, shopSecret, cruiseClaims(now.Add(-2*time.Hour), nil)), "shop-1", "expired"},
		{"exp passed", closed, ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c["exp"] = now.Add(-time.Second).Unix() })), "shop-1", "expired"},
		{"alg none in the open sandbox", open, "eyJhbGciOiJub25lIn0." + strings.Split(ddcJWT(t, "k", cruiseClaims(now, nil)), ".")[1] + ".eA", "shop-1", "HS256"},
		{"not a JWT", open, "not-a-jwt", "", "compact JWS"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			cred, err := tt.verifier.Verify(tt.token)
			var de *auth.DDCError
			if !errors.As(err, &de) || !strings.Contains(de.Reason, tt.reason) {
				t.Fatalf("Verify = %v, want a DDCError saying %q", err, tt.reason)
			}
			if cred.Issuer != tt.issuer {
				t.Errorf("Issuer = %q, want %q", cred.Issuer, tt.issuer)
			}
		})
	}
}

// FuzzDDCVerify: no jwt field crashes the verifier, and an accepted one
// always names an issuer, a jti and a future expiry.
func FuzzDDCVerify(f *testing.F) {
	now := testkit.T0
	f.Add(ddcJWT(f, shopSecret, cruiseClaims(now, nil)))
	f.Add(ddcJWT(f, shopSecret, cruiseClaims(now, func(c map[string]any) { c["exp"] = 1e300; c["iat"] = -1 })))
	f.Add("eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4IiwiaWF0IjoxLCJqdGkiOiIxIn0.c2ln")
	f.Add("")
	// The open verifier reads the most: it checks every claim but the
	// signature.
	v := auth.DDCVerifier{Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, raw string) {
		cred, err := v.Verify(raw)
		if err != nil {
			var de *auth.DDCError
			if !errors.As(err, &de) {
				t.Fatalf("Verify(%q) = %v, not a DDCError", raw, err)
			}
			return
		}
		if cred.Issuer == "" || cred.JTI == "" || !cred.Expires.After(now) {
			t.Fatalf("Verify(%q) accepted %+v", raw, cred)
		}
	})
}

// TestDDCClaimTypes: a claim of the wrong type is named, with the type
// it has and the one it needs, and nothing of Go shows.
func TestDDCClaimTypes(t *testing.T) {
	now := testkit.T0
	v := auth.DDCVerifier{Now: func() time.Time { return now }}
	tests := []struct {
		claim string
		value any
		want  string
	}{
		{"iat", "1767225600", `claim iat is the string "1767225600": it must be a number, the seconds since 1970 (a NumericDate, such as 1767225600)`},
		{"exp", map[string]any{}, "claim exp is an object: it must be a number"},
		{"iat", nil, "no iat claim"},
		{"IAT", "now", `claim IAT is the string "now": it must be a number`},
		{"jti", 42, "claim jti is the number 42: it must be a string"},
		{"jti", []any{"a"}, "claim jti is an array: it must be a string"},
		{"OrgUnitId", true, "claim OrgUnitId is a boolean: it must be a string"},
		{"ObjectifyPayload", "yes", `claim ObjectifyPayload is the string "yes": it must be true or false`},
	}
	for _, tt := range tests {
		_, err := v.Verify(ddcJWT(t, shopSecret, cruiseClaims(now, func(c map[string]any) { c[tt.claim] = tt.value })))
		var de *auth.DDCError
		if !errors.As(err, &de) || !strings.HasPrefix(de.Reason, tt.want) {
			t.Errorf("%s = %v: %v, want %q", tt.claim, tt.value, err, tt.want)
			continue
		}
		for _, leak := range []string{"Go ", "struct", "float64", "unmarshal", "malformed"} {
			if strings.Contains(de.Reason, leak) {
				t.Errorf("%s = %v: the reason %q shows %q", tt.claim, tt.value, de.Reason, leak)
			}
		}
	}
	// A number beyond float64 is named too.
	raw := "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"shop-1","jti":"j","iat":1e999}`)) + ".c2ln"
	if _, err := v.Verify(raw); err == nil || !strings.Contains(err.Error(), "claim iat is the number 1e999: a number out of range") {
		t.Errorf("iat 1e999: %v", err)
	}
}

// FuzzDDCClaims: no payload crashes the claims' reader; a refusal names
// a claim or the object, and what it accepts, encoding/json reads alike.
func FuzzDDCClaims(f *testing.F) {
	f.Add([]byte(`{"iss":"shop-1","jti":"j","iat":1767225600,"exp":1767229200,"ObjectifyPayload":true}`))
	f.Add([]byte(`{"iat":"now"}`))
	f.Add([]byte(`{"iat":1e999,"exp":-0.5}`))
	f.Add([]byte(`{"jti":null,"iss":{"a":1}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		c, err := auth.DecodeDDCClaims(payload)
		if err != nil {
			var de *auth.DDCError
			if !errors.As(err, &de) || !strings.HasPrefix(de.Reason, "claim ") && !strings.HasPrefix(de.Reason, "the claims ") {
				t.Fatalf("DecodeDDCClaims(%q) = %v", payload, err)
			}
			return
		}
		var want auth.DDCClaims
		if err := json.Unmarshal(payload, &want); err != nil {
			t.Fatalf("DecodeDDCClaims(%q) accepted what encoding/json refuses: %v", payload, err)
		}
		if c.JTI != want.JTI || c.Issuer != want.Issuer {
			t.Fatalf("DecodeDDCClaims(%q) = %+v, encoding/json %+v", payload, c, want)
		}
	})
}
