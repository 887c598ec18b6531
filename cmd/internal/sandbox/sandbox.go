package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// Sandbox is one emulator, listening and wired, not yet serving.
type Sandbox struct {
	// PublicURL is the base URL browsers use, without a trailing slash.
	PublicURL string
	Engine    *emulator.Engine
	Server    *web.Server
	Source    *scenarios.Source
	Metrics   *web.Metrics

	cfg        Config
	log        *slog.Logger
	closeState func()
	keys       *keyCheck
	stats      web.StoreStats // nil when the store cannot count
}

// Stored returns how many transactions the store holds, and false when
// it cannot count them cheaply (Redis).
func (s *Sandbox) Stored() (int, bool) {
	if s.stats == nil {
		return 0, false
	}
	n, _ := s.stats()
	return n, true
}

// New checks c, loads the scenarios, builds every part and listens on
// c.Addr. A port in use or an invalid setting fails here, with the area of
// the setting in brackets.
func New(c Config, log *slog.Logger) (*Sandbox, error) {
	source, err := scenarios.NewSource(scenarios.LoadOptions{
		NoDefaults: c.ScenariosMode == "replace",
		Packs:      SplitList(c.Packs),
		Paths:      SplitList(c.Scenarios),
		Fallback:   c.Fallback,
	})
	if err != nil {
		return nil, fmt.Errorf("[scenarios] %w", err)
	}
	set, err := c.settings()
	if err != nil {
		return nil, err
	}
	chaos, err := emulator.NewChaos(c.ChaosProbability, SplitList(c.ChaosFaults), c.Seed)
	if err != nil {
		return nil, err
	}
	pages, err := templates.Parse()
	if err != nil {
		return nil, fmt.Errorf("[templates] %w", err)
	}
	st, err := set.backend.open(c, set, log)
	if err != nil {
		return nil, err
	}
	if !st.sharedKey {
		log.Warn("the namespace key the store keeps opens with none of this replica's state keys: " +
			"its tokens' namespaces differ from the other replicas' (give every replica the same keys, see docs/deployment.md)")
	}

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		st.close()
		return nil, fmt.Errorf("[addr] listen on %s: %w", c.Addr, err)
	}
	publicURL := c.PublicURL
	if publicURL == "" {
		publicURL = fmt.Sprintf("http://localhost:%d/%s", ln.Addr().(*net.TCPAddr).Port, strings.Trim(c.BasePath, "/"))
	}
	publicURL = strings.TrimRight(publicURL, "/")

	// The engine is the one value the server is wired with: it holds the
	// catalogue, the runtime scenarios and the journal its events go to.
	engine, err := emulator.New(emulator.Config{
		PublicURL:          publicURL,
		Seed:               c.Seed,
		FirstCReqTimeout:   c.FirstCReqTimeout,
		ChallengeTimeout:   c.ChallengeTimeout,
		Schemes:            set.schemes,
		Directory:          set.directory,
		AppKey:             auth.AppKey(st.namespaceKey),
		Catalogue:          source.Current,
		Runtime:            st.runtime,
		Namespaces:         st.spaces,
		Events:             st.events(),
		Chaos:              chaos,
		MaxDelayed:         c.MaxDelayed,
		StrictDDC:          c.StrictDDC,
		StoreMaxAge:        c.StoreMaxAge,
		MaxClockOffset:     c.MaxClockOffset,
		Captures:           st.captures,
		Callbacks:          st.callbacks,
		DefaultCallbackURL: c.CallbackURL,
		CallbackAttempts:   c.CallbackAttempts,
		CallbackBackoff:    c.CallbackBackoff,
		// Per token, as --callback-concurrency-per-token says.
		CallbackInFlightPerToken: c.CallbackInFlight,
	}, st.store)
	if err != nil {
		ln.Close()
		st.close()
		return nil, err
	}
	metrics := web.NewMetrics(st.stats)
	srv, err := web.NewServer(web.Config{
		Listener:        ln,
		BasePath:        c.BasePath,
		Tokens:          auth.NewTokens(SplitList(c.Tokens)),
		MaxBodyBytes:    c.MaxBodyBytes,
		ShutdownTimeout: c.ShutdownTimeout,
		HashKey:         set.hashKey,
		BlockKey:        set.blockKey,
		PreviousKeys:    set.previous,
		NamespaceKey:    st.namespaceKey,
		PublicURL:       publicURL,
		Engine:          engine,
		Pages:           pages,
		Logger:          log,
		Metrics:         metrics,
		ConsoleAuth:     c.ConsoleAuth,
		Sessions:        st.sessions,
		Journal:         st.journal,
		Merchants:       set.merchants,
		TokenLifetime:   c.TokenLifetime,
		Callbacks: web.CallbacksConfig{Allow: set.allow, Timeout: c.CallbackTimeout, Concurrency: c.CallbackConcurrency,
			SecretGrace: c.CallbackSecretGrace},
		MaxWaits: c.MaxWaits,
		// Per token, as --max-waits-per-token says.
		MaxWaitsPerToken: c.MaxWaitsPerToken,
		ConsoleStreams:   c.ConsoleStreams,
		// Per token, as --max-console-streams-per-token says.
		ConsoleStreamsPerToken: c.ConsoleStreamsPerToken,
		ConsoleTokensPerClient: c.ConsoleTokensPerClient,
		// Without --public-url the OAuth issuer is the URL each client
		// reached, not the localhost URL assumed for the pages.
		IssuerFromRequest: c.PublicURL == "",
	})
	if err != nil {
		ln.Close()
		st.close()
		return nil, fmt.Errorf("[state] %w", err)
	}
	fps := state.KeyFingerprints{Current: auth.KeyPair{Hash: set.hashKey, Block: set.blockKey}.Fingerprint()}
	for _, p := range set.previous {
		fps.Previous = append(fps.Previous, p.Fingerprint())
	}
	keys := &keyCheck{reg: st.keys, fps: fps, log: log, metrics: metrics}
	keys.check(context.Background())
	return &Sandbox{
		keys:       keys,
		PublicURL:  publicURL,
		Engine:     engine,
		Server:     srv,
		Source:     source,
		stats:      st.stats,
		Metrics:    metrics,
		cfg:        c,
		log:        log,
		closeState: st.close,
	}, nil
}

