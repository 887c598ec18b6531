package web_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/console"
)

// consoleEnv is an emulator with its journal, served by httptest.
type consoleEnv struct {
	t       *testing.T
	URL     string // the public URL, base path included
	Server  *httptest.Server
	Journal *memstore.Journal
	// Frictionless and Challenge are the default Visa cards that
	// authenticate frictionless (Y) and ask for a challenge.
	Frictionless, Challenge string
}

type consoleOptions struct {
	basePath    string
	tokens      []string
	consoleAuth string
	// state, when set, sees the sandbox's state parts (its store).
	state func(*stateParts)
}

func newConsoleEnv(t *testing.T, o consoleOptions) *consoleEnv {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	public := "http://" + ts.Listener.Addr().String() + o.basePath
	b := buildSandbox(t, envOptions{basePath: o.basePath, tokens: o.tokens, consoleAuth: o.consoleAuth, journal: true, realClock: true, state: o.state}, public)
	ts.Config.Handler = b.Server
	ts.Start()
	t.Cleanup(ts.Close)
	cat, engine, jnl := b.Cat, b.Engine, b.Journal
	e := &consoleEnv{t: t, URL: public, Server: ts, Journal: jnl}
	for _, c := range cards.List(cat, engine.Schemes()) {
		switch c.ID {
		case "visa-frictionless-y":
			e.Frictionless = c.CardNumber
		case "visa-challenge":
			e.Challenge = c.CardNumber
		}
	}
	if e.Frictionless == "" || e.Challenge == "" {
		t.Fatal("the catalogue lacks visa-frictionless-y or visa-challenge")
	}
	return e
}

// browser is an HTTP client with its own cookies that does not follow
// redirects, like one tester's browser.
type browser struct {
	e      *consoleEnv
	client *http.Client
}

func (e *consoleEnv) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return &browser{e: e, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is a fetched console page.
type page struct {
	Status int
	Header http.Header
	Raw    string
	Doc    *goquery.Document
}

func (b *browser) do(req *http.Request) page {
	b.e.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.e.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if err != nil {
		b.e.t.Fatal(err)
	}
	return page{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw), Doc: doc}
}

// get fetches a path under the public URL.
func (b *browser) get(path string) page {
	b.e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.e.URL+path, nil)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form to a path under the public URL.
func (b *browser) post(path string, form url.Values, header map[string]string) page {
	b.e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.e.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return b.do(req)
}

// login opens a console session for token.
func (b *browser) login(token string) {
	b.e.t.Helper()
	p := b.post("/console/login", url.Values{"token": {token}}, nil)
	if p.Status != http.StatusSeeOther {
		b.e.t.Fatalf("login: HTTP %d, want 303\n%s", p.Status, p.Raw)
	}
}

// api sends a JSON API request with a bearer token.
func (e *consoleEnv) api(path, token string, body any) map[string]any {
	e.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, e.URL+path, bytes.NewReader(raw))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("POST %s: HTTP %d: %v", path, resp.StatusCode, m)
	}
	return m
}

// lookupID sends a lookup and returns its threeDsServerTransId.
func (e *consoleEnv) lookupID(token, card string, mutate func(map[string]any)) string {
	e.t.Helper()
	id, _ := e.api("/authentication/brw", token, testkit.LookupBody(e.t, card, mutate))["threeDsServerTransId"].(string)
	if id == "" {
		e.t.Fatal("lookup answered no threeDsServerTransId")
	}
	return id
}

