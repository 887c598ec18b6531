package web_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIMethodNotAllowed: every path of the document answers 405 to
// a method it does not serve, as its operations' MethodNotAllowed says:
// the error body (or a page), and Allow naming the document's methods.
func TestOpenAPIMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := newContract(t, e)
	for path, item := range c.doc.Paths.Map() {
		ops := item.Operations()
		var allowed []string // HEAD aside: most GET routes answer it too
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if ops[m] != nil {
				allowed = append(allowed, m)
			}
		}
		for m, op := range ops {
			if op.Responses.Value("405") == nil {
				t.Errorf("%s %s lists no 405", m, path)
			}
		}
		other := http.MethodPatch
		if ops[other] != nil {
			t.Fatalf("%s serves PATCH: pick another method", path)
		}
		concrete := path
		for strings.Contains(concrete, "{") {
			i, j := strings.Index(concrete, "{"), strings.Index(concrete, "}")
			concrete = concrete[:i] + "8a880dc0-d2d2-4067-bcb1-b08d1690b26e" + concrete[j+1:]
		}
		x := api(other, concrete, nil)
		x.header.Set("Accept", "application/json")
		r := c.e.do(c.request(x))
		if r.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: HTTP %d, want 405", other, concrete, r.Status)
			continue
		}
		got := slices.DeleteFunc(strings.Split(r.Header.Get("Allow"), ", "), func(m string) bool { return m == http.MethodHead })
		slices.Sort(got)
		slices.Sort(allowed)
		if !slices.Equal(got, allowed) {
			t.Errorf("%s: Allow %v, the document %v", path, got, allowed)
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			c.validateSchema("ErrorBody", r)
			if r.Str("errorCode") != "RT05" {
				t.Errorf("%s %s: %s", other, concrete, r.Raw)
			}
		}
	}
}
