package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestDocsAreServed: the sandbox serves its documentation at {base}/docs/,
// open like the front door, with the console's headers, and nothing
// outside it through a path that climbs out.
func TestDocsAreServed(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "/3ds"} {
		t.Run("base "+base, func(t *testing.T) {
			e := newConsoleEnv(t, consoleOptions{basePath: base, consoleAuth: "qa:secret"})
			b := e.browser()
			root := strings.TrimSuffix(e.URL, base)
			raw := func(method, path string) page {
				t.Helper()
				req, err := http.NewRequest(method, root, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.URL.Opaque = path // sent as written, dots and escapes included
				return b.do(req)
			}

			if r := raw(http.MethodGet, base+"/docs"); r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != base+"/docs/" {
				t.Errorf("GET %s/docs: HTTP %d to %q, want 301 to %s/docs/", base, r.Status, r.Header.Get("Location"), base)
			}
			index := b.get("/docs/")
			if index.Status != http.StatusOK || index.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("GET %s/docs/ under --console-auth: HTTP %d %s", base, index.Status, index.Header.Get("Content-Type"))
			}
			if got := index.Doc.Find("article h1").Text(); got != "3-D Secure sandbox emulator" {
				t.Errorf("the front page's heading is %q, want the README's", got)
			}
			if r := b.get("/docs/contents"); r.Status != http.StatusOK || r.Doc.Find("article h1").Text() != "Documentation" {
				t.Errorf("GET %s/docs/contents: HTTP %d, want the index of the pages", base, r.Status)
			}
			for h, want := range map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff"} {
				if got := index.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			csp := index.Header.Get("Content-Security-Policy")
			nonce := index.Doc.Find("style").AttrOr("nonce", "")
			if nonce == "" || !strings.HasPrefix(csp, "default-src 'none'; style-src 'nonce-"+nonce+"'") || !strings.Contains(csp, "img-src 'self' data:") {
				t.Errorf("Content-Security-Policy %q, style nonce %q", csp, nonce)
			}
			if href := index.Doc.Find(`article a:contains("Configuration")`).AttrOr("href", ""); href != base+"/docs/configuration" {
				t.Errorf("the index links Configuration at %q, want %s/docs/configuration", href, base)
			}
			if r := b.get("/docs/configuration"); r.Status != http.StatusOK || !strings.Contains(r.Raw, "THREEDS_PUBLIC_URL") {
				t.Errorf("GET %s/docs/configuration: HTTP %d", base, r.Status)
			}
			if r := b.get("/docs/img/landing.png"); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/png" {
				t.Errorf("GET %s/docs/img/landing.png: HTTP %d %s", base, r.Status, r.Header.Get("Content-Type"))
			}
			if r := raw(http.MethodHead, base+"/docs/errors"); r.Status != http.StatusOK || r.Raw != "" || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("HEAD %s/docs/errors: HTTP %d %s, %d bytes", base, r.Status, r.Header.Get("Content-Type"), len(r.Raw))
			}
			if r := raw(http.MethodPost, base+"/docs/"); r.Status != http.StatusMethodNotAllowed {
				t.Errorf("POST %s/docs/: HTTP %d, want 405", base, r.Status)
			}
			for _, path := range []string{"/docs/nope", "/docs/../go.mod", "/docs/%2e%2e/", "/docs/%2e%2e/console/", "/docs/../console/", "/docs/img/../../README.md"} {
				r := raw(http.MethodGet, base+path)
				if r.Status != http.StatusNotFound || r.Doc.Find("article h1").Text() != "No such page" {
					t.Errorf("GET %s%s: HTTP %d, want the docs' 404 page\n%.200s", base, path, r.Status, r.Raw)
				}
			}
		})
	}
}
