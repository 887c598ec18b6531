package docsite_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/docs"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/docsite"
)

// site serves the embedded docs under base, with the console's frame
// header, as the sandbox mounts them.
func site(t *testing.T, base string) (*docsite.Handler, *httptest.Server) {
	t.Helper()
	pages, err := templates.Parse()
	if err != nil {
		t.Fatal(err)
	}
	h, err := docsite.New(docs.FS(), docs.Front(), pages, base, func(h http.Header) { h.Set("X-Frame-Options", "DENY") })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

// reply is an answer of the test server.
type reply struct {
	status int
	header http.Header
	body   string
}

// get sends method to the path (as written: not cleaned) of srv.
func get(t *testing.T, srv *httptest.Server, method, path string) reply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = path // sent verbatim, dots and escapes included
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(body)}
}

// TestEveryPageRenders serves every page with its title, its headings'
// ids, its code blocks and tables focusable, the console's headers and a
// policy that runs no script.
func TestEveryPageRenders(t *testing.T) {
	for _, base := range []string{"", "/3ds"} {
		h, srv := site(t, base)
		if p := h.Pages(); len(p) < 10 || p[0].Path != base+"/docs/" || p[0].Title != "3-D Secure sandbox emulator" ||
			p[1].Path != base+"/docs/contents" || p[1].Title != "Documentation" {
			t.Fatalf("pages %+v: want the front page (the README) first, the index, then the others", h.Pages())
		}
		for _, p := range h.Pages() {
			t.Run(base+" "+p.Name, func(t *testing.T) {
				r := get(t, srv, http.MethodGet, p.Path)
				if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
					t.Fatalf("GET %s: HTTP %d %s\n%.300s", p.Path, r.status, r.header.Get("Content-Type"), r.body)
				}
				doc := parse(t, r.body)
				if got := doc.Find("article h1").First().Text(); got != p.Title {
					t.Errorf("first heading %q, want the title %q", got, p.Title)
				}
				if got := doc.Find("title").Text(); !strings.HasPrefix(got, p.Title) {
					t.Errorf("<title> %q, want it to start with %q", got, p.Title)
				}
				doc.Find("article h1, article h2, article h3, article h4").Each(func(_ int, s *goquery.Selection) {
					if s.AttrOr("id", "") == "" {
						t.Errorf("heading %q has no id", s.Text())
					}
				})
				if got := doc.Find(`.docs-nav a[aria-current="page"]`).AttrOr("href", ""); got != p.Path {
					t.Errorf("the navigation marks %q as current, want %q", got, p.Path)
				}
				checkPolicy(t, r, doc)
				// A code block or a table scrolls sideways when wider than
				// the page: it must take the keyboard's focus.
				doc.Find("article pre, article table").Each(func(_ int, s *goquery.Selection) {
					if s.AttrOr("tabindex", "") != "0" {
						t.Errorf("a <%s> without tabindex 0: the keyboard cannot scroll it", goquery.NodeName(s))
					}
				})
				if r.header.Get("X-Frame-Options") != "DENY" || r.header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("headers %v: want the console's", r.header)
				}
				head := get(t, srv, http.MethodHead, p.Path)
				if head.status != http.StatusOK || head.body != "" || head.header.Get("Content-Length") != r.header.Get("Content-Length") {
					t.Errorf("HEAD: HTTP %d, %d bytes, Content-Length %q (GET: %q)", head.status, len(head.body), head.header.Get("Content-Length"), r.header.Get("Content-Length"))
				}
			})
		}
	}
}

// checkPolicy wants a Content-Security-Policy at least as strict as the
// console's, whose nonce is the page's style element's.
func checkPolicy(t *testing.T, r reply, doc *goquery.Document) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	nonce := doc.Find("style").AttrOr("nonce", "")
	for _, want := range []string{"default-src 'none'", "style-src 'nonce-" + nonce + "'", "img-src 'self' data:", "frame-ancestors 'none'", "base-uri 'none'"} {
		if nonce == "" || !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q lets something run", csp)
	}
	if n := doc.Find("script").Length(); n != 0 {
		t.Errorf("%d script elements", n)
	}
}

