package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// Access tokens are what the sandbox's OAuth 2.0 token endpoint issues
// (Appendix B of the real service: bearer tokens from an identity
// server): JWTs signed with HS256 by a key derived from the sandbox's
// master key, so that every replica sharing --state-hash-key issues and
// accepts the same tokens, and a key rotation (--state-previous-keys)
// keeps the tokens of the previous key valid until they expire.

// Defaults of the access tokens.
const (
	// DefaultTokenLifetime is IdentityServer's default access token
	// lifetime.
	DefaultTokenLifetime = time.Hour
	// Audience is the aud claim of every access token: the sandbox's API.
	Audience = "threeds-sandbox-api"
)

// AccessClaims are the claims of an access token.
type AccessClaims struct {
	Issuer    string `json:"iss"`
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	ClientID  string `json:"client_id"`
	Scope     string `json:"scope,omitempty"`
	IssuedAt  int64  `json:"iat"`
	NotAfter  int64  `json:"exp"`
	NotBefore int64  `json:"nbf"`
	ID        string `json:"jti"`
	// Open marks a token issued to a client that no --merchants entry
	// names (the open default); Namespace is then that client's, the
	// keyed hash of its id and secret (Authority.OpenClientNamespace),
	// which the token carries since it does not carry the secret.
	Open      bool   `json:"open,omitempty"`
	Namespace string `json:"ns,omitempty"`
}

// Why an access token is refused; AccessError.Kind.
var (
	ErrTokenExpired   = errors.New("the access token expired")
	ErrTokenMalformed = errors.New("the access token is malformed")
	ErrTokenForeign   = errors.New("the access token was not issued by this sandbox")
)

// AccessError is an access token the API refuses: expired, malformed or
// foreign. Its message is the error_description of the 401.
type AccessError struct {
	Kind   error
	Detail string
}