// checkConsoleHeaders checks the security headers of a console page and
// that its style and script elements carry the CSP's nonce.
func checkConsoleHeaders(t *testing.T, p page, frameAncestors, xfo string) {
	t.Helper()
	csp := p.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors " + frameAncestors, "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	for h, want := range map[string]string{
		"X-Frame-Options":        xfo,
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
		"Cache-Control":          "no-store",
	} {
		if got := p.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	m := regexp.MustCompile(`script-src 'nonce-([^']+)'`).FindStringSubmatch(csp)
	if m == nil {
		t.Fatalf("Content-Security-Policy %q has no script nonce", csp)
	}
	p.Doc.Find("style, script").Each(func(_ int, s *goquery.Selection) {
		if got := s.AttrOr("nonce", ""); got != m[1] {
			t.Errorf("<%s> nonce = %q, want the CSP's %q", goquery.NodeName(s), got, m[1])
		}
	})
}

func TestConsoleCardsPage(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()

	p := b.get("/console/")
	if p.Status != http.StatusOK {
		t.Fatalf("GET /console/: HTTP %d", p.Status)
	}
	checkConsoleHeaders(t, p, "'none'", "DENY")
	pan := p.Doc.Find(`code.pan[data-card="` + e.Frictionless + `"]`).First()
	if got, want := strings.TrimSpace(pan.Text()), e.Frictionless; got != want {
		t.Errorf("card number text = %q, want %q", got, want)
	}
	if got := p.Doc.Find(`button.copy[data-card="` + e.Frictionless + `"]`).Length(); got < 1 {
		t.Errorf("copy buttons for %s = %d, want one or more", e.Frictionless, got)
	}
	row := pan.Closest("tr")
	if got, want := row.Find(".status").Text(), "Y"; got != want {
		t.Errorf("status of %s = %q, want %q", e.Frictionless, got, want)
	}
	if got := row.Find("td.num").First().Text(); got != "05" {
		t.Errorf("ECI of %s = %q, want 05", e.Frictionless, got)
	}
	var groups []string
	p.Doc.Find("section.group h2").Each(func(_ int, s *goquery.Selection) {
		groups = append(groups, strings.Join(strings.Fields(s.Text()), " "))
	})
	if len(groups) < 4 || groups[0] != "VISA frictionless" || groups[1] != "VISA challenge" {
		t.Errorf("groups = %q, want VISA frictionless then VISA challenge first", groups)
	}
	if redirect := b.get("/console"); redirect.Status != http.StatusMovedPermanently || redirect.Header.Get("Location") != "/console/" {
		t.Errorf("GET /console: HTTP %d to %q, want 301 to /console/", redirect.Status, redirect.Header.Get("Location"))
	}

	tests := []struct {
		q        string
		wantRows func(n int) bool
		check    func(t *testing.T, p page)
	}{
		{"mastercard challenge", func(n int) bool { return n > 0 }, func(t *testing.T, p page) {
			p.Doc.Find("section.group h2").Each(func(_ int, s *goquery.Selection) {
				if got := strings.Join(strings.Fields(s.Text()), " "); !strings.HasPrefix(got, "MASTERCARD ") {
					t.Errorf("filtered group %q, want only MASTERCARD ones", got)
				}
			})
			if p.Doc.Find("tr[data-search]:not([data-search*=challenge])").Length() != 0 {
				t.Errorf("a row without the word challenge passed the filter")
			}
			if got := p.Doc.Find("input#q").AttrOr("value", ""); got != "mastercard challenge" {
				t.Errorf("filter field = %q, want the query kept", got)
			}
		}},
		{e.Challenge, func(n int) bool { return n == 1 }, nil},
		{"no-such-thing", func(n int) bool { return n == 0 }, func(t *testing.T, p page) {
			if !strings.Contains(p.Doc.Find("p.empty").Text(), "no-such-thing") {
				t.Errorf("empty result does not repeat the query")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			p := b.get("/console/?q=" + url.QueryEscape(tt.q))
			if n := p.Doc.Find("tr[data-search]").Length(); !tt.wantRows(n) {
				t.Errorf("?q=%s: %d rows", tt.q, n)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

func TestConsoleLoginAndLogout(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{tokens: []string{"team-a", "team-b"}})
	b := e.browser()

	p := b.get("/console/transactions")
	if got, want := p.Status, http.StatusSeeOther; got != want {
		t.Fatalf("transactions without a session: HTTP %d, want %d", got, want)
	}
	if got, want := p.Header.Get("Location"), "/console/login?next=%2Fconsole%2Ftransactions"; got != want {
		t.Errorf("redirect to %q, want %q", got, want)
	}

	tests := []struct {
		name   string
		form   url.Values
		header map[string]string
		status int
		where  string
	}{
		{"empty token", url.Values{"token": {""}}, nil, http.StatusBadRequest, ""},
		{"token with a space", url.Values{"token": {"a b"}}, nil, http.StatusBadRequest, ""},
		{"unknown token", url.Values{"token": {"team-c"}}, nil, http.StatusForbidden, ""},
		{"cross-site post", url.Values{"token": {"team-a"}}, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, ""},
		{"open redirect refused", url.Values{"token": {"team-a"}, "next": {"//evil.example/console/"}}, nil, http.StatusSeeOther, "/console/transactions"},
		{"next kept", url.Values{"token": {"team-a"}, "next": {"/console/demo"}}, nil, http.StatusSeeOther, "/console/demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := e.browser().post("/console/login", tt.form, tt.header)
			if p.Status != tt.status {
				t.Fatalf("HTTP %d, want %d\n%s", p.Status, tt.status, p.Raw)
			}
			if tt.where != "" && p.Header.Get("Location") != tt.where {
				t.Errorf("redirect to %q, want %q", p.Header.Get("Location"), tt.where)
			}
			if tt.status >= 400 && tt.status != http.StatusForbidden || tt.name == "unknown token" {
				if p.Doc.Find("#login-error").Length() != 1 {
					t.Errorf("no #login-error on the page")
				}
			}
		})
	}

	p = b.post("/console/login", url.Values{"token": {"team-a"}}, nil)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("login: HTTP %d", p.Status)
	}
	ck := p.Header.Get("Set-Cookie")
	for _, want := range []string{"threeds_console=", "Path=/", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(ck, want) {
			t.Errorf("Set-Cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(ck, "team-a") {
		t.Errorf("the session cookie carries the token in clear: %q", ck)
	}
	p = b.get("/console/transactions")
	if p.Status != http.StatusOK {
		t.Fatalf("transactions with a session: HTTP %d", p.Status)
	}
	if got, want := p.Doc.Find("code.namespace").Text(), namespaceOf("team-a"); got != want {
		t.Errorf("namespace shown = %q, want %q", got, want)
	}
	if strings.Contains(p.Raw, "team-a") {
		t.Errorf("the page shows the token itself")
	}

	p = b.post("/console/logout", nil, nil)
	if p.Status != http.StatusSeeOther || !strings.Contains(p.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("logout: HTTP %d, Set-Cookie %q, want 303 and an expired cookie", p.Status, p.Header.Get("Set-Cookie"))
	}
	if p := b.get("/console/transactions"); p.Status != http.StatusSeeOther {
		t.Errorf("transactions after logout: HTTP %d, want 303 to the login", p.Status)
	}

	forged := e.browser()
	u, _ := url.Parse(e.URL)
	forged.client.Jar.SetCookies(u, []*http.Cookie{{Name: "threeds_console", Value: "forged", Path: "/"}})
	if p := forged.get("/console/transactions"); p.Status != http.StatusSeeOther {
		t.Errorf("transactions with a forged cookie: HTTP %d, want 303", p.Status)
	}
}

// hostile values that go through a lookup into the journal.
const (
	hostileMerchant   = `<script>alert(1)</script>`
	hostileCardholder = `Jo "x" onmouseover='alert(1)' & Co`
	hostileSession    = `"><img src=x onerror=alert(1)>`
)

func TestConsoleTransactionsEscapeHostileInput(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	id := e.lookupID("hostile", e.Frictionless, func(m map[string]any) {
		m["merchantName"] = hostileMerchant
		m["card"].(map[string]any)["cardholderName"] = hostileCardholder
		m["session"] = hostileSession
		m["externalReferenceId"] = hostileSession
	})
	b := e.browser()
	b.login("hostile")

	list := b.get("/console/transactions")
	row := list.Doc.Find(`tr[data-id="` + id + `"]`)
	if row.Length() != 1 {
		t.Fatalf("transaction %s not listed:\n%s", id, list.Raw)
	}
	if got := row.Find("td.merchant").Text(); got != hostileMerchant {
		t.Errorf("merchant cell = %q, want %q as text", got, hostileMerchant)
	}
	if got := row.Find("td.ref").Text(); got != hostileSession {
		t.Errorf("reference cell = %q, want %q as text", got, hostileSession)
	}

	detail := b.get("/console/transactions/" + id)
	if detail.Status != http.StatusOK {
		t.Fatalf("detail: HTTP %d", detail.Status)
	}
	checkConsoleHeaders(t, detail, "'none'", "DENY")
	for sel, want := range map[string]string{
		"dd.merchant":   hostileMerchant,
		"dd.cardholder": hostileCardholder,
		"dd.ref":        hostileSession,
		"dd.pan":        e.Frictionless[:6] + "******" + e.Frictionless[12:] + " · VISA",
		".trans-id":     id,
	} {
		if got := strings.TrimSpace(detail.Doc.Find(sel).First().Text()); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	for _, p := range []page{list, detail} {
		if strings.Contains(p.Raw, e.Frictionless) {
			t.Errorf("the full card number %s is on a journal page", e.Frictionless)
		}
	}
	req := detail.Doc.Find("li[data-kind=lookup] pre.request").Text()
	if !strings.Contains(req, `"session": "\"\u003e\u003cimg`) && !strings.Contains(req, `"session": "\"><img src=x onerror=alert(1)>"`) {
		t.Errorf("lookup request does not show the session as text:\n%s", req)
	}
	if !strings.Contains(req, "\n  \"") {
		t.Errorf("lookup request is not pretty-printed:\n%s", req)
	}
	for _, p := range []page{list, detail} {
		if n := p.Doc.Find("img, [onerror], [onmouseover]").Length(); n != 0 {
			t.Errorf("hostile input made %d elements", n)
		}
		if n := p.Doc.Find("script:not([nonce])").Length(); n != 0 {
			t.Errorf("%d script elements without the nonce", n)
		}
		if strings.Contains(p.Raw, e.Frictionless) {
			t.Errorf("page shows the full card number")
		}
	}
}

func TestConsoleTransactionDetailShowsTheFlow(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	id := e.lookupID("flow", e.Challenge, nil)
	e.api("/challenge/"+id, "flow", map[string]string{"action": "pass"})
	e.api("/enquiry/", "flow", map[string]string{"threeDsServerTransId": id})
	b := e.browser()
	b.login("flow")

	p := b.get("/console/transactions/" + id)
	var kinds []string
	p.Doc.Find("li.event").Each(func(_ int, s *goquery.Selection) { kinds = append(kinds, s.AttrOr("data-kind", "")) })
	// The headless API hands out the final CRes as the page would: a cres
	// event follows the decision.
	if got, want := strings.Join(kinds, ","), "lookup,decision,cres,enquiry"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if got := p.Doc.Find("li[data-kind=cres] pre.response").Text(); !strings.Contains(got, `"transStatus": "Y"`) {
		t.Errorf("cres event lacks the CRes:\n%s", got)
	}
	if got, want := p.Doc.Find("#status").Text(), "Y"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	if got := p.Doc.Find("li[data-kind=enquiry] .ev-dur").Length(); got != 2 {
		t.Errorf("enquiry shows %d durations, want 2 (since previous, since start)", got)
	}
	if got := p.Doc.Find("li[data-kind=enquiry] pre.response").Text(); !strings.Contains(got, `"transactionStatus": "Y"`) {
		t.Errorf("enquiry response lacks the status:\n%s", got)
	}
	if got, want := p.Doc.Find("dd.eci").Text(), "05"; got != want {
		t.Errorf("ECI = %q, want %q", got, want)
	}
}

// TestConsoleShowsTheLookupAsAnswered: the journal keeps a challenge as
// data, and the console shows the lookup's answer with its challengeHtml
// abbreviated, and behind "Show all" the very challengeHtml the API sent;
// card numbers masked in the request.
func TestConsoleShowsTheLookupAsAnswered(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	answer := e.api("/authentication/brw", "as-sent", testkit.LookupBody(t, e.Challenge, nil))
	id, _ := answer["threeDsServerTransId"].(string)
	b := e.browser()
	b.login("as-sent")
	p := b.get("/console/transactions/" + id)
	var shown map[string]any
	if err := json.Unmarshal([]byte(p.Doc.Find("li[data-kind=lookup] details.show-all pre.response-full").Text()), &shown); err != nil {
		t.Fatalf("lookup response in full is not JSON: %v", err)
	}
	var short map[string]any
	if err := json.Unmarshal([]byte(p.Doc.Find("li[data-kind=lookup] pre.response").First().Text()), &short); err != nil {
		t.Fatalf("lookup response is not JSON: %v", err)
	}
	html, _ := answer["challengeHtml"].(string)
	if got, want := short["challengeHtml"], fmt.Sprintf("<%d characters of HTML>", len(html)); got != want {
		t.Errorf("challengeHtml abbreviated as %q, want %q", got, want)
	}
	if got := p.Doc.Find("li[data-kind=lookup] details.show-all summary").Text(); !strings.HasPrefix(got, "Show all") {
		t.Errorf("the toggle says %q, want Show all", got)
	}
	for k, want := range answer {
		if got := shown[k]; got != want {
			t.Errorf("%s shown = %.80q, the API answered %.80q", k, got, want)
		}
	}
	if len(shown) != len(answer) {
		t.Errorf("shown %d members, the API answered %d", len(shown), len(answer))
	}
	if got := p.Doc.Find("dd.scenario").Text(); got != "visa-challenge" {
		t.Errorf("scenario shown = %q, want visa-challenge", got)
	}
	req := p.Doc.Find("li[data-kind=lookup] pre.request").Text()
	if strings.Contains(req, e.Challenge) || !strings.Contains(req, e.Challenge[:6]+"******"+e.Challenge[len(e.Challenge)-4:]) {
		t.Errorf("lookup request does not show the card number masked:\n%s", req)
	}
}

func TestConsoleNamespacesAreIsolated(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	idA := e.lookupID("team-a", e.Frictionless, nil)
	b := e.browser()
	b.login("team-b")

	if p := b.get("/console/transactions"); p.Doc.Find("tr[data-id]").Length() != 0 || strings.Contains(p.Raw, idA) {
		t.Errorf("team-b's listing shows team-a's transaction")
	}
	p := b.get("/console/transactions/" + idA)
	if got, want := p.Status, http.StatusNotFound; got != want {
		t.Errorf("team-a's transaction for team-b: HTTP %d, want %d", got, want)
	}
	checkConsoleHeaders(t, p, "'none'", "DENY")
	if got := readEvent(t, e, b, 0); got != "0" {
		t.Errorf("team-b's events stream starts at version %s, want 0", got)
	}
	a := e.browser()
	a.login("team-a")
	if p := a.get("/console/transactions/" + idA); p.Status != http.StatusOK {
		t.Errorf("team-a's own transaction: HTTP %d, want 200", p.Status)
	}
}

// openEvents opens the events stream of b's session for at most d and
// returns its body, closed when t ends.
func openEvents(t *testing.T, e *consoleEnv, b *browser, d time.Duration) io.Reader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+"/console/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp.Body
}

// readEvent opens the events stream of b's session and returns the data
// of its n-th version event (counting from 0) after running before.
func readEvent(t *testing.T, e *consoleEnv, b *browser, n int, before ...func()) string {
	t.Helper()
	sc := bufio.NewScanner(openEvents(t, e, b, 5*time.Second))
	seen, event := 0, ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "version":
			if seen == n {
				return strings.TrimPrefix(line, "data: ")
			}
			if seen < len(before) {
				before[seen]()
			}
			seen++
		}
	}
	t.Fatalf("events stream ended after %d events: %v", seen, sc.Err())
	return ""
}

func TestConsoleEventsStream(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("live")

	if p := e.browser().get("/console/events"); p.Status != http.StatusUnauthorized {
		t.Errorf("events without a session: HTTP %d, want 401", p.Status)
	}
	got := readEvent(t, e, b, 1, func() { e.lookupID("live", e.Frictionless, nil) })
	if got == "0" || got == "" {
		t.Errorf("version after a lookup = %q, want a new version", got)
	}
	v, _ := e.Journal.Version(context.Background(), namespaceOf("live"))
	if want := strconv.FormatUint(v, 10); got != want {
		t.Errorf("streamed version %s, want the journal's %s", got, want)
	}
}

// TestConsoleEventsCoalesce: a burst of changes reaches the page as a few
// versions, at least half a second apart, the last of them the journal's
// latest: each version makes the page read its list again.
func TestConsoleEventsCoalesce(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("burst")
	body := openEvents(t, e, b, 10*time.Second)
	type version struct {
		v  string
		at time.Time
	}
	got := make(chan version, 64)
	go func() {
		defer close(got)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				got <- version{v, time.Now()}
			}
		}
	}()
	<-got // the version the stream starts at
	for range 20 {
		e.lookupID("burst", e.Frictionless, nil)
	}
	v, _ := e.Journal.Version(context.Background(), namespaceOf("burst"))
	want := strconv.FormatUint(v, 10)
	var seen []version
	for g := range got {
		seen = append(seen, g)
		if g.v == want {
			break
		}
	}
	if len(seen) == 0 || seen[len(seen)-1].v != want {
		t.Fatalf("versions streamed %v, want the latest %s among them", seen, want)
	}
	for i := 1; i < len(seen); i++ {
		if d := seen[i].at.Sub(seen[i-1].at); d < 400*time.Millisecond {
			t.Errorf("versions %s and %s came %v apart, want at least 500ms", seen[i-1].v, seen[i].v, d)
		}
	}
}

func TestConsoleEventsEndOnShutdown(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("shutdown")
	req, err := http.NewRequest(http.MethodGet, e.URL+"/console/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := e.Server.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open events stream: %v (after %v)", err, time.Since(start))
	}
}

func TestConsoleBasicAuth(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{consoleAuth: "qa:s3cret"})
	tests := []struct {
		name       string
		user, pass string
		set        bool
		want       int
	}{
		{"no credentials", "", "", false, http.StatusUnauthorized},
		{"wrong password", "qa", "nope", true, http.StatusUnauthorized},
		{"wrong user", "root", "s3cret", true, http.StatusUnauthorized},
		{"right credentials", "qa", "s3cret", true, http.StatusOK},
	}
	for _, tt := range tests {
		for _, path := range []string{"/console/", "/console/demo", "/console/login"} {
			req, _ := http.NewRequest(http.MethodGet, e.URL+path, nil)
			if tt.set {
				req.SetBasicAuth(tt.user, tt.pass)
			}
			p := e.browser().do(req)
			if p.Status != tt.want {
				t.Errorf("%s: GET %s: HTTP %d, want %d", tt.name, path, p.Status, tt.want)
			}
			if tt.want == http.StatusUnauthorized && !strings.HasPrefix(p.Header.Get("WWW-Authenticate"), "Basic ") {
				t.Errorf("%s: WWW-Authenticate = %q, want Basic", tt.name, p.Header.Get("WWW-Authenticate"))
			}
		}
	}
	// The API stays as it was.
	e.lookupID("any", e.Frictionless, nil)
}

