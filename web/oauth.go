package web

import (
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The identity server of the real service (its Appendix B: bearer tokens
// from an OAuth 2.0 / OpenID Connect server, IdentityServer's terms),
// played by the sandbox itself:
//
//	GET  {base}/.well-known/openid-configuration       discovery (OpenID Connect Discovery 1.0)
//	GET  {base}/.well-known/oauth-authorization-server the same metadata (RFC 8414)
//	GET  {base}/.well-known/openid-configuration/jwks  the published keys: none, the tokens are HS256
//	POST {base}/connect/token                          the token endpoint (RFC 6749): client_credentials
//	GET  {base}/connect/authorize                      the authorization endpoint: unauthorized_client, always
//
// The issuer is the sandbox's public URL, or without one the URL the
// client reached. Clients are the configured merchants (--merchants:
// client_id is the merchant's API identifier, client_secret its secret),
// authenticated by HTTP Basic or by form fields. With none configured and
// no --tokens either (the open default), any client id and secret get a
// token for the namespace of that credential, marked as open; the API
// calls made with it say so in the journal.

// Paths of the identity server, under the base path.
const (
	PathDiscovery = "/.well-known/openid-configuration"
	PathOAuthMeta = "/.well-known/oauth-authorization-server"
	PathJWKS      = "/.well-known/openid-configuration/jwks"
	PathToken     = "/connect/token"
	PathAuthorize = "/connect/authorize"
)

// ScopeAPI is the scope the token endpoint grants when none is asked.
const ScopeAPI = "threeds"

// oauthRoutes mounts the identity server's routes: JSON answers, no
// bearer token.
func (s *Server) oauthRoutes(o routeGroup) {
	o.HandleFunc(PathDiscovery, s.handleDiscovery).Methods(http.MethodGet, http.MethodHead)
	o.HandleFunc(PathOAuthMeta, s.handleOAuthMetadata).Methods(http.MethodGet, http.MethodHead)
	o.HandleFunc(PathJWKS, s.handleJWKS).Methods(http.MethodGet, http.MethodHead)
	o.HandleFunc(PathToken, s.handleToken).Methods(http.MethodPost)
	o.HandleFunc(PathAuthorize, s.handleAuthorize).Methods(http.MethodGet, http.MethodPost)
}

// setUpAuth builds what decides who calls: the access tokens (keys
// derived from the state hash keys, the current and the previous ones),
// the keyed hashes of tokens (namespaces under the namespace key,
// console sessions under the state hash keys), the
// authority over static and access tokens, the verifier of the
// captures' JWTs, and the check of the sandbox's own forms' origins.
func (s *Server) setUpAuth() error {
	masters := [][]byte{s.cfg.HashKey}
	for _, p := range s.cfg.PreviousKeys {
		masters = append(masters, p.Hash)
	}
	issuer := s.cfg.PublicURL
	switch {
	case s.cfg.IssuerFromRequest:
		issuer = "" // each token names the URL its client reached
	case issuer == "":
		issuer = "urn:threeds-sandbox"
	}
	access, err := auth.NewAccessTokens(issuer, masters, s.cfg.TokenLifetime, s.cfg.Now)
	if err != nil {
		return err
	}
	keys, err := auth.NewTokenKeys(masters, s.cfg.NamespaceKey)
	if err != nil {
		return err
	}
	s.access = access
	if s.authority, err = auth.NewAuthority(s.cfg.Tokens, access, keys, s.cfg.Now); err != nil {
		return err
	}
	consoleKeys := make([][]byte, len(masters))
	for i, m := range masters {
		consoleKeys[i] = auth.ConsoleDDCKey(m)
	}
	s.ddc = auth.DDCVerifier{Merchants: s.cfg.Merchants, ConsoleKeys: consoleKeys, Now: s.cfg.Now}
	s.attempts = auth.NewAttempts(s.cfg.Merchants, s.cfg.Now)
	s.origins, err = auth.NewOrigins(s.cfg.PublicURL)
	return err
}

// tokenError is the error body of the token endpoint (RFC 6749, 5.2).
type tokenError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// tokenResponse is the token endpoint's answer (RFC 6749, 5.1).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope,omitempty"`
}

// handleToken serves POST {base}/connect/token.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	fail := func(status int, code, description string) {
		respond.JSON(w, status, tokenError{Error: code, Description: description})
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		fail(http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "invalid_request", "the form could not be read")
		return
	}
	form := r.PostForm
	for _, k := range []string{"grant_type", "client_id", "client_secret", "scope"} {
		if len(form[k]) > 1 {
			fail(http.StatusBadRequest, "invalid_request", k+" is sent more than once")
			return
		}
	}
	id, secret, err := clientCredentials(r)
	if errors.Is(err, errUnreadableBasic) {
		// The client tried the header: 401 and the challenge (RFC 6749, 5.2).
		h.Set("WWW-Authenticate", basicChallenge)
		fail(http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	if err != nil {
		fail(http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	switch gt := form.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		fail(http.StatusBadRequest, "invalid_request", "grant_type is missing")
		return
	default:
		fail(http.StatusBadRequest, "unsupported_grant_type", "this sandbox grants client_credentials only")
		return
	}
	scope := form.Get("scope")
	switch {
	case scope == "":
		scope = ScopeAPI
	case scope != ScopeAPI:
		fail(http.StatusBadRequest, "invalid_scope", "the only scope is "+ScopeAPI)
		return
	}
	open, reason, wrong := s.clientAllowed(id, secret)
	if wrong {
		// The secret was checked first: the right one always gets its
		// token, and only this source's wrong ones are slowed down.
		if wait, ok := s.attempts.Failed(id, auth.Source(r.RemoteAddr)); !ok {
			secs := int64(wait/time.Second) + 1
			h.Set("Retry-After", strconv.FormatInt(secs, 10))
			respond.JSON(w, http.StatusTooManyRequests, tokenError{Error: "invalid_client", Description: fmt.Sprintf(
				"too many wrong secrets for client %q from this address: it may try again in %ds (%d in a row, then one each %s)", id, secs, auth.FailureBurst, auth.FailureInterval)})
			return
		}
	}
	if reason != "" {
		h.Set("WWW-Authenticate", basicChallenge)
		fail(http.StatusUnauthorized, "invalid_client", reason)
		return
	}
	var tok string
	if open {
		tok, err = s.access.IssueFor(s.issuer(r), id, scope, s.authority.OpenClientNamespace(id, secret))
	} else {
		tok, err = s.access.IssueFor(s.issuer(r), id, scope, "")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if open {
		s.log.InfoContext(r.Context(), "access token for a client no configuration names (open sandbox)",
			slog.String("request_id", requestID(r)), slog.String("client_id", id))
	}
	respond.JSON(w, http.StatusOK, tokenResponse{AccessToken: tok, TokenType: "Bearer",
		ExpiresIn: int64(s.access.Lifetime().Seconds()), Scope: scope})
}

// basicChallenge is the token endpoint's WWW-Authenticate: the client
// authenticates with HTTP Basic.
const basicChallenge = `Basic realm="3ds-sandbox", charset="UTF-8"`

// errUnreadableBasic is an Authorization header the token endpoint cannot
// read as HTTP Basic.
var errUnreadableBasic = errors.New(`the Authorization header is not HTTP Basic with a Base64 "id:secret", each URL-encoded`)

// clientCredentials reads the client's id and secret from the Basic
// header (each URL-encoded, RFC 6749 2.3.1) or the form; both at once is
// refused, as the RFC says. A header that is not readable Basic is
// errUnreadableBasic.
func clientCredentials(r *http.Request) (id, secret string, err error) {
	hid, hsecret, basic := r.BasicAuth()
	fid, fsecret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	switch {
	case !basic && len(r.Header["Authorization"]) > 0:
		return "", "", errUnreadableBasic
	case basic && fsecret != "":
		return "", "", errors.New("authenticate the client once: the Authorization header or client_secret, not both")
	case basic:
		if id, err = url.QueryUnescape(hid); err == nil {
			secret, err = url.QueryUnescape(hsecret)
		}
		if err != nil {
			return "", "", fmt.Errorf("%w: its id or secret is not URL-encoded", errUnreadableBasic)
		}
		if fid != "" && fid != id {
			return "", "", errors.New("client_id differs from the Authorization header's")
		}
		return id, secret, nil
	}
	return fid, fsecret, nil
}

// clientAllowed says whether the client may have a token: a configured
// merchant with its secret, or in the open default any client id with a
// secret (open). reason is the error_description of a refusal; wrong
// marks a secret checked against a configured merchant's and found
// wrong (or an id no configuration names), which the caller counts.
func (s *Server) clientAllowed(id, secret string) (open bool, reason string, wrong bool) {
	switch {
	case id == "" || secret == "":
		return false, "the client id and secret are required (HTTP Basic or client_id and client_secret)", false
	case !auth.ValidClientID(id):
		return false, "the client id must be 1 to 64 letters, digits, '.', '_' or '-'", false
	case s.cfg.Merchants.Configured():
		if !s.cfg.Merchants.Authenticate(id, secret) {
			return false, "unknown client or wrong secret", true
		}
		return false, "", false
	case s.cfg.Tokens.Required():
		return false, "this sandbox has no OAuth clients (--merchants): use a configured bearer token", false
	}
	return true, "", false
}

// accessTokenNote is what an API call made with an open access token
// says in its events.
func accessTokenNote(client string) string {
	return "bearer token issued to OAuth client " + client + ", which no configuration names (open sandbox)"
}

// bearerChallenge is the WWW-Authenticate of a refused access token
// (RFC 6750, 3): the error and its description, quotes left out.
func bearerChallenge(description string) string {
	return `Bearer realm="3ds-sandbox", error="invalid_token", error_description="` + strings.ReplaceAll(description, `"`, "'") + `"`
}
