// Package web is the HTTP face of the emulator: routes, JSON and form
// decoding, bearer authentication, middleware and HTML rendering. It knows
// HTTP and leaves every 3-D Secure rule to package emulator.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/docs"
	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
	"github.com/threeds-sandbox/threeds-sandbox/web/console"
	"github.com/threeds-sandbox/threeds-sandbox/web/docsite"
)

// Defaults of the server's limits.
const (
	DefaultMaxBodyBytes    = 64 << 10
	DefaultShutdownTimeout = 15 * time.Second
)

// DefaultConsoleStreams and DefaultConsoleStreamsPerToken bound the
// console's live streams in all and per token (Config.ConsoleStreams).
const (
	DefaultConsoleStreams         = console.DefaultMaxStreams
	DefaultConsoleStreamsPerToken = console.DefaultMaxStreamsPerToken
	// DefaultConsoleTokensPerClient bounds the tokens one client
	// address holds console sessions for (Config.ConsoleTokensPerClient).
	DefaultConsoleTokensPerClient = console.DefaultMaxTokensPerClient
)

// Config sets up a Server.
type Config struct {
	// Addr is the listen address, e.g. ":8080" or "127.0.0.1:0".
	Addr string
	// Listener, when set, is used instead of listening on Addr.
	Listener net.Listener
	// BasePath prefixes every route, e.g. "/3ds"; empty for the root.
	BasePath string
	// Tokens are the accepted bearer tokens.
	Tokens auth.Tokens
	// MaxBodyBytes caps request bodies.
	MaxBodyBytes int64
	// ShutdownTimeout bounds the wait for in-flight requests on Close.
	ShutdownTimeout time.Duration
	// Timeouts of the HTTP server; zero fields take the defaults.
	Timeouts Timeouts
	// HashKey and BlockKey sign and encrypt the challenge state
	// (securecookie). HashKey: 32 or 64 bytes; BlockKey: 16, 24 or 32 bytes.
	HashKey, BlockKey []byte
	// PreviousKeys are earlier hash/block key pairs still accepted when
	// decoding (key rotation); new state is always made with the current pair.
	PreviousKeys []KeyPair
	// NamespaceKey is the key the tokens' namespaces are hashed under,
	// as the state store keeps it across key rotations
	// (auth.SealNamespaceKey); nil takes the one HashKey makes
	// (auth.NewNamespaceKey).
	NamespaceKey []byte
	// PublicURL is the emulator's base URL as browsers reach it.
	PublicURL string
	// IssuerFromRequest makes the OAuth issuer the URL each client
	// reached (its scheme, Host and the base path) rather than PublicURL:
	// set when no public URL was configured, so that a client discovering
	// at http://127.0.0.1:<port> finds that issuer there.
	IssuerFromRequest bool

	// Engine runs the 3DS flows. The server reaches the catalogue and the
	// runtime scenarios through it.
	Engine *emulator.Engine
	Pages  *templates.Set
	Logger *slog.Logger
	// Metrics, when nil, are created without store statistics.
	Metrics *Metrics
	// ConsoleAuth, "user:password", protects the console with HTTP basic
	// authentication; empty leaves it open.
	ConsoleAuth string
	// Sessions keep the console's sessions; required.
	Sessions state.SessionStore
	// Journal is the read model of the engine's events that the console,
	// the automation API and the metrics read (the engine's event sink);
	// nil runs without one.
	Journal journal.Journal
	// Merchants are the configured merchants (--merchants): their secrets
	// verify the device data captures' JWTs, authenticate them at the
	// token endpoint and sign their result callbacks. None is the open
	// default.
	Merchants auth.Merchants
	// TokenLifetime is how long the token endpoint's access tokens live;
	// auth.DefaultTokenLifetime when zero.
	TokenLifetime time.Duration
	// Now is the clock of the JWTs and access tokens; time.Now when nil.
	Now func() time.Time
	// Callbacks sets up the result callbacks' registration and sender.
	Callbacks CallbacksConfig
	// MaxWaits and MaxWaitsPerToken bound the automation API's waits
	// (?wait=final) open at once, in all and per token; DefaultMaxWaits
	// and DefaultMaxWaitsPerToken when zero.
	MaxWaits, MaxWaitsPerToken int
	// ConsoleStreams and ConsoleStreamsPerToken bound the console's live
	// streams in all and per token (console.DefaultMaxStreams and
	// console.DefaultMaxStreamsPerToken when zero).
	ConsoleStreams, ConsoleStreamsPerToken int
	// ConsoleTokensPerClient bounds the tokens one client address holds
	// console sessions for at once (DefaultConsoleTokensPerClient when
	// zero).
	ConsoleTokensPerClient int
}