func TestConsoleUnderBasePath(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{basePath: "/3ds"})
	b := e.browser()
	p := b.get("/console/")
	if p.Status != http.StatusOK {
		t.Fatalf("GET /3ds/console/: HTTP %d", p.Status)
	}
	p.Doc.Find("nav a").Each(func(_ int, s *goquery.Selection) {
		if href := s.AttrOr("href", ""); !strings.HasPrefix(href, "/3ds/console/") {
			t.Errorf("navigation link %q outside the base path", href)
		}
	})
	lp := b.post("/console/login", url.Values{"token": {"base"}}, nil)
	if got := lp.Header.Get("Location"); got != "/3ds/console/transactions" {
		t.Errorf("login redirects to %q, want /3ds/console/transactions", got)
	}
	if ck := lp.Header.Get("Set-Cookie"); !strings.Contains(ck, "Path=/3ds;") && !strings.HasSuffix(ck, "Path=/3ds") {
		t.Errorf("Set-Cookie %q, want Path=/3ds", ck)
	}
	if p := b.get("/console/transactions"); p.Status != http.StatusOK {
		t.Errorf("transactions under the base path: HTTP %d", p.Status)
	}
	resp, err := http.Get(e.Server.URL + "/console/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /console/ outside the base path: HTTP %d, want 404", resp.StatusCode)
	}
}

