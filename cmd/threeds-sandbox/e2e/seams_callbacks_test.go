//go:build full

package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// The result callbacks between tenants, against the built binary: one
// tenant's flood or dead receiver costs only that tenant; the signing
// secret is a value of its own, never a client secret, and rotates; a
// callback URL cannot scan the sandbox's ports.

// frictionlessCard is a card whose lookup is final at once (Y).
const frictionlessCard = "4000000000009003"

// hangingReceiver is a merchant's receiver that accepts each callback and
// never answers, until the test ends. held tells how many callbacks it
// holds now.
func hangingReceiver(t *testing.T) (u string, held func() int64) {
	t.Helper()
	stop := make(chan struct{})
	var holding atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		holding.Add(1)
		defer holding.Add(-1)
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: the handlers return
	return srv.URL + "/hangs", holding.Load
}

// arrival is a callback as a receiver saw it, and when.
type arrival struct {
	at     time.Time
	id     string
	header http.Header
	body   []byte
}

// answeringReceiver is a merchant's receiver that answers 204 and reports
// every callback on the returned channel.
func answeringReceiver(t *testing.T) (string, <-chan arrival) {
	t.Helper()
	got := make(chan arrival, 256)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a := arrival{at: time.Now(), id: r.Header.Get(callback.DeliveryHeader), header: r.Header.Clone(), body: body}
		select {
		case got <- a:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/results", got
}

// register sets token's callback URL and fails t unless it is taken.
func register(t *testing.T, base, token, u string) testkit.Response {
	t.Helper()
	r := testkit.Call(t, http.MethodPut, base+"/admin/callback", token, map[string]any{"url": u})
	if r.Status != http.StatusOK {
		t.Fatalf("register %s: HTTP %d %s", u, r.Status, r.Raw)
	}
	return r
}

// lookups runs n frictionless lookups of token on base, eight at a time,
// and returns their ids; every one must be answered 200.
func lookups(t *testing.T, base, token string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				r := testkit.Call(t, http.MethodPost, base+"/authentication/brw", token, testkit.LookupBody(t, frictionlessCard, nil))
				if r.Status != http.StatusOK {
					t.Errorf("lookup %d of %s: HTTP %d %s", i, token, r.Status, r.Raw)
					continue
				}
				ids[i] = r.Str("threeDsServerTransId")
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return ids
}

// awaitDelivery waits up to within for the callback of id and returns
// when it arrived.
func awaitDelivery(t *testing.T, got <-chan arrival, id string, within time.Duration) (arrival, bool) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case a := <-got:
			if a.id == id {
				return a, true
			}
		case <-deadline:
			return arrival{}, false
		}
	}
}

// callbackEvents returns the details of the callback events of
// transaction id, as its token reads them, once there are at least want
// (or after testkit.Patience), and when the lookup and each of them
// happened.
func callbackEvents(t *testing.T, base, token, id string, want int) ([]string, []time.Time) {
	t.Helper()
	var details []string
	var ats []time.Time
	testkit.Within(testkit.Patience, func() bool {
		r := testkit.Call(t, http.MethodGet, base+"/admin/transactions/"+id, token, nil)
		details, ats = nil, []time.Time{{}}
		evs, _ := r.Body["events"].([]any)
		for _, raw := range evs {
			ev := raw.(map[string]any)
			at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(ev["at"]))
			switch ev["type"] {
			case "lookup":
				ats[0] = at
			case "resultCallback":
				details = append(details, fmt.Sprint(ev["detail"]))
				ats = append(ats, at)
			}
		}
		return len(details) >= want
	})
	return details, ats
}

// floodSize is how many lookups a hostile tenant queues behind its dead
// receiver: CALLBACK_FLOOD overrides it, for measurements.
func floodSize(t *testing.T, def int) int {
	if s := os.Getenv("CALLBACK_FLOOD"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("CALLBACK_FLOOD=%q: want a positive count", s)
		}
		return n
	}
	return def
}

