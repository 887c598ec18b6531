package web

import (
	"context"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// namespaceOf returns the namespace set by requireToken.
func namespaceOf(ctx context.Context) string { return infoOf(ctx).namespace }

// requireToken lets through requests with an accepted bearer token and
// records its namespace; others get 401 with the error body.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := auth.BearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox"`)
			s.writeError(w, r, emulator.NewError(emulator.CodeUnauthorized, emulator.EMVAccessDenied,
				`the Authorization header must be "Bearer <token>"`, "Authorization"))
			return
		}
		if !s.tokens.Accept(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="3ds-sandbox", error="invalid_token"`)
			s.writeError(w, r, emulator.NewError(emulator.CodeTokenRejected, emulator.EMVAccessDenied,
				"the bearer token is not accepted by this sandbox", "Authorization"))
			return
		}
		info := infoOf(r.Context())
		info.namespace = auth.Namespace(tok)
		if info.id == "" { // not behind observe (tests of the handler alone)
			r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		}
		next.ServeHTTP(w, r)
	})
}
