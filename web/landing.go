package web

import (
	"mime"
	"net/http"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// ReadmeSections are the sections of README.md the front door points to,
// in the README's order; a test keeps them in step with its headings.
var ReadmeSections = []string{
	"Quick start", "Endpoints", "Test cards", "The challenge flow",
	"Device data collection and the 3DS Method", "Console",
	"Scenario files", "Configuration", "Running several replicas", "Errors", "OpenAPI",
	"Reliability and security", "Performance",
	"Where the spec is silent: our choices", "Development",
}

// LandingIndex is the JSON the front door answers to Accept:
// application/json: the same links and cards as the page.
type LandingIndex struct {
	Name   string                  `json:"name"`
	Links  []templates.LandingLink `json:"links"`
	Readme LandingReadme           `json:"readme"`
	Cards  []CatalogueEntry        `json:"cards"`
}

// LandingReadme tells where the documentation is.
type LandingReadme struct {
	File     string   `json:"file"`
	Sections []string `json:"sections"`
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
		writeJSON(w, http.StatusOK, LandingIndex{
			Name:   "3-D Secure sandbox",
			Links:  abs,
			Readme: LandingReadme{File: "README.md", Sections: ReadmeSections},
			Cards:  entries,
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
		Docs:      ReadmeSections,
		Packs:     packs,
		// The sentence above the cards counts those whose outcome
		// depends on another field of the request as well.
		Conditional: len(newCardConditions(entries)),
	})
}

// landingLinks are the places the front door leads to, as paths.
func (c *console) landingLinks() []templates.LandingLink {
	return []templates.LandingLink{
		{Name: "Console", Href: c.base + "/console/", About: "The test cards, filtered by scheme and outcome, and your transactions live."},
		{Name: "Demo checkout", Href: c.base + "/console/demo", About: "A merchant checkout running the lookup, the challenge and the enquiry in your browser."},
		{Name: "OpenAPI document", Href: c.base + "/openapi.yaml", About: "The API as OpenAPI 3.1 (also as JSON at openapi.json), with this sandbox as server."},
		{Name: "Scenarios (JSON)", Href: c.base + "/scenarios", About: "The active test cards and rules, as the API serves them."},
	}
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
