package console

import (
	"fmt"
	"net/http"
	"time"
)

// Bounds of a live-update stream.
const (
	// streamMaxDuration ends a stream after this long; the browser's
	// EventSource reconnects by itself.
	streamMaxDuration = 5 * time.Minute
	// streamHeartbeat keeps idle proxies from closing the stream.
	streamHeartbeat = 20 * time.Second
	// streamRetry is the reconnection delay the browser is told.
	streamRetry = 2 * time.Second
	// streamMinInterval is the least time between two versions sent: the
	// page reloads its list on each, and a busy token changes every
	// millisecond. Changes in between are coalesced into the next.
	streamMinInterval = 500 * time.Millisecond
	// maxStreamsPerSession bounds the live streams one console session
	// holds open (a tab each).
	maxStreamsPerSession = 8
	// DefaultMaxStreams bounds the live streams of every session
	// together (at the bound, the token holding the most gives up its
	// oldest), DefaultMaxStreamsPerToken those of one token's sessions
	// (its namespace's).
	DefaultMaxStreams         = 1000
	DefaultMaxStreamsPerToken = 64
)

// handleEvents serves GET {base}/console/events: server-sent events that
// carry the version of the session's journal ("event: version") whenever
// it changes, at most every streamMinInterval. The stream ends when the
// client leaves, after streamMaxDuration, when it gives way to another
// token's ("event: closed", see streamPool), or when the server shuts
// down, so it never holds a graceful shutdown.
func (c *Console) handleEvents(w http.ResponseWriter, r *http.Request) {
	ns, ok, err := c.Session(r)
	if err != nil {
		c.cfg.Errors(w, r, err)
		return
	}
	if !ok {
		http.Error(w, "no console session: log in first", http.StatusUnauthorized)
		return
	}
	j := c.cfg.Journal
	if j == nil {
		http.Error(w, "this emulator runs without a journal", http.StatusNotFound)
		return
	}
	sid, _ := c.sessionID(r)
	stream, refusal := c.streams.open(sid, ns)
	if stream == nil {
		w.Header().Set("Retry-After", "30")
		http.Error(w, refusal, http.StatusTooManyRequests)
		return
	}
	defer c.streams.close(stream)
	c.watchShutdown(r)
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(streamMaxDuration)
	// The server's write timeout would cut the stream short.
	_ = rc.SetWriteDeadline(deadline.Add(10 * time.Second))

	// The journal answers before the stream is promised: a journal that
	// cannot be read (a shared one whose Redis is down) gets an error
	// status, not a 200 stream that ends at once.
	changed := j.Changed(ns)
	v, err := j.Version(r.Context(), ns)
	if err != nil {
		c.cfg.Errors(w, r, fmt.Errorf("console events: journal version: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", streamRetry.Milliseconds()); err != nil {
		return
	}

	end := time.NewTimer(time.Until(deadline))
	defer end.Stop()
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	var sent uint64
	var sentAt time.Time
	for first := true; ; first = false {
		if !first {
			if wait := streamMinInterval - time.Since(sentAt); wait > 0 {
				select {
				case <-time.After(wait):
				case <-r.Context().Done():
					return
				case <-c.stopping:
					return
				case <-stream.gaveWay:
					gaveWay(w)
					return
				}
			}
			changed = j.Changed(ns)
			if v, err = j.Version(r.Context(), ns); err != nil {
				// The stream ends cleanly; the browser reconnects after
				// the retry delay and gets the error status then.
				c.cfg.Logger.WarnContext(r.Context(), "console events: journal version", "request_id", w.Header().Get("X-Request-Id"), "err", err)
				return
			}
		}
		if first || v != sent {
			if _, err := fmt.Fprintf(w, "event: version\ndata: %d\n\n", v); err != nil {
				return
			}
			sent, sentAt = v, time.Now()
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-changed:
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-c.stopping:
			return
		case <-end.C:
			return
		case <-stream.gaveWay:
			gaveWay(w)
			return
		}
	}
}

// gaveWay ends a stream that gave way to another token's, saying so; the
// browser reconnects after the retry delay.
func gaveWay(w http.ResponseWriter) {
	_, _ = fmt.Fprint(w, "event: closed\ndata: every live stream of this sandbox is taken: this token, holding the most, gave up its oldest\n\n")
}

// watchShutdown arranges, once, for the streams to end when the HTTP
// server serving r starts its graceful shutdown (http.Server.Shutdown
// waits for active requests but does not cancel them).
func (c *Console) watchShutdown(r *http.Request) {
	srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	if !ok {
		return
	}
	c.stopOnce.Do(func() {
		srv.RegisterOnShutdown(func() { close(c.stopping) })
	})
}
