package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
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
	// stdout; nil logs warnings only.
	Log io.Writer
}

// newSandbox builds the emulator exactly as cmd/threeds-sandbox does with
// its default flags, on 127.0.0.1:0.
func newSandbox(opts emulatorOptions) (*sandbox.Sandbox, error) {
	args := []string{"--addr", "127.0.0.1:0", "--log-level", "warn"}
	if opts.Log != nil {
		args[3] = "info"
	}
	if opts.MaxEntries > 0 {
		args = append(args, "--store-max-entries", strconv.Itoa(opts.MaxEntries))
	}
	c, _, err := sandbox.Parse(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	log, err := sandbox.NewLogger(c, out)
	if err != nil {
		return nil, err
	}
	return sandbox.New(c, log)
}

// startEmulator starts the real emulator and serves it in the background.
func startEmulator(opts emulatorOptions) (*server, error) {
	sb, err := newSandbox(opts)
	if err != nil {
		return nil, err
	}
	stop, err := sb.Start()
	if err != nil {
		return nil, err
	}
	return &server{Name: "emulator", URL: sb.PublicURL, close: stop}, nil
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
