package auth

import (
	"errors"

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
}

// ErrTokenRejected is a static token that is not among the configured
// ones.
var ErrTokenRejected = errors.New("the bearer token is not accepted by this sandbox")

// Authority decides who a bearer token is: one of the static tokens
// (--tokens; any opaque token when none are configured), or an access
// token of the sandbox's token endpoint.
type Authority struct {
	Tokens Tokens
	// Access verifies access tokens; nil accepts none.
	Access *AccessTokens
}

// Identify returns the identity of token. A configured static token wins;
// a token shaped as a JWT is then taken for an access token and must
// verify (an expired, malformed or foreign one is an *AccessError, even
// in the open default); any other token is accepted when no static
// tokens are configured, and refused (ErrTokenRejected) otherwise.
func (a Authority) Identify(token string) (Identity, error) {
	if a.Tokens.Required() && a.Tokens.Accept(token) {
		return Identity{Namespace: Namespace(token)}, nil
	}
	if a.Access != nil && jws.LooksLike(token) {
		c, err := a.Access.Verify(token)
		if err != nil {
			return Identity{}, err
		}
		return Identity{Namespace: ClientNamespace(c.ClientID), Client: c.ClientID, Open: c.Open}, nil
	}
	if !a.Tokens.Required() {
		return Identity{Namespace: Namespace(token)}, nil
	}
	return Identity{}, ErrTokenRejected
}

// Accept reports whether Identify accepts token.
func (a Authority) Accept(token string) bool {
	_, err := a.Identify(token)
	return err == nil
}