// CallbacksConfig sets up the result callbacks.
type CallbacksConfig struct {
	// Allow names the hosts callbacks may go to; the zero value names the
	// loopback hosts only.
	Allow callback.Allowlist
	// Timeout bounds each attempt, Concurrency the attempts at once; Poll
	// is how often the outbox is read. Zero takes the sender's defaults.
	Timeout     time.Duration
	Concurrency int
	Poll        time.Duration
	// SecretGrace is how long after a rotation the previous signing
	// secret signs too (callback.DefaultSecretGrace when zero).
	SecretGrace time.Duration
}

// Timeouts bound how long a connection may take over each phase.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts: generous enough for the longest scenario delay (60s)
// plus a challenge page, short enough that slow clients cannot hold
// connections open.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 90 * time.Second, Idle: 120 * time.Second}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = DefaultTimeouts.ReadHeader
	}
	if t.Read <= 0 {
		t.Read = DefaultTimeouts.Read
	}
	if t.Write <= 0 {
		t.Write = DefaultTimeouts.Write
	}
	if t.Idle <= 0 {
		t.Idle = DefaultTimeouts.Idle
	}
	return t
}

// Server serves the emulator over HTTP.
type Server struct {
	cfg     Config
	log     *slog.Logger
	state   []securecookie.Codec // current key pair first
	router  *mux.Router
	handler http.Handler // router behind the middleware of every request
	// marks keeps the images of the app channel's CRes (acs_img.go).
	marks   markImages
	bodies  bodyPool // buffers of the API's request bodies
	http    *http.Server
	ln      net.Listener
	metrics *Metrics
	console *console.Console
	docs    *docsite.Handler // the documentation at {base}/docs/
	ready   atomic.Bool
	// authority tells who a bearer token is; access issues the token
	// endpoint's tokens; ddc checks the captures' JWTs.
	authority *auth.Authority
	access    *auth.AccessTokens
	ddc       auth.DDCVerifier
	// attempts slows down the guessing of configured clients' secrets;
	// origins refuses the posts another site's page makes a browser send
	// to the sandbox's own forms.
	attempts *auth.Attempts
	origins  *auth.Origins
	// sender delivers the result callbacks; nil when the engine has
	// none. stopSender ends it and waits.
	sender     *callback.Sender
	stopSender func()
	// waits bounds the automation API's waits; closing ends them when
	// the server closes.
	waits *waitSlots
	// directoryServers is the body of GET /sdk/directory-servers,
	// encoded once.
	directoryServers []byte
	closing          chan struct{}
	closeOnce        sync.Once
}

