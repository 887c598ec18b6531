package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// Tokens decides which bearer tokens are accepted. With none configured,
// any non-empty token is.
type Tokens struct {
	hashes [][32]byte
}

// NewTokens accepts exactly the given tokens; none means any.
func NewTokens(tokens []string) Tokens {
	var t Tokens
	for _, tok := range tokens {
		if tok = strings.TrimSpace(tok); tok != "" {
			t.hashes = append(t.hashes, sha256.Sum256([]byte(tok)))
		}
	}
	return t
}

// accept compares in constant time (over hashes, so the length of the
// configured tokens does not leak either).
func (t Tokens) accept(token string) bool {
	if len(t.hashes) == 0 {
		return true
	}
	h := sha256.Sum256([]byte(token))
	ok := 0
	for i := range t.hashes {
		ok |= subtle.ConstantTimeCompare(h[:], t.hashes[i][:])
	}
	return ok == 1
}

// bearerToken extracts the token of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive.
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != "" && !strings.ContainsAny(tok, " \t")
}

// Namespace is the opaque id of a bearer token: the transactions a token
// creates are visible only to it. It is a hash, so logs and pages never
// carry the token itself.
func Namespace(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:8])
}

// namespaceOf returns the namespace set by requireToken.
func namespaceOf(ctx context.Context) string { return infoOf(ctx).namespace }

// requireToken lets through requests with an accepted bearer token and
// records its namespace; others get 401 with the error body.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox"`)
			s.writeError(w, r, emulator.NewError(emulator.CodeUnauthorized, "303",
				`the Authorization header must be "Bearer <token>"`, "Authorization"))
			return
		}
		if !s.tokens.accept(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox", error="invalid_token"`)
			s.writeError(w, r, emulator.NewError(emulator.CodeTokenRejected, "303",
				"the bearer token is not accepted by this sandbox", "Authorization"))
			return
		}
		info := infoOf(r.Context())
		info.namespace = Namespace(tok)
		if info.id == "" { // not behind observe (tests of the handler alone)
			r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		}
		next.ServeHTTP(w, r)
	})
}