// demoConfig reads the demo page's script configuration.
func demoConfig(t *testing.T, p page) templates.DemoConfig {
	t.Helper()
	var c templates.DemoConfig
	if err := json.Unmarshal([]byte(p.Doc.Find("script#demo-config").Text()), &c); err != nil {
		t.Fatalf("demo config: %v\n%s", err, p.Doc.Find("script#demo-config").Text())
	}
	return c
}

func TestConsoleDemoPage(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	p := b.get("/console/demo?card=" + e.Frictionless)
	if p.Status != http.StatusOK {
		t.Fatalf("GET /console/demo: HTTP %d", p.Status)
	}
	checkConsoleHeaders(t, p, "'none'", "DENY")
	c := demoConfig(t, p)
	if c.LookupURL != "/console/demo/lookup" || c.EnquiryURL != "/console/demo/enquiry" || c.NotifyURL != "/console/demo/notify" {
		t.Errorf("demo config without a session = %+v", c)
	}
	if !strings.Contains(c.NextSteps["Y"], "{eci}") {
		t.Errorf("next step for Y = %q, want the {eci} placeholder", c.NextSteps["Y"])
	}
	if got := p.Doc.Find("select#card option[selected]").AttrOr("value", ""); got != e.Frictionless {
		t.Errorf("selected card = %q, want the ?card= one", got)
	}
	if got := p.Doc.Find("select#card option").Length(); got < 20 {
		t.Errorf("%d cards to pick from, want the catalogue's", got)
	}

	// The challengeHtml runs in an iframe under the demo page's policy:
	// its inline script and style must be allowed by hash, and the ACS
	// must be allowed as a frame and a form target.
	csp := p.Header.Get("Content-Security-Policy")
	html, _ := e.api("/authentication/brw", "demo", testkit.LookupBody(t, e.Challenge, nil))["challengeHtml"].(string)
	for _, m := range regexp.MustCompile(`(?s)<(script|style)>(.*?)</(?:script|style)>`).FindAllStringSubmatch(html, -1) {
		sum := sha256.Sum256([]byte(m[2]))
		if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
			t.Errorf("demo CSP lacks the hash of challengeHtml's <%s>: %s", m[1], want)
		}
	}
	for _, want := range []string{"frame-src 'self' " + e.Server.URL, "form-action 'self' " + e.Server.URL, "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("demo CSP %q lacks %q", csp, want)
		}
	}

	b.login("my-team")
	if p := b.get("/console/demo"); strings.Contains(p.Raw, "my-team") {
		t.Errorf("the demo page holds the session's token")
	}

	locked := newConsoleEnv(t, consoleOptions{tokens: []string{"only-this"}})
	p = locked.browser().get("/console/demo")
	if _, disabled := p.Doc.Find("#pay").Attr("disabled"); !disabled {
		t.Errorf("Pay button enabled without a usable token")
	}
}

