// Package callback sends the sandbox's result callbacks: it asks the
// engine for the deliveries due, posts each transaction's result (the
// enquiry's body) to its URL, signed (SignatureHeader) with the
// namespace's own secret (Secrets), and tells the engine how each attempt
// went; the engine decides retries and records every attempt in the
// journal. Outbound requests go only to the hosts and ports an allowlist
// names, never follow a redirect, end after a timeout, and are at most
// Concurrency at a time: a sandbox on a shared network is no relay to
// anywhere else. An attempt that gets no HTTP answer fails the same way,
// after the whole timeout, whatever the connection did: the journal that
// shows the failure to the token is no port scanner.
package callback

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// Defaults of a Sender.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultConcurrency = 8
	DefaultPoll        = 250 * time.Millisecond
)

// Headers of a callback besides SignatureHeader.
const (
	// DeliveryHeader names the transaction whose result it is, the same
	// on every attempt: a receiver keys its idempotency on it.
	DeliveryHeader = "X-3DS-Delivery"
	// AttemptHeader numbers the attempt, from 1.
	AttemptHeader = "X-3DS-Attempt"
)

// maxAnswer bounds what is read of a receiver's answer.
const maxAnswer = 4 << 10

// Engine is what the sender needs of the engine.
type Engine interface {
	DueCallbacks(ctx context.Context, max int, lease time.Duration) ([]emulator.CallbackJob, error)
	CallbackDelivered(ctx context.Context, job emulator.CallbackJob, a emulator.CallbackAttempt) error
}

// Config sets up a Sender.
type Config struct {
	Engine Engine
	// Allow names the hosts callbacks may go to; the zero value is
	// DefaultAllowlist.
	Allow Allowlist
	// Secrets derive the namespaces' signing secrets.
	Secrets Secrets
	// Timeout bounds each attempt, from connection to answer.
	Timeout time.Duration
	// Concurrency bounds the attempts in flight.
	Concurrency int
	// Poll is how often the outbox is read.
	Poll   time.Duration
	Logger *slog.Logger
}

// Sender delivers the result callbacks.
type Sender struct {
	cfg    Config
	client *http.Client
}

// New returns a Sender; zero fields of cfg take the defaults.
func New(cfg Config) (*Sender, error) {
	if cfg.Engine == nil || len(cfg.Secrets.Key) == 0 {
		return nil, errors.New("callback: a sender needs an engine and the state key its secrets derive from")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Allow.hosts == nil {
		cfg.Allow, _ = ParseAllowlist(DefaultAllowlist)
	}
	s := &Sender{cfg: cfg}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	s.client = &http.Client{
		Timeout: cfg.Timeout,
		// A redirect could lead anywhere: it is an answer, not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			Proxy: nil, // never through a proxy the environment names
			// The host is checked again where the connection is made.
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if !s.cfg.Allow.allowsAddr(addr) {
					return nil, fmt.Errorf("%w: %s", ErrNotAllowed, addr)
				}
				return dialer.DialContext(ctx, network, addr)
			},
			MaxIdleConnsPerHost:   cfg.Concurrency,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
		},
	}
	return s, nil
}

// Check says what is wrong with raw as a callback URL (Allowlist.Check).
func (s *Sender) Check(raw string) error { return s.cfg.Allow.Check(raw) }

// Allowlist lists the hosts and ports callbacks may go to.
func (s *Sender) Allowlist() string { return s.cfg.Allow.String() }

// lease is how long a claimed delivery is the sender's: an attempt and
// the recording of its outcome.
func (s *Sender) lease() time.Duration { return s.cfg.Timeout + 10*time.Second }

// Run delivers the callbacks that fall due until ctx ends, then waits for
// the attempts in flight (each bounded by the timeout).
func (s *Sender) Run(ctx context.Context) {
	slots := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		if free := cap(slots) - len(slots); free > 0 {
			jobs, err := s.cfg.Engine.DueCallbacks(ctx, free, s.lease())
			if err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("result callbacks: read the outbox", slog.Any("err", err))
			}
			for _, job := range jobs {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() { <-slots }()
					s.Deliver(ctx, job)
				})
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Deliver makes one attempt of job and tells the engine how it went.
func (s *Sender) Deliver(ctx context.Context, job emulator.CallbackJob) {
	a := s.attempt(ctx, job)
	// The outcome is recorded even while the sandbox shuts down.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.cfg.Engine.CallbackDelivered(rctx, job, a); err != nil {
		s.cfg.Logger.Warn("result callbacks: record an attempt", slog.String("transaction", job.Delivery.ID), slog.Any("err", err))
	}
}

// attempt posts job's result once.
func (s *Sender) attempt(ctx context.Context, job emulator.CallbackJob) emulator.CallbackAttempt {
	start := time.Now()
	if err := s.cfg.Allow.Check(job.URL); err != nil {
		return emulator.CallbackAttempt{Err: err.Error(), Permanent: true}
	}
	body := wire.AppendEnquiryResponse(make([]byte, 0, 1024), &job.Result)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.URL, bytes.NewReader(body))
	if err != nil {
		return emulator.CallbackAttempt{Err: err.Error(), Permanent: true}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "threeds-sandbox result callback")
	h.Set(DeliveryHeader, job.Delivery.ID)
	h.Set(AttemptHeader, strconv.Itoa(job.Attempt))
	now := time.Now()
	h.Set(SignatureHeader, SignWith(s.cfg.Secrets.Signing(job.Delivery.Namespace, job.Key, now), now, body))
	resp, err := s.client.Do(req)
	took := time.Since(start)
	if err != nil {
		return s.noAnswer(ctx, err, start)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	return emulator.CallbackAttempt{Status: resp.StatusCode, Took: took}
}

// noAnswer is the outcome of an attempt that got no HTTP answer: the
// same words after the whole timeout, whether the connection was
// refused, reset, closed or silent, so that a token cannot tell an open
// port from a closed one by its journal; only the allowlist's refusal,
// and the sandbox shutting down, say more.
func (s *Sender) noAnswer(ctx context.Context, err error, start time.Time) emulator.CallbackAttempt {
	if errors.Is(err, ErrNotAllowed) {
		return emulator.CallbackAttempt{Err: ErrNotAllowed.Error(), Took: time.Since(start), Permanent: true}
	}
	wait := time.NewTimer(time.Until(start.Add(s.cfg.Timeout)))
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-ctx.Done():
		return emulator.CallbackAttempt{Err: "the sandbox shut down during the attempt", Took: time.Since(start)}
	}
	return emulator.CallbackAttempt{Err: "no HTTP answer within " + s.cfg.Timeout.String(), Took: time.Since(start)}
}
