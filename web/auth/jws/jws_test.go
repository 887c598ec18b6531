package jws_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// TestSignAndVerify: a token made by Sign parses, verifies with its key
// and gives its claims back; with another key it does not verify.
func TestSignAndVerify(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	tok, err := jws.Sign(key, "k1", map[string]any{"iss": "shop", "iat": 1700000000})
	if err != nil {
		t.Fatal(err)
	}
	if !jws.LooksLike(tok) {
		t.Errorf("LooksLike(%q) = false", tok)
	}
	p, err := jws.Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	if p.Header.Alg != jws.HS256 || p.Header.Kid != "k1" || p.Header.Typ != "JWT" {
		t.Errorf("header = %+v", p.Header)
	}
	if err := p.Verify(key); err != nil {
		t.Errorf("Verify with its key: %v", err)
	}
	if err := p.Verify([]byte("another key of thirty-two bytes!")); !errors.Is(err, jws.ErrSignature) {
		t.Errorf("Verify with another key = %v, want ErrSignature", err)
	}
	var claims struct {
		Iss string `json:"iss"`
		Iat int64  `json:"iat"`
	}
	if err := p.Claims(&claims); err != nil || claims.Iss != "shop" || claims.Iat != 1700000000 {
		t.Errorf("claims = %+v, %v", claims, err)
	}
}

// TestParseRefuses: every malformed token is refused with ErrMalformed,
// an algorithm other than HS256 with ErrAlgorithm at Verify.
func TestParseRefuses(t *testing.T) {
	key := []byte("k")
	good, _ := jws.Sign(key, "", map[string]string{"a": "b"})
	h, rest, _ := strings.Cut(good, ".")
	p, sig, _ := strings.Cut(rest, ".")
	for name, tok := range map[string]string{
		"empty":              "",
		"two segments":       h + "." + p,
		"four segments":      good + ".x",
		"padded":             h + "=." + p + "." + sig,
		"not base64":         h + ".***." + sig,
		"header not object":  "WyJhIl0." + p + "." + sig, // ["a"]
		"header without alg": "eyJ0eXAiOiJKV1QifQ." + p + "." + sig,
		"payload not object": h + ".MTIz." + sig, // 123
		"payload not JSON":   h + ".e30x." + sig,
		"empty signature":    h + "." + p + ".",
		"too long":           h + "." + strings.Repeat("A", jws.MaxToken) + "." + sig,
	} {
		if _, err := jws.Parse(tok); !errors.Is(err, jws.ErrMalformed) {
			t.Errorf("%s: Parse(%q) = %v, want ErrMalformed", name, tok, err)
		}
	}
	none := "eyJhbGciOiJub25lIn0." + p + ".c2ln" // {"alg":"none"}
	tok, err := jws.Parse(none)
	if err != nil {
		t.Fatal(err)
	}
	if err := tok.Verify(key); !errors.Is(err, jws.ErrAlgorithm) {
		t.Errorf("alg none: Verify = %v, want ErrAlgorithm", err)
	}
}

// TestLooksLike tells JWT-shaped bearer tokens from opaque ones: three
// parts (a JWS) or five (a JWE) of Base64url characters, the header not
// empty, whatever they decode to.
func TestLooksLike(t *testing.T) {
	for tok, want := range map[string]bool{
		"eyJhbGciOiJIUzI1NiJ9.e30.c2ln":        true,
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.": true, // alg none: an empty signature
		"a.b.c":                                true,
		"abc.def.ghi":                          true,
		"eyJ..c2ln":                            true, // a detached payload
		"eyJhbGc..":                            true,
		"eyJhbGc=.e30.c2ln":                    true, // padded
		"eyJhbGciOiJkaXIifQ..aXY.Y3Q.dGFn":     true, // a JWE of dir
		"eyJ.e.c":                              true,
		"team-token":                           false,
		"team_token-2":                         false,
		"eyJ.e30":                              false,
		"one.two":                              false,
		"eyJhbGc.e30.c2ln.x":                   false,
		"a.b.c.d.e.f":                          false,
		"eyJhbGc.e3 0.c2ln":                    false,
		"eyJhbGc.e3+0.c2ln":                    false,
		".e30.c2ln":                            false,
		"":                                     false,
		"..":                                   false,
		"eyJhbGciOiJIUzI1NiJ9.e30.c2ln\u0000":  false,
	} {
		if got := jws.LooksLike(tok); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", tok, got, want)
		}
	}
}

// FuzzLooksLike: LooksLike, one pass over a table, answers as the plain
// reading of its rule does.
func FuzzLooksLike(f *testing.F) {
	for _, s := range []string{"eyJhbGciOiJIUzI1NiJ9.e30.c2ln", "eyJ.e30", "eyJ..x", "eyJa.b.", "eyJa.b.c.d", "a.b.c.d.e", "eyJ\x00.a.b", "team", ".a.b", "a=.b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := jws.LooksLike(s), looksLikeReference(s); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", s, got, want)
		}
	})
}

// looksLikeReference is LooksLike's rule as plainly as it reads.
func looksLikeReference(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 && len(parts) != 5 || parts[0] == "" {
		return false
	}
	for _, p := range parts {
		for _, c := range []byte(p) {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
				return false
			}
		}
	}
	return true
}

// FuzzParse: no input makes Parse panic, and whatever parses keeps a
// header naming an algorithm and a payload that is a JSON object.
func FuzzParse(f *testing.F) {
	good, _ := jws.Sign([]byte("key"), "k", map[string]any{"jti": "1", "iat": 1})
	for _, s := range []string{good, "", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", "..", "e30.e30.e30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := jws.Parse(s)
		if err != nil {
			if !errors.Is(err, jws.ErrMalformed) {
				t.Fatalf("Parse(%q) = %v, not ErrMalformed", s, err)
			}
			return
		}
		if tok.Header.Alg == "" || len(tok.Payload) == 0 {
			t.Fatalf("Parse(%q) kept %+v", s, tok)
		}
		_ = tok.Verify([]byte("key"))
	})
}
