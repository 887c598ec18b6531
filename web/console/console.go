package console

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/docsite"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// Console settings.
const (
	// consoleCookie names the console's session cookie; the name is part
	// of the signed value, so a challenge state cannot pass for a session.
	consoleCookie = "threeds_console"
	// consoleSessionAge is how long a console session lasts.
	consoleSessionAge = 12 * time.Hour
	// DemoToken is the bearer token the demo checkout sends when no
	// console session is open (and the sandbox accepts it).
	DemoToken = "demo"
	// maxConsoleToken bounds the token typed on the login form.
	maxConsoleToken = 512
)

// Config is what the console is given: everything it reads and the few
// pieces of the API server it relies on, as explicit fields.
type Config struct {
	// Base is the base path of every route, e.g. "/3ds"; empty for the
	// root. PublicURL is the sandbox's URL as browsers reach it, ending in
	// the base path.
	Base, PublicURL string
	// Engine holds the catalogue and the BIN table the cards pages show.
	Engine *emulator.Engine
	// Journal is what the transaction pages read; nil says the sandbox
	// runs without one.
	Journal journal.Journal
	// Sessions keep the console's sign-in sessions.
	Sessions state.SessionStore
	// Authority decides who may sign in (a static token, or an access
	// token of the token endpoint, each to its namespace) and whether an
	// open session still stands.
	Authority *auth.Authority
	// Pages renders the console's pages.
	Pages *templates.Set
	// Keys sign and encrypt the session cookie (securecookie), as they do
	// the challenge state: the current pair first, then the previous
	// ones, whose cookies are still read (a key rotation keeps the
	// sessions).
	Keys []auth.KeyPair
	// BasicAuth, "user:password", protects the console with HTTP basic
	// authentication; empty leaves it open.
	BasicAuth string
	// MaxStreams bounds the live streams of every session together,
	// MaxStreamsPerToken those of one token (DefaultMaxStreams and
	// DefaultMaxStreamsPerToken when zero).
	MaxStreams, MaxStreamsPerToken int
	// MaxTokensPerClient bounds the tokens one client address holds
	// console sessions for at once (DefaultMaxTokensPerClient when zero).
	MaxTokensPerClient int
	// MaxBodyBytes is the server's body limit, which the login form's
	// error names.
	MaxBodyBytes int64
	// Logger says when a live stream ends on a journal failure.
	Logger *slog.Logger
	// Errors is the sandbox's one error writer: a page in EMV terms, or the
	// error body of the interface document on the JSON routes.
	Errors func(http.ResponseWriter, *http.Request, error)
	// ChallengeHTML renders a lookup's challengeHtml from its indication,
	// as the API writes it.
	ChallengeHTML func(*message.ChallengeIndication) (string, error)
	// Docs are the pages of the documentation the sandbox serves, which
	// the front door lists.
	Docs []docsite.Page
	// DDCToken makes the JWT of the demo checkout's device data capture
	// ddcID for namespace ns, as a merchant's server makes its own.
	DDCToken func(ns, ddcID string) (string, error)
	// Origins refuses the console's forms when another site's page posts
	// them (login CSRF).
	Origins *auth.Origins
	// Demo are the API operations the demo checkout calls, each served
	// with the console session's token (see Console.Token); nil routes
	// are not mounted.
	Demo DemoAPI
}

// DemoAPI are the handlers of the API operations the demo checkout calls
// from the browser: the lookup and the enquiry; and, for its app view,
// the app lookup and each CReq, sent by the server as a merchant's
// backend and an app's 3DS SDK send them.
type DemoAPI struct {
	Lookup, Enquiry    http.Handler
	AppLookup, AppCReq http.Handler
}

// Console serves the web console under {base}/console (the test cards,
// the transaction journal of the session's token, the demo checkout) and
// the front door at {base}/.
type Console struct {
	cfg     Config
	base    string
	cookies []securecookie.Codec // the current pair first
	auth    *basicAuth
	secure  bool   // the session cookie is Secure (public URL on https)
	acs     string // origin of the ACS pages, which the demo frames
	// imageSource is the CSP source of the images an app's CRes points
	// at: their folder under the public URL.
	imageSource string
	frameCSP    string // hashes of the challengeHtml's inline script and style

	stopOnce sync.Once
	stopping chan struct{} // closed when the HTTP server shuts down

	// streams are the live event streams open; clients the tokens each
	// client address holds console sessions for.
	streams *streamPool
	clients *clientTokens
}

