package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// serve wires the rooms together, serves until ctx ends, then drains.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	c, _, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log, err := newLogger(c, stdout)
	if err != nil {
		return err
	}

	source, err := scenarios.NewSource(scenarios.LoadOptions{
		NoDefaults: c.ScenariosMode == "replace",
		Packs:      splitList(c.Packs),
		Paths:      splitList(c.Scenarios),
		Fallback:   c.Fallback,
	})
	if err != nil {
		return fmt.Errorf("[scenarios] %w", err)
	}
	runtime := &scenarios.Runtime{}
	bins, err := emulator.ParseBINList(c.CardBINs)
	if err != nil {
		return fmt.Errorf("[card-bins] %w", err)
	}
	schemes, err := emulator.NewSchemeTable(bins)
	if err != nil {
		return fmt.Errorf("[card-bins] %w", err)
	}
	hashKey, err := key("state-hash-key", c.StateHashKey)
	if err != nil {
		return err
	}
	blockKey, err := key("state-block-key", c.StateBlockKey)
	if err != nil {
		return err
	}
	previous, err := keyPairs(c.StatePrevKeys)
	if err != nil {
		return err
	}
	if hashKey == nil {
		hashKey = securecookie.GenerateRandomKey(32)
	}
	if blockKey == nil {
		blockKey = securecookie.GenerateRandomKey(32)
	}
	chaos, err := web.NewChaos(c.ChaosProbability, splitList(c.ChaosFaults), c.Seed)
	if err != nil {
		return err
	}
	pages, err := templates.Parse()
	if err != nil {
		return fmt.Errorf("[templates] %w", err)
	}
	store, err := memstore.New(memstore.Options{
		MaxEntries: c.StoreMaxEntries,
		MaxAge:     c.StoreMaxAge,
		OnEvict:    evictionLogger(log),
	})
	if err != nil {
		return fmt.Errorf("[store] %w", err)
	}

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("[addr] listen on %s: %w", c.Addr, err)
	}
	publicURL := c.PublicURL
	if publicURL == "" {
		publicURL = fmt.Sprintf("http://localhost:%d/%s", ln.Addr().(*net.TCPAddr).Port, strings.Trim(c.BasePath, "/"))
	}
	publicURL = strings.TrimRight(publicURL, "/")

	var jnl *journal.Journal
	var observer emulator.Observer
	if c.JournalSize > 0 {
		jnl = journal.New(journal.Options{PerNamespace: c.JournalSize})
		observer = jnl
	}
	engine, err := emulator.New(emulator.Config{
		PublicURL:        publicURL,
		Seed:             c.Seed,
		FirstCReqTimeout: c.FirstCReqTimeout,
		ChallengeTimeout: c.ChallengeTimeout,
		Schemes:          schemes,
		Catalogue:        source.Current,
		Runtime:          runtime,
		Pages:            web.FormPages{Set: pages},
		MaxDelayed:       c.MaxDelayed,
		Observer:         observer,
	}, store)
	if err != nil {
		ln.Close()
		return err
	}
	metrics := web.NewMetrics(func() (int, uint64) { return store.Len(), store.Evicted() })
	srv, err := web.NewServer(web.Config{
		Listener:        ln,
		BasePath:        c.BasePath,
		Tokens:          web.NewTokens(splitList(c.Tokens)),
		MaxBodyBytes:    c.MaxBodyBytes,
		ShutdownTimeout: c.ShutdownTimeout,
		HashKey:         hashKey,
		BlockKey:        blockKey,
		PreviousKeys:    previous,
		PublicURL:       publicURL,
		Engine:          engine,
		Catalogue:       source.Current,
		Runtime:         runtime,
		Pages:           pages,
		Logger:          log,
		Chaos:           chaos,
		Metrics:         metrics,
		Observer:        observer,
		Journal:         jnl,
		ConsoleAuth:     c.ConsoleAuth,
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("[state] %w", err)
	}
	if err := srv.Open(); err != nil {
		return err
	}
	srv.SetReady(true)
	log.Info("3-D Secure sandbox serving", slog.String("addr", srv.Addr()), slog.String("public_url", publicURL),
		slog.Int("scenarios", source.Current().Len()))
	go reloadScenarios(ctx, source, c, log, metrics)
	if ready != nil {
		ready <- publicURL
	}

	<-ctx.Done()
	srv.SetReady(false)
	log.Info("shutting down: draining in-flight requests", slog.Duration("timeout", c.ShutdownTimeout))
	if err := srv.Close(); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// reloadScenarios reloads the user scenario files when they change (polled
// every --scenarios-poll) and on SIGHUP, until ctx ends. A valid new set
// replaces the old atomically; an invalid one is logged with file:line:
// reason and the old set stays active.
func reloadScenarios(ctx context.Context, source *scenarios.Source, c config, log *slog.Logger, metrics *web.Metrics) {
	report := func(trigger string) func(error) {
		return func(err error) {
			metrics.ScenarioReload(err == nil)
			if err != nil {
				log.Error("scenario reload refused; the previous scenarios stay active",
					slog.String("trigger", trigger), slog.String("problems", err.Error()))
				return
			}
			log.Info("scenarios reloaded", slog.String("trigger", trigger), slog.Int("scenarios", source.Current().Len()))
		}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if c.Scenarios != "" && c.ScenariosPoll > 0 {
		go source.Watch(ctx, c.ScenariosPoll, report("file change"))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			report("SIGHUP")(source.Reload())
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

func newLogger(c config, out io.Writer) (*slog.Logger, error) {
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

// healthcheck probes GET /healthz of the emulator at --addr (for the
// Dockerfile's HEALTHCHECK, so the image needs no curl).
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, _, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("healthcheck: --addr %q: %w", c.Addr, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: /healthz answered %s", resp.Status)
	}
	return nil
}