// TestEveryLinkResolves follows every link and picture of every page that
// stays under /docs/: each answers 200, a picture as an image, and a
// link's fragment names an element of its page.
func TestEveryLinkResolves(t *testing.T) {
	for _, base := range []string{"", "/3ds"} {
		h, srv := site(t, base)
		ids := map[string]map[string]bool{}
		idsOf := func(path string) map[string]bool {
			if ids[path] == nil {
				ids[path] = map[string]bool{}
				parse(t, get(t, srv, http.MethodGet, path).body).Find("[id]").Each(func(_ int, s *goquery.Selection) {
					ids[path][s.AttrOr("id", "")] = true
				})
			}
			return ids[path]
		}
		checked := 0
		for _, p := range h.Pages() {
			doc := parse(t, get(t, srv, http.MethodGet, p.Path).body)
			doc.Find("article a[href], article img[src]").Each(func(_ int, s *goquery.Selection) {
				ref := s.AttrOr("href", s.AttrOr("src", ""))
				u, err := url.Parse(ref)
				if err != nil {
					t.Errorf("%s: link %q: %v", p.Name, ref, err)
					return
				}
				if u.Host != "" || u.Scheme != "" {
					if strings.Contains(u.Path, "/docs/") && u.Host != "github.com" {
						t.Errorf("%s: %q leaves the sandbox for a page it serves", p.Name, ref)
					}
					if served := strings.TrimPrefix(ref, docsite.Repository); served != ref &&
						(strings.HasPrefix(served, "README.md") || path.Dir(served) == "docs" && path.Ext(served) == ".md") {
						t.Errorf("%s: %q leaves the served docs for a page they serve", p.Name, ref)
					}
					return
				}
				target := u.Path
				if target == "" {
					target = p.Path
				}
				if !strings.HasPrefix(target, base+"/") {
					t.Errorf("%s: link %q misses the base path %q", p.Name, ref, base)
				}
				if !strings.HasPrefix(target, base+"/docs/") {
					return // another part of the sandbox: /scenarios/schema.json, /openapi.yaml
				}
				checked++
				r := get(t, srv, http.MethodGet, target)
				if r.status != http.StatusOK {
					t.Errorf("%s: %s answers HTTP %d", p.Name, target, r.status)
					return
				}
				if goquery.NodeName(s) == "img" {
					if ct := r.header.Get("Content-Type"); ct != "image/png" || !strings.HasPrefix(r.body, "\x89PNG\r\n") {
						t.Errorf("%s: picture %s: Content-Type %q", p.Name, target, ct)
					}
				}
				if u.Fragment != "" && !idsOf(target)[u.Fragment] {
					t.Errorf("%s: %s has no element #%s", p.Name, target, u.Fragment)
				}
			})
		}
		if checked < 50 {
			t.Errorf("%d links under /docs/ checked, want the pages' many", checked)
		}
	}
}