// NewServer checks cfg and builds the routes.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Pages == nil || cfg.Sessions == nil {
		return nil, errors.New("web: config needs an engine, pages and sessions")
	}
	codecs, err := stateCodecs(append([]KeyPair{{Hash: cfg.HashKey, Block: cfg.BlockKey}}, cfg.PreviousKeys...))
	if err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.BasePath = "/" + strings.Trim(cfg.BasePath, "/")
	if cfg.BasePath == "/" {
		cfg.BasePath = ""
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics(nil)
	}
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		state:   codecs,
		metrics: cfg.Metrics,
		waits:   newWaitSlots(cfg.MaxWaits, cfg.MaxWaitsPerToken),
		closing: make(chan struct{}),
	}
	if cfg.Journal != nil {
		s.metrics.watchJournal(cfg.Journal.Stats)
	}
	if err := s.setUpAuth(); err != nil {
		return nil, err
	}
	if err := s.setUpCallbacks(); err != nil {
		return nil, err
	}
	s.metrics.watchWaits(s.waits.open)
	if s.directoryServers, err = directoryServersJSON(cfg.Engine.Directory()); err != nil {
		return nil, fmt.Errorf("web: the directory servers: %w", err)
	}
	if s.docs, err = docsite.New(docs.FS(), docs.Front(), cfg.Pages, cfg.BasePath, console.Headers); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.console, err = console.New(console.Config{
		Base:         cfg.BasePath,
		PublicURL:    cfg.PublicURL,
		Engine:       cfg.Engine,
		Journal:      cfg.Journal,
		Sessions:     cfg.Sessions,
		Authority:    s.authority,
		Pages:        cfg.Pages,
		Keys:         append([]KeyPair{{Hash: cfg.HashKey, Block: cfg.BlockKey}}, cfg.PreviousKeys...),
		BasicAuth:    cfg.ConsoleAuth,
		MaxBodyBytes: cfg.MaxBodyBytes,
		MaxStreams:   cfg.ConsoleStreams,
		// Per token, as --max-console-streams-per-token says.
		MaxStreamsPerToken: cfg.ConsoleStreamsPerToken,
		MaxTokensPerClient: cfg.ConsoleTokensPerClient,
		Logger:             cfg.Logger,
		Errors:             s.writeError,
		ChallengeHTML:      s.challengeHTML,
		Docs:               s.docs.Pages(),
		DDCToken:           s.consoleDDCToken,
		Origins:            s.origins,
		Demo: console.DemoAPI{
			Lookup:    s.demoAPI(s.handleLookup),
			Enquiry:   s.demoAPI(s.handleEnquiry),
			AppLookup: s.demoAPI(s.handleDemoAppLookup),
			AppCReq:   s.demoAPI(s.handleDemoAppCReq),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.routes()
	return s, nil
}

// routes builds the router. HEAD is answered wherever GET is, with the
// same headers and no body (but on the live event stream).
func (s *Server) routes() {
	root := mux.NewRouter()
	// No redirect to the cleaned path: POST /enquiry// answers the JSON
	// 404 of an unknown route, not a 301 a client would not follow.
	root.SkipClean(true)
	root.NotFoundHandler = http.HandlerFunc(s.notFound)
	root.MethodNotAllowedHandler = http.HandlerFunc(s.methodNotAllowed)
	r := root
	if s.cfg.BasePath != "" {
		r = root.PathPrefix(s.cfg.BasePath).Subrouter()
	}

	baked := routeSet{}
	api := routeGroup{r: r, kind: routeJSON, mw: []func(http.Handler) http.Handler{s.requireToken}, baked: baked}
	api.HandleFunc("/authentication/brw", s.handleLookup).Methods(http.MethodPost)
	api.HandleFunc("/authentication/ddc", s.handleDDC).Methods(http.MethodPost)
	api.HandleFunc("/authentication/brw/", s.handleLookup).Methods(http.MethodPost)
	api.HandleFunc("/authentication/3ri", s.handleThreeRI).Methods(http.MethodPost)
	api.HandleFunc("/authentication/3ri/", s.handleThreeRI).Methods(http.MethodPost)
	api.HandleFunc("/authentication/app", s.handleAppLookup).Methods(http.MethodPost)
	api.HandleFunc("/authentication/app/", s.handleAppLookup).Methods(http.MethodPost)
	api.HandleFunc("/enquiry/", s.handleEnquiry).Methods(http.MethodPost)
	api.HandleFunc("/enquiry", s.handleEnquiry).Methods(http.MethodPost)
	api.HandleFunc("/challenge/{id}", s.handleCompleteChallenge).Methods(http.MethodPost)
	s.adminRoutes(api)
	s.callbackRoutes(api)
	s.oauthRoutes(routeGroup{r: r, kind: routeJSON, baked: baked})
	s.automationRoutes(api)
	s.clockRoutes(api)

	data := routeGroup{r: r, kind: routeJSON, baked: baked}
	data.HandleFunc("/scenarios", s.handleScenarios).Methods(http.MethodGet, http.MethodHead)
	data.HandleFunc("/scenarios/schema.json", s.handleSchema).Methods(http.MethodGet, http.MethodHead)
	data.Handle("/openapi.{format:yaml|json}", s.openAPI()).Methods(http.MethodGet, http.MethodHead)
	data.HandleFunc(PathDirectoryServers, s.handleDirectoryServers).Methods(http.MethodGet, http.MethodHead)
	s.exampleRoutes(data)
	// The console's pages are browser pages: their errors are pages too
	// (its demo API marks its own requests as JSON routes).
	consoleRoutes := r.NewRoute().Subrouter()
	consoleRoutes.Use(markRoute(routeConsole))
	s.console.Mount(root, consoleRoutes)
	docs := routeGroup{r: r, kind: routeUnmatched, baked: baked} // the Accept header decides
	docs.Handle("/docs", http.RedirectHandler(s.cfg.BasePath+"/docs/", http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)
	r.PathPrefix("/docs/").Handler(marked(routeUnmatched, s.cfg.BasePath+"/docs/", s.docs)).Methods(http.MethodGet, http.MethodHead)

	acs := routeGroup{r: r, kind: routeACS, baked: baked}
	acs.HandleFunc(emulator.PathACSChallenge, s.handleCReq).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathACSHosted+"{id}", s.handleHosted).Methods(http.MethodGet, http.MethodPost)
	acs.HandleFunc(emulator.PathACSDecision, s.handleDecision).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathACSSDK, s.handleSDK).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathACSImages+"{name}", s.handleACSImage).Methods(http.MethodGet, http.MethodHead)
	acs.HandleFunc(emulator.PathACSApp+"{id}", s.handleApp).Methods(http.MethodGet, http.MethodPost)
	acs.HandleFunc(emulator.PathACSApp+"{id}/status", s.handleAppStatus).Methods(http.MethodGet)
	acs.HandleFunc(emulator.PathACSNotification, s.handleNotification).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathACSMethod, s.handleMethod).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathACSMethodDone, s.handleMethodDone).Methods(http.MethodPost)
	s.ddcRoutes(acs)

	// The probes come last: the router tries routes in order, and the API
	// is what runs hot.
	probes := routeGroup{r: root, kind: routeJSON, baked: baked}
	probes.HandleFunc("/healthz", s.handleHealth).Methods(http.MethodGet, http.MethodHead)
	probes.HandleFunc("/readyz", s.handleReady).Methods(http.MethodGet, http.MethodHead)
	probes.Handle("/metrics", s.metrics.Handler()).Methods(http.MethodGet, http.MethodHead)
	s.router = root
	// Every request, matched or not, is observed and has its body capped:
	// composed here once rather than as the router's Use middleware,
	// which gorilla/mux composes again for every request.
	s.handler = s.observe(s.limitBody(dispatch(root, baked)))
}