func (e *AccessError) Error() string {
	if e.Detail == "" {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + e.Detail
}

// Unwrap returns the kind.
func (e *AccessError) Unwrap() error { return e.Kind }

// AccessTokens issues and verifies the access tokens.
type AccessTokens struct {
	issuer   string
	keys     [][]byte // the current key first
	lifetime time.Duration
	now      func() time.Time
	// verified remembers the claims of tokens whose signature, issuer
	// and audience were checked: they never change, so a token sent
	// again is only checked against the clock.
	verified *recent[AccessClaims]
}

// NewAccessTokens returns the access tokens of issuer (the sandbox's
// public URL), signed with a key derived from masters[0] and verified
// with any of masters; lifetime <= 0 takes DefaultTokenLifetime; now nil
// is time.Now. An empty issuer stands for the URL each client reached
// (no public URL is configured): each token then names the issuer it
// was issued for (IssueFor), and a token the key signed is accepted
// whatever issuer it names.
func NewAccessTokens(issuer string, masters [][]byte, lifetime time.Duration, now func() time.Time) (*AccessTokens, error) {
	if len(masters) == 0 || len(masters[0]) == 0 {
		return nil, errors.New("auth: access tokens need a master key")
	}
	if lifetime <= 0 {
		lifetime = DefaultTokenLifetime
	}
	if now == nil {
		now = time.Now
	}
	a := &AccessTokens{issuer: issuer, lifetime: lifetime, now: now, verified: newRecent[AccessClaims]()}
	for _, m := range masters {
		a.keys = append(a.keys, derive(m, "oauth access token"))
	}
	return a, nil
}

// Issuer is the iss of the tokens: the sandbox's public URL; empty when
// each token names the URL its client reached.
func (a *AccessTokens) Issuer() string { return a.issuer }

// Lifetime is how long an issued token is valid.
func (a *AccessTokens) Lifetime() time.Duration { return a.lifetime }

// Issue makes an access token for the configured client clientID with
// scope; a client no configuration names (open) gets its token from
// IssueFor, which knows its namespace.
func (a *AccessTokens) Issue(clientID, scope string, open bool) (string, error) {
	if open {
		return "", errors.New("auth: the token of an open client is made by IssueFor, with its namespace")
	}
	return a.IssueFor(a.issuer, clientID, scope, "")
}

// IssueFor makes an access token of issuer (the configured one, or when
// none is, the URL the client reached) for clientID with scope; ns is
// the namespace (16 hex digits) of a client no configuration names,
// empty for a configured one.
func (a *AccessTokens) IssueFor(issuer, clientID, scope, ns string) (string, error) {
	switch {
	case a.issuer != "" && issuer != a.issuer:
		return "", fmt.Errorf("auth: this sandbox's issuer is %q, not %q", a.issuer, issuer)
	case issuer == "":
		return "", errors.New("auth: an access token needs its issuer")
	case ns != "" && !ValidNamespace(ns):
		return "", fmt.Errorf("auth: the namespace of open client %q is not 16 hex digits", clientID)
	}
	now := a.now()
	var id [12]byte
	_, _ = rand.Read(id[:])
	return jws.Sign(a.keys[0], "", AccessClaims{
		Issuer: issuer, Subject: clientID, Audience: Audience, ClientID: clientID, Scope: scope,
		IssuedAt: now.Unix(), NotBefore: now.Unix(), NotAfter: now.Add(a.lifetime).Unix(),
		ID: hex.EncodeToString(id[:]), Open: ns != "", Namespace: ns,
	})
}

// Verify checks an access token: its signature with the current or a
// previous key, its issuer and audience, and its lifetime. Its failures
// are *AccessError. A token that passed is remembered (see recent), and
// when sent again only its lifetime is checked.
func (a *AccessTokens) Verify(token string) (AccessClaims, error) {
	id := a.verified.id(token)
	if c, ok := a.verified.get(id); ok {
		return c, a.inTime(c)
	}
	c, err := a.signed(token)
	if err != nil {
		return AccessClaims{}, err
	}
	if err := a.inTime(c); err != nil {
		return AccessClaims{}, err
	}
	a.verified.add(id, c)
	return c, nil
}

// signed returns the claims of token when its signature, issuer and
// audience are this sandbox's.
func (a *AccessTokens) signed(token string) (AccessClaims, error) {
	tok, err := jws.Parse(token)
	if err != nil {
		return AccessClaims{}, &AccessError{Kind: ErrTokenMalformed, Detail: err.Error()}
	}
	if tok.Header.Alg != jws.HS256 {
		return AccessClaims{}, &AccessError{Kind: ErrTokenForeign, Detail: fmt.Sprintf("alg %q", clip(tok.Header.Alg))}
	}
	verified := false
	for _, k := range a.keys {
		if tok.Verify(k) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return AccessClaims{}, &AccessError{Kind: ErrTokenForeign, Detail: "its signature is not this sandbox's"}
	}
	var c AccessClaims
	if err := tok.Claims(&c); err != nil {
		return AccessClaims{}, &AccessError{Kind: ErrTokenMalformed, Detail: err.Error()}
	}
	if a.issuer != "" && c.Issuer != a.issuer || c.Issuer == "" || c.Audience != Audience || !ValidClientID(c.ClientID) {
		return AccessClaims{}, &AccessError{Kind: ErrTokenForeign, Detail: fmt.Sprintf("issuer %q, audience %q", clip(c.Issuer), clip(c.Audience))}
	}
	if c.Open != (c.Namespace != "") || c.Open && !ValidNamespace(c.Namespace) {
		// An open client's token of an earlier version named no
		// namespace: the client id alone would have chosen it.
		return AccessClaims{}, &AccessError{Kind: ErrTokenMalformed, Detail: "an open client's token without its namespace"}
	}
	return c, nil
}

// inTime checks the lifetime of c at this moment.
func (a *AccessTokens) inTime(c AccessClaims) error {
	now := a.now().Unix()
	if now >= c.NotAfter {
		return &AccessError{Kind: ErrTokenExpired, Detail: fmt.Sprintf("at %s", time.Unix(c.NotAfter, 0).UTC().Format(time.RFC3339))}
	}
	if now+int64(DDCClockSkew.Seconds()) < c.NotBefore {
		return &AccessError{Kind: ErrTokenMalformed, Detail: "not valid yet"}
	}
	return nil
}

// ValidNamespace tells whether s has the form of a namespace: 16
// lower-case hex digits.
func ValidNamespace(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
