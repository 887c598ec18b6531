package testkit_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// upstream is a server that answers its own name.
func upstream(t *testing.T, name string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, name)
	}))
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Post(u, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestBalancer: nginx sends requests to each upstream in turn, logs which
// one answered, and passes a request meant for a stopped upstream on to
// the next one, even a POST (the connection was refused, nothing sent).
func TestBalancer(t *testing.T) {
	a, b := upstream(t, "a"), upstream(t, "b")
	addrA, addrB := a.Listener.Addr().String(), b.Listener.Addr().String()
	lb := testkit.StartNginx(t, addrA, addrB)

	var bodies []string
	for range 4 {
		status, body := get(t, lb.URL+"/x")
		if status != http.StatusOK {
			t.Fatalf("through nginx: HTTP %d %s", status, body)
		}
		bodies = append(bodies, body)
	}
	if !slices.Contains(bodies, "a") || !slices.Contains(bodies, "b") {
		t.Errorf("answers %q, want both upstreams in round-robin", bodies)
	}
	log, err := lb.AccessLogOf(4, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 4 {
		t.Fatalf("access log has %d entries, want 4: %+v", len(log), log)
	}
	for i, e := range log {
		if want := map[string]string{"a": addrA, "b": addrB}[bodies[i]]; e.Answered() != want || e.Status != 200 || e.Method != "POST" || e.Path != "/x" {
			t.Errorf("entry %d = %+v, want answered by %s, 200 POST /x", i, e, want)
		}
	}

	b.Close()
	for range 4 {
		if status, body := get(t, lb.URL+"/y"); status != http.StatusOK || body != "a" {
			t.Errorf("with b stopped: HTTP %d %q, want 200 from a", status, body)
		}
	}
	log, err = lb.AccessLogOf(8, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, e := range log[4:] {
		if e.Answered() != addrA {
			t.Errorf("with b stopped, %+v was answered by %s", e, e.Answered())
		}
		if len(e.Upstreams) == 2 && e.Upstreams[0] == addrB {
			retried++
		}
	}
	if retried == 0 {
		t.Errorf("no request tried the stopped upstream first, then the next: %+v", log[4:])
	}
	if !strings.Contains(lb.ErrorLog(), "connect() failed") {
		t.Errorf("nginx's error log does not show the refused connection:\n%s", lb.ErrorLog())
	}
}
