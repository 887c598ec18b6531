package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestOrigins: the header matrix of a state-changing request. A
// browser's post from one of the sandbox's own pages passes (Sec-Fetch-
// Site same-origin or none; without it, an Origin naming the host
// reached or the public URL); one from another site's page is refused,
// same-site included; a request with neither header is no browser's and
// passes; the safe methods always pass.
func TestOrigins(t *testing.T) {
	o, err := auth.NewOrigins("https://sandbox.example/3ds")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, site, origin, host string
		refused                          bool
	}{
		{"same origin", "POST", "same-origin", "", "", false},
		{"typed by the user", "POST", "none", "", "", false},
		{"same site, another origin", "POST", "same-site", "https://other.sandbox.example", "", true},
		{"cross site", "POST", "cross-site", "https://evil.example", "", true},
		{"cross site, no Origin", "POST", "cross-site", "", "", true},
		{"no Sec-Fetch-Site, Origin of the host reached", "POST", "", "http://sandbox.test:8080", "sandbox.test:8080", false},
		{"no Sec-Fetch-Site, Origin of the public URL behind a proxy", "POST", "", "https://sandbox.example", "10.0.0.5:8080", false},
		{"no Sec-Fetch-Site, another Origin", "POST", "", "http://evil.test:8080", "sandbox.test:8080", true},
		{"no Sec-Fetch-Site, the same host on another port", "POST", "", "http://sandbox.test:9999", "sandbox.test:8080", true},
		{"no Sec-Fetch-Site, a null Origin", "POST", "", "null", "sandbox.test:8080", true},
		{"neither header: no browser", "POST", "", "", "sandbox.test:8080", false},
		{"a GET from another site", "GET", "cross-site", "https://evil.example", "", false},
		{"a DELETE from another site", "DELETE", "cross-site", "https://evil.example", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/console/login", nil)
			if tc.host != "" {
				r.Host = tc.host
			}
			for k, v := range map[string]string{"Sec-Fetch-Site": tc.site, "Origin": tc.origin} {
				if v != "" {
					r.Header.Set(k, v)
				}
			}
			err := o.Check(r)
			if refused := err != nil; refused != tc.refused || refused && !errors.Is(err, auth.ErrCrossSite) {
				t.Errorf("Check = %v, want refused %v", err, tc.refused)
			}
		})
	}
	if none, err := auth.NewOrigins(""); err != nil || none.Check(httptest.NewRequest(http.MethodPost, "/", nil)) != nil {
		t.Errorf("without a public URL: %v", err)
	}
}
