package web_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/web/console"
)

// TestLandingPage is the front door: GET {base}/ is a page that leads to
// the console, the demo, the OpenAPI document, the scenarios and the
// docs, links every page of the docs, and lists the test cards by pack, the sandbox's own first; it stays open under
// --console-auth and scrolls its tables rather than the page.
func TestLandingPage(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "/3ds"} {
		t.Run("base "+base, func(t *testing.T) {
			e := newConsoleEnv(t, consoleOptions{basePath: base, consoleAuth: "qa:secret"})
			b := e.browser()
			p := b.get("/")
			if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("GET %s/: HTTP %d %s\n%s", base, p.Status, p.Header.Get("Content-Type"), p.Raw)
			}
			if got := p.Doc.Find("h1").Text(); got != "3-D Secure sandbox" {
				t.Errorf("h1 = %q", got)
			}
			var hrefs []string
			p.Doc.Find("#links a").Each(func(_ int, a *goquery.Selection) { hrefs = append(hrefs, a.AttrOr("href", "")) })
			for _, want := range []string{base + "/console/", base + "/console/demo", base + "/openapi.yaml", base + "/scenarios", base + "/docs/"} {
				if !slices.Contains(hrefs, want) {
					t.Errorf("the page does not link %s; links: %v", want, hrefs)
				}
			}
			var docs []string
			p.Doc.Find("#docs a").Each(func(_ int, a *goquery.Selection) { docs = append(docs, a.AttrOr("href", "")) })
			for _, want := range []string{base + "/docs/", base + "/docs/test-cards", base + "/docs/configuration", base + "/docs/spec-choices"} {
				if !slices.Contains(docs, want) {
					t.Errorf("the page does not list the docs page %s; it lists %v", want, docs)
				}
			}
			var packs []string
			p.Doc.Find("details.pack").Each(func(_ int, d *goquery.Selection) { packs = append(packs, d.AttrOr("data-pack", "")) })
			if !slices.Equal(packs, []string{"defaults", "cardinal", "reasons"}) {
				t.Errorf("packs in order %v, want defaults, cardinal, reasons", packs)
			}
			if _, open := p.Doc.Find("details.pack").First().Attr("open"); !open {
				t.Error("the sandbox's own cards are not shown open")
			}
			if p.Doc.Find(`code.num:contains("`+e.Frictionless+`")`).Length() == 0 {
				t.Errorf("the page does not list the card %s", e.Frictionless)
			}
			if got, want := p.Doc.Find("table").Length(), p.Doc.Find(".table-scroll > table").Length(); got == 0 || got != want {
				t.Errorf("%d tables, %d in a .table-scroll wrapper: every table must scroll sideways on its own", got, want)
			}
			css := p.Doc.Find("style").Text()
			for _, rule := range []string{".table-scroll{overflow-x:auto", "pre.cmd{", "overflow-x:auto"} {
				if !strings.Contains(css, rule) {
					t.Errorf("the stylesheet lacks %q", rule)
				}
			}
			nonce := p.Doc.Find("style").AttrOr("nonce", "")
			if csp := p.Header.Get("Content-Security-Policy"); nonce == "" || !strings.Contains(csp, "'nonce-"+nonce+"'") {
				t.Errorf("style nonce %q not in the CSP %q", nonce, csp)
			}
			if got := p.Doc.Find("pre.cmd").Text(); !strings.Contains(got, e.URL+"/authentication/brw") || !strings.Contains(got, e.URL+"/examples/lookup.json") {
				t.Errorf("the example command does not send this sandbox's sample to it (%s): %s", e.URL, got)
			}
			if p.Header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("X-Frame-Options = %q", p.Header.Get("X-Frame-Options"))
			}
			if c := b.get("/console/"); c.Status != http.StatusUnauthorized {
				t.Errorf("the console under --console-auth: HTTP %d, want 401", c.Status)
			}

			head, err := http.NewRequest(http.MethodHead, e.URL+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			h := b.do(head)
			if h.Status != http.StatusOK || h.Raw != "" || h.Header.Get("Content-Type") != p.Header.Get("Content-Type") {
				t.Errorf("HEAD: HTTP %d, Content-Type %q, body %d bytes", h.Status, h.Header.Get("Content-Type"), len(h.Raw))
			}

			if base != "" {
				bare, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(e.URL, base)+base, nil)
				if err != nil {
					t.Fatal(err)
				}
				if r := b.do(bare); r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != base+"/" {
					t.Errorf("GET %s: HTTP %d to %q, want 301 to %s/", base, r.Status, r.Header.Get("Location"), base)
				}
			}
		})
	}
}