// consoleSession is the signed and encrypted content of the session
// cookie: the id of a session kept on the server, never the token.
type consoleSession struct {
	ID     string `json:"sid"`
	Issued int64  `json:"iat"`
}

// New returns the console of cfg.
func New(cfg Config) (*Console, error) {
	if cfg.Engine == nil || cfg.Pages == nil || cfg.Sessions == nil || cfg.Authority == nil || cfg.Errors == nil || cfg.ChallengeHTML == nil || cfg.DDCToken == nil || cfg.Origins == nil {
		return nil, errors.New("console: config needs an engine, pages, sessions, an authority, an error writer, a challengeHtml renderer, a capture's JWT maker and the origins check")
	}
	if len(cfg.Keys) == 0 {
		return nil, errors.New("console: config needs the keys of the session cookie")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{
		cfg:         cfg,
		base:        cfg.Base,
		auth:        newBasicAuth(cfg.BasicAuth),
		secure:      strings.HasPrefix(cfg.PublicURL, "https://"),
		acs:         origin(cfg.PublicURL),
		imageSource: imageSource(cfg.PublicURL),
		stopping:    make(chan struct{}),
	}
	maxStreams, perToken, perClient := cfg.MaxStreams, cfg.MaxStreamsPerToken, cfg.MaxTokensPerClient
	if maxStreams <= 0 {
		maxStreams = DefaultMaxStreams
	}
	if perToken <= 0 {
		perToken = DefaultMaxStreamsPerToken
	}
	if perClient <= 0 {
		perClient = DefaultMaxTokensPerClient
	}
	c.streams = newStreamPool(maxStreams, perToken)
	c.clients = newClientTokens(perClient, nil)
	for _, k := range cfg.Keys {
		sc := securecookie.New(k.Hash, k.Block).MaxAge(int(consoleSessionAge.Seconds()))
		sc.SetSerializer(securecookie.JSONEncoder{})
		c.cookies = append(c.cookies, sc)
	}
	c.frameCSP = challengeHTMLHashes(cfg.Pages)
	return c, nil
}

// Mount mounts the front door and the console on r, the router under the
// base path; root is the router of every path (the base path without its
// slash redirects to the front door).
func (c *Console) Mount(root, r *mux.Router) {
	r.HandleFunc("/", c.handleLanding).Methods(http.MethodGet, http.MethodHead)
	if c.base != "" {
		root.Handle(c.base, http.RedirectHandler(c.base+"/", http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)
	}
	r.Handle("/console", c.protect(http.RedirectHandler(c.base+"/console/", http.StatusMovedPermanently))).Methods(http.MethodGet, http.MethodHead)
	cr := r.PathPrefix("/console").Subrouter()
	cr.Use(c.protect)
	cr.HandleFunc("/", c.handleCards).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/cards", c.handleCards).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/login", c.handleLoginForm).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/login", c.handleLogin).Methods(http.MethodPost)
	cr.HandleFunc("/logout", c.handleLogout).Methods(http.MethodPost)
	cr.HandleFunc("/transactions", c.handleTransactions).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/transactions/{id}", c.handleTransaction).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/events", c.handleEvents).Methods(http.MethodGet)
	cr.HandleFunc("/demo", c.handleDemo).Methods(http.MethodGet, http.MethodHead)
	cr.HandleFunc("/demo/notify", c.handleDemoNotify).Methods(http.MethodPost)
	cr.HandleFunc("/demo/ddc-jwt", c.handleDemoDDCJWT).Methods(http.MethodPost)
	cr.HandleFunc("/demo/ddc-callback", c.handleDemoDDCCallback).Methods(http.MethodPost)
	for path, h := range map[string]http.Handler{"/demo/lookup": c.cfg.Demo.Lookup, "/demo/enquiry": c.cfg.Demo.Enquiry,
		"/demo/app/lookup": c.cfg.Demo.AppLookup, "/demo/app/creq": c.cfg.Demo.AppCReq} {
		if h != nil {
			cr.Handle(path, h).Methods(http.MethodPost)
		}
	}
}

// origin returns the scheme://host[:port] of a URL, or "" when it has none.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Headers sets the security headers of the console's pages, of the front
// door and of the docs: they may not be framed, and nothing is cached.
func Headers(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // its forms carry their Origin
	h.Set("Cache-Control", "no-store")
}

