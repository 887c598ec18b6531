//go:build full

package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

var hiddenField = regexp.MustCompile(`name="([a-zA-Z]+)" value="([^"]*)"`)

// TestReplicasShareMerchantState: two replicas over one Redis share what
// a merchant's integration leaves behind: an access token issued by one
// works on the other; a capture posted to one is continued by a lookup
// on the other, and its JWT replayed there is refused; a callback
// registered on one receives each result of the other's lookups once.
func TestReplicasShareMerchantState(t *testing.T) {
	t.Parallel()
	const shopID, shopKey = "replica-shop", "replica-shop-api-key-0123456789"
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	// Replicas behind one address share one public URL: the tokens'
	// issuer.
	args := []string{"--merchants", shopID + ":" + shopKey, "--callback-backoff", "100ms", "--public-url", "http://sandbox.example"}
	start := func() *program {
		p := startReplica(t, srv, args...)
		p.URL = "http://" + p.Addr // where the test reaches it
		return p
	}
	a, b := start(), start()
	token := accessToken(t, a.URL, shopID, shopKey)

	t.Run("a capture on one, its lookup on the other", func(t *testing.T) {
		captureAcross(t, a, b, shopID, shopKey, token, "replica")
	})

	t.Run("one delivery of each result", func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		got := make(chan string, 64)
		secret := make(chan []byte, 1)
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			s := <-secret
			secret <- s
			if err := callback.Verify(s, r.Header.Get(callback.SignatureHeader), body, time.Now(), time.Minute); err != nil {
				t.Errorf("signature: %v", err)
			}
			id := r.Header.Get(callback.DeliveryHeader)
			mu.Lock()
			seen[id]++
			mu.Unlock()
			got <- id
		}))
		defer rcv.Close()
		reg := testkit.Call(t, http.MethodPut, a.URL+"/admin/callback", token, map[string]any{"url": rcv.URL + "/results"})
		if reg.Status != http.StatusOK || len(reg.Str("signingSecret")) != 64 || strings.Contains(reg.Raw, shopKey) {
			t.Fatalf("register: HTTP %d %s", reg.Status, reg.Raw)
		}
		secret <- []byte(reg.Str("signingSecret"))
		const n = 12
		for range n {
			r := testkit.Call(t, http.MethodPost, b.URL+"/authentication/brw", token, testkit.LookupBody(t, "4000000000009003", nil))
			if r.Status != http.StatusOK {
				t.Fatalf("lookup: HTTP %d %s", r.Status, r.Raw)
			}
		}
		for i := 0; i < n; i++ {
			select {
			case <-got:
			case <-time.After(testkit.Patience):
				t.Fatalf("%d of %d results delivered within %s", i, n, testkit.Patience)
			}
		}
		select {
		case id := <-got:
			t.Errorf("a result delivered twice: %s", id)
		case <-time.After(time.Second):
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != n {
			t.Errorf("%d transactions delivered, want %d", len(seen), n)
		}
	})
}

// captureAcross runs a device data capture on a with a JWT the merchant
// shopID signs with shopKey (its jti and ddcIds named after name), the
// lookup that uses it on b with the merchant's access token, and the
// same JWT replayed on b, which must be refused (DC02).
func captureAcross(t *testing.T, a, b *program, shopID, shopKey, token, name string) {
	t.Helper()
	jwt, err := jws.Sign([]byte(shopKey), "", map[string]any{"jti": name + "-jti", "iat": time.Now().Unix(), "iss": shopID, "OrgUnitId": "o", "Payload": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"bin": {"4000000000009425"}, "callbackUrl": {"http://127.0.0.1:1/cb"}, "ddcId": {name + "-ddc-1"}, "jwt": {jwt}}
	_, page := postForm(t, a.URL+"/V2/ddcCollect", form)
	fields := map[string]string{}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		fields[m[1]] = m[2]
	}
	if fields["status"] != "completed" || fields["threeDSCompInd"] != "U" {
		t.Fatalf("capture: %v", fields)
	}
	l := testkit.Call(t, http.MethodPost, b.URL+"/authentication/brw", token, testkit.LookupBody(t, "4000000000009425", func(m map[string]any) { m["ddcId"] = name + "-ddc-1" }))
	if l.Status != http.StatusOK || l.Str("threeDsServerTransId") != fields["threeDsServerTransId"] {
		t.Errorf("the capture's lookup on the other replica: HTTP %d %s", l.Status, l.Raw)
	}
	form.Set("ddcId", name+"-ddc-2")
	if _, again := postForm(t, b.URL+"/V2/ddcCollect", form); !regexp.MustCompile(`name="errorCode" value="DC02"`).MatchString(again) {
		t.Errorf("the JWT replayed on the other replica was not refused")
	}
}
