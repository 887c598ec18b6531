package web

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// staticRoutes answers the requests of routes whose path holds no
// variable straight from a table, and leaves the others to the router.
// gorilla/mux tries its routes in order, matching each one's regular
// expression, and gives every request it serves two new contexts and a
// map of variables: on the API's hot path, more than its own work.
// A route goes into the table only when its handler holds all its
// middleware (a routeGroup registered it: the router's Use middleware is
// added at match time) and the router itself chooses it for its path and
// method, so the table answers exactly as the router would.
type staticRoutes struct {
	byPath map[string]map[string]http.Handler // path, then method
	router http.Handler
}

// newStaticRoutes tabulates the static routes of root among baked.
func newStaticRoutes(root *mux.Router, baked routeSet) *staticRoutes {
	t := &staticRoutes{byPath: map[string]map[string]http.Handler{}, router: root}
	_ = root.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		re, err := route.GetPathRegexp()
		if err != nil || !baked[route] || route.GetHandler() == nil {
			return nil
		}
		path, ok := staticPath(re)
		if !ok {
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil {
			return nil
		}
		for _, m := range methods {
			var match mux.RouteMatch
			req, err := http.NewRequest(m, path, nil)
			if err != nil || !root.Match(req, &match) || match.Route != route || len(match.Vars) > 0 {
				continue // another route wins this path and method
			}
			if t.byPath[path] == nil {
				t.byPath[path] = map[string]http.Handler{}
			}
			t.byPath[path][m] = route.GetHandler()
		}
		return nil
	})
	return t
}

// staticPath returns the path a route's expression matches when it
// matches one path only: "^/enquiry/$" gives "/enquiry/".
func staticPath(re string) (string, bool) {
	if !strings.HasPrefix(re, "^") || !strings.HasSuffix(re, "$") {
		return "", false // a prefix, or something else
	}
	p := re[1 : len(re)-1]
	if p == "" || p[0] != '/' || strings.ContainsAny(p, `\.+*?()|[]{}^$`) {
		return "", false
	}
	return p, true
}

func (t *staticRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := t.byPath[r.URL.Path][r.Method]; ok {
		h.ServeHTTP(w, r)
		return
	}
	t.router.ServeHTTP(w, r)
}
