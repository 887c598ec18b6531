package web

import (
	"net"
	"net/http"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// demoStatuses are the statuses the demo explains.
var demoStatuses = []string{"Y", "A", "N", "U", "R", "I", "C"}

// handleDemo serves GET {base}/console/demo: the demo merchant checkout.
// The page's script calls the public API with the session's token, or
// with DemoToken when no session is open.
func (c *console) handleDemo(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	view := templates.ConsoleDemo{ConsoleLayout: c.layout(r, nonce, "Demo checkout", "demo")}
	if _, ok, _ := c.session(r); !ok {
		view.DemoToken = true
		if !c.s.tokens.accept(DemoToken) {
			view.DemoToken, view.NeedsLogin = false, true
		}
	}
	view.Cards, view.Selected = demoCards(Catalogue(c.s.cfg.Engine.Catalogue(), c.s.cfg.Engine.Schemes()), r.URL.Query().Get("card"))
	view.Config = templates.DemoConfig{
		LookupURL:    c.base + "/console/demo/lookup",
		EnquiryURL:   c.base + "/console/demo/enquiry",
		NotifyURL:    c.base + "/console/demo/notify",
		DDCURL:       c.base + "/console/demo/ddc",
		MethodURL:    c.base + "/console/demo/method-notify",
		JournalURL:   c.base + "/console/transactions/",
		AcceptHeader: truncateRunes(r.Header.Get("Accept"), 2048),
		NextSteps:    map[string]string{},
		StatusText:   map[string]string{},
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil && net.ParseIP(host) != nil {
		view.Config.IP = host
	}
	for _, st := range demoStatuses {
		view.Config.NextSteps[st] = emulator.NextStep(st, "{eci}")
		view.Config.StatusText[st] = emulator.StatusText[st]
	}
	c.render(w, r, http.StatusOK, templates.PageConsoleDemo, nonce, cspOptions{demo: true}, view)
}

// demoAPI serves the demo page's lookup and enquiry: the handler of the API
// operation, called with the session's token (or DemoToken when no session
// is open and the sandbox accepts it), as a merchant's backend calls the
// API with its own token. The token never reaches the browser. Only the
// console's own pages may call it: a cross-site request is refused, and
// the JSON content type the handlers require cannot be sent cross-origin
// without a preflight the sandbox does not answer.
func (c *console) demoAPI(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		info.route = routeJSON // the API's answers, errors included
		if crossSite(r) {
			c.s.writeError(w, r, emulator.NewError(emulator.CodeTokenRejected, "303",
				"the demo's API is for the console's own pages: cross-site request refused", "Sec-Fetch-Site"))
			return
		}
		tok, ok, err := c.session(r)
		switch {
		case err != nil:
			c.s.writeError(w, r, err)
			return
		case !ok && c.s.tokens.accept(DemoToken):
			tok = DemoToken
		case !ok:
			c.s.writeError(w, r, emulator.NewError(emulator.CodeUnauthorized, "303",
				"log in to the console: the token demo is not accepted by this sandbox", "session"))
			return
		}
		info.namespace = Namespace(tok)
		next(w, r)
	}
}

// demoCards lists the catalogue's card numbers by scheme for the demo's
// picker, and the card to select: want when it is one of them, else the
// default Visa challenge (or the first Visa challenge the cardholder
// decides).
func demoCards(entries []CatalogueEntry, want string) ([]templates.DemoCardGroup, string) {
	groups, _ := cardGroups(entries, "")
	var out []templates.DemoCardGroup
	index := map[string]int{}
	seen := map[string]bool{}
	selected, fallback := "", ""
	for _, g := range groups {
		if g.Scheme == otherRules {
			continue
		}
		i, ok := index[g.Scheme]
		if !ok {
			i = len(out)
			index[g.Scheme] = i
			out = append(out, templates.DemoCardGroup{Scheme: g.Scheme})
		}
		for _, row := range g.Cards {
			if seen[row.Number] {
				continue // another scenario of the same card, by other selectors
			}
			seen[row.Number] = true
			out[i].Cards = append(out[i].Cards, templates.DemoCard{Number: row.Number, Label: row.Description})
			if row.Number == want {
				selected = want
			}
			if row.ID == "visa-challenge" || fallback == "" && g.Scheme == "VISA" && g.Flow == "challenge" && row.Auto == "" {
				fallback = row.Number
			}
		}
	}
	if selected == "" {
		selected = fallback
	}
	if selected == "" && len(out) > 0 && len(out[0].Cards) > 0 {
		selected = out[0].Cards[0].Number
	}
	return out, selected
}

// handleDemoNotify serves POST {base}/console/demo/notify, the demo's
// notificationUrl: it receives the final CRes in the challenge iframe and
// hands it to the demo page with postMessage (to its own origin only).
func (c *console) handleDemoNotify(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	view := templates.ConsoleNotify{Nonce: nonce, Base: c.base}
	status := http.StatusOK
	if err := r.ParseForm(); err != nil {
		view.Error, status = "The form could not be read.", http.StatusBadRequest
		if tooBig(err) {
			view.Error, status = "The form is too large.", http.StatusRequestEntityTooLarge
		}
	} else {
		view.CRes, view.Session = r.PostForm.Get("cres"), r.PostForm.Get("threeDSSessionData")
		cres, err := emulator.ParseCRes(view.CRes)
		if err != nil {
			view.Error, status = "The form field cres is not a Base64Url CRes.", http.StatusBadRequest
		}
		view.TransStatus, view.ThreeDSServerTransID = cres.TransStatus, cres.ThreeDSServerTransID
	}
	c.render(w, r, status, templates.PageConsoleNotify, nonce, cspOptions{sameOriginFrame: true}, view)
}

// handleDemoMethodNotify serves POST {base}/console/demo/method-notify,
// the demo's threeDSMethodNotificationURL: it receives the end of the 3DS
// Method in the hidden iframe and tells the demo page with postMessage
// (to its own origin only).
func (c *console) handleDemoMethodNotify(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	view := templates.ConsoleNotify{Nonce: nonce, Base: c.base, Method: true}
	status := http.StatusOK
	if err := r.ParseForm(); err != nil {
		view.Error, status = "The form could not be read.", http.StatusBadRequest
	} else if md, err := emulator.DecodeMethodData(r.PostForm.Get("threeDSMethodData"), false); err != nil {
		view.Error, status = "The form field threeDSMethodData is not the 3DS Method's notification.", http.StatusBadRequest
	} else {
		view.ThreeDSServerTransID = md.ThreeDSServerTransID
	}
	c.render(w, r, status, templates.PageConsoleNotify, nonce, cspOptions{sameOriginFrame: true}, view)
}

// truncateRunes cuts s to at most n bytes on a rune boundary.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
