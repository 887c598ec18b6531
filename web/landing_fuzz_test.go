package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzFrontDoor sends arbitrary Accept headers to the front door and
// arbitrary filters to the cards page: neither may fail, and the front
// door answers either its page or a JSON index that parses.
func FuzzFrontDoor(f *testing.F) {
	e := newEnv(f)
	for _, s := range []string{"", "application/json", "text/html,application/json;q=0.9", "application/json;q=0", "*/*", ";;,", "application/json;q=x", "\xff"} {
		f.Add(s, "VISA", "Y")
	}
	f.Add("text/html", "<script>", "challenge")
	handler := e.Server.Config.Handler
	f.Fuzz(func(t *testing.T, accept, scheme, outcome string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET / with Accept %q: HTTP %d", accept, rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); strings.HasPrefix(ct, "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET / with Accept %q: invalid JSON", accept)
		} else if !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/html") {
			t.Fatalf("GET / with Accept %q: Content-Type %q", accept, ct)
		}
		q := url.Values{"scheme": {scheme}, "outcome": {outcome}, "q": {scheme + " " + outcome}}
		req = httptest.NewRequest(http.MethodGet, "/console/?"+q.Encode(), nil)
		rec = httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("cards page with %v: HTTP %d", q, rec.Code)
		}
	})
}
