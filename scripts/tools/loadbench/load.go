package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// token is the bearer token of every request; the emulator accepts any.
const token = "loadbench"

// newClient is an HTTP client tuned for a closed loop of conns
// connections: keep-alive, one idle connection kept per worker, no
// proxy (loopback only), no compression.
func newClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
		Timeout: 30 * time.Second,
	}
}

// post sends one JSON API request and reads the whole answer.
func post(ctx context.Context, c *http.Client, url string, body []byte) (int, []byte, error) {
	code, _, b, err := postFull(ctx, c, url, body)
	return code, b, err
}

// postFull is post that also returns the answer's headers.
func postFull(ctx context.Context, c *http.Client, url string, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// sample is what one request of a closed loop tells.
type sample struct {
	kind    string
	latency time.Duration
	ok      bool
}

// stats summarise one measured window.
type stats struct {
	Requests int
	Errors   int
	Elapsed  time.Duration
	P50      time.Duration
	P90      time.Duration
	P99      time.Duration
	// ByKind are the same figures per request kind (mixed traffic).
	ByKind map[string]*stats
	// Redis is the work Redis did in the window, for an emulator on Redis
	// in the lookup rounds; nil otherwise.
	Redis *redisUsage
	// CPU is the server process's own CPU time per request in the
	// window, when loadbench started it (lookup rounds); 0 otherwise.
	CPU time.Duration
	// GC are the collections of the window, for an emulator run with
	// -gctrace in the lookup rounds; nil otherwise.
	GC *gcWindow
}

// RPS is the throughput of the window, errors included.
func (s *stats) RPS() float64 { return float64(s.Requests) / s.Elapsed.Seconds() }

// summarise computes the percentiles of samples over elapsed.
func summarise(samples []sample, elapsed time.Duration) *stats {
	s := &stats{Elapsed: elapsed, ByKind: map[string]*stats{}}
	all := make([]time.Duration, 0, len(samples))
	kinds := map[string][]time.Duration{}
	for _, x := range samples {
		all = append(all, x.latency)
		kinds[x.kind] = append(kinds[x.kind], x.latency)
		k := s.ByKind[x.kind]
		if k == nil {
			k = &stats{Elapsed: elapsed}
			s.ByKind[x.kind] = k
		}
		k.Requests++
		s.Requests++
		if !x.ok {
			s.Errors++
			k.Errors++
		}
	}
	s.P50, s.P90, s.P99 = percentiles(all)
	for kind, l := range kinds {
		k := s.ByKind[kind]
		k.P50, k.P90, k.P99 = percentiles(l)
	}
	return s
}

// percentiles returns p50, p90 and p99 of l (sorted in place).
func percentiles(l []time.Duration) (p50, p90, p99 time.Duration) {
	if len(l) == 0 {
		return 0, 0, 0
	}
	slices.Sort(l)
	at := func(p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
	return at(0.50), at(0.90), at(0.99)
}

// step is one request of a worker's script: it returns the request kind
// and whether the answer was the expected one.
type step func(ctx context.Context, c *http.Client) (kind string, ok bool)

// closedLoop runs conns workers, each sending its script's next request as
// soon as the previous one is answered, for d. Samples of requests still
// in flight when d ends are dropped.
func closedLoop(ctx context.Context, c *http.Client, conns int, d time.Duration, script func(worker int) step) *stats {
	return drive(ctx, c, conns, d, script, func(context.Context) (time.Time, bool) { return time.Now(), true })
}

// openLoop offers requests at a fixed rate for d, whatever the server's
// pace, over conns workers (one keep-alive connection each): request i is
// due at start + i/rate. When every worker is busy, due requests wait for
// the next free one, as they would at a real client with a bounded pool,
// and their latency counts from when they were due, so a server that
// falls behind is charged for the queue it builds (no coordinated
// omission).
func openLoop(ctx context.Context, c *http.Client, conns int, rate float64, d time.Duration, script func(worker int) step) *stats {
	interval := time.Duration(float64(time.Second) / rate)
	total := int64(d / interval)
	var next atomic.Int64
	start := time.Now()
	return drive(ctx, c, conns, d, script, func(ctx context.Context) (time.Time, bool) {
		i := next.Add(1) - 1
		if i >= total {
			return time.Time{}, false
		}
		// A request picked up late, because every worker was busy with the
		// server, is timed from when it was due: the server is charged for
		// its queue. One picked up early waits, and is timed from when it
		// is sent: a timer that wakes late is this program's delay, not the
		// server's.
		from := start.Add(time.Duration(i) * interval)
		if wait := time.Until(from); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
			from = time.Now()
		}
		return from, true
	})
}

// drive runs conns workers for d, each sending its script's requests one
// after the other. Before each request, pace says from when the request is
// timed (waiting first, if it likes) or that the worker is done. Samples of
// requests still in flight when d ends are dropped.
func drive(ctx context.Context, c *http.Client, conns int, d time.Duration, script func(worker int) step, pace func(context.Context) (time.Time, bool)) *stats {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu  sync.Mutex
		all []sample
		wg  sync.WaitGroup
	)
	start := time.Now()
	for w := range conns {
		send := script(w)
		wg.Go(func() {
			local := make([]sample, 0, 4096)
			for ctx.Err() == nil {
				from, more := pace(ctx)
				if !more || ctx.Err() != nil {
					break
				}
				kind, ok := send(ctx, c)
				if ctx.Err() != nil {
					break // cut short by the end of the window
				}
				local = append(local, sample{kind: kind, latency: time.Since(from), ok: ok})
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return summarise(all, time.Since(start))
}

// lookupScript sends the same lookup body again and again.
func lookupScript(base string, body []byte) func(int) step {
	url := base + "/authentication/brw"
	return func(int) step {
		return func(ctx context.Context, c *http.Client) (string, bool) {
			code, _, err := post(ctx, c, url, body)
			return "lookup", err == nil && code == http.StatusOK
		}
	}
}

// idKey precedes the transaction id in a lookup response.
var idKey = []byte(`"threeDsServerTransId":"`)

// transactionID finds the threeDsServerTransId of a lookup response
// without decoding the whole JSON (the load generator shares the CPUs).
func transactionID(body []byte) string {
	i := bytes.Index(body, idKey)
	if i < 0 || len(body) < i+len(idKey)+36 {
		return ""
	}
	return string(body[i+len(idKey) : i+len(idKey)+36])
}

// mixScript is the mixed traffic of a checkout farm, per cycle of 10
// requests: 6 frictionless lookups, 2 enquiries (by the transaction id of
// the worker's last lookup), 1 challenge lookup and its headless
// completion (POST /challenge/{id} with {"action":"pass"}).
func mixScript(base string, frictionless, challenge []byte) func(int) step {
	return func(worker int) step {
		i, last := worker, "" // workers start at different places of the cycle
		return func(ctx context.Context, c *http.Client) (string, bool) {
			defer func() { i++ }()
			switch i % 10 {
			case 1, 6: // enquiry
				if last == "" {
					break
				}
				code, _, err := post(ctx, c, base+"/enquiry/", []byte(`{"threeDsServerTransId":"`+last+`"}`))
				return "enquiry", err == nil && code == http.StatusOK
			case 8: // challenge lookup
				code, b, err := post(ctx, c, base+"/authentication/brw", challenge)
				last = transactionID(b)
				return "challenge lookup", err == nil && code == http.StatusOK && last != ""
			case 9: // headless completion of the challenge of case 8
				if last == "" {
					break
				}
				code, _, err := post(ctx, c, base+"/challenge/"+last, []byte(`{"action":"pass"}`))
				return "headless challenge", err == nil && code == http.StatusOK
			}
			code, b, err := post(ctx, c, base+"/authentication/brw", frictionless)
			if id := transactionID(b); id != "" {
				last = id
			}
			return "lookup", err == nil && code == http.StatusOK
		}
	}
}