// TestLandingIndex is the front door asked for JSON: the same links, as
// absolute URLs, the pages of the docs with theirs, and the catalogue.
func TestLandingIndex(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{basePath: "/3ds"})
	req, err := http.NewRequest(http.MethodGet, e.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	p := e.browser().do(req)
	if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("HTTP %d %s", p.Status, p.Header.Get("Content-Type"))
	}
	var idx console.LandingIndex
	if err := json.Unmarshal([]byte(p.Raw), &idx); err != nil {
		t.Fatal(err)
	}
	hrefs := map[string]string{}
	for _, l := range idx.Links {
		hrefs[l.Name] = l.Href
	}
	for name, want := range map[string]string{"Console": "/console/", "Demo checkout": "/console/demo", "OpenAPI document": "/openapi.yaml", "Sample requests": "/examples/"} {
		if hrefs[name] != e.URL+want {
			t.Errorf("link %q = %q, want %q", name, hrefs[name], e.URL+want)
		}
	}
	if hrefs["Docs"] != e.URL+"/docs/" {
		t.Errorf("link Docs = %q, want %q", hrefs["Docs"], e.URL+"/docs/")
	}
	docs := map[string]console.LandingDoc{}
	for _, d := range idx.Docs {
		docs[d.Name] = d
	}
	for name, want := range map[string]console.LandingDoc{
		"index":         {Name: "index", Title: "3-D Secure sandbox emulator", URL: e.URL + "/docs/"},
		"contents":      {Name: "contents", Title: "Documentation", URL: e.URL + "/docs/contents"},
		"configuration": {Name: "configuration", Title: "Configuration", URL: e.URL + "/docs/configuration"},
		"spec-choices":  {Name: "spec-choices", Title: "Where the spec is silent: our choices", URL: e.URL + "/docs/spec-choices"},
	} {
		if docs[name] != want {
			t.Errorf("docs page %s = %+v, want %+v", name, docs[name], want)
		}
	}
	if len(idx.Docs) == 0 || idx.Docs[0].Name != "index" {
		t.Errorf("docs %+v: want the front page first", idx.Docs)
	}
	if len(idx.Cards) == 0 || idx.Cards[0].Pack == "" {
		t.Errorf("cards: %d, the first without a pack: %+v", len(idx.Cards), idx.Cards)
	}
	if p.Header.Get("Vary") != "Accept" {
		t.Errorf("Vary = %q, want Accept", p.Header.Get("Vary"))
	}
}

// TestConsoleCardFilters groups the console's cards by pack, the
// sandbox's own first, and filters them by scheme and outcome.
func TestConsoleCardFilters(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	all := b.get("/console/")
	var packs []string
	all.Doc.Find("h2.pack").Each(func(_ int, h *goquery.Selection) { packs = append(packs, h.AttrOr("data-pack", "")) })
	if !slices.Equal(packs, []string{"defaults", "cardinal", "reasons"}) {
		t.Errorf("pack headings %v, want defaults, cardinal, reasons", packs)
	}
	tests := []struct{ query, scheme, outcome string }{
		{"scheme=VISA", "VISA", ""},
		{"outcome=N", "", "N"},
		{"scheme=MASTERCARD&outcome=challenge", "MASTERCARD", "challenge"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := b.get("/console/?" + tt.query)
			rows := p.Doc.Find("tr[data-search]")
			if rows.Length() == 0 || rows.Length() >= all.Doc.Find("tr[data-search]").Length() {
				t.Fatalf("%d rows of %d", rows.Length(), all.Doc.Find("tr[data-search]").Length())
			}
			rows.Each(func(_ int, r *goquery.Selection) {
				if tt.scheme != "" && r.AttrOr("data-scheme", "") != tt.scheme || tt.outcome != "" && r.AttrOr("data-outcome", "") != tt.outcome {
					t.Errorf("row %s: scheme %q outcome %q", r.AttrOr("data-scenario", ""), r.AttrOr("data-scheme", ""), r.AttrOr("data-outcome", ""))
				}
			})
			if tt.scheme != "" && p.Doc.Find(`#scheme option[selected]`).Text() != tt.scheme {
				t.Errorf("the scheme filter does not show %s selected", tt.scheme)
			}
		})
	}
}
