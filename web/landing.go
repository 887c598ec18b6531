package web

import (
	"mime"
	"net/http"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// LandingIndex is the JSON the front door answers to Accept:
// application/json: the same links, docs and cards as the page.
type LandingIndex struct {
	Name  string                  `json:"name"`
	Links []templates.LandingLink `json:"links"`
	Docs  []LandingDoc            `json:"docs"`
	Cards []CatalogueEntry        `json:"cards"`
}

// LandingDoc is one page of the documentation the sandbox serves.
type LandingDoc struct {
	// Name is the page's name ("index" for the index), Title its heading
	// and URL where browsers reach it.
	Name  string `json:"name"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// handleLanding serves GET {base}/: the front door, a page that says
// where to go and lists the test cards, or its JSON index. It is not
// behind --console-auth: it shows nothing /scenarios does not.
func (c *console) handleLanding(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	consoleHeaders(h)
	h.Set("Vary", "Accept")
	entries := Catalogue(c.s.cfg.Engine.Catalogue(), c.s.cfg.Engine.Schemes())
	links := c.landingLinks()
	if wantsJSONIndex(r.Header.Get("Accept")) {
		abs := make([]templates.LandingLink, len(links))
		for i, l := range links {
			l.Href = c.absolute(l.Href)
			abs[i] = l
		}
		var docs []LandingDoc
		for _, p := range c.s.docs.Pages() {
			docs = append(docs, LandingDoc{Name: p.Name, Title: p.Title, URL: c.absolute(p.Path)})
		}
		writeJSON(w, http.StatusOK, LandingIndex{
			Name:  "3-D Secure sandbox",
			Links: abs,
			Docs:  docs,
			Cards: entries,
		})
		return
	}
	groups, _ := cardGroups(entries, cardFilter{})
	var packs []templates.LandingPack
	for _, g := range groups {
		if len(packs) == 0 || packs[len(packs)-1].Pack != g.Pack {
			packs = append(packs, templates.LandingPack{Pack: g.Pack, Title: g.PackTitle})
		}
		p := &packs[len(packs)-1]
		p.Groups = append(p.Groups, g)
		p.Cards += len(g.Cards)
	}
	nonce := newNonce()
	c.render(w, r, http.StatusOK, templates.PageLanding, nonce, cspOptions{}, templates.Landing{
		Nonce:     nonce,
		Base:      c.base,
		PublicURL: c.absolute(""),
		Links:     links,
		Docs:      c.docsLinks(),
		Packs:     packs,
	})
}

// landingLinks are the places the front door leads to, as paths.
func (c *console) landingLinks() []templates.LandingLink {
	return []templates.LandingLink{
		{Name: "Console", Href: c.base + "/console/", About: "The test cards, filtered by scheme and outcome, and your transactions live."},
		{Name: "Demo checkout", Href: c.base + "/console/demo", About: "A merchant checkout running the lookup, the challenge and the enquiry in your browser."},
		{Name: "OpenAPI document", Href: c.base + "/openapi.yaml", About: "The API as OpenAPI 3.1 (also as JSON at openapi.json), with this sandbox as server."},
		{Name: "Scenarios (JSON)", Href: c.base + "/scenarios", About: "The active test cards and rules, as the API serves them."},
		{Name: "Docs", Href: c.base + "/docs/", About: "Every topic: test cards, challenges, scenarios, configuration, errors, deployment."},
	}
}

// docsLinks are the pages of the documentation, for the front door.
func (c *console) docsLinks() []templates.LandingLink {
	pages := c.s.docs.Pages()
	links := make([]templates.LandingLink, len(pages))
	for i, p := range pages {
		links[i] = templates.LandingLink{Name: p.Title, Href: p.Path}
	}
	return links
}

// absolute makes a path of this sandbox a URL browsers reach it at: the
// public URL already ends in the base path.
func (c *console) absolute(path string) string {
	pub := c.s.cfg.PublicURL
	if pub == "" {
		return path
	}
	return pub + strings.TrimPrefix(path, c.base)
}

// wantsJSONIndex reports whether an Accept header asks for JSON rather
// than a page: application/json ranked above text/html.
func wantsJSONIndex(accept string) bool {
	if prefersHTML(accept) {
		return false
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/json" && params["q"] != "0" {
			return true
		}
	}
	return false
}
