// Package auth decides who may call the sandbox: which bearer tokens are
// accepted, and the namespace each token's transactions live in. It knows
// HTTP headers and nothing of 3-D Secure.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
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

// Accept reports whether token is accepted. It compares in constant time
// (over hashes, so the length of the configured tokens does not leak
// either).
func (t Tokens) Accept(token string) bool {
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

// Required reports whether only configured tokens are accepted (rather
// than any).
func (t Tokens) Required() bool { return len(t.hashes) > 0 }

// BearerToken extracts the token of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive.
func BearerToken(h string) (string, bool) {
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