// TestLinksLeavingTheDocs go where the sandbox serves the file, or to
// the repository.
func TestLinksLeavingTheDocs(t *testing.T) {
	_, srv := site(t, "/3ds")
	hrefs := func(path string) []string {
		var out []string
		parse(t, get(t, srv, http.MethodGet, path).body).Find("article a").Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("href", ""))
		})
		return out
	}
	for page, want := range map[string]string{
		"/3ds/docs/scenarios":   "/3ds/scenarios/schema.json",
		"/3ds/docs/openapi":     "/3ds/openapi.yaml",
		"/3ds/docs/test-cards":  "/3ds/docs/#test-cards", // a section of the README: the front page's
		"/3ds/docs/contents":    "/3ds/docs/",            // "Start with the README"
		"/3ds/docs/":            "/3ds/docs/test-cards",
		"/3ds/docs/development": "/3ds/docs/",
		"/3ds/docs/deployment":  "/3ds/docs/compose.yaml",
	} {
		if got := hrefs(page); !contains(got, want) {
			t.Errorf("%s links %q, want among them %s", page, got, want)
		}
	}
	r := get(t, srv, http.MethodGet, "/3ds/docs/nginx.conf")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.Contains(r.body, "upstream sandbox") {
		t.Errorf("nginx.conf: HTTP %d %s", r.status, r.header.Get("Content-Type"))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestUnknownPages answer the 404 page, and so does any path that tries
// to leave the docs.
func TestUnknownPages(t *testing.T) {
	_, srv := site(t, "")
	for _, path := range []string{
		"/docs/nope", "/docs/../go.mod", "/docs/%2e%2e/", "/docs/%2e%2e/go.mod", "/docs/img/../../go.mod",
		"/docs/img/", "/docs/img", "/docs/docs.go", "/docs//etc/passwd", "/docs/index", "/docs/%2fetc%2fpasswd", "/other",
	} {
		r := get(t, srv, http.MethodGet, path)
		if r.status != http.StatusNotFound || !strings.Contains(r.body, "No such page") {
			t.Errorf("GET %s: HTTP %d, want the 404 page\n%.200s", path, r.status, r.body)
			continue
		}
		checkPolicy(t, r, parse(t, r.body))
		if head := get(t, srv, http.MethodHead, path); head.status != http.StatusNotFound || head.body != "" {
			t.Errorf("HEAD %s: HTTP %d, %d bytes", path, head.status, len(head.body))
		}
	}
}

// TestMarkdownNamesRedirect: a link copied from the repository, with its
// .md, leads to the served page.
func TestMarkdownNamesRedirect(t *testing.T) {
	_, srv := site(t, "/3ds")
	for path, want := range map[string]string{"/3ds/docs/configuration.md": "/3ds/docs/configuration", "/3ds/docs/README.md": "/3ds/docs/",
		"/3ds/docs/README": "/3ds/docs/"} {
		if r := get(t, srv, http.MethodGet, path); r.status != http.StatusMovedPermanently || r.header.Get("Location") != want {
			t.Errorf("GET %s: HTTP %d to %q, want 301 to %s", path, r.status, r.header.Get("Location"), want)
		}
	}
}

// TestNoRawHTML: markup written in a page is shown as text or left out,
// never run, and script URLs are dropped.
func TestNoRawHTML(t *testing.T) {
	files := fstest.MapFS{
		"README.md": {Data: []byte("# Index\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n" +
			"[click](javascript:alert(3)) and `<b>code</b>` and <i onclick=alert(4)>inline</i>\n\n![x](data:text/html,<script>alert(5)</script>)\n")},
	}
	pages, err := templates.Parse()
	if err != nil {
		t.Fatal(err)
	}
	h, err := docsite.New(files, nil, pages, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/docs/", nil))
	body := rec.Body.String()
	for _, bad := range []string{"<script>alert", "onerror", "onclick", "javascript:", "<i ", "data:text/html"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page carries %q:\n%s", bad, body)
		}
	}
	if !strings.Contains(body, "&lt;b&gt;code&lt;/b&gt;") {
		t.Errorf("a code span's markup is not shown as text:\n%s", body)
	}
}

// TestAnchor makes GitHub's heading ids.
func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Where the spec is silent: our choices":     "where-the-spec-is-silent-our-choices",
		"Device data collection and the 3DS Method": "device-data-collection-and-the-3ds-method",
		"Runtime scenarios (admin API)":             "runtime-scenarios-admin-api",
		"errorCode, HTTP status and EMV code":       "errorcode-http-status-and-emv-code",
		"The console's journal":                     "the-consoles-journal",
		"snake_case and --flags":                    "snake_case-and---flags",
		"Café à la carte":                           "café-à-la-carte",
	} {
		if got := docsite.Anchor(heading); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", heading, got, want)
		}
	}
	o := docsite.OutlineOf([]byte("# Title `x`\n\n## Same\n\n## Same\n\ntext [a](b.md#c) ![i](img/p.png)\n"))
	if o.Title != "Title x" || strings.Join(o.IDs, " ") != "title-x same same-1" || strings.Join(o.Links, " ") != "b.md#c" || strings.Join(o.Images, " ") != "img/p.png" {
		t.Errorf("outline %+v", o)
	}
}

func parse(t *testing.T, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
