package console

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// consoleListLimit is the most transactions the listing shows.
const consoleListLimit = 200

// flowOrder ranks flows on the console.
var flowOrder = map[string]int{"frictionless": 1, "challenge": 2, "error": 3}

// otherRules names the group of scenarios without a card number.
const otherRules = "Other rules"

// packOrder ranks the packs on the console: the sandbox's own cards
// first, then Cardinal's, then one card per reason; others follow by name.
var packOrder = map[string]int{scenarios.PackDefaults: 1, scenarios.PackCardinal: 2, scenarios.PackReasons: 3, scenarios.RuntimePack: 99}

// packTitles are the headings of the known packs.
var packTitles = map[string]string{
	scenarios.PackDefaults: "Our own test cards",
	scenarios.PackCardinal: "Cardinal Commerce test cases",
	scenarios.PackReasons:  "One card per transStatusReason",
	scenarios.RuntimePack:  "Runtime scenarios",
}

// outcomes are the choices of the outcome filter, in order.
var outcomes = []string{"Y", "A", "N", "U", "R", "I", "challenge", "error"}

// cardFilter is what the cards page shows: every word of Query in the
// row's text, and the scheme and outcome when set.
type cardFilter struct {
	Query, Scheme, Outcome string
}

// handleCards serves GET {base}/console/ and {base}/console/cards: the
// active catalogue, filtered by the GET parameters q, scheme and outcome.
func (c *Console) handleCards(w http.ResponseWriter, r *http.Request) {
	f := cardFilter{
		Query:   strings.TrimSpace(r.URL.Query().Get("q")),
		Scheme:  strings.ToUpper(strings.TrimSpace(r.URL.Query().Get("scheme"))),
		Outcome: strings.TrimSpace(r.URL.Query().Get("outcome")),
	}
	entries := cards.List(c.cfg.Engine.Catalogue(), c.cfg.Engine.Schemes())
	groups, shown := cardGroups(entries, f)
	nonce := respond.Nonce()
	c.render(w, r, http.StatusOK, templates.PageConsoleCards, nonce, cspOptions{}, templates.ConsoleCards{
		ConsoleLayout: c.layout(r, nonce, "Test cards", "cards"),
		Query:         f.Query,
		Scheme:        f.Scheme,
		Outcome:       f.Outcome,
		Schemes:       cardSchemes(entries),
		Outcomes:      outcomes,
		Groups:        groups,
		Total:         len(entries),
		Shown:         shown,
		Conditional:   len(newCardConditions(entries)),
	})
}

// cardSchemes lists the schemes of the catalogue's cards in console order.
func cardSchemes(entries []cards.Entry) []string {
	var out []string
	for _, e := range entries {
		if e.CardNumber != "" && e.CardScheme != "" && !slices.Contains(out, e.CardScheme) {
			out = append(out, e.CardScheme)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(schemeRank(a), schemeRank(b)), cmp.Compare(a, b)) })
	return out
}

// schemeRank ranks card schemes on the console in the scenarios' order of
// schemes; the cards of no scheme ("Other rules") come last.
func schemeRank(s string) int {
	if s == otherRules {
		return len(scenarios.Schemes()) + 1
	}
	return scenarios.SchemeRank(s)
}

func packRank(p string) int {
	if r, ok := packOrder[p]; ok {
		return r
	}
	return 50
}

// cardGroups groups the catalogue by pack, scheme and flow, keeping the
// rows that pass the filter.
func cardGroups(entries []cards.Entry, f cardFilter) ([]templates.CardGroup, int) {
	terms := strings.Fields(strings.ToLower(f.Query))
	conds := newCardConditions(entries)
	type key struct{ pack, scheme, flow string }
	byKey := map[key]*templates.CardGroup{}
	var keys []key
	shown := 0
	for _, e := range entries {
		row := cardRow(e)
		if row.Condition = conds.note(e); row.Condition != "" {
			row.Search += " " + strings.ToLower(row.Condition)
		}
		if !matchesAll(row.Search, terms) || f.Outcome != "" && row.Outcome != f.Outcome {
			continue
		}
		k := key{e.Pack, e.CardScheme, e.Flow}
		if e.CardNumber == "" || k.scheme == "" {
			k.scheme = otherRules
		}
		if f.Scheme != "" && k.scheme != f.Scheme {
			continue
		}
		shown++
		g := byKey[k]
		if g == nil {
			title := packTitles[k.pack]
			if title == "" {
				title = "Scenario file " + k.pack
			}
			g = &templates.CardGroup{Pack: k.pack, PackTitle: title, Scheme: k.scheme, Flow: k.flow}
			byKey[k] = g
			keys = append(keys, k)
		}
		g.Cards = append(g.Cards, row)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(packRank(a.pack), packRank(b.pack)), cmp.Compare(a.pack, b.pack),
			cmp.Compare(schemeRank(a.scheme), schemeRank(b.scheme)), cmp.Compare(a.scheme, b.scheme),
			cmp.Compare(flowOrder[a.flow], flowOrder[b.flow]), cmp.Compare(a.flow, b.flow))
	})
	out := make([]templates.CardGroup, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		slices.SortStableFunc(g.Cards, func(a, b templates.CardRow) int { return cmp.Compare(a.Number, b.Number) })
		out = append(out, *g)
	}
	return out, shown
}

