package web_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// openServer starts a web.Server with Open on a loopback port.
func openServer(t *testing.T, timeouts web.Timeouts) *web.Server {
	t.Helper()
	srv := newServer(t, "127.0.0.1:0", timeouts)
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// openServerAt builds, without opening, a server for addr.
func openServerAt(t *testing.T, addr string) *web.Server {
	t.Helper()
	return newServer(t, addr, web.Timeouts{})
}

func newServer(t *testing.T, addr string, timeouts web.Timeouts) *web.Server {
	t.Helper()
	return buildSandbox(t, envOptions{addr: addr, timeouts: timeouts, realClock: true}, "").Server
}

// TestSlowHeadersAreCut: a client that never finishes its headers is
// disconnected after the read-header timeout (slowloris).
func TestSlowHeadersAreCut(t *testing.T) {
	t.Parallel()
	srv := openServer(t, web.Timeouts{ReadHeader: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /authentication/brw HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			break
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("connection with unfinished headers held for %s", d)
	}
}

func TestOpenPortClash(t *testing.T) {
	t.Parallel()
	srv := openServer(t, web.Timeouts{})
	other := openServerAt(t, srv.Addr())
	if err := other.Open(); err == nil {
		other.Close()
		t.Error("Open on a port in use succeeded")
	}
}

// TestHTTPMethods: HEAD is answered wherever GET is, with the headers and
// no body; a method a path does not serve answers 405 with Allow.
func TestHTTPMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/scenarios", "/openapi.json", "/console/", "/console/login", "/console/demo"} {
		get, _ := http.NewRequest(http.MethodGet, e.URL+path, nil)
		want := e.do(get)
		req, _ := http.NewRequest(http.MethodHead, e.URL+path, nil)
		resp, err := e.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want.Status || len(body) != 0 || resp.Header.Get("Content-Type") != want.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Type %q; want GET's %d and %q, and no body",
				path, resp.StatusCode, len(body), resp.Header.Get("Content-Type"), want.Status, want.Header.Get("Content-Type"))
		}
	}
	for _, tt := range []struct{ method, path, allow string }{
		{http.MethodDelete, "/healthz", "GET, HEAD"},
		{http.MethodGet, "/authentication/brw", "POST"},
		{http.MethodPut, "/admin/scenarios", "GET, HEAD, POST, DELETE"},
		{http.MethodPost, "/console/transactions", "GET, HEAD"},
	} {
		req, _ := http.NewRequest(tt.method, e.URL+tt.path, nil)
		r := e.do(req)
		if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405 and %q", tt.method, tt.path, r.Status, r.Header.Get("Allow"), tt.allow)
		}
		if r.Body != nil && (r.EMV("emvErrorDetail") == "" || !strings.Contains(r.Str("error"), tt.allow)) {
			t.Errorf("%s %s: the error body does not name the allowed methods: %s", tt.method, tt.path, r.Raw)
		}
	}
}

// TestMetricsRouteLabels checks that every request is counted under the
// template of the route it matched (the API's routes compose their
// middleware once, the console's through the router), and under
// "unmatched" when no route matched, with and without a base path.
func TestMetricsRouteLabels(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "/3ds"} {
		t.Run("base="+base, func(t *testing.T) {
			e := newEnv(t, func(o *envOptions) { o.basePath = base; o.journal = true })
			e.lookup("metrics-team", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
			e.enquiry("metrics-team", map[string]string{"externalReferenceId": "ORD-20240611-000123"})
			e.call(http.MethodPost, "/challenge/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "metrics-team", map[string]string{"action": "pass"})
			e.call(http.MethodGet, "/console/login", "", nil)
			e.call(http.MethodGet, "/docs/", "", nil)
			e.call(http.MethodGet, "/no-such-route", "", nil)
			e.call(http.MethodGet, "/scenarios", "", nil)
			e.call("BREW", "/scenarios", "", nil)
			e.call("BREW", "/scenarios", "", nil)
			metrics := testkit.Do(t, e.Server.Client(), testkit.Request(t, http.MethodGet, e.Server.URL+"/metrics", "", nil)).Raw
			for _, want := range []string{
				`threeds_http_requests_total{code="200",method="POST",route="` + base + `/authentication/brw"} 1`,
				`threeds_http_requests_total{code="200",method="POST",route="` + base + `/enquiry/"} 1`,
				`threeds_http_requests_total{code="404",method="POST",route="` + base + `/challenge/{id}"} 1`,
				`threeds_http_requests_total{code="200",method="GET",route="` + base + `/console/login"} 1`,
				`threeds_http_requests_total{code="200",method="GET",route="` + base + `/docs/"} 1`,
				`threeds_http_requests_total{code="200",method="GET",route="` + base + `/scenarios"} 1`,
				`threeds_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
				`threeds_http_requests_total{code="405",method="other",route="unmatched"} 2`,
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("/metrics has no line %s", want)
				}
			}
		})
	}
}

// TestHeaderKeysAreCanonical: the hot path reads request headers by their
// canonical keys without canonicalizing them again, so each key it uses
// must be canonical already.
func TestHeaderKeysAreCanonical(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"Content-Type", "Authorization", "X-Request-Id", web.ScenarioHeader} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("header key %q is not canonical (%q)", k, c)
		}
	}
}
