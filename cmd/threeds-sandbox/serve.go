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
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/gcheadroom"
	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// parse reads the flags of serve and healthcheck (cmd names the command
// in messages). When help is asked for, it writes usage to stdout and
// returns ok false with no error.
func parse(cmd string, args []string, getenv func(string) string, stdout io.Writer, usage func(io.Writer)) (sandbox.Config, bool, error) {
	c, rest, err := sandbox.Parse(args, getenv, io.Discard)
	var bad *sandbox.UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return c, false, nil
	case errors.As(err, &bad):
		return c, false, usageError("%s: %w", cmd, bad)
	case err != nil:
		return c, false, configError(err)
	case len(rest) > 0:
		return c, false, strayArgument(cmd, rest[0])
	}
	return c, true, nil
}

// The log's lines are written at once when the log is quiet, else
// gathered for at most logInterval or logBuffer bytes.
const (
	logInterval = 50 * time.Millisecond
	logBuffer   = 64 << 10
)

// serve starts the emulator of the command line and serves until ctx ends.
// It warns of the variables of environ that look like a flag's twin but
// are none: a container's environment carries others, so they are no
// error, but a misspelled one would otherwise be ignored in silence.
func serve(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout io.Writer, ready chan<- string) error {
	c, ok, err := parse("serve", args, getenv, stdout, printUsage)
	if !ok {
		return err
	}
	// The request log gathers its lines under load (see logbuf): at most
	// logInterval behind, a warning or an error at once with what came
	// before it, and all of it written when serve returns.
	out, wrap, closeOut := logOutput(stdout)
	defer closeOut()
	log, err := sandbox.NewLogger(c, out)
	if err != nil {
		return configError(err)
	}
	log = slog.New(wrap(log.Handler()))
	for _, w := range sandbox.UnknownEnv(environ()) {
		log.Warn(w)
	}
	sb, err := sandbox.New(c, log)
	if errors.As(err, new(*scenarios.LoadError)) || errors.As(err, new(*sandbox.StoreError)) || errors.Is(err, redisstore.ErrUntrusted) || errors.Is(err, redisstore.ErrCluster) {
		return configError(err)
	}
	if err != nil {
		return err
	}
	if getenv("GOGC") == "" {
		defer gcheadroom.Start(uint64(c.GCHeadroomMiB) << 20)()
	}
	return sb.Run(ctx, func() {
		if ready != nil {
			ready <- sb.PublicURL
		}
	})
}

// printHealthcheckUsage writes the usage of healthcheck.
func printHealthcheckUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: threeds-sandbox healthcheck [--addr ADDR]

probes GET /healthz of the emulator listening on --addr (THREEDS_ADDR), on
the loopback interface when the address has no host, and exits 0 when it
answers 200, 1 when not. It reads the flags and the environment of serve,
so that a container's HEALTHCHECK needs no curl and no arguments.`)
}

// healthcheck probes GET /healthz of the emulator at --addr (for the
// Dockerfile's HEALTHCHECK, so the image needs no curl).
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, ok, err := parse("healthcheck", args, getenv, stdout, printHealthcheckUsage)
	if !ok {
		return err
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return configError(fmt.Errorf("healthcheck: --addr %q: %w", c.Addr, err))
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