func matchesAll(s string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(s, t) {
			return false
		}
	}
	return true
}

// cardRow is how the console shows one scenario.
func cardRow(e cards.Entry) templates.CardRow {
	row := templates.CardRow{
		ID:          e.ID,
		Number:      e.CardNumber,
		Status:      e.Status,
		StatusText:  emv.StatusText[e.Status],
		Reason:      e.StatusReason,
		ReasonText:  emv.ReasonText[e.StatusReason],
		ECI:         e.ECI,
		Version:     e.Version,
		Auto:        e.Auto,
		Description: e.Description,
		Scheme:      e.CardScheme,
		Outcome:     e.Status,
	}
	if e.Flow != "frictionless" {
		row.Outcome = e.Flow
	}
	switch r := e.ThreeRI; {
	case r != nil:
		row.ThreeRI, row.ThreeRIText = strings.TrimSpace(r.Status+" "+r.StatusReason), emv.StatusText[r.Status]
		if r.StatusReason != "" {
			row.ThreeRIText += ": " + emv.ReasonText[r.StatusReason]
		}
	case e.Flow == "error":
		row.ThreeRI, row.ThreeRIText = "error", "the same error on every channel"
	}
	switch {
	case e.CardNumber != "":
	case e.CardPrefix != "":
		row.Match = "every card starting " + e.CardPrefix
	case e.Fallback:
		row.Match = "any other card (fallback)"
	default:
		row.Match = "scenario " + e.ID + " (by selector or X-Scenario)"
	}
	if e.ErrorCode != "" || e.EMVErrorCode != "" {
		parts := []string{}
		if e.ErrorCode != "" {
			parts = append(parts, e.ErrorCode)
		}
		if e.EMVErrorCode != "" {
			parts = append(parts, "EMV "+e.EMVErrorCode)
		}
		if e.HTTPStatus != 0 {
			parts = append(parts, fmt.Sprintf("HTTP %d", e.HTTPStatus))
		}
		row.Error = strings.Join(parts, " / ")
	}
	row.Search = strings.ToLower(strings.Join([]string{
		e.ID, e.CardNumber, e.CardPrefix, e.CardScheme, e.Flow, e.Status, row.StatusText,
		e.StatusReason, row.ReasonText, e.ECI, e.Version, e.Description, e.Auto, row.Error, row.Match, threeRISearch(row.ThreeRI),
	}, " "))
	return row
}

// threeRISearch is what the card filter finds a card's 3RI result by:
// "3ri U 21".
func threeRISearch(r string) string {
	if r == "" {
		return ""
	}
	return "3ri " + r
}

// handleTransactions serves GET {base}/console/transactions: the journal
// of the session's namespace, newest first.
func (c *Console) handleTransactions(w http.ResponseWriter, r *http.Request) {
	ns, ok := c.requireSession(w, r)
	if !ok {
		return
	}
	nonce := respond.Nonce()
	view := templates.ConsoleTransactions{
		ConsoleLayout: c.layout(r, nonce, "Transactions", "transactions"),
		Limit:         consoleListLimit,
		JournalOff:    c.cfg.Journal == nil,
	}
	if j := c.cfg.Journal; j != nil {
		// The version first: a change in between makes the page look
		// older than it is, and the live update fetches it once more.
		v, err := j.Version(r.Context(), ns)
		if err != nil {
			c.cfg.Errors(w, r, fmt.Errorf("console: journal version: %w", err))
			return
		}
		list, err := j.List(r.Context(), ns, consoleListLimit)
		if err != nil {
			c.cfg.Errors(w, r, fmt.Errorf("console: journal list: %w", err))
			return
		}
		view.Version = v
		for _, s := range list {
			view.Rows = append(view.Rows, c.row(s))
		}
	}
	c.render(w, r, http.StatusOK, templates.PageConsoleTransactions, nonce, cspOptions{}, view)
}

