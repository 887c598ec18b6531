package console

import (
	"cmp"
	"net"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// demoStatuses are the statuses the demo explains.
var demoStatuses = []string{"Y", "A", "N", "U", "R", "I", "C"}

// handleDemo serves GET {base}/console/demo: the demo merchant checkout.
// The page's script calls the public API with the session's token, or
// with DemoToken when no session is open. ?card= chooses the test card
// first, ?lang= the cardholder's language (else the browser's).
func (c *Console) handleDemo(w http.ResponseWriter, r *http.Request) {
	nonce := respond.Nonce()
	view := templates.ConsoleDemo{ConsoleLayout: c.layout(r, nonce, "Demo checkout", "demo")}
	if _, ok, _ := c.Session(r); !ok {
		view.DemoToken = true
		if !c.cfg.Authority.Accept(DemoToken) {
			view.DemoToken, view.NeedsLogin = false, true
		}
	}
	view.Cards, view.Selected = demoCards(cards.List(c.cfg.Engine.Catalogue(), c.cfg.Engine.Schemes()), r.URL.Query().Get("card"))
	view.Languages = c.cfg.Pages.Languages()
	if want := templates.Lang(r.URL.Query().Get("lang")); slices.Contains(view.Languages, want) {
		view.Language = want
	}
	view.App = r.URL.Query().Get("channel") == "app"
	view.Config = templates.DemoConfig{
		LookupURL:      c.base + "/console/demo/lookup",
		EnquiryURL:     c.base + "/console/demo/enquiry",
		NotifyURL:      c.base + "/console/demo/notify",
		DDCJWTURL:      c.base + "/console/demo/ddc-jwt",
		DDCCallbackURL: c.base + "/console/demo/ddc-callback",
		JournalURL:     c.base + "/console/transactions/",
		AppLookupURL:   c.base + "/console/demo/app/lookup",
		AppCReqURL:     c.base + "/console/demo/app/creq",
		AcceptHeader:   truncateRunes(r.Header.Get("Accept"), 2048),
		NextSteps:      map[string]string{},
		StatusText:     map[string]string{},
		CancelText:     map[string]string{},
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil && net.ParseIP(host) != nil {
		view.Config.IP = host
	}
	for _, st := range demoStatuses {
		view.Config.NextSteps[st] = emv.NextStep(st, "{eci}")
		view.Config.StatusText[st] = emv.StatusText[st]
	}
	for code := range emv.ChallengeCancelText {
		view.Config.CancelText[code] = cancelHeadline(code)
	}
	c.render(w, r, http.StatusOK, templates.PageConsoleDemo, nonce, cspOptions{demo: true}, view)
}

// cancelHeadlines say, in the demo's result, why a challenge ended
// without the cardholder's answer: a fail and a cancel are both N, and
// must not read the same.
var cancelHeadlines = map[string]string{
	"01": "Cancelled by the cardholder",
	"04": "Timed out waiting for the cardholder",
	"05": "Timed out before the challenge was opened",
}

// cancelHeadline is the headline of a result with challengeCancel code.
func cancelHeadline(code string) string {
	return cmp.Or(cancelHeadlines[code], emv.ChallengeCancelText[code], "Challenge ended") + " (challengeCancel " + code + ")"
}

// demoCards lists the catalogue's card numbers by scheme for the demo's
// picker, and the card to select: want when it is one of them, else the
// default Visa challenge (or the first Visa challenge the cardholder
// decides).
func demoCards(entries []cards.Entry, want string) ([]templates.DemoCardGroup, string) {
	groups, _ := cardGroups(entries, cardFilter{})
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
func (c *Console) handleDemoNotify(w http.ResponseWriter, r *http.Request) {
	nonce := respond.Nonce()
	view := templates.ConsoleNotify{Nonce: nonce, Base: c.base}
	status := http.StatusOK
	if err := r.ParseForm(); err != nil {
		view.Error, status = "The form could not be read.", http.StatusBadRequest
		if respond.TooBig(err) {
			view.Error, status = "The form is too large.", http.StatusRequestEntityTooLarge
		}
	} else {
		view.CRes, view.Session = r.PostForm.Get("cres"), r.PostForm.Get("threeDSSessionData")
		cres, err := message.ParseCRes(view.CRes)
		if err != nil {
			view.Error, status = "The form field cres is not a Base64Url CRes.", http.StatusBadRequest
		}
		view.TransStatus, view.ThreeDSServerTransID = cres.TransStatus, cres.ThreeDSServerTransID
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
