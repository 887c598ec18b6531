package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestOpenAPIMerchantRoutes checks the device data capture's pages, the
// identity server and the callback registration against the served
// OpenAPI document, requests and responses.
func TestOpenAPIMerchantRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.merchants, o.callbacks, o.tokenLife = shopID+":"+shopSecret, true, time.Minute
	})
	c := newContract(t, e)
	form := func(path string, v url.Values) exchange {
		return exchange{method: http.MethodPost, path: path, body: []byte(v.Encode()),
			header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}}
	}

	t.Run("device data capture", func(t *testing.T) {
		c := *c
		c.t = t
		capture := func(ddcID, jwt string) url.Values {
			return url.Values{"bin": {"4000000000009409"}, "callbackUrl": {shopCallback}, "ddcId": {ddcID}, "jwt": {jwt}}
		}
		page := c.send(form("/V2/ddcCollect", capture("oa-1", e.ddcJWT(shopID, shopSecret, "oa-j1"))), true)
		if page.Status != http.StatusOK {
			t.Fatalf("capture: %d %s", page.Status, page.Raw)
		}
		m := c.send(form("/acs/method", url.Values{"threeDSMethodData": {formFields(page.Raw)["threeDSMethodData"]}}), true)
		done := c.send(form("/acs/method/done", url.Values{"threeDSMethodData": {formFields(m.Raw)["threeDSMethodData"]}}), true)
		if n := c.send(form("/V2/ddcCollect/method-notification", url.Values{"threeDSMethodData": {formFields(done.Raw)["threeDSMethodData"]}}), true); n.Status != http.StatusOK {
			t.Errorf("notification: %d", n.Status)
		}
		if n := c.send(form("/V2/ddcCollect/method-notification", url.Values{"threeDSMethodData": {"%%"}}), true); n.Status != http.StatusBadRequest {
			t.Errorf("bad notification: %d", n.Status)
		}
		if end := c.send(form("/V2/ddcCollect/complete", url.Values{"state": {formFields(page.Raw)["state"]}}), true); end.Status != http.StatusOK {
			t.Errorf("complete: %d %s", end.Status, end.Raw)
		}
		if end := c.send(form("/V2/ddcCollect/complete", url.Values{"state": {"forged"}}), true); end.Status != http.StatusBadRequest {
			t.Errorf("forged state: %d", end.Status)
		}
		if r := c.send(form("/V2/ddcCollect", capture("oa-2", e.ddcJWT(shopID, "a wrong secret of some length", "oa-j2"))), true); formFields(r.Raw)["errorCode"] != "DC01" {
			t.Errorf("bad signature: %d", r.Status)
		}
		if r := c.send(form("/V2/ddcCollect", capture("oa-1", e.ddcJWT(shopID, shopSecret, "oa-j3"))), true); formFields(r.Raw)["errorCode"] != "DC03" {
			t.Errorf("ddcId in use: %d", r.Status)
		}
		bad := capture("oa-3", "x")
		bad.Del("ddcId")
		if r := c.send(form("/V2/ddcCollect", bad), false); formFields(r.Raw)["errorCode"] != "FD01" {
			t.Errorf("no ddcId: %d", r.Status)
		}
	})

	t.Run("identity server", func(t *testing.T) {
		c := *c
		c.t = t
		get := func(path string) exchange { return exchange{method: http.MethodGet, path: path} }
		c.send(get("/.well-known/openid-configuration"), true)
		c.send(get("/.well-known/openid-configuration/jwks"), true)
		basic := form("/connect/token", url.Values{"grant_type": {"client_credentials"}})
		basic.header.Set("Authorization", "Basic "+basicAuth(shopID, shopSecret))
		r := c.send(basic, true)
		if r.Status != http.StatusOK {
			t.Fatalf("token: %d %s", r.Status, r.Raw)
		}
		tok := r.Str("access_token")
		c.send(form("/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {shopID}, "client_secret": {"wrong"}}), true)
		c.send(form("/connect/token", url.Values{"grant_type": {"password"}, "client_id": {shopID}, "client_secret": {shopSecret}}), false)
		lookup := api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
		lookup.header.Set("Authorization", "Bearer "+tok)
		if r := c.send(lookup, true); r.Status != http.StatusOK {
			t.Errorf("lookup with the access token: %d %s", r.Status, r.Raw)
		}
		e.Clock.Advance(time.Minute)
		if r := c.send(lookup, true); r.Status != http.StatusUnauthorized || r.Str("errorCode") != "AU03" {
			t.Errorf("lookup with an expired access token: %d %s", r.Status, r.Raw)
		}
		c.send(get("/.well-known/oauth-authorization-server"), true)
		c.send(get("/connect/authorize?response_type=code&client_id=shop-1"), true)
		unreadable := form("/connect/token", url.Values{"grant_type": {"client_credentials"}})
		unreadable.header.Set("Authorization", "Basic !!")
		if r := c.send(unreadable, true); r.Status != http.StatusUnauthorized {
			t.Errorf("an unreadable Basic header: %d %s", r.Status, r.Raw)
		}
		for range 10 {
			c.send(form("/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {shopID}, "client_secret": {"wrong"}}), true)
		}
		if r := c.send(form("/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {shopID}, "client_secret": {"wrong"}}), true); r.Status != http.StatusTooManyRequests {
			t.Errorf("beyond the wrong secrets' burst: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("callback registration", func(t *testing.T) {
		c := *c
		c.t = t
		c.send(api(http.MethodGet, "/admin/callback", nil), true)
		if r := c.send(api(http.MethodPut, "/admin/callback", map[string]any{"url": "http://127.0.0.1:9/results"}), true); r.Status != http.StatusOK {
			t.Errorf("register: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPut, "/admin/callback", map[string]any{"url": "http://10.1.2.3/results"}), true); r.Status != http.StatusBadRequest {
			t.Errorf("register outside the allowlist: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPut, "/admin/callback", map[string]any{"href": "x"}), false); r.Status != http.StatusBadRequest {
			t.Errorf("register without url: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodDelete, "/admin/callback", nil), true); r.Status != http.StatusNoContent {
			t.Errorf("unregister: %d", r.Status)
		}
	})
}

// basicAuth is the credentials of HTTP Basic, each part URL-encoded as
// RFC 6749 has it for a client.
func basicAuth(id, secret string) string {
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	return req.Header.Get("Authorization")[len("Basic "):]
}
