package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

type infoKey struct{}

// requestInfo is what the middleware learns about a request: set once in
// the context on arrival (one context copy per request), filled in later.
type requestInfo struct {
	id        string
	namespace string // set by requireToken
	note      string // set by requireToken: what the call's events note of its token
	// captures is set by requireToken for an open OAuth client's token:
	// the namespace of the unverified captures naming that client (iss).
	captures string
	route    routeKind // set by the route group's middleware
	template string    // the matched route's path template, the metrics' label; set with route
	// ownWindow marks an ACS page that opens in a window of its own (the
	// banking app), which no merchant frames.
	ownWindow bool
}

// routeKind is the group of routes a request matched; it decides how an
// error is answered (JSON or a page) and how a page may be framed.
type routeKind uint8

const (
	routeUnmatched routeKind = iota // no route: the Accept header decides
	routeJSON                       // the API and the other JSON routes
	routeACS                        // the browser pages of the challenge
	routeConsole                    // the web console
)

// markRoute records the route group and the route of the requests it
// passes on, as a router's Use middleware (which finds the route matched
// in the request). The hot routes are registered through a routeGroup
// instead.
func markRoute(k routeKind) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info := infoOf(r.Context())
			info.route = k
			if cr := mux.CurrentRoute(r); cr != nil {
				info.template, _ = cr.GetPathTemplate()
			}
			next.ServeHTTP(w, r)
		})
	}
}

// routeGroup registers routes of one kind whose middleware is composed
// once, when the route is registered. A router's Use middleware is
// composed anew for every request it matches (gorilla/mux wraps the
// matched handler per request), a closure per middleware per request on
// the API's hot path.
type routeGroup struct {
	r     *mux.Router
	kind  routeKind
	mw    []func(http.Handler) http.Handler // outermost first
	baked routeSet                          // records the routes registered
}

// routeSet is a set of routes whose handlers hold all their middleware
// (the router adds none of its own when it serves them).
type routeSet map[*mux.Route]bool

// Handle registers h on path, behind the group's middleware; the caller
// adds the methods to the route returned.
func (g routeGroup) Handle(path string, h http.Handler) *mux.Route {
	route := g.r.NewRoute().Path(path)
	tpl, err := route.GetPathTemplate()
	if err != nil {
		tpl = path
	}
	for i := len(g.mw) - 1; i >= 0; i-- {
		h = g.mw[i](h)
	}
	g.baked[route] = true
	return route.Handler(marked(g.kind, tpl, h))
}

// HandleFunc is Handle for a handler function.
func (g routeGroup) HandleFunc(path string, f func(http.ResponseWriter, *http.Request)) *mux.Route {
	return g.Handle(path, http.HandlerFunc(f))
}

// marked records the route group and the path template tpl of the
// requests it passes to next.
func marked(k routeKind, tpl string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		info.route, info.template = k, tpl
		next.ServeHTTP(w, r)
	})
}

func infoOf(ctx context.Context) *requestInfo {
	if i, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return i
	}
	return &requestInfo{}
}

// header returns the first value of h under key, which must be in
// canonical form (as every constant here is): the lookup Header.Get makes
// without canonicalizing the key again, on the hot path's every request.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// requestID returns the id the request was given on arrival.
func requestID(r *http.Request) string { return infoOf(r.Context()).id }

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// observed is what observe keeps of a request while it is served.
type observed struct {
	info requestInfo
	rec  statusRecorder
	id   [1]string // the X-Request-Id header's value
}

// observe gives every request an id (X-Request-Id), recovers a panic into
// the error body with status 500, and logs one line per request.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := header(r.Header, "X-Request-Id")
		if id == "" || len(id) > 64 {
			id = newRequestID()
		}
		// What the request's middleware and handler share, in one
		// allocation: its info and the recorder of its status.
		st := &observed{info: requestInfo{id: id}, rec: statusRecorder{ResponseWriter: w}}
		info, rec := &st.info, &st.rec
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		st.id[0] = id
		w.Header()["X-Request-Id"] = st.id[:]
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					s.log.LogAttrs(r.Context(), slog.LevelInfo, "request aborted",
						slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
						slog.Duration("duration", time.Since(start)))
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic in handler", slog.String("request_id", id),
					slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				if rec.status == 0 {
					s.writeError(rec, r, emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure,
						"internal error of the emulator (request "+id+")", ""))
				}
			}
			end := time.Now()
			elapsed := end.Sub(start)
			s.metrics.observeRoute(info.template, r.Method, rec.status, elapsed)
			if h := s.log.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
				// The record is built here rather than by Logger.LogAttrs,
				// which would capture the caller's program counter (a
				// stack walk per request) for a source the line never shows.
				line := slog.NewRecord(end, slog.LevelInfo, "request", 0)
				line.AddAttrs(
					slog.String("request_id", id),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", rec.status),
					slog.Int("bytes", rec.bytes),
					slog.Duration("duration", elapsed),
					slog.String("namespace", info.namespace))
				_ = h.Handle(r.Context(), line)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// secureHeaders sets the security headers of every response. API responses may
// not be framed; the ACS pages may (merchants frame the challenge).
func secureHeaders(h http.Header) {
	h["X-Content-Type-Options"] = nosniff
	h["Referrer-Policy"] = sameOrigin
	// JSON answers load nothing and may not be framed; HTML pages set
	// their own policy.
	h["Content-Security-Policy"] = jsonCSP
}

// Header values set on every response, shared rather than allocated per
// request (Header.Set makes a new slice each time). Header.Add appends to
// a full slice, so it never writes into these.
var (
	nosniff = []string{"nosniff"}
	// sameOrigin sends no referrer to another site, and lets a form of the
	// sandbox's own pages carry its Origin (no-referrer would send
	// "Origin: null"), which the cross-site check of its forms reads
	// where a browser sends no Sec-Fetch-Site.
	sameOrigin = []string{"same-origin"}
	jsonCSP    = []string{"default-src 'none'; frame-ancestors 'none'"}
)

// limitBody caps request bodies; a larger body is answered with 413.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secureHeaders(w.Header())
		// The acsURL answers an app's SDK an Erro it reads, even for a body
		// too large (handleSDK bounds its own).
		if r.ContentLength > s.cfg.MaxBodyBytes && r.URL.Path != s.cfg.BasePath+emulator.PathACSSDK {
			s.writeError(w, r, tooLarge(s.cfg.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}