// TestCallbackSlotsFairBetweenTenants: with one tenant's receiver hanging
// and 60 of its lookups queued, another tenant's callback arrives within
// 30 s, over Redis with the default delivery slots. Each attempt may
// hang for a minute (--callback-timeout, its most): a tenant that waited
// for the hanging one's slots would wait at least that long, while a
// delivery takes milliseconds, and 30 s leaves room for a busy machine.
// The dead receiver costs only its own tenant.
func TestCallbackSlotsFairBetweenTenants(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	p := startReplica(t, srv, "--callback-timeout", "1m")
	const hostile, victim = "e2e-slots-hostile", "e2e-slots-victim"
	hang, held := hangingReceiver(t)
	register(t, p.URL, hostile, hang)
	victimURL, got := answeringReceiver(t)
	register(t, p.URL, victim, victimURL)

	flood := floodSize(t, 60)
	lookups(t, p.URL, hostile, flood)
	// The hostile tenant holds every slot it may take (two in flight).
	testkit.Eventually(t, "the hanging receiver holds the hostile tenant's callbacks", func() bool {
		return held() >= emulator.DefaultCallbackInFlightPerToken
	})
	start := time.Now()
	id := lookups(t, p.URL, victim, 1)[0]
	a, ok := awaitDelivery(t, got, id, 30*time.Second)
	if !ok {
		t.Fatalf("the other tenant's callback did not arrive within 30s of its lookup (%d lookups of a hanging receiver queued)", flood)
	}
	t.Logf("the other tenant's callback arrived %s after its lookup, behind %d lookups of a hanging receiver", a.at.Sub(start).Round(time.Millisecond), flood)
}

// TestCallbackOutboxSharePerTenant: hostile tenants whose receivers hang
// queue more lookups than the outbox holds; another tenant's
// acknowledged lookup is still delivered, over Redis. The over-quota
// tenants' lookups are answered, and the journal tells them which
// results were not queued.
func TestCallbackOutboxSharePerTenant(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	// A small outbox so the test floods it in seconds: 300 in all, 100
	// per tenant.
	p := startReplica(t, srv, "--callback-outbox", "300", "--callback-outbox-per-token", "100")
	hang, _ := hangingReceiver(t)
	var hostileIDs []string
	for i := range 4 {
		token := fmt.Sprint("e2e-outbox-hostile-", i)
		register(t, p.URL, token, hang)
		ids := lookups(t, p.URL, token, 130)
		if i == 0 {
			hostileIDs = ids
		}
	}
	victimURL, got := answeringReceiver(t)
	const victim = "e2e-outbox-victim"
	register(t, p.URL, victim, victimURL)
	ids := lookups(t, p.URL, victim, 3)
	start := time.Now()
	missing := map[string]bool{}
	for _, id := range ids {
		missing[id] = true
	}
	for deadline := time.After(testkit.Patience); len(missing) > 0; {
		select {
		case a := <-got:
			delete(missing, a.id)
		case <-deadline:
			t.Fatalf("%d of the other tenant's 3 acknowledged lookups not delivered within %s", len(missing), testkit.Patience)
		}
	}
	t.Logf("the other tenant's 3 results delivered within %s, beside 4 flooding tenants", time.Since(start).Round(time.Millisecond))
	// The first hostile tenant's last lookups were beyond its share: each
	// says so in its journal, to its own token.
	last := hostileIDs[len(hostileIDs)-1]
	details, _ := callbackEvents(t, p.URL, "e2e-outbox-hostile-0", last, 1)
	if len(details) == 0 || !strings.Contains(details[0], "not queued") || !strings.Contains(details[0], "100") {
		t.Errorf("the over-quota tenant's journal: %q, want the result not queued, naming its share of 100", details)
	}
	// The victim's journal has its deliveries, nothing of the others.
	if d, _ := callbackEvents(t, p.URL, victim, ids[0], 1); len(d) != 1 || !strings.Contains(d[0], "delivered") {
		t.Errorf("the other tenant's journal: %q", d)
	}
}

