package auth

import (
	"crypto/subtle"
	"errors"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// Identity is who a bearer token is, for the API.
type Identity struct {
	// Namespace holds the transactions the token may see.
	Namespace string
	// Client is the OAuth client of an access token; empty for a static
	// token.
	Client string
	// Open marks an access token issued to a client that no configuration
	// names (the open default).
	Open bool
	// Expires is when an access token expires; zero for a static token.
	Expires time.Time
}

// ErrTokenRejected is a static token that is not among the configured
// ones.
var ErrTokenRejected = errors.New("the bearer token is not accepted by this sandbox")

// Authority decides who a bearer token is: one of the static tokens
// (--tokens; any opaque token when none are configured), or an access
// token of the sandbox's token endpoint. A static token's namespace is
// its keyed hash (TokenKeys). Safe for concurrent use.
type Authority struct {
	tokens Tokens
	access *AccessTokens // nil accepts no access token
	keys   *TokenKeys
	now    func() time.Time
	// Of each configured token, in the order of tokens: its namespace,
	// and its hash under each key (the current first), which a console
	// session is checked against.
	spaces []string
	hashes [][]string
}

// NewAuthority returns the authority over the static tokens, the access
// tokens (nil: none is accepted) and the keys of the tokens' hashes; now
// nil is time.Now.
func NewAuthority(tokens Tokens, access *AccessTokens, keys *TokenKeys, now func() time.Time) (*Authority, error) {
	if keys == nil {
		return nil, errors.New("auth: the authority needs the keys of the tokens' hashes")
	}
	if now == nil {
		now = time.Now
	}
	a := &Authority{tokens: tokens, access: access, keys: keys, now: now}
	for _, tok := range tokens.tokens {
		a.spaces = append(a.spaces, keys.Namespace(tok))
		var hs []string
		for i := range keys.hashes {
			hs = append(hs, keys.hashWith(i, tok))
		}
		a.hashes = append(a.hashes, hs)
	}
	return a, nil
}

// Required reports whether only configured static tokens (and access
// tokens) are accepted, rather than any.
func (a *Authority) Required() bool { return a.tokens.Required() }

// Identify returns the identity of token. A configured static token wins;
// a token shaped as a JWT is then taken for an access token and must
// verify (an expired, malformed or foreign one is an *AccessError, even
// in the open default); any other token is accepted when no static
// tokens are configured, and refused (ErrTokenRejected) otherwise.
func (a *Authority) Identify(token string) (Identity, error) {
	if a.tokens.Required() {
		if i, ok := a.tokens.match(token); ok {
			return Identity{Namespace: a.spaces[i]}, nil
		}
	}
	if a.access != nil && jws.LooksLike(token) {
		c, err := a.access.Verify(token)
		if err != nil {
			return Identity{}, err
		}
		ns := ClientNamespace(c.ClientID)
		if c.Open {
			ns = c.Namespace
		}
		return Identity{Namespace: ns, Client: c.ClientID, Open: c.Open, Expires: time.Unix(c.NotAfter, 0)}, nil
	}
	if !a.tokens.Required() {
		return Identity{Namespace: a.keys.Namespace(token)}, nil
	}
	return Identity{}, ErrTokenRejected
}

// OpenClientNamespace is the namespace of the OAuth client id with
// secret when no configuration names it (the open default): the keyed
// hash of its whole credential, as a static token's namespace is of the
// token, so that the same id with another secret is another tenant. No
// bearer token has it: the hashed text starts with a NUL byte, which a
// header value cannot carry, and a client id has none.
func (a *Authority) OpenClientNamespace(id, secret string) string {
	return a.keys.Namespace("\x00open client\x00" + id + "\x00" + secret)
}

// Accept reports whether Identify accepts token.
func (a *Authority) Accept(token string) bool {
	_, err := a.Identify(token)
	return err == nil
}

// Grant is what a console session keeps of the token it was opened
// with: never the token, but its keyed hash, its namespace and, for an
// access token, when it expires.
type Grant struct {
	// TokenHash is TokenKeys.Hash of the token.
	TokenHash string
	// Namespace is the token's namespace when the session was opened.
	Namespace string
	// Expires is an access token's expiry; zero for a static token.
	Expires time.Time
}

// Grant identifies token for a console session: its Identity, and what
// the session keeps of it.
func (a *Authority) Grant(token string) (Grant, error) {
	id, err := a.Identify(token)
	if err != nil {
		return Grant{}, err
	}
	return Grant{TokenHash: a.keys.Hash(token), Namespace: id.Namespace, Expires: id.Expires}, nil
}

// Resume tells whether a console session's grant still stands, and the
// namespace it reads: an access token's until it expires; a configured
// static token's while it is configured (its hash under the current or a
// previous key, so a key rotation keeps the session; the namespace is
// then the token's under the current key, as its API calls have it); any
// other token's while no static tokens are configured (its namespace as
// when the session was opened).
func (a *Authority) Resume(g Grant) (string, bool) {
	switch {
	case !g.Expires.IsZero():
		return g.Namespace, a.access != nil && a.now().Before(g.Expires)
	case a.tokens.Required():
		found := -1
		for i, hs := range a.hashes {
			for _, h := range hs {
				found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare([]byte(h), []byte(g.TokenHash)), i, found)
			}
		}
		if found < 0 {
			return "", false
		}
		return a.spaces[found], true
	}
	return g.Namespace, g.TokenHash != "" && g.Namespace != ""
}
