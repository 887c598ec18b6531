// Package auth decides who may call the sandbox: which bearer tokens are
// accepted, and the namespace each token's transactions live in. It knows
// HTTP headers and nothing of 3-D Secure.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// Tokens decides which bearer tokens are accepted. With none configured,
// any non-empty token is.
type Tokens struct {
	hashes [][32]byte
	tokens []string // the same, as configured: the Authority keys them
}

// NewTokens accepts exactly the given tokens; none means any.
func NewTokens(tokens []string) Tokens {
	var t Tokens
	for _, tok := range tokens {
		if tok = strings.TrimSpace(tok); tok != "" {
			t.hashes = append(t.hashes, sha256.Sum256([]byte(tok)))
			t.tokens = append(t.tokens, tok)
		}
	}
	return t
}

// Accept reports whether token is accepted. It compares in constant time
// (over hashes, so the length of the configured tokens does not leak
// either).
func (t Tokens) Accept(token string) bool {
	_, ok := t.match(token)
	return ok
}

// match returns the index of token among the configured tokens (-1 when
// none are configured and any is accepted).
func (t Tokens) match(token string) (int, bool) {
	if len(t.hashes) == 0 {
		return -1, true
	}
	h := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.hashes {
		found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(h[:], t.hashes[i][:]), i, found)
	}
	return found, found >= 0
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
