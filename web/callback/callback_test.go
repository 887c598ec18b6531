package callback_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

func TestSignVerify(t *testing.T) {
	secret := []byte("whsec-0123456789")
	body := []byte(`{"threeDsServerTransId":"x","transactionStatus":"Y"}`)
	now := time.Unix(1732190400, 0)
	h := callback.Sign(secret, now, body)
	if !strings.HasPrefix(h, "t=1732190400,v1=") || len(h) != len("t=1732190400,v1=")+64 {
		t.Fatalf("header %q", h)
	}
	if err := callback.Verify(secret, h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Errorf("Verify: %v", err)
	}
	for name, tt := range map[string]struct {
		secret []byte
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		"other secret":  {[]byte("other"), h, body, now, callback.ErrBadSignature},
		"other body":    {secret, h, append([]byte(" "), body...), now, callback.ErrBadSignature},
		"other time":    {secret, strings.Replace(h, "t=1732190400", "t=1732190401", 1), body, now, callback.ErrBadSignature},
		"stale":         {secret, h, body, now.Add(10 * time.Minute), callback.ErrStale},
		"no signature":  {secret, "t=1732190400", body, now, callback.ErrBadSignature},
		"garbage":       {secret, "v1=zz,t=x", body, now, callback.ErrBadSignature},
		"empty":         {secret, "", body, now, callback.ErrBadSignature},
		"in the future": {secret, h, body, now.Add(-10 * time.Minute), callback.ErrStale},
	} {
		if err := callback.Verify(tt.secret, tt.header, tt.body, tt.now, 5*time.Minute); !errors.Is(err, tt.want) {
			t.Errorf("%s: Verify = %v, want %v", name, err, tt.want)
		}
	}
}

func TestAllowlist(t *testing.T) {
	def, err := callback.ParseAllowlist("")
	if err != nil || def.String() != callback.DefaultAllowlist {
		t.Fatalf("default %q, %v", def.String(), err)
	}
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8080/cb":                      true,
		"https://LOCALHOST/cb?x=1":                      true,
		"http://[::1]:9/cb":                             true,
		"http://10.0.0.1/cb":                            false,
		"http://169.254.169.254/latest":                 false,
		"http://localhost.evil.example/":                false,
		"http://user:pw@127.0.0.1/cb":                   false,
		"ftp://127.0.0.1/cb":                            false,
		"/relative":                                     false,
		"http://127.0.0.1/" + strings.Repeat("a", 2048): false,
		"http://127.0.0.1:0/cb":                         false,
		"http://127.0.0.1:65535/cb":                     true,
		"http://127.0.0.1:65536/cb":                     false,
		"http://127.0.0.1:abc/cb":                       false,
		"http://127.0.0.1:-1/cb":                        false,
		"http://[::1]:70000/cb":                         false,
		"http://127.0.0.1:/cb":                          true,
	} {
		if err := def.Check(raw); (err == nil) != ok {
			t.Errorf("Check(%.60q) = %v, want allowed %v", raw, err, ok)
		}
	}
	shop, err := callback.ParseAllowlist(" shop.example , [2001:db8::1] ")
	if err != nil || shop.Check("https://shop.example/cb") != nil || shop.Check("http://[2001:db8::1]/cb") != nil || shop.Check("http://127.0.0.1/") == nil {
		t.Errorf("custom allowlist %q: %v", shop, err)
	}
	for _, bad := range []string{"a b", "http://x", "x/y", "-"} {
		if _, err := callback.ParseAllowlist(bad); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted", bad)
		}
	}
}

// engine is a fake engine: it hands out its jobs once and records the
// attempts.
type engine struct {
	mu       sync.Mutex
	jobs     []emulator.CallbackJob
	attempts []emulator.CallbackAttempt
	done     chan struct{}
}

func (e *engine) DueCallbacks(_ context.Context, max int, _ time.Duration) ([]emulator.CallbackJob, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := min(max, len(e.jobs))
	out := e.jobs[:n]
	e.jobs = e.jobs[n:]
	return out, nil
}