// postJSON sends a JSON body with the browser's cookies.
func (b *browser) postJSON(path string, body any, header map[string]string) page {
	b.e.t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, b.e.URL+path, bytes.NewReader(raw))
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return b.do(req)
}

// TestConsoleDemoRelays: the demo's lookup and enquiry go through the
// console, which calls the API operations with the session's token (or
// the demo token): the token never reaches the page, and only the
// console's own pages may use the relays.
func TestConsoleDemoRelays(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	for _, tt := range []struct {
		name, login, token string
	}{
		{"logged in: the session's token", "relay-team", "relay-team"},
		{"no session: the demo token", "", console.DemoToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := e.browser()
			if tt.login != "" {
				b.login(tt.login)
			}
			p := b.postJSON("/console/demo/lookup", testkit.LookupBody(t, e.Frictionless, nil), nil)
			var got map[string]any
			if err := json.Unmarshal([]byte(p.Raw), &got); p.Status != http.StatusOK || err != nil {
				t.Fatalf("relay lookup: %d %s", p.Status, p.Raw)
			}
			id, _ := got["threeDsServerTransId"].(string)
			// The transaction belongs to the token's namespace.
			if r := e.api("/enquiry/", tt.token, map[string]string{"threeDsServerTransId": id}); r["transactionStatus"] != "Y" {
				t.Errorf("enquiry with %s: %v", tt.token, r)
			}
			if p := b.postJSON("/console/demo/enquiry", map[string]string{"threeDsServerTransId": id}, nil); p.Status != http.StatusOK || !strings.Contains(p.Raw, `"transactionStatus":"Y"`) {
				t.Errorf("relay enquiry: %d %s", p.Status, p.Raw)
			}
			// Errors are the API's JSON error body.
			if p := b.postJSON("/console/demo/lookup", map[string]any{}, nil); p.Status != http.StatusBadRequest || !strings.Contains(p.Raw, `"emvErrorCode":"201"`) {
				t.Errorf("relay of a bad lookup: %d %s", p.Status, p.Raw)
			}
			if p := b.postJSON("/console/demo/lookup", testkit.LookupBody(t, e.Frictionless, nil), map[string]string{"Sec-Fetch-Site": "cross-site"}); p.Status != http.StatusForbidden || !strings.Contains(p.Raw, `"errorCode":"AU04"`) {
				t.Errorf("cross-site relay: %d %s", p.Status, p.Raw)
			}
		})
	}
	locked := newConsoleEnv(t, consoleOptions{tokens: []string{"only-this"}})
	if p := locked.browser().postJSON("/console/demo/lookup", testkit.LookupBody(t, locked.Frictionless, nil), nil); p.Status != http.StatusUnauthorized || !strings.Contains(p.Raw, "log in") {
		t.Errorf("relay without a session when demo is refused: %d %s", p.Status, p.Raw)
	}
}