// KeyPair is a securecookie hash key and block key.
type KeyPair = auth.KeyPair

// stateCodecs checks the key lengths and builds one codec per pair, the
// current pair first.
func stateCodecs(pairs []KeyPair) ([]securecookie.Codec, error) {
	codecs := make([]securecookie.Codec, 0, len(pairs))
	for i, p := range pairs {
		name := "current"
		if i > 0 {
			name = fmt.Sprintf("previous #%d", i)
		}
		if n := len(p.Hash); n != 32 && n != 64 {
			return nil, fmt.Errorf("web: %s challenge state hash key must be 32 or 64 bytes, got %d", name, n)
		}
		if n := len(p.Block); n != 16 && n != 24 && n != 32 {
			return nil, fmt.Errorf("web: %s challenge state block key must be 16, 24 or 32 bytes, got %d", name, n)
		}
		sc := securecookie.New(p.Hash, p.Block).MaxAge(0)
		sc.SetSerializer(securecookie.JSONEncoder{})
		codecs = append(codecs, sc)
	}
	return codecs, nil
}

// SetReady says whether /readyz answers ready: true once the scenarios are
// loaded and the server listens, false again while it drains.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// ServeHTTP lets the Server be used as an http.Handler (tests, embedding).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	// A route of a subrouter that serves the path with other methods is
	// reported as not found by the router: it is a method not allowed.
	if len(s.allowed(r)) > 0 {
		s.methodNotAllowed(w, r)
		return
	}
	secureHeaders(w.Header())
	s.writeError(w, r, emv.NewError(emv.CodeNotFound, emv.EMVAccessDenied,
		fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), ""))
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	allowed := s.allowed(r)
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeError(w, r, emv.NewError(emv.CodeMethodNotAllowed, emv.EMVAccessDenied,
		fmt.Sprintf("method %s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", ")), "method"))
}

// allowed lists the methods some route of r's path answers.
func (s *Server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		req := r.Clone(r.Context())
		req.Method = m
		var match mux.RouteMatch
		if s.router.Match(req, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	return out
}

// Open listens on the configured address and serves in the background. A
// port already in use fails here, not later.
func (s *Server) Open() error {
	ln := s.cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.cfg.Addr); err != nil {
			return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
		}
	}
	s.ln = ln
	to := s.cfg.Timeouts.withDefaults()
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: to.ReadHeader,
		ReadTimeout:       to.Read,
		WriteTimeout:      to.Write,
		IdleTimeout:       to.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", slog.Any("err", err))
		}
	}()
	s.startCallbacks()
	return nil
}

// Addr is the address the server listens on (useful with port 0).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Close stops accepting connections and waits, up to the shutdown timeout,
// for in-flight requests to finish.
func (s *Server) Close() error {
	// Waits answer at once with what they have, rather than hold the
	// shutdown.
	s.closeOnce.Do(func() { close(s.closing) })
	if s.http == nil { // never opened: release the listener it was given
		if s.cfg.Listener != nil {
			return s.cfg.Listener.Close()
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if s.stopSender != nil {
		s.stopSender()
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