// row is how the console shows a journal summary.
func (c *Console) row(s journal.Summary) templates.TransactionRow {
	amount := s.Amount
	if amount != "" && s.Currency != "" {
		amount += " " + s.Currency
	}
	statusText := emv.StatusText[s.Status]
	if s.ChallengeCancel != "" {
		statusText = cancelHeadline(s.ChallengeCancel)
	}
	if s.Status == "" {
		statusText = "Device data collection only: no lookup yet"
	}
	return templates.TransactionRow{
		ID:                  s.ID,
		Href:                c.base + "/console/transactions/" + s.ID,
		Created:             s.Created.UTC().Format("2006-01-02 15:04:05"),
		Updated:             s.Updated.UTC().Format("15:04:05"),
		Status:              s.Status,
		StatusText:          statusText,
		LookupStatus:        s.LookupStatus,
		Channel:             channelName(s.Channel),
		ChannelDetail:       threeRIDetail(s.ThreeRIInd),
		LastEvent:           string(s.LastEvent),
		MaskedPAN:           s.MaskedPAN,
		Scheme:              s.Scheme,
		MerchantName:        s.MerchantName,
		CardholderName:      s.CardholderName,
		Amount:              amount,
		ExternalReferenceID: s.ExternalReferenceID,
		ECI:                 s.ECI,
		Scenario:            scenarioLabel(s),
		Events:              s.Events,
	}
}

// channelName is how the console names a device channel.
func channelName(c state.Channel) string {
	switch c {
	case state.ChannelBrowser:
		return "Browser"
	case state.Channel3RI:
		return "3RI"
	case state.ChannelApp:
		return "App"
	}
	return c.String()
}

// threeRIDetail says what a 3RI lookup's threeRIInd is for; "" for none.
func threeRIDetail(ind string) string {
	if ind == "" {
		return ""
	}
	for _, known := range scenarios.ThreeRIInds(scenarios.Version220) {
		if known.Code == ind {
			return "threeRIInd " + ind + ", " + known.Name
		}
	}
	return "threeRIInd " + ind
}

// scenarioLabel names the scenario that answered, marking the fallback.
func scenarioLabel(s journal.Summary) string {
	if s.Fallback {
		return s.ScenarioID + " (fallback: the card matches no scenario)"
	}
	return s.ScenarioID
}

// eventLabels say each event kind in words.
var eventLabels = map[state.EventKind]string{
	state.EventLookup:          "Lookup answered",
	state.EventCReq:            "CReq received",
	state.EventAttempt:         "Wrong one-time code",
	state.EventPasswordAttempt: "Wrong password",
	state.EventChoiceAttempt:   "Wrong choice",
	state.EventCodeSent:        "Code sent to the phone",
	state.EventApp:             "Banking app",
	state.EventContinue:        "Continue before approval",
	state.EventDecision:        "Cardholder decision",
	state.EventAuto:            "Resolved by itself",
	state.EventTimeout:         "Timed out",
	state.EventCRes:            "Final CRes sent",
	state.EventEnquiry:         "Enquiry answered",
	state.EventDDC:             "Device data collection",
	state.EventMethod:          "3DS Method",
	state.EventMethodDone:      "3DS Method completed",
	state.EventCallback:        "Result callback",
}