// protect applies the console's basic authentication, when configured,
// and its security headers: the console may not be framed.
func (c *Console) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		Headers(h)
		if c.auth != nil && !c.auth.allow(r) {
			h.Set("WWW-Authenticate", `Basic realm="3-D Secure sandbox console", charset="UTF-8"`)
			h.Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintln(w, "The console needs the user name and password of --console-auth.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// basicAuth checks HTTP basic credentials in constant time.
type basicAuth struct {
	user, pass [32]byte
}

// newBasicAuth parses "user:password"; nil (no protection) when empty.
// Without a colon the whole value is the password, for any user name.
func newBasicAuth(spec string) *basicAuth {
	if spec == "" {
		return nil
	}
	user, pass, ok := strings.Cut(spec, ":")
	if !ok {
		user, pass = "", spec
	}
	a := &basicAuth{pass: sha256.Sum256([]byte(pass))}
	if user != "" {
		a.user = sha256.Sum256([]byte(user))
	}
	return a
}

// allow reports whether r carries the configured credentials. The
// comparison runs over hashes, so neither length nor content leaks.
func (a *basicAuth) allow(r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	u, p := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(pass))
	okUser := 1
	if a.user != [32]byte{} {
		okUser = subtle.ConstantTimeCompare(u[:], a.user[:])
	}
	return okUser&subtle.ConstantTimeCompare(p[:], a.pass[:]) == 1
}

// cspOptions vary the console's Content-Security-Policy by page.
type cspOptions struct {
	// demo lets the page frame the challenge (challengeHtml's inline
	// script and style, the ACS origin) and post forms to the ACS.
	demo bool
	// sameOriginFrame lets the console's own pages frame the page (the
	// demo's notification page).
	sameOriginFrame bool
}

// policy is the Content-Security-Policy of a console page.
func (c *Console) policy(nonce string, o cspOptions) string {
	script, style := "'nonce-"+nonce+"'", "'nonce-"+nonce+"'"
	frameSrc, formAction, ancestors, img := "", "'self'", "'none'", "data:"
	if o.demo {
		// The app view's issuer and scheme images, and only they: with
		// 'self' a browser would also fetch /favicon.ico, which the
		// sandbox does not serve.
		img += " " + c.imageSource
		script += c.frameCSP
		style += c.frameCSP
		frameSrc = "; frame-src 'self'"
		if c.acs != "" {
			frameSrc += " " + c.acs
			formAction += " " + c.acs
		}
	}
	if o.sameOriginFrame {
		ancestors = "'self'"
	}
	return fmt.Sprintf("default-src 'none'; style-src %s; script-src %s; img-src %s; connect-src 'self'%s; form-action %s; base-uri 'none'; frame-ancestors %s",
		style, script, img, frameSrc, formAction, ancestors)
}

// render writes a console page with its security headers.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name, nonce string, o cspOptions, view any) {
	var buf bytes.Buffer
	if err := c.cfg.Pages.Render(&buf, name, view); err != nil {
		c.cfg.Errors(w, r, fmt.Errorf("render console page %s: %w", name, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", c.policy(nonce, o))
	if o.sameOriginFrame {
		h.Set("X-Frame-Options", "SAMEORIGIN")
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// inlineBlocks finds the inline script and style elements of a page.
var inlineBlocks = regexp.MustCompile(`(?s)<(script|style)>(.*?)</(?:script|style)>`)

// challengeHTMLHashes returns the CSP hash sources of the inline script
// and style of a lookup's challengeHtml. The demo puts challengeHtml in an
// iframe's srcdoc, which runs under the demo page's own policy; the
// hashes let exactly that script and style run there. They are computed
// from the real page, so they follow the template.
func challengeHTMLHashes(pages *templates.Set) string {
	var b strings.Builder
	if err := pages.Render(&b, templates.PageAutoSubmit, templates.AutoSubmit{Action: "https://acs.invalid/"}); err != nil {
		return ""
	}
	var out strings.Builder
	for _, m := range inlineBlocks.FindAllStringSubmatch(b.String(), -1) {
		sum := sha256.Sum256([]byte(m[2]))
		out.WriteString(" 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'")
	}
	return out.String()
}

// layout is the common view of a console page.
func (c *Console) layout(r *http.Request, nonce, title, active string) templates.ConsoleLayout {
	l := templates.ConsoleLayout{Nonce: nonce, Base: c.base, Title: title, Active: active}
	if ns, ok, _ := c.Session(r); ok {
		l.LoggedIn, l.Namespace = true, ns
	}
	return l
}

// sessionID returns the session id of the request's cookie, made with
// the current or a previous key pair; false when there is none, or it is
// forged.
func (c *Console) sessionID(r *http.Request) (string, bool) {
	ck, err := r.Cookie(consoleCookie)
	if err != nil {
		return "", false
	}
	var s consoleSession
	if err := securecookie.DecodeMulti(consoleCookie, ck.Value, &s, c.cookies...); err != nil || s.ID == "" {
		return "", false
	}
	return s.ID, true
}

// Session returns the namespace of the request's console session; false
// when there is none, it is forged, expired or ended, or its token is no
// longer accepted (a static token no longer configured, an access token
// expired). An error means the session store did not answer. The API
// server runs the demo checkout's calls in it.
func (c *Console) Session(r *http.Request) (string, bool, error) {
	id, ok := c.sessionID(r)
	if !ok {
		return "", false, nil
	}
	s, ok, err := c.cfg.Sessions.Session(r.Context(), id)
	if err != nil || !ok {
		return "", false, err
	}
	ns, ok := c.cfg.Authority.Resume(auth.Grant{TokenHash: s.TokenHash, Namespace: s.Namespace, Expires: s.Expires})
	return ns, ok, nil
}

// openSession starts a session for token and writes its cookie. The
// session keeps what the Authority grants, never the token; it lasts
// consoleSessionAge, or until an access token expires.
func (c *Console) openSession(w http.ResponseWriter, r *http.Request, g auth.Grant) error {
	ttl := sessionTTL(g)
	id, err := c.cfg.Sessions.Create(r.Context(), state.Session{TokenHash: g.TokenHash, Namespace: g.Namespace, Expires: g.Expires}, ttl)
	if err != nil {
		return fmt.Errorf("open a console session: %w", err)
	}
	v, err := securecookie.EncodeMulti(consoleCookie, consoleSession{ID: id, Issued: time.Now().Unix()}, c.cookies[0])
	if err != nil {
		return fmt.Errorf("encode console session: %w", err)
	}
	http.SetCookie(w, c.cookie(v, int(ttl.Seconds())))
	return nil
}

// sessionTTL is how long a session opened now for g lasts.
func sessionTTL(g auth.Grant) time.Duration {
	ttl := consoleSessionAge
	if !g.Expires.IsZero() {
		ttl = min(ttl, time.Until(g.Expires))
	}
	return ttl
}

// endSession ends the request's session, if any, and clears its cookie.
func (c *Console) endSession(w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, c.cookie("", -1))
	if id, ok := c.sessionID(r); ok {
		return c.cfg.Sessions.Delete(r.Context(), id)
	}
	return nil
}

// cookie is the session cookie with value, for maxAge seconds (-1
// clears it).
func (c *Console) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     consoleCookie,
		Value:    value,
		Path:     c.cookiePath(),
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   c.secure,
		SameSite: http.SameSiteLaxMode,
	}
}

// cookiePath is the base path, "/" at the root.
func (c *Console) cookiePath() string {
	if c.base == "" {
		return "/"
	}
	return c.base
}

// crossSite refuses, with 403 and a page that says why, a form of the
// console that a browser posted from another site's page (see
// auth.Origins), and reports whether it did.
func (c *Console) crossSite(w http.ResponseWriter, r *http.Request) bool {
	err := c.cfg.Origins.Check(r)
	if err == nil {
		return false
	}
	nonce := respond.Nonce()
	c.render(w, r, http.StatusForbidden, templates.PageConsoleMessage, nonce, cspOptions{}, templates.ConsoleMessage{
		ConsoleLayout: c.layout(r, nonce, "Refused: a form of another site", ""),
		Message: "The sandbox refused this form because a page of another site sent it (" + err.Error() + "). " +
			"Another site may not log you in or out of the console: it could show you its own transactions as yours. " +
			"Open the console's own login page and log in there.",
		Link:     c.base + "/console/login",
		LinkText: "The console's login page",
	})
	return true
}

// imageSource is the CSP source of the ACS's images under publicURL:
// their folder, or 'self' (any path of the page's origin) without one.
func imageSource(publicURL string) string {
	if publicURL == "" {
		return "'self'"
	}
	return strings.TrimSuffix(publicURL, "/") + emulator.PathACSImages
}