func (e *engine) CallbackDelivered(_ context.Context, _ emulator.CallbackJob, a emulator.CallbackAttempt) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.attempts = append(e.attempts, a)
	e.done <- struct{}{}
	return nil
}

func job(url string) emulator.CallbackJob {
	return emulator.CallbackJob{URL: url, Attempt: 1, Delivery: state.Delivery{ID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", Namespace: "ns-1"},
		Result: message.EnquiryResponse{ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", TransactionStatus: "Y", ExternalReferenceID: "order-1"}}
}

// TestSender: a signed post to an allowed loopback receiver; a redirect
// is an answer, not followed; a host outside the allowlist and a timeout
// are failures; never more than Concurrency attempts at once.
func TestSender(t *testing.T) {
	key := []byte("the state hash key of this sandbox")
	secret := []byte(callback.Secret(key, "ns-1", 0))
	var inFlight, most atomic.Int32
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		default:
			// A receiver that takes a moment to answer, so that
			// deliveries overlap: its pace, not an assertion on time.
			time.Sleep(30 * time.Millisecond)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	e := &engine{done: make(chan struct{}, 64)}
	for range 6 {
		e.jobs = append(e.jobs, job(srv.URL+"/ok"))
	}
	e.jobs = append(e.jobs, job(srv.URL+"/redirect"), job(srv.URL+"/slow"), job("http://10.0.0.1:9/cb"))
	s, err := callback.New(callback.Config{Engine: e, Secrets: callback.Secrets{Key: key}, Timeout: time.Second,
		Concurrency: 2, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { s.Run(ctx); close(stopped) }()
	for range 9 {
		select {
		case <-e.done:
		case <-time.After(10 * time.Second):
			t.Fatal("the attempts did not all end")
		}
	}
	cancel()
	<-stopped
	if m := most.Load(); m > 2 {
		t.Errorf("%d attempts in flight at once, Concurrency 2", m)
	}
	var delivered, redirect, slow, refused int
	for _, a := range e.attempts {
		switch {
		case a.Status == http.StatusNoContent:
			delivered++
		case a.Status == http.StatusFound:
			redirect++
		case a.Err == "no HTTP answer within 1s" && a.Took >= time.Second:
			slow++
		case a.Permanent && strings.Contains(a.Err, "allowlist"):
			refused++
		default:
			t.Errorf("attempt %+v", a)
		}
	}
	if delivered != 6 || redirect != 1 || slow != 1 || refused != 1 {
		t.Errorf("delivered %d, redirects %d, timeouts %d, refused %d: %+v", delivered, redirect, slow, refused, e.attempts)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, r := range got {
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get(callback.DeliveryHeader) == "" || r.Header.Get(callback.AttemptHeader) != "1" {
			t.Errorf("headers %v", r.Header)
		}
		if err := callback.Verify(secret, r.Header.Get(callback.SignatureHeader), bodies[i], time.Now(), time.Minute); err != nil {
			t.Errorf("signature: %v", err)
		}
		if !strings.Contains(string(bodies[i]), `"externalReferenceId":"order-1"`) || !strings.Contains(string(bodies[i]), `"transactionStatus":"Y"`) {
			t.Errorf("body %s", bodies[i])
		}
	}
}

// FuzzVerify: no signature header crashes the verifier, and only the
// header Sign made verifies.
func FuzzVerify(f *testing.F) {
	secret, body := []byte("secret"), []byte(`{"transactionStatus":"Y"}`)
	now := time.Unix(1732190400, 0)
	good := callback.Sign(secret, now, body)
	for _, s := range []string{good, "", "t=,v1=", "v1=00,t=1732190400", "t=99999999999999999999,v1=zz", good + ",v1=00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		// Hex is read in either case.
		if err := callback.Verify(secret, header, body, now, time.Minute); err == nil && !strings.Contains(strings.ToLower(header), good[len("t=1732190400,"):]) {
			t.Fatalf("Verify accepted %q", header)
		}
	})
}