// TestConsoleLogoutEndsTheSession: logging out ends the session on the
// server, so a copy of the cookie is refused afterwards.
func TestConsoleLogoutEndsTheSession(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("leaving")
	u, _ := url.Parse(e.URL)
	cookies := b.client.Jar.Cookies(u)
	if p := b.post("/console/logout", nil, nil); p.Status != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.Status)
	}
	thief := e.browser()
	thief.client.Jar.SetCookies(u, cookies)
	if p := thief.get("/console/transactions"); p.Status != http.StatusSeeOther {
		t.Errorf("a copy of the cookie after logout: HTTP %d, want the redirect to the login page", p.Status)
	}
}

func TestConsoleDemoNotify(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	cres, err := message.EncodeMessage(message.CRes{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", MessageType: "CRes", TransStatus: "Y"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		form   url.Values
		status int
		check  func(t *testing.T, p page)
	}{
		{"final CRes", url.Values{"cres": {cres}, "threeDSSessionData": {hostileSession}}, http.StatusOK, func(t *testing.T, p page) {
			d := p.Doc.Find("#cres")
			if got := d.AttrOr("data-status", ""); got != "Y" {
				t.Errorf("data-status = %q, want Y", got)
			}
			if got := d.AttrOr("data-session", ""); got != hostileSession {
				t.Errorf("data-session = %q, want %q", got, hostileSession)
			}
			if p.Doc.Find("img").Length() != 0 {
				t.Errorf("the session made an img element")
			}
		}},
		{"not a CRes", url.Values{"cres": {"!!"}}, http.StatusBadRequest, func(t *testing.T, p page) {
			if p.Doc.Find("#notify-error").Length() != 1 || p.Doc.Find("#cres").Length() != 0 {
				t.Errorf("no error shown for a bad cres")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The ACS posts from its own origin: no Sec-Fetch-Site check.
			p := e.browser().post("/console/demo/notify", tt.form, map[string]string{"Sec-Fetch-Site": "cross-site"})
			if p.Status != tt.status {
				t.Fatalf("HTTP %d, want %d", p.Status, tt.status)
			}
			checkConsoleHeaders(t, p, "'self'", "SAMEORIGIN")
			tt.check(t, p)
		})
	}
}

// TestConsoleStreamsAreBounded: one session holds at most 8 live streams
// (2000 of them once meant 4000 goroutines); closing one frees its place.
func TestConsoleStreamsAreBounded(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("streams")
	open := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, e.URL+"/console/events", nil)
		return b.client.Do(req)
	}
	var streams []*http.Response
	defer func() {
		for _, s := range streams {
			s.Body.Close()
		}
	}()
	for i := range 8 {
		resp, err := open()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %v %v", i+1, err, resp)
		}
		buf := make([]byte, 5)
		if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "retry" {
			t.Fatalf("stream %d starts %q, %v", i+1, buf, err)
		}
		streams = append(streams, resp)
	}
	resp, err := open()
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a ninth stream: %v %v, want 429 with Retry-After", err, resp)
	}
	resp.Body.Close()
	// Another session has places of its own.
	other := e.browser()
	other.login("streams-2")
	req, _ := http.NewRequest(http.MethodGet, e.URL+"/console/events", nil)
	if r, err := other.client.Do(req); err != nil || r.StatusCode != http.StatusOK {
		t.Errorf("another session's stream: %v %v", err, r)
	} else {
		r.Body.Close()
	}
	streams[0].Body.Close()
	streams = streams[1:]
	testkit.Eventually(t, "closing a stream frees its place", func() bool {
		resp, err := open()
		if err == nil && resp.StatusCode == http.StatusOK {
			streams = append(streams, resp)
			return true
		}
		if resp != nil {
			resp.Body.Close()
		}
		return false
	})
}

