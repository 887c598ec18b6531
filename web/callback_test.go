package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// receiver is a merchant's loopback endpoint for result callbacks: it
// answers 500 to the first attempt of each delivery and 200 to the next.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	calls []receivedCall
	got   chan receivedCall
}

type receivedCall struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: make(chan receivedCall, 16)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c := receivedCall{header: r.Header.Clone(), body: b}
		rc.mu.Lock()
		rc.calls = append(rc.calls, c)
		rc.mu.Unlock()
		rc.got <- c
		if r.Header.Get(callback.AttemptHeader) == "1" {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// next waits for the next call.
func (rc *receiver) next(t *testing.T) receivedCall {
	t.Helper()
	select {
	case c := <-rc.got:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no callback within 10s")
	}
	return receivedCall{}
}

// TestResultCallback: a token registers a loopback URL; its frictionless
// result is posted, signed, refused once and delivered on the retry, and
// every attempt is in the journal. A URL outside the allowlist is refused
// at registration.
func TestResultCallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.callbacks, o.backoff, o.realClock, o.journal = true, 200*time.Millisecond, true, true
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Web.RunCallbacks(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	rc := newReceiver(t)

	for _, bad := range []string{"http://10.1.2.3/cb", "https://shop.example/cb", "ftp://127.0.0.1/cb", "http://user:pw@localhost/cb"} {
		r := e.call(http.MethodPut, "/admin/callback", "merchant-token", map[string]any{"url": bad})
		if r.Status != http.StatusBadRequest || r.Str("errorCode") != "CB01" || r.EMV("emvErrorDetail") != "url" {
			t.Errorf("register %s: HTTP %d %s", bad, r.Status, r.Raw)
		}
	}
	if r := e.call(http.MethodGet, "/admin/callback", "merchant-token", nil); r.Str("source") != "none" || r.Str("url") != "" {
		t.Errorf("nothing registered: %s", r.Raw)
	}
	reg := e.call(http.MethodPut, "/admin/callback", "merchant-token", map[string]any{"url": rc.URL + "/3ds/results"})
	if reg.Status != http.StatusOK || reg.Str("url") != rc.URL+"/3ds/results" || reg.Str("source") != "registered" ||
		reg.Str("signatureHeader") != callback.SignatureHeader || len(reg.Str("signingSecret")) != 64 || reg.Body["signingSecretVersion"] != 0.0 {
		t.Fatalf("register: HTTP %d %s", reg.Status, reg.Raw)
	}
	secret := []byte(reg.Str("signingSecret"))
	if other := e.call(http.MethodGet, "/admin/callback", "other-token", nil); other.Str("url") != "" || other.Str("signingSecret") == reg.Str("signingSecret") {
		t.Errorf("another token sees %s", other.Raw)
	}

	lookup := e.lookup("merchant-token", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	id := lookup.Str("threeDsServerTransId")
	first := rc.next(t)
	second := rc.next(t)
	for i, c := range []receivedCall{first, second} {
		if err := callback.Verify(secret, c.header.Get(callback.SignatureHeader), c.body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("attempt %d: %v", i+1, err)
		}
		if c.header.Get(callback.DeliveryHeader) != id || !strings.Contains(string(c.body), `"threeDsServerTransId":"`+id+`"`) ||
			!strings.Contains(string(c.body), `"externalReferenceId":"ORD-20240611-000123"`) || !strings.Contains(string(c.body), `"transactionStatus":"Y"`) {
			t.Errorf("attempt %d: %v %s", i+1, c.header, c.body)
		}
	}
	if first.header.Get(callback.AttemptHeader) != "1" || second.header.Get(callback.AttemptHeader) != "2" {
		t.Errorf("attempts %q, %q", first.header.Get(callback.AttemptHeader), second.header.Get(callback.AttemptHeader))
	}
	// Tampered, the signature fails.
	if err := callback.Verify(secret, second.header.Get(callback.SignatureHeader), append(second.body, ' '), time.Now(), time.Minute); err == nil {
		t.Error("a changed body still verifies")
	}
	var details []string
	if !testkit.Within(testkit.Patience, func() bool {
		entry, _, _ := e.Journal.Get(context.Background(), namespaceOf("merchant-token"), id)
		details = nil
		for _, ev := range entry.Events {
			if ev.Kind == "callback" {
				details = append(details, ev.Detail)
			}
		}
		return len(details) == 2
	}) {
		t.Fatalf("journal of the callbacks: %q", details)
	}
	if !strings.Contains(details[0], "HTTP 500") || !strings.Contains(details[0], "next attempt in 200ms") || !strings.Contains(details[1], "delivered") {
		t.Errorf("journal %q", details)
	}
	select {
	case c := <-rc.got:
		t.Errorf("a delivered result came again: %s", c.body)
	case <-time.After(300 * time.Millisecond):
	}
	if r := e.call(http.MethodDelete, "/admin/callback", "merchant-token", nil); r.Status != http.StatusNoContent {
		t.Errorf("unregister: HTTP %d", r.Status)
	}
	if r := e.call(http.MethodGet, "/admin/callback", "merchant-token", nil); r.Str("source") != "none" {
		t.Errorf("after unregister: %s", r.Raw)
	}
}

// TestCallbackFollowsTheTokensClock: a challenge nobody opens times out
// by its token's clock; advancing the clock past its first-CReq window
// settles it at once, and its result callback is posted then, not at the
// real time the window would have ended.
func TestCallbackFollowsTheTokensClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.callbacks, o.backoff, o.realClock, o.journal = true, 200*time.Millisecond, true, true
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Web.RunCallbacks(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	rc := newReceiver(t)
	const token = "clock-token"
	if r := e.call(http.MethodPut, "/admin/callback", token, map[string]any{"url": rc.URL + "/results"}); r.Status != http.StatusOK {
		t.Fatalf("register: HTTP %d %s", r.Status, r.Raw)
	}
	l := e.lookup(token, testkit.LookupBody(t, "4000000000009102", nil))
	if l.Str("status") != "C" {
		t.Fatalf("lookup: %s", l.Raw)
	}
	if r := e.call(http.MethodPost, "/admin/clock", token, map[string]any{"advance": "11m"}); r.Status != http.StatusOK {
		t.Fatalf("advance: HTTP %d %s", r.Status, r.Raw)
	}
	// The first attempt is refused by the receiver, the second taken.
	for range 2 {
		c := rc.next(t)
		body := string(c.body)
		if !strings.Contains(body, l.Str("threeDsServerTransId")) || !strings.Contains(body, `"transactionStatus":"N"`) ||
			!strings.Contains(body, `"challengeCancel":"05"`) {
			t.Fatalf("callback body %s: want the timed-out result (N, challengeCancel 05)", body)
		}
	}
}

// TestCallbackSecretOfItsOwn: a merchant's access token is shown a
// signing secret of the namespace's own, never its client secret; a
// rotation gives a new one, and callbacks carry a signature with each
// until the grace period ends; another token's rotation changes nothing
// of this one's.
func TestCallbackSecretOfItsOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.callbacks, o.backoff, o.realClock = true, 200*time.Millisecond, true
		o.merchants = shopID + ":" + shopSecret
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Web.RunCallbacks(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	token := e.token(shopID, shopSecret)
	rc := newReceiver(t)

	reg := e.call(http.MethodPut, "/admin/callback", token, map[string]any{"url": rc.URL + "/results"})
	first := reg.Str("signingSecret")
	if reg.Status != http.StatusOK || len(first) != 64 || strings.Contains(reg.Raw, shopSecret) || reg.Str("previousSecretUntil") != "" {
		t.Fatalf("register with an access token: HTTP %d %s", reg.Status, reg.Raw)
	}
	rot := e.call(http.MethodPost, "/admin/callback/secret", token, nil)
	second := rot.Str("signingSecret")
	if rot.Status != http.StatusOK || len(second) != 64 || second == first || rot.Body["signingSecretVersion"] != 1.0 ||
		rot.Str("previousSecretUntil") == "" || strings.Contains(rot.Raw, shopSecret) {
		t.Fatalf("rotate: HTTP %d %s", rot.Status, rot.Raw)
	}
	if other := e.call(http.MethodPost, "/admin/callback/secret", "other-token", nil); other.Status != http.StatusOK || other.Str("signingSecret") == second {
		t.Errorf("another token's rotation: HTTP %d %s", other.Status, other.Raw)
	}
	if again := e.call(http.MethodGet, "/admin/callback", token, nil); again.Str("signingSecret") != second {
		t.Errorf("after another token's rotation: %s", again.Raw)
	}
	e.lookup(token, testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	c := rc.next(t)
	header := c.header.Get(callback.SignatureHeader)
	if strings.Count(header, "v1=") != 2 {
		t.Errorf("during the grace period: %s, want two signatures", header)
	}
	for _, s := range []string{first, second} {
		if err := callback.Verify([]byte(s), header, c.body, time.Now(), time.Minute); err != nil {
			t.Errorf("a receiver with either secret: %v", err)
		}
	}
	if err := callback.Verify([]byte(shopSecret), header, c.body, time.Now(), time.Minute); err == nil {
		t.Error("the client secret verifies a callback")
	}
}
