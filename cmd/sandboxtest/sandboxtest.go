// Package sandboxtest runs the 3-D Secure sandbox inside a Go test
// process and drives it the way a test suite does: a lookup and an
// enquiry as the checkout under test sends them (the Three-Domain Secure
// Authentication Service Interface, sections 4.1 and 4.2), the headless
// challenge, and the automation API (the token's transactions with the
// requests it sent, waiting for a result, the token's clock, a clean
// start).
//
//	func TestCheckout(t *testing.T) {
//		ctx := context.Background()
//		sb := sandboxtest.Start(t, sandboxtest.Packs("defaults")) // stopped when the test ends
//		c := sb.NewClient() // a token of its own: a namespace no other test sees
//
//		res, err := c.Lookup(ctx, sandboxtest.LookupBody("4000000000009102")) // or: your checkout, pointed at sb.URL
//		if err != nil {
//			t.Fatal(err)
//		}
//		if _, err := c.EnterOTP(ctx, res.ThreeDSServerTransID, "1234"); err != nil { // or: the page, in a browser
//			t.Fatal(err)
//		}
//		tx, err := c.Wait(ctx, res.ThreeDSServerTransID, 30*time.Second) // once final
//		if err != nil {
//			t.Fatal(err)
//		}
//		ua, err := tx.Sent("lookup", "browserInfo.userAgent") // what the checkout sent
//		if err != nil || tx.Status != "Y" {
//			t.Fatalf("status %s, user agent %q, %v", tx.Status, ua, err)
//		}
//	}
//
// The sandbox listens on a free loopback port and is wired exactly as
// the threeds-sandbox command wires it, from the same flags; point the
// checkout under test at Sandbox.URL.
//
// More examples, each run by go test (example_test.go, shown on
// pkg.go.dev): reading back a request, waiting for a challenge's end,
// moving the token's clock, listing and forgetting transactions.
//
// The package lives under cmd/ because the wiring it reuses,
// cmd/internal/sandbox, may only be imported from there; it is not
// itself internal, so other modules import it.
package sandboxtest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
)

// Option sets up a sandbox.
type Option func(*options)

type options struct {
	args []string
	log  io.Writer
}

// Packs loads only these embedded scenario packs (defaults, cardinal,
// reasons), as --packs does; all of them without it.
func Packs(names ...string) Option {
	return func(o *options) { o.args = append(o.args, "--packs", strings.Join(names, ",")) }
}

// Scenarios adds the scenario files or directories at paths, as
// --scenarios does.
func Scenarios(paths ...string) Option {
	return func(o *options) { o.args = append(o.args, "--scenarios", strings.Join(paths, ",")) }
}

// Tokens accepts only these bearer tokens, as --tokens does; any
// non-empty token without it.
func Tokens(tokens ...string) Option {
	return func(o *options) { o.args = append(o.args, "--tokens", strings.Join(tokens, ",")) }
}

// Flags passes flags of the threeds-sandbox command as they are written
// on its command line, e.g. Flags("--challenge-timeout", "2m"). The
// environment's THREEDS_* variables are not read.
func Flags(args ...string) Option {
	return func(o *options) { o.args = append(o.args, args...) }
}

// Log writes the sandbox's log to w, as --log-level and --log-format (in
// Flags) say; it is discarded without it.
func Log(w io.Writer) Option {
	return func(o *options) { o.log = w }
}

// Sandbox is a sandbox serving in this process.
type Sandbox struct {
	// URL is its base URL, e.g. http://localhost:41234, without a
	// trailing slash.
	URL string

	stop func() error
	http *http.Client
}

// clientTimeout bounds each call of a Client: beyond the longest wait.
const clientTimeout = 90 * time.Second

// New starts a sandbox on a free loopback port. Close stops it.
func New(opts ...Option) (*Sandbox, error) {
	o := options{log: io.Discard}
	for _, f := range opts {
		f(&o)
	}
	args := append([]string{"--addr", "127.0.0.1:0"}, o.args...)
	c, rest, err := sandbox.Parse(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("sandboxtest: arguments that are no flags: %q", rest)
	}
	log, err := sandbox.NewLogger(c, o.log)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	sb, err := sandbox.New(c, log)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	stop, err := sb.Start()
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	return &Sandbox{URL: sb.PublicURL, stop: stop, http: &http.Client{Timeout: clientTimeout}}, nil
}

// Start starts a sandbox for tb and stops it when tb ends; a sandbox that
// does not start fails tb.
func Start(tb testing.TB, opts ...Option) *Sandbox {
	tb.Helper()
	s, err := New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("sandboxtest: stop: %v", err)
		}
	})
	return s
}

// Close stops the sandbox, letting requests in flight finish; waits
// answer at once.
func (s *Sandbox) Close() error {
	if s.stop == nil {
		return errors.New("sandboxtest: sandbox already closed")
	}
	err := s.stop()
	s.stop = nil
	return err
}

// Client calls the sandbox with token.
func (s *Sandbox) Client(token string) *Client {
	return &Client{URL: s.URL, Token: token, HTTP: s.http}
}

// NewClient calls the sandbox with a new random token: a namespace no
// other client sees, for one test. It needs a sandbox without Tokens.
func (s *Sandbox) NewClient() *Client { return s.Client("sandboxtest-" + randomHex(8)) }