// Run serves until ctx ends, reloading user scenarios on change and on
// SIGHUP. Then it drains: /readyz answers 503 for --drain-delay while
// every route still serves, so that a load balancer stops sending before
// the listener closes (a SIGINT or SIGTERM meanwhile cuts the drain
// short); then it stops accepting and waits up to --shutdown-timeout for
// in-flight requests. ready, when not nil, is called once the emulator
// serves.
func (s *Sandbox) Run(ctx context.Context, ready func()) error {
	return s.serve(ctx, ready, s.cfg.DrainDelay)
}

// serve is Run with the drain delay given.
func (s *Sandbox) serve(ctx context.Context, ready func(), drain time.Duration) error {
	defer s.closeState()
	if err := s.Server.Open(); err != nil {
		return err
	}
	s.Server.SetReady(true)
	s.log.Info("3-D Secure sandbox serving", slog.String("addr", s.Server.Addr()), slog.String("public_url", s.PublicURL),
		slog.String("console", s.PublicURL+"/console/"), slog.Int("scenarios", s.Source.Current().Len()))
	go s.reloadScenarios(ctx)
	go s.keys.watch(ctx, state.KeysRecheck)
	if ready != nil {
		ready()
	}

	<-ctx.Done()
	s.drain(drain)
	s.log.Info("shutting down: waiting for in-flight requests", slog.Duration("timeout", s.cfg.ShutdownTimeout))
	if err := s.Server.Close(); err != nil {
		return err
	}
	s.log.Info("stopped")
	return nil
}

// drain says not ready on /readyz and keeps serving every route for
// delay, or until a SIGINT or SIGTERM (the second one, in the binary)
// asks to stop at once.
func (s *Sandbox) drain(delay time.Duration) {
	if delay <= 0 {
		s.Server.SetReady(false)
		return
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	s.Server.SetReady(false)
	s.log.Info("draining: /readyz answers 503 while every route still serves", slog.Duration("delay", delay))
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
	case sig := <-again:
		s.log.Warn("second signal: skipping the rest of the drain", slog.String("signal", sig.String()))
	}
}

// reloadScenarios reloads the user scenario files when they change (polled
// every --scenarios-poll) and on SIGHUP, until ctx ends. A valid new set
// replaces the old atomically; an invalid one is logged with file:line:
// reason and the old set stays active.
func (s *Sandbox) reloadScenarios(ctx context.Context) {
	report := func(trigger string) func(error) {
		return func(err error) {
			s.Metrics.ScenarioReload(err == nil)
			if err != nil {
				s.log.Error("scenario reload refused; the previous scenarios stay active",
					slog.String("trigger", trigger), slog.String("problems", err.Error()))
				return
			}
			s.log.Info("scenarios reloaded", slog.String("trigger", trigger), slog.Int("scenarios", s.Source.Current().Len()))
		}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if s.cfg.Scenarios != "" && s.cfg.ScenariosPoll > 0 {
		go s.Source.Watch(ctx, s.cfg.ScenariosPoll, report("file change"))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			report("SIGHUP")(s.Source.Reload())
		}
	}
}

// evictionLogger says in the log that the store evicts: the first eviction
// and every thousandth after it (the metrics count each one).
func evictionLogger(log *slog.Logger) func(id, reason string) {
	var n atomic.Uint64
	return func(id, reason string) {
		if k := n.Add(1); k == 1 || k%1000 == 0 {
			log.Warn("store bound reached: evicting the oldest transactions", slog.String("reason", reason), slog.Uint64("evicted", k))
		}
	}
}

// NewLogger builds the slog logger of --log-level and --log-format.
func NewLogger(c Config, out io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("[log] --log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(out, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(out, opts)), nil
	}
	return nil, fmt.Errorf("[log] --log-format %q: want text or json", c.LogFormat)
}

// Start serves in the background, for cmd/sandboxtest, which embeds the
// emulator in a test's process (and in the load benchmark's and the
// screenshot tool's). It returns once the emulator
// serves; stop shuts it down gracefully, without a drain delay (nothing
// balances load to a tool's emulator), and returns what Run returned.
func (s *Sandbox) Start() (stop func() error, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- s.serve(ctx, func() { close(ready) }, 0) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("emulator: %w", err)
	}
	return func() error {
		cancel()
		return <-done
	}, nil
}
