package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/gcheadroom"
	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
)

// serve starts the emulator of the command line and serves until ctx ends.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	c, _, err := sandbox.Parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log, err := sandbox.NewLogger(c, stdout)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(c, log)
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

// healthcheck probes GET /healthz of the emulator at --addr (for the
// Dockerfile's HEALTHCHECK, so the image needs no curl).
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, _, err := sandbox.Parse(args, getenv, stderr)
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
