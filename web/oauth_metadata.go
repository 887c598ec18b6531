package web

import (
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The identity server's metadata: OpenID Connect Discovery 1.0 and, with
// the same members, RFC 8414's authorization server metadata. The sandbox
// grants client credentials only, yet both documents require what serves
// a person at a login page: an authorization endpoint (it answers
// unauthorized_client to every request: no client may use the
// authorization-code flow here), response types (code, the one a client
// could name) and, for OpenID Connect, the algorithms of ID tokens (none
// is ever issued; the access tokens are HS256, which is what is named).

// issuer is the OAuth issuer r reached: the configured public URL, or
// without one the URL r came to (IssuerFromRequest).
func (s *Server) issuer(r *http.Request) string {
	if s.cfg.IssuerFromRequest {
		return requestBase(r, s.cfg.BasePath)
	}
	return s.access.Issuer()
}

// oauthBase is the base URL of the identity server's endpoints for r.
func (s *Server) oauthBase(r *http.Request) string {
	if s.cfg.IssuerFromRequest || s.cfg.PublicURL == "" {
		return requestBase(r, s.cfg.BasePath)
	}
	return s.cfg.PublicURL
}

// requestBase is the URL r reached, down to the base path: its scheme
// (https behind the sandbox's own TLS), Host and the base path.
func requestBase(r *http.Request, basePath string) string {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + r.Host + basePath
}

// serverMetadata is what both metadata documents say.
func (s *Server) serverMetadata(r *http.Request) map[string]any {
	base := s.oauthBase(r)
	return map[string]any{
		"issuer":                                s.issuer(r),
		"authorization_endpoint":                base + PathAuthorize,
		"token_endpoint":                        base + PathToken,
		"jwks_uri":                              base + PathJWKS,
		"grant_types_supported":                 []string{"client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{ScopeAPI},
		"response_types_supported":              []string{"code"},
		"service_documentation":                 base + "/docs/oauth-callbacks",
	}
}

// handleDiscovery serves GET {base}/.well-known/openid-configuration.
func (s *Server) handleDiscovery(w http.ResponseWriter, r *http.Request) {
	m := s.serverMetadata(r)
	m["subject_types_supported"] = []string{"public"}
	m["id_token_signing_alg_values_supported"] = []string{jws.HS256}
	m["claims_supported"] = []string{"sub", "client_id", "scope"}
	w.Header().Set("Cache-Control", "public, max-age=300")
	respond.JSON(w, http.StatusOK, m)
}

// handleOAuthMetadata serves GET {base}/.well-known/oauth-authorization-server
// (RFC 8414).
func (s *Server) handleOAuthMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	respond.JSON(w, http.StatusOK, s.serverMetadata(r))
}

// handleJWKS serves the published keys: none, since the access tokens
// are signed with a symmetric key that only the sandbox holds.
func (s *Server) handleJWKS(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, map[string]any{"keys": []any{}})
}

// handleAuthorize serves {base}/connect/authorize: the authorization
// code flow is not emulated, so no client may use it (RFC 6749 4.1.2.1:
// with no redirection URI registered, the error is shown, not
// redirected).
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusBadRequest, tokenError{Error: "unauthorized_client",
		Description: "this sandbox grants client_credentials only, at the token endpoint: the authorization-code flow is not emulated"})
}
