package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// namespaceOf returns the namespace set by requireToken.
func namespaceOf(ctx context.Context) string { return infoOf(ctx).namespace }

// requireToken lets through requests with an accepted bearer token (a
// static one, or an access token of the token endpoint) and records its
// namespace; others get 401 with the error body. A refused access token
// (expired, malformed, foreign) says so in WWW-Authenticate, as RFC 6750
// has it: error="invalid_token".
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := auth.BearerToken(header(r.Header, "Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox"`)
			s.writeError(w, r, emv.NewError(emv.CodeUnauthorized, emv.EMVAccessDenied,
				`the Authorization header must be "Bearer <token>"`, "Authorization"))
			return
		}
		id, err := s.authority.Identify(tok)
		if err != nil {
			s.refuseToken(w, r, err)
			return
		}
		info := infoOf(r.Context())
		info.namespace = id.Namespace
		if id.Open {
			info.note, info.captures = accessTokenNote(id.Client), auth.ClientNamespace(id.Client)
		}
		if info.id == "" { // not behind observe (tests of the handler alone)
			r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		}
		next.ServeHTTP(w, r)
	})
}

// refuseToken answers a request whose bearer token Identify refused.
func (s *Server) refuseToken(w http.ResponseWriter, r *http.Request, err error) {
	if ae, ok := errors.AsType[*auth.AccessError](err); ok {
		w.Header().Set("WWW-Authenticate", bearerChallenge(ae.Error()))
		s.writeError(w, r, emv.NewError(emv.CodeAccessToken, emv.EMVAccessDenied,
			ae.Error()+": get a new one at the token endpoint", "Authorization"))
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox", error="invalid_token"`)
	s.writeError(w, r, emv.NewError(emv.CodeTokenRejected, emv.EMVAccessDenied,
		"the bearer token is not accepted by this sandbox", "Authorization"))
}
