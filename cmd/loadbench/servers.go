package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// server is one HTTP server under test, listening on loopback.
type server struct {
	Name  string
	URL   string // base URL, e.g. http://127.0.0.1:41234
	close func() error
}

// Close stops the server.
func (s *server) Close() error { return s.close() }

// emulatorOptions are the few settings of the in-process emulator.
type emulatorOptions struct {
	// MaxEntries bounds the store; 0 takes the binary's default.
	MaxEntries int
	// Log is where the request log goes, as the binary writes it to
	// stdout; nil discards it without formatting.
	Log io.Writer
}

// newEngine builds the engine and its store as cmd/threeds-sandbox does
// with its default flags: the embedded catalogue, the default BIN table,
// seed 1.
func newEngine(publicURL string, maxEntries int) (*emulator.Engine, *memstore.Store, *scenarios.Catalogue, *templates.Set, error) {
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("[scenarios] %w", err)
	}
	schemes, err := emulator.NewSchemeTable(nil)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("[card-bins] %w", err)
	}
	pages, err := templates.Parse()
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("[templates] %w", err)
	}
	store, err := memstore.New(memstore.Options{MaxEntries: maxEntries})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("[store] %w", err)
	}
	engine, err := emulator.New(emulator.Config{
		PublicURL: publicURL,
		Seed:      1,
		Schemes:   schemes,
		Catalogue: func() *scenarios.Catalogue { return cat },
		Pages:     web.FormPages{Set: pages},
	}, store)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("engine: %w", err)
	}
	return engine, store, cat, pages, nil
}

// startEmulator starts the real emulator on 127.0.0.1:0, wired through the
// public packages exactly as cmd/threeds-sandbox/serve.go wires it with
// its default flags (that package is a main and cannot be imported).
func startEmulator(opts emulatorOptions) (*server, *scenarios.Catalogue, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("emulator: listen: %w", err)
	}
	publicURL := "http://" + ln.Addr().String()
	engine, store, cat, pages, err := newEngine(publicURL, opts.MaxEntries)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	log := slog.New(slog.DiscardHandler)
	if opts.Log != nil {
		log = slog.New(slog.NewTextHandler(opts.Log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	srv, err := web.NewServer(web.Config{
		Listener:  ln,
		Tokens:    web.NewTokens(nil),
		HashKey:   securecookie.GenerateRandomKey(32),
		BlockKey:  securecookie.GenerateRandomKey(32),
		PublicURL: publicURL,
		Engine:    engine,
		Catalogue: func() *scenarios.Catalogue { return cat },
		Pages:     pages,
		Logger:    log,
		Metrics:   web.NewMetrics(func() (int, uint64) { return store.Len(), store.Evicted() }),
	})
	if err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("emulator: %w", err)
	}
	if err := srv.Open(); err != nil {
		return nil, nil, fmt.Errorf("emulator: %w", err)
	}
	srv.SetReady(true)
	return &server{Name: "emulator", URL: publicURL, close: srv.Close}, cat, nil
}

// startFloor starts the floor on 127.0.0.1:0: a bare net/http handler that
// reads the whole body and answers the canned body, whatever the path.
// It is the fastest any emulator could answer over the same connections.
func startFloor(canned []byte) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("floor: listen: %w", err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(canned)
	})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	closeFn := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("floor: shutdown: %w", err)
		}
		return nil
	}
	return &server{Name: "floor", URL: "http://" + ln.Addr().String(), close: closeFn}, nil
}

// checkLoopback refuses a target that is not on this machine: the load
// must never leave loopback.
func checkLoopback(target string) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: want an http URL such as http://127.0.0.1:8080", target)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("target %q is not a loopback address: loadbench only drives servers on this machine", target)
}
