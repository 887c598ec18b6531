package console

import (
	"net/http"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// LandingIndex is the JSON the front door answers to Accept:
// application/json: the same links, docs and cards as the page.
type LandingIndex struct {
	Name  string                  `json:"name"`
	Links []templates.LandingLink `json:"links"`
	Docs  []LandingDoc            `json:"docs"`
	Cards []cards.Entry           `json:"cards"`
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
func (c *Console) handleLanding(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	Headers(h)
	h.Set("Vary", "Accept")
	entries := cards.List(c.cfg.Engine.Catalogue(), c.cfg.Engine.Schemes())
	links := c.landingLinks()
	if respond.WantsJSON(r.Header.Get("Accept")) {
		abs := make([]templates.LandingLink, len(links))
		for i, l := range links {
			l.Href = c.absolute(l.Href)
			abs[i] = l
		}
		var docs []LandingDoc
		for _, p := range c.cfg.Docs {
			docs = append(docs, LandingDoc{Name: p.Name, Title: p.Title, URL: c.absolute(p.Path)})
		}
		respond.JSON(w, http.StatusOK, LandingIndex{
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
	nonce := respond.Nonce()
	c.render(w, r, http.StatusOK, templates.PageLanding, nonce, cspOptions{}, templates.Landing{
		Nonce:     nonce,
		Base:      c.base,
		PublicURL: c.absolute(""),
		Links:     links,
		Docs:      c.docsLinks(),
		Packs:     packs,
		// The sentence above the cards counts those whose outcome
		// depends on another field of the request as well.
		Conditional: len(newCardConditions(entries)),
	})
}

// landingLinks are the places the front door leads to, as paths.
func (c *Console) landingLinks() []templates.LandingLink {
	return []templates.LandingLink{
		{Name: "Console", Href: c.base + "/console/", About: "The test cards, filtered by scheme and outcome, and your transactions live."},
		{Name: "Demo checkout", Href: c.base + "/console/demo", About: "A merchant checkout running the lookup, the challenge and the enquiry in your browser."},
		{Name: "OpenAPI document", Href: c.base + "/openapi.yaml", About: "The API as OpenAPI 3.1 (also as JSON at openapi.json), with this sandbox as server."},
		{Name: "Scenarios (JSON)", Href: c.base + "/scenarios", About: "The active test cards and rules, as the API serves them."},
		{Name: "Sample requests", Href: c.base + "/examples/", About: "Ready-made request bodies, one per flow, to send as they are: lookup.json, lookup-challenge.json, ddc.json, enquiry.json."},
		{Name: "Docs", Href: c.base + "/docs/", About: "Every topic: test cards, challenges, scenarios, configuration, errors, deployment."},
	}
}

// docsLinks are the pages of the documentation, for the front door.
func (c *Console) docsLinks() []templates.LandingLink {
	pages := c.cfg.Docs
	links := make([]templates.LandingLink, len(pages))
	for i, p := range pages {
		links[i] = templates.LandingLink{Name: p.Title, Href: p.Path}
	}
	return links
}

// absolute makes a path of this sandbox a URL browsers reach it at: the
// public URL already ends in the base path.
func (c *Console) absolute(path string) string {
	pub := c.cfg.PublicURL
	if pub == "" {
		return path
	}
	return pub + strings.TrimPrefix(path, c.base)
}
