package web

import (
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/web/console"
)

// demoAPI serves the demo page's lookup and enquiry: the handler of the API
// operation, run in the namespace of the console session (or of DemoToken
// when no session is open and the sandbox accepts it), as a merchant's
// backend calls the API with its own token. No token reaches the
// browser. Only the
// console's own pages may call it: a cross-site request is refused, and
// the JSON content type the handlers require cannot be sent cross-origin
// without a preflight the sandbox does not answer.
func (s *Server) demoAPI(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		info.route = routeJSON // the API's answers, errors included
		if err := s.origins.Check(r); err != nil {
			s.writeError(w, r, emv.NewError(emv.CodeCrossSite, emv.EMVAccessDenied,
				"the demo's API is for the console's own pages: "+err.Error(), "Origin"))
			return
		}
		ns, ok, err := s.console.Session(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !ok {
			id, err := s.authority.Identify(console.DemoToken)
			if err != nil {
				s.writeError(w, r, emv.NewError(emv.CodeUnauthorized, emv.EMVAccessDenied,
					"log in to the console: the token demo is not accepted by this sandbox", "session"))
				return
			}
			ns = id.Namespace
		}
		info.namespace = ns
		next(w, r)
	}
}