// TestCallbackSigningSecretIsItsOwn: no answer of the API carries a
// client secret; the signing secret of a merchant's namespace is a value
// of its own, shown to an access token, rotated through the API, with
// the previous one still signing every callback during the grace period
// and no longer after; replicas over Redis agree at once.
func TestCallbackSigningSecretIsItsOwn(t *testing.T) {
	t.Parallel()
	const shopID, shopSecret = "seams-shop", "seams-shop-client-secret-0123456789"
	const otherID, otherSecret = "seams-other", "seams-other-client-secret-9876543210"
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	// The grace period is long enough for a callback after the rotation
	// to fall in it on a busy machine; the test waits it out.
	args := []string{"--merchants", shopID + ":" + shopSecret + "," + otherID + ":" + otherSecret, "--public-url", "http://sandbox.example", "--callback-secret-grace", "30s"}
	a, b := startReplica(t, srv, args...), startReplica(t, srv, args...)
	for _, p := range []*program{a, b} {
		p.URL = "http://" + p.Addr
	}
	token := accessToken(t, a.URL, shopID, shopSecret)
	rcv, got := answeringReceiver(t)

	var answers []testkit.Response
	reg := register(t, a.URL, token, rcv)
	read := testkit.Call(t, http.MethodGet, b.URL+"/admin/callback", token, nil)
	answers = append(answers, reg, read)
	first := read.Str("signingSecret")
	if len(first) < 32 || first != reg.Str("signingSecret") || first == shopSecret {
		t.Fatalf("the signing secret %q (registration %q), want one of its own", first, reg.Str("signingSecret"))
	}
	verifies := func(c arrival, secret string) bool {
		return callback.Verify([]byte(secret), c.header.Get(callback.SignatureHeader), c.body, time.Now(), time.Minute) == nil
	}
	deliver := func(on *program) arrival {
		t.Helper()
		id := lookups(t, on.URL, token, 1)[0]
		c, ok := awaitDelivery(t, got, id, testkit.Patience)
		if !ok {
			t.Fatalf("no callback of %s", id)
		}
		return c
	}
	if c := deliver(b); !verifies(c, first) || verifies(c, shopSecret) {
		t.Errorf("before the rotation: %s", c.header.Get(callback.SignatureHeader))
	}

	rot := testkit.Call(t, http.MethodPost, b.URL+"/admin/callback/secret", token, nil)
	answers = append(answers, rot)
	second := rot.Str("signingSecret")
	if rot.Status != http.StatusOK || len(second) < 32 || second == first || second == shopSecret || rot.Str("previousSecretUntil") == "" {
		t.Fatalf("rotate: HTTP %d %s", rot.Status, rot.Raw)
	}
	if r := testkit.Call(t, http.MethodGet, a.URL+"/admin/callback", token, nil); r.Str("signingSecret") != second {
		t.Errorf("the other replica shows %q after the rotation, want the new secret", r.Str("signingSecret"))
	} else {
		answers = append(answers, r)
	}
	// During the grace period a callback verifies with either secret.
	if c := deliver(a); !verifies(c, second) || !verifies(c, first) {
		t.Errorf("during the grace period: %s, want signatures with the new and the previous secret", c.header.Get(callback.SignatureHeader))
	}
	until, err := time.Parse(time.RFC3339, rot.Str("previousSecretUntil"))
	if err != nil {
		t.Fatalf("previousSecretUntil %q: %v", rot.Str("previousSecretUntil"), err)
	}
	// Wait out the grace period (previousSecretUntil is in whole
	// seconds): no assertion on time, a longer wait changes nothing.
	time.Sleep(time.Until(until) + 500*time.Millisecond)
	if c := deliver(b); !verifies(c, second) || verifies(c, first) {
		t.Errorf("after the grace period: %s, want the new secret alone", c.header.Get(callback.SignatureHeader))
	}
	if r := testkit.Call(t, http.MethodGet, b.URL+"/admin/callback", token, nil); r.Str("previousSecretUntil") != "" {
		t.Errorf("after the grace period: %s", r.Raw)
	} else {
		answers = append(answers, r)
	}
	// Another merchant neither reads nor rotates this one's secret.
	other := accessToken(t, a.URL, otherID, otherSecret)
	theirs := testkit.Call(t, http.MethodGet, a.URL+"/admin/callback", other, nil)
	rotated := testkit.Call(t, http.MethodPost, a.URL+"/admin/callback/secret", other, nil)
	mine := testkit.Call(t, http.MethodGet, b.URL+"/admin/callback", token, nil)
	answers = append(answers, theirs, rotated, mine)
	if s := theirs.Str("signingSecret"); s == "" || s == second || s == first || s == otherSecret {
		t.Errorf("another merchant reads %s", theirs.Raw)
	}
	if mine.Str("signingSecret") != second {
		t.Errorf("another merchant's rotation changed this one's secret: %s", mine.Raw)
	}
	for _, r := range answers {
		if strings.Contains(r.Raw, otherSecret) {
			t.Errorf("an answer carries the other client's secret: %s", r.Raw)
		}
	}
	for _, r := range answers {
		if strings.Contains(r.Raw, shopSecret) {
			t.Errorf("an answer carries the client secret: %s", r.Raw)
		}
	}
}