// handleTransaction serves GET {base}/console/transactions/{id}, the id
// in any case. Another namespace's transaction is not found.
func (c *Console) handleTransaction(w http.ResponseWriter, r *http.Request) {
	ns, ok := c.requireSession(w, r)
	if !ok {
		return
	}
	id := strings.ToLower(mux.Vars(r)["id"])
	nonce := respond.Nonce()
	var e journal.Entry
	found := false
	if j := c.cfg.Journal; j != nil {
		var err error
		if e, found, err = j.Get(r.Context(), ns, id); err != nil {
			c.cfg.Errors(w, r, fmt.Errorf("console: journal entry: %w", err))
			return
		}
	}
	if !found {
		c.render(w, r, http.StatusNotFound, templates.PageConsoleMessage, nonce, cspOptions{}, templates.ConsoleMessage{
			ConsoleLayout: c.layout(r, nonce, "Transaction not found", "transactions"),
			Message:       "Your token's journal has no transaction " + id + ". It may belong to another token, or be older than the journal keeps.",
			Link:          c.base + "/console/transactions",
			LinkText:      "All transactions",
		})
		return
	}
	view := templates.ConsoleTransaction{
		ConsoleLayout: c.layout(r, nonce, "Transaction "+id, "transactions"),
		Row:           c.row(e.Summary),
		Dropped:       e.Dropped,
		ListHref:      c.base + "/console/transactions",
	}
	for i, ev := range e.Events {
		te := templates.TransactionEvent{
			Kind:    string(ev.Kind),
			Label:   cmp.Or(eventLabels[ev.Kind], string(ev.Kind)),
			Time:    ev.Time.UTC().Format("2006-01-02 15:04:05.000"),
			Status:  ev.Status,
			Detail:  ev.Detail,
			Request: prettyJSON(ev.Request),
		}
		// As the demo does, challengeHtml is abbreviated: it is long and
		// says little; the full body is one toggle away.
		full, short := c.withChallengeHTML(ev)
		te.Response = prettyJSON(full)
		if short != nil {
			te.Response, te.ResponseFull = prettyJSON(short), prettyJSON(full)
		}
		if i > 0 {
			te.SincePrevious = humanElapsed(ev.SincePrevious)
			te.SinceStart = humanElapsed(ev.SinceStart)
		}
		view.Events = append(view.Events, te)
		switch ev.Kind {
		case state.EventCodeSent:
			view.CodesSent = append(view.CodesSent, templates.SentCode{Time: te.Time, Text: ev.Detail})
		case state.EventApp: // an oob challenge: its banking app
			view.AppHref = emulator.NewURLs(c.cfg.PublicURL).App(id)
		}
	}
	c.render(w, r, http.StatusOK, templates.PageConsoleTransaction, nonce, cspOptions{}, view)
}

// withChallengeHTML is the response of an event as the API wrote it: a
// lookup answered C gets back its challengeHtml, which the journal keeps
// as data and the console renders again the way the API did. Every other
// response is returned as it is. The second result is the same response
// with challengeHtml abbreviated as the demo shows it ("<n characters of
// HTML>"); nil when there is no challengeHtml.
func (c *Console) withChallengeHTML(ev journal.Event) (full, short []byte) {
	if ev.Challenge == nil {
		return ev.Response, nil
	}
	html, err := c.cfg.ChallengeHTML(ev.Challenge)
	if err != nil {
		return ev.Response, nil
	}
	full, ok := withMember(ev.Response, "challengeHtml", html)
	if !ok {
		return ev.Response, nil
	}
	short, _ = withMember(ev.Response, "challengeHtml", fmt.Sprintf("<%d characters of HTML>", len(html)))
	return full, short
}

// withMember puts the string member name after the status member that
// opens a lookup response; false when the response does not open so.
func withMember(resp []byte, name, value string) ([]byte, bool) {
	const status = `{"status":"`
	if !bytes.HasPrefix(resp, []byte(status)) {
		return resp, false
	}
	end := bytes.IndexByte(resp[len(status):], '"')
	if end < 0 {
		return resp, false
	}
	at := len(status) + end + 1 // after the status value
	// As the API writes it: no HTML escaping of <, > and &.
	var member bytes.Buffer
	enc := json.NewEncoder(&member)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{name: value}); err != nil {
		return resp, false
	}
	m := bytes.TrimSuffix(bytes.TrimSpace(member.Bytes()), []byte("}"))
	out := make([]byte, 0, len(resp)+len(m)+1)
	out = append(out, resp[:at]...)
	out = append(out, ',')
	out = append(out, m[1:]...)
	return append(out, resp[at:]...), true
}

// prettyJSON indents a JSON body (the journal keeps them redacted: card
// numbers masked); a body that is not JSON is shown as it is.
func prettyJSON(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		return string(body)
	}
	return buf.String()
}

// humanElapsed shows a duration between events: milliseconds below a
// second, seconds with two decimals below a minute, then whole seconds.
func humanElapsed(d time.Duration) string {
	switch {
	case d < 0:
		return "0 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}
