package web

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// exampleRoutes serves the sample bodies on r: the index at /examples/
// and each sample by its name; any other name is an unknown route.
func (s *Server) exampleRoutes(r routeGroup) {
	var names []string
	for _, e := range examples.All() {
		names = append(names, regexp.QuoteMeta(e.Name))
	}
	r.HandleFunc("/examples/", s.handleExamples).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/examples/{name:"+strings.Join(names, "|")+"}", s.handleExample).Methods(http.MethodGet, http.MethodHead)
}

// exampleEntry is one sample body in the index of {base}/examples/.
type exampleEntry struct {
	examples.Example
	// URL is where the sample is served; Operation where to send it.
	URL       string `json:"url"`
	Operation string `json:"operation"`
}

// handleExamples serves GET {base}/examples/: the index of the sample
// request bodies, one per flow, with where each is served and where to
// send it.
func (s *Server) handleExamples(w http.ResponseWriter, r *http.Request) {
	all := examples.All()
	list := make([]exampleEntry, len(all))
	for i, e := range all {
		list[i] = exampleEntry{Example: e, URL: s.cfg.PublicURL + "/examples/" + e.Name, Operation: s.cfg.PublicURL + e.Path}
	}
	respond.JSON(w, http.StatusOK, map[string]any{"examples": list})
}

// handleExample serves GET {base}/examples/{name}: one sample body as it
// is, ready to be sent (curl -s $BASE/examples/lookup.json | curl ... -d @-).
func (s *Server) handleExample(w http.ResponseWriter, r *http.Request) {
	e, _ := examples.Find(mux.Vars(r)["name"]) // the route lets known names only
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(e.Body())
}