// TestConsoleFormsTooLarge: a console form over the body limit answers 413,
// also when its length is not announced (chunked).
func TestConsoleFormsTooLarge(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	for _, path := range []string{"/console/login", "/console/demo/notify"} {
		body := io.MultiReader(strings.NewReader("token="), strings.NewReader(strings.Repeat("a", 70<<10)))
		req, _ := http.NewRequest(http.MethodPost, e.URL+path, body)
		req.ContentLength = -1 // chunked
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if p := e.browser().do(req); p.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s of 70 KiB, chunked: HTTP %d, want 413", path, p.Status)
		}
	}
}

// TestConsoleShowsTheCodesSent: the transaction page of an otp challenge
// shows the codes "sent" to the cardholder's phone, oldest first.
func TestConsoleShowsTheCodesSent(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	id := e.lookupID("phone", e.Challenge, nil)
	e.api("/challenge/"+id, "phone", map[string]string{"action": "resend"})
	e.api("/challenge/"+id, "phone", map[string]string{"action": "resend"})
	b := e.browser()
	b.login("phone")
	p := b.get("/console/transactions/" + id)
	var sms []string
	p.Doc.Find(".inbox li.sms .sms-text").Each(func(_ int, s *goquery.Selection) { sms = append(sms, s.Text()) })
	if len(sms) != 2 || !strings.Contains(sms[0], "new code 1234 sent") || !strings.Contains(sms[1], "resend 2 of 3") {
		t.Errorf("the phone shows %q, want the two new codes", sms)
	}
	if p.Doc.Find("[data-action=open-app]").Length() != 0 {
		t.Error("an otp challenge links a banking app")
	}
}

// TestConsoleDemoOffersEveryStyle: the demo checkout's card picker has a
// card of each challenge style, for Visa and Mastercard, and its hint
// says how each is completed.
func TestConsoleDemoOffersEveryStyle(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	p := e.browser().get("/console/demo")
	for _, card := range []string{"4000000000009102", "4000000000009300", "4000000000009326", "4000000000009334",
		"5200000000009107", "5200000000009305", "5200000000009321", "5200000000009339"} {
		if p.Doc.Find(`#card option[value="`+card+`"]`).Length() != 1 {
			t.Errorf("the demo's picker lacks card %s", card)
		}
	}
	if hint := p.Doc.Find("#card ~ .hint, .hint").Text(); !strings.Contains(hint, "banking app") || !strings.Contains(hint, "question") {
		t.Errorf("the demo's hints do not say how to complete every style: %q", hint)
	}
}
