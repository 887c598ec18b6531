//go:build full

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// The tenant rule at the seams of identity, against the built binary: a
// tenant (a bearer token, an OAuth client) can never slow, block, read,
// probe or evict another tenant's work, through the device data capture,
// the token endpoint or the automation API's waits; and the capture keeps
// working after a clean start and speaks to the merchant's window as
// Cardinal Cruise's pages say.

// captureJWT is a capture's JWT of merchant iss, signed with key.
func captureJWT(t *testing.T, iss, key, jti string, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"jti": jti, "iat": time.Now().Unix(), "iss": iss, "OrgUnitId": "org-1", "Payload": map[string]any{}}
	for k, v := range claims {
		c[k] = v
	}
	tok, err := jws.Sign([]byte(key), "", c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// capturePost posts the capture form as a checkout's hidden iframe does,
// and returns the page.
func capturePost(t *testing.T, base, bin, ddcID, jwt string) string {
	t.Helper()
	resp, err := http.PostForm(base+"/V2/ddcCollect", url.Values{"bin": {bin}, "callbackUrl": {"http://127.0.0.1:9/ddc-callback"},
		"ddcId": {ddcID}, "jwt": {jwt}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("capture: HTTP %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// methodDataRe finds the threeDSMethodData of a capture page.
var methodDataRe = regexp.MustCompile(`name="threeDSMethodData" value="([^"]+)"`)

// captureID is the threeDSServerTransID of a capture page that runs the
// 3DS Method; it fails t when the capture was refused.
func captureID(t *testing.T, page string) string {
	t.Helper()
	m := methodDataRe.FindStringSubmatch(page)
	if m == nil {
		code := regexp.MustCompile(`name="errorCode" value="([^"]*)"`).FindStringSubmatch(page)
		t.Fatalf("the capture was refused: %v", code)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimRight(m[1], "="))
	var md struct{ ThreeDSServerTransID string }
	if err := json.Unmarshal(raw, &md); err != nil || md.ThreeDSServerTransID == "" {
		t.Fatalf("threeDSMethodData %q: %v", raw, err)
	}
	return md.ThreeDSServerTransID
}

// TestSeamsDDCIdsPerTenant: a ddcId and a JWT id are their tenant's: a
// second merchant using the same ones is neither refused (409 DC03, DC02)
// nor told, even in the open default without any token; each merchant's
// lookup continues its own capture; and Redis names none of them in a
// key.
func TestSeamsDDCIdsPerTenant(t *testing.T) {
	t.Parallel()
	const card = "4000000000009409"
	const keyA, keyB = "shop-a-secret-0123456789", "shop-b-secret-0123456789"
	run := func(t *testing.T, p *program, srv *testkit.Redis) {
		const ddcID, jti = "order-1001", "jti-4000000000009409"
		a := captureID(t, capturePost(t, p.URL, card, ddcID, captureJWT(t, "shop-a", keyA, jti, nil)))
		b := captureID(t, capturePost(t, p.URL, card, ddcID, captureJWT(t, "shop-b", keyB, jti, nil)))
		if a == b {
			t.Fatal("two merchants' captures share a transaction")
		}
		for _, m := range []struct{ id, key, want string }{{"shop-a", keyA, a}, {"shop-b", keyB, b}} {
			tok := accessToken(t, p.URL, m.id, m.key)
			r := testkit.Lookup(t, p.URL, tok, testkit.LookupBody(t, card, func(b map[string]any) { b["ddcId"] = ddcID }))
			if got := r.Str("threeDsServerTransId"); got != m.want {
				t.Errorf("%s's lookup continued %s, want its capture %s", m.id, got, m.want)
			}
		}
		if srv != nil {
			keys, err := srv.Query("KEYS", "*")
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range strings.Split(keys, "\n") {
				if strings.Contains(k, ddcID) || strings.Contains(k, jti) || strings.Contains(k, "4000000000009409") {
					t.Errorf("a Redis key names a request value: %q", k)
				}
			}
		}
	}
	merchants := "shop-a:" + keyA + ",shop-b:" + keyB
	t.Run("memory", func(t *testing.T) { run(t, startDefault(t, "--merchants", merchants), nil) })
	t.Run("redis", func(t *testing.T) {
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		run(t, startReplica(t, srv, "--merchants", merchants), srv)
	})
	t.Run("open default, no token", func(t *testing.T) {
		p := startDefault(t)
		captureID(t, capturePost(t, p.URL, "400000", "order-2002", captureJWT(t, "victim-shop", "any key", "j-1", nil)))
		// Another merchant naming the victim's ddcId learns nothing.
		captureID(t, capturePost(t, p.URL, "400000", "order-2002", captureJWT(t, "prober", "any key", "j-1", nil)))
	})
}

// TestSeamsOpenClientNamespace: in the open default an OAuth client is
// its id and its secret: the same id with another secret is another
// tenant and reads nothing of the first's.
func TestSeamsOpenClientNamespace(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	first := accessToken(t, p.URL, "shop-1", "the first secret")
	id := testkit.Lookup(t, p.URL, first, testkit.LookupBody(t, "4000000000009409", nil)).Str("threeDsServerTransId")
	other := accessToken(t, p.URL, "shop-1", "another secret")
	if r := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", other, map[string]any{"threeDsServerTransId": id}); r.Status != http.StatusNotFound {
		t.Errorf("shop-1 with another secret reads the first's transaction: HTTP %d %s", r.Status, r.Raw)
	}
	if r := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions", other, nil); strings.Contains(r.Raw, id) {
		t.Errorf("shop-1 with another secret lists the first's transaction: %s", r.Raw)
	}
	again := accessToken(t, p.URL, "shop-1", "the first secret")
	testkit.Enquiry(t, p.URL, again, id)
}

// TestSeamsTokenEndpointSlowsGuessing: wrong secrets of one client are
// slowed down (429 with Retry-After) after a burst, without touching
// another client.
func TestSeamsTokenEndpointSlowsGuessing(t *testing.T) {
	t.Parallel()
	const secret1, secret2 = "shop-1-secret-0123456789", "shop-2-secret-0123456789"
	p := startDefault(t, "--merchants", "shop-1:"+secret1+",shop-2:"+secret2)
	post := func(id, secret string) *http.Response {
		resp, err := http.PostForm(p.URL+"/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	refused := 0
	for i := range 30 {
		if resp := post("shop-1", fmt.Sprint("guess-", i)); resp.StatusCode == http.StatusTooManyRequests {
			if resp.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			refused++
		}
	}
	if refused < 15 {
		t.Errorf("%d of 30 wrong secrets in a row were slowed down, want all beyond the first 10", refused)
	}
	if resp := post("shop-2", secret2); resp.StatusCode != http.StatusOK {
		t.Errorf("another client during the guessing: HTTP %d", resp.StatusCode)
	}
}

// TestSeamsWaitsShare: with every wait of the automation API taken by 16
// tokens, a 17th still gets its wait: the token holding the most gives
// up its oldest, which answers at once.
func TestSeamsWaitsShare(t *testing.T) {
	t.Parallel()
	const tokens, each = 16, 4
	p := startDefault(t, "--max-waits", fmt.Sprint(tokens*each), "--max-waits-per-token", fmt.Sprint(each))
	card := catalogueCard(t, p, "visa-challenge")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	ended := make(chan time.Duration, tokens*each)
	for i := range tokens {
		token := fmt.Sprint("waiting-token-", i)
		id := testkit.Lookup(t, p.URL, token, testkit.LookupBody(t, card, nil)).Str("threeDsServerTransId")
		for range each {
			wg.Go(func() {
				start := time.Now()
				req := testkit.Request(t, http.MethodGet, p.URL+"/admin/transactions/"+id+"?wait=final&timeout=60s", token, nil)
				resp, err := http.DefaultClient.Do(req.WithContext(ctx))
				if err == nil {
					resp.Body.Close()
					ended <- time.Since(start)
				}
			})
		}
	}
	testkit.Eventually(t, "the waits all open", func() bool {
		return strings.Contains(testkit.Call(t, http.MethodGet, p.URL+"/metrics", "", nil).Raw, fmt.Sprintf("\nthreeds_admin_waits_open %d\n", tokens*each))
	})
	late := "waiting-token-17"
	id := testkit.Lookup(t, p.URL, late, testkit.LookupBody(t, card, nil)).Str("threeDsServerTransId")
	r := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions/"+id+"?wait=final&timeout=1s", late, nil)
	if r.Status != http.StatusOK {
		t.Errorf("the 17th token's wait while 16 hold them all: HTTP %d %s", r.Status, r.Raw)
	}
	// A wait that gives up its slot ends at once; one that timed out
	// would end after its 60s: 30s tells them apart on a busy machine.
	select {
	case took := <-ended:
		t.Logf("the wait that gave up its slot ended after %s", took.Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Error("no wait of the 16 tokens ended to make room within 30s (their timeout is 60s)")
	}
	cancel()
	wg.Wait()
}

// cruisePage is a checkout page whose listener is written as Cardinal
// Cruise's pages tell merchants: JSON.parse(event.data).
var cruisePage = template.Must(template.New("cruise").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Cruise-style checkout</title></head>
<body>
<p id="profile">capturing</p>
` + captureForm + `<script>
window.addEventListener("message", function(event) {
  if (event.origin !== {{.Sandbox}}) { return; }
  var data = JSON.parse(event.data);
  if (data !== undefined && data.MessageType === "profile.completed") {
    var p = document.getElementById("profile");
    p.setAttribute("data-action-code", data.Payload.ActionCode);
    p.setAttribute("data-session-id", data.Payload.SessionId);
    p.setAttribute("data-flat", data.SessionId + " " + data.Status + " " + data.threeDSCompInd);
    p.textContent = "done";
  }
}, false);
document.getElementById("ddc-form").submit();
</script>
</body>
</html>
`))

// cruiseCapture runs a capture of card for merchant iss (its JWT signed
// with key) in a tab of browser, through shop's checkout, and returns
// what the callbackUrl heard, the tab and the ddcId.
func cruiseCapture(t *testing.T, browser context.Context, shop *captureShop, card, iss, key string) (url.Values, *tab, string) {
	t.Helper()
	page, ddcID := shop.checkout(t, card, iss, key)
	tb := newTab(t, browser)
	tb.do("open the checkout", chromedp.Navigate(page))
	return shop.callback(t, tb), tb, ddcID
}

// TestSeamsProfileMessageIsJSONText: a checkout whose listener
// JSON.parses the message, as Cruise's pages say, hears
// profile.completed in the /V2/ shape, the flat fields beside it.
func TestSeamsProfileMessageIsJSONText(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)
	shop := newCaptureShopWith(t, p.URL, cruisePage)
	cb, tb, ddcID := cruiseCapture(t, browser, shop, "4000000000009409", "cruise-shop", "any key of the merchant")
	if cb.Get("status") != "completed" {
		t.Fatalf("callback %v", cb)
	}
	tb.waitVisible(`#profile[data-action-code]`)
	if got := tb.attr("#profile", "data-action-code"); got != "SUCCESS" {
		t.Errorf("Payload.ActionCode %q, want SUCCESS", got)
	}
	if got := tb.attr("#profile", "data-session-id"); got != ddcID {
		t.Errorf("Payload.SessionId %q, want the ddcId %s", got, ddcID)
	}
	if got := tb.attr("#profile", "data-flat"); got != ddcID+" true Y" {
		t.Errorf("the flat fields SessionId, Status, threeDSCompInd: %q", got)
	}
}

// TestSeamsCleanStartKeepsCapture: after DELETE /admin/transactions a
// capture still runs its 3DS Method and its lookup continues it, with
// the state in Redis.
func TestSeamsCleanStartKeepsCapture(t *testing.T) {
	t.Parallel()
	const shopID, shopKey = "clean-shop", "clean-shop-api-key-0123456789"
	browser := newBrowser(t)
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	p := startReplica(t, srv, "--strict-ddc", "--merchants", shopID+":"+shopKey)
	token := accessToken(t, p.URL, shopID, shopKey)
	shop := newCaptureShopWith(t, p.URL, cruisePage)
	const card = "4000000000009409"
	for round := range 2 {
		if r := testkit.Call(t, http.MethodDelete, p.URL+"/admin/transactions", token, nil); r.Status != http.StatusNoContent {
			t.Fatalf("DELETE /admin/transactions: HTTP %d %s", r.Status, r.Raw)
		}
		cb, _, ddcID := cruiseCapture(t, browser, shop, card, shopID, shopKey)
		if cb.Get("status") != "completed" || cb.Get("threeDSCompInd") != "Y" {
			t.Fatalf("round %d: the capture after a clean start: %v", round, cb)
		}
		r := testkit.Lookup(t, p.URL, token, testkit.LookupBody(t, card, func(m map[string]any) {
			m["ddcId"] = ddcID
			delete(m, "threeDSCompInd")
		}))
		if r.Str("threeDsServerTransId") != cb.Get("threeDsServerTransId") {
			t.Errorf("round %d: the lookup started %s, want the capture's %s", round, r.Str("threeDsServerTransId"), cb.Get("threeDsServerTransId"))
		}
	}
}

// TestSeamsIdentityServer: the identity server a client discovers at the
// address it reached: the issuer is that address, the metadata has what
// OpenID Connect Discovery and RFC 8414 require, an unreadable Basic
// header is challenged; a capture JWT's claim of the wrong type is named;
// the OpenAPI document lists the 405 answers.
func TestSeamsIdentityServer(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	at := "http://" + p.Addr // 127.0.0.1, not the localhost of the pages
	d := testkit.Call(t, http.MethodGet, at+"/.well-known/openid-configuration", "", nil)
	if d.Str("issuer") != at || d.Str("authorization_endpoint") == "" {
		t.Errorf("discovery at %s: %s", at, d.Raw)
	}
	for _, member := range []string{"response_types_supported", "id_token_signing_alg_values_supported", "subject_types_supported"} {
		if v, _ := d.Body[member].([]any); len(v) == 0 {
			t.Errorf("discovery: %s missing or empty", member)
		}
	}
	if r := testkit.Call(t, http.MethodGet, at+"/.well-known/oauth-authorization-server", "", nil); r.Status != http.StatusOK || r.Str("issuer") != at {
		t.Errorf("RFC 8414 metadata: HTTP %d %s", r.Status, r.Raw)
	}
	tok := accessToken(t, at, "shop-1", "a secret")
	testkit.Lookup(t, p.URL, tok, testkit.LookupBody(t, "4000000000009409", nil)) // issued at 127.0.0.1, used at localhost

	req, _ := http.NewRequest(http.MethodPost, at+"/connect/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Basic !!!")
	if r := testkit.Do(t, http.DefaultClient, req); r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("an unreadable Basic header: HTTP %d, WWW-Authenticate %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}

	page := capturePost(t, p.URL, "400000", "iat-text", captureJWT(t, "shop-1", "k", "j-iat", map[string]any{"iat": "now"}))
	if !strings.Contains(page, "claim iat is the string") || strings.Contains(page, "Go struct") || strings.Contains(page, "float64") {
		t.Errorf("a capture JWT whose iat is a string:\n%s", page)
	}

	doc := testkit.Call(t, http.MethodGet, p.URL+"/openapi.json", "", nil)
	paths, _ := doc.Body["paths"].(map[string]any)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			o, ok := op.(map[string]any)
			if !ok || method == "servers" || method == "parameters" {
				continue
			}
			if responses, _ := o["responses"].(map[string]any); responses["405"] == nil {
				t.Errorf("the OpenAPI document lists no 405 for %s %s", strings.ToUpper(method), path)
			}
		}
	}
}