// TestCallbackPortsCannotBeScanned: a callback URL's port must be 1 to
// 65535 and in the allowlist's port set, refused at registration with the
// error body otherwise; and a delivery error reads the same, and takes
// the same time, whether the port is closed, open and silent, or open and
// hanging up: the journal is no port scanner.
func TestCallbackPortsCannotBeScanned(t *testing.T) {
	t.Parallel()
	allowed := testkit.FreePort(t)
	p := startProgram(t, "--callback-timeout", "1s", "--callback-attempts", "1",
		"--callback-allow-hosts", fmt.Sprintf("localhost,127.0.0.1,::1,sandbox-peer.example:%d", allowed))
	const token = "e2e-port-scan"
	for _, bad := range []string{
		"http://127.0.0.1:0/cb", "http://127.0.0.1:65536/cb", "http://127.0.0.1:99999/cb", "http://127.0.0.1:abc/cb",
		"http://127.0.0.1:-1/cb", "http://[::1]:70000/cb", fmt.Sprintf("http://sandbox-peer.example:%d/cb", allowed+1),
		"http://sandbox-peer.example/cb",
	} {
		r := testkit.Call(t, http.MethodPut, p.URL+"/admin/callback", token, map[string]any{"url": bad})
		if r.Status != http.StatusBadRequest || r.Str("errorCode") != "CB01" || r.EMV("emvErrorDetail") != "url" ||
			!strings.Contains(r.Str("error"), "port") {
			t.Errorf("register %s: HTTP %d %s, want 400 CB01 naming the port", bad, r.Status, r.Raw)
		}
	}

	// Three ports: nothing listens, a listener that hangs up at once, one
	// that accepts and says nothing.
	closed := testkit.FreePort(t)
	hangUp, silent := testkit.ServeTCP(t, func(c net.Conn) { c.Close() }), testkit.ServeTCP(t, func(c net.Conn) {})
	var details []string
	var took []time.Duration
	for _, port := range []int{closed, hangUp, silent} {
		register(t, p.URL, token, fmt.Sprintf("http://127.0.0.1:%d/cb", port))
		id := lookups(t, p.URL, token, 1)[0]
		d, at := callbackEvents(t, p.URL, token, id, 1)
		if len(d) != 1 {
			t.Fatalf("port %d: callback events %q", port, d)
		}
		details = append(details, strings.ReplaceAll(d[0], strconv.Itoa(port), "PORT"))
		took = append(took, at[1].Sub(at[0]))
	}
	if details[0] != details[1] || details[1] != details[2] {
		t.Errorf("the delivery errors tell the ports apart:\n closed:   %s\n hang-up:  %s\n silent:   %s", details[0], details[1], details[2])
	}
	if regexp.MustCompile(`refused|reset|EOF|dial|connect`).MatchString(details[0]) {
		t.Errorf("the delivery error names the connection's fate: %s", details[0])
	}
	for i, d := range took {
		if d < 900*time.Millisecond {
			t.Errorf("port %d of 3: the failed attempt was recorded %s after the lookup, want the whole timeout (1s)", i+1, d)
		}
	}
}
