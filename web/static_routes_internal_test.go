package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
)

// TestStaticRoutesAnswerAsTheRouter builds a router with routes that
// overlap in every way the table must respect, and checks that each
// request reaches the handler the router alone would choose.
func TestStaticRoutesAnswerAsTheRouter(t *testing.T) {
	t.Parallel()
	named := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("X-Handler", name) })
	}
	root := mux.NewRouter()
	root.SkipClean(true)
	root.NotFoundHandler = named("not found")
	baked := routeSet{}
	r := routeGroup{r: root.PathPrefix("/3ds").Subrouter(), baked: baked}
	r.Handle("/authentication/brw", named("lookup")).Methods(http.MethodPost)
	r.Handle("/authentication/brw", named("lookup-get")).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/authentication/brw", named("shadowed")).Methods(http.MethodPost) // the first wins
	r.Handle("/challenge/{id}", named("challenge")).Methods(http.MethodPost)
	r.Handle("/challenge/pass", named("after a variable")).Methods(http.MethodPost) // the variable route wins
	r.Handle("/enquiry/", named("enquiry")).Methods(http.MethodPost)
	r.Handle("/schema.json", named("dotted")).Methods(http.MethodGet)
	r.r.PathPrefix("/docs/").Handler(named("docs"))
	routeGroup{r: root, baked: baked}.Handle("/healthz", named("health")).Methods(http.MethodGet)
	// A route of a router with Use middleware: its handler lacks it.
	used := root.PathPrefix("/console").Subrouter()
	used.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Protected", "yes")
			next.ServeHTTP(w, r)
		})
	})
	used.Handle("/login", named("login")).Methods(http.MethodGet)

	table := newStaticRoutes(root, baked)
	if got := len(table.byPath); got != 3 {
		t.Errorf("the table holds %d paths, want 3 (lookup, enquiry, health): %v", got, table.byPath)
	}
	for _, req := range []struct{ method, path string }{
		{"POST", "/3ds/authentication/brw"}, {"GET", "/3ds/authentication/brw"}, {"HEAD", "/3ds/authentication/brw"},
		{"PUT", "/3ds/authentication/brw"}, {"POST", "/3ds/authentication/brw/"}, {"POST", "/authentication/brw"},
		{"POST", "/3ds/challenge/pass"}, {"POST", "/3ds/challenge/other"}, {"POST", "/3ds/enquiry/"}, {"POST", "/3ds/enquiry"},
		{"POST", "/3ds//enquiry/"}, {"GET", "/3ds/schema.json"}, {"GET", "/3ds/schemaxjson"}, {"GET", "/3ds/docs/"},
		{"GET", "/healthz"}, {"POST", "/healthz"}, {"GET", "/HEALTHZ"}, {"GET", "/console/login"},
	} {
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		root.ServeHTTP(want, httptest.NewRequest(req.method, req.path, nil))
		table.ServeHTTP(got, httptest.NewRequest(req.method, req.path, nil))
		if got.Code != want.Code || got.Header().Get("X-Handler") != want.Header().Get("X-Handler") ||
			got.Header().Get("X-Protected") != want.Header().Get("X-Protected") {
			t.Errorf("%s %s: the table answered %d %q, the router %d %q", req.method, req.path,
				got.Code, got.Header().Get("X-Handler"), want.Code, want.Header().Get("X-Handler"))
		}
	}
}
