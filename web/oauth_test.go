package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

const (
	shopID     = "shop-1"
	shopSecret = "shop-1-secret-0123456789"
)

// discover reads the token endpoint from the sandbox's OpenID Connect
// discovery document, as an OAuth client library configured with the
// issuer does.
func (e *env) discover() (issuer, tokenURL string) {
	e.t.Helper()
	r := e.call(http.MethodGet, "/.well-known/openid-configuration", "", nil)
	if r.Status != http.StatusOK {
		e.t.Fatalf("discovery: HTTP %d %s", r.Status, r.Raw)
	}
	grants, _ := r.Body["grant_types_supported"].([]any)
	if r.Str("issuer") != e.URL || len(grants) != 1 || grants[0] != "client_credentials" {
		e.t.Errorf("discovery document %s", r.Raw)
	}
	return r.Str("issuer"), r.Str("token_endpoint")
}

// apiCall sends a JSON body with client (whose transport adds the
// bearer token).
func apiCall(t *testing.T, client *http.Client, u string, body any) result {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := client.Post(u, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	res := result{Status: resp.StatusCode, Header: resp.Header, Raw: string(b)}
	_ = json.Unmarshal(b, &res.Body)
	return res
}

// TestOAuthClientCredentials: golang.org/x/oauth2's client credentials
// flow, configured through discovery, gets a token, calls the lookup and
// the enquiry with it, and an expired token is refused with
// error="invalid_token" and the interface's error body; a new token
// works again.
func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) {
		o.merchants = shopID + ":" + shopSecret
		o.tokenLife = 5 * time.Minute
		o.tokens = []string{"static-token"}
	})
	_, tokenURL := e.discover()
	if tokenURL != e.URL+"/connect/token" {
		t.Fatalf("token_endpoint %q", tokenURL)
	}
	ctx := context.Background()
	cc := clientcredentials.Config{ClientID: shopID, ClientSecret: shopSecret, TokenURL: tokenURL}
	client := cc.Client(ctx)

	card := e.card("visa-frictionless-y")
	lookup := apiCall(t, client, e.URL+"/authentication/brw", testkit.LookupBody(t, card, nil))
	if lookup.Status != http.StatusOK || lookup.Str("status") != "Y" {
		t.Fatalf("lookup with an access token: HTTP %d %s", lookup.Status, lookup.Raw)
	}
	id := lookup.Str("threeDsServerTransId")
	if enq := apiCall(t, client, e.URL+"/enquiry/", map[string]any{"threeDsServerTransId": id}); enq.Status != http.StatusOK {
		t.Fatalf("enquiry with an access token: HTTP %d %s", enq.Status, enq.Raw)
	}
	// The token's namespace is the client's: a static token sees nothing.
	if r := e.enquiry("static-token", map[string]any{"threeDsServerTransId": id}); r.Status != http.StatusNotFound {
		t.Errorf("another namespace's enquiry: HTTP %d", r.Status)
	}

	e.Clock.Advance(5 * time.Minute) // the sandbox's clock; the client still thinks its token fresh
	expired := apiCall(t, client, e.URL+"/enquiry/", map[string]any{"threeDsServerTransId": id})
	if expired.Status != http.StatusUnauthorized || expired.Str("errorCode") != "AU03" || expired.EMV("emvErrorCode") != "303" {
		t.Fatalf("expired token: HTTP %d %s", expired.Status, expired.Raw)
	}
	if h := expired.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `error="invalid_token"`) {
		t.Errorf("WWW-Authenticate %q", h)
	}
	fresh, err := cc.Token(ctx) // Token always asks the endpoint
	if err != nil {
		t.Fatal(err)
	}
	again := apiCall(t, oauth2.NewClient(ctx, oauth2.StaticTokenSource(fresh)), e.URL+"/enquiry/", map[string]any{"threeDsServerTransId": id})
	if again.Status != http.StatusOK {
		t.Errorf("a new token: HTTP %d %s", again.Status, again.Raw)
	}
	if r := e.lookup("static-token", testkit.LookupBody(t, card, nil)); r.Status != http.StatusOK {
		t.Errorf("a static token beside the access tokens: HTTP %d", r.Status)
	}

	bad := clientcredentials.Config{ClientID: shopID, ClientSecret: "wrong", TokenURL: tokenURL}
	_, err = bad.Token(ctx)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_client" || re.Response.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong secret: %v", err)
	}
	stranger := clientcredentials.Config{ClientID: "stranger", ClientSecret: "whatever-secret", TokenURL: tokenURL}
	if _, err := stranger.Token(ctx); !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("unknown client with merchants configured: %v", err)
	}
}

// TestAccessTokensRefused: malformed and foreign JWTs are refused with
// invalid_token, even in the open default.
func TestAccessTokensRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	foreignKey, _ := auth.NewAccessTokens(e.URL, [][]byte{[]byte("another sandbox's master key....")}, time.Hour, e.Clock.Now)
	foreign, _ := foreignKey.Issue("shop-1", "threeds", false)
	unsigned, _ := jws.Sign([]byte("k"), "", map[string]any{"iss": e.URL, "client_id": "x"})
	for name, tok := range map[string]string{"foreign": foreign, "malformed": "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln", "someone else's JWT": unsigned} {
		r := e.call(http.MethodPost, "/enquiry/", tok, map[string]any{"threeDsServerTransId": "x"})
		if r.Status != http.StatusUnauthorized || r.Str("errorCode") != "AU03" || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s: HTTP %d %s %q", name, r.Status, r.Raw, r.Header.Get("WWW-Authenticate"))
		}
	}
}

// TestTokenEndpoint: the open default's tokens and the endpoint's errors,
// in RFC 6749's shape.
func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal = true })
	post := func(form url.Values, user, pass string) result {
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/connect/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
		}
		return e.do(req)
	}
	ok := post(url.Values{"grant_type": {"client_credentials"}, "client_id": {"any-client"}, "client_secret": {"any secret"}}, "", "")
	if ok.Status != http.StatusOK || ok.Str("token_type") != "Bearer" || ok.Body["expires_in"] != float64(3600) || ok.Str("scope") != "threeds" {
		t.Fatalf("open default, form credentials: HTTP %d %s", ok.Status, ok.Raw)
	}
	if ok.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", ok.Header.Get("Cache-Control"))
	}
	tok := ok.Str("access_token")
	r := e.lookup(tok, testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	if r.Status != http.StatusOK {
		t.Fatalf("lookup: HTTP %d %s", r.Status, r.Raw)
	}
	parsed, _ := jws.Parse(tok)
	var claims auth.AccessClaims
	if parsed == nil || parsed.Claims(&claims) != nil || !claims.Open || !auth.ValidNamespace(claims.Namespace) {
		t.Fatalf("the open client's token names no namespace: %+v", claims)
	}
	entry, found, _ := e.Journal.Get(context.Background(), claims.Namespace, r.Str("threeDsServerTransId"))
	if !found || len(entry.Events) == 0 || !strings.Contains(entry.Events[0].Detail, "no configuration names") {
		t.Errorf("the open client's lookup is not flagged in the journal: %+v", entry)
	}
	if basic := post(url.Values{"grant_type": {"client_credentials"}}, "shop.2", "s&t :x%"); basic.Status != http.StatusOK {
		t.Errorf("open default, Basic credentials: HTTP %d %s", basic.Status, basic.Raw)
	}

	for _, tt := range []struct {
		name        string
		form        url.Values
		user, pass  string
		status      int
		code        string
		contentType string
	}{
		{"no grant_type", url.Values{"client_id": {"c"}, "client_secret": {"s"}}, "", "", 400, "invalid_request", ""},
		{"authorization_code", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, "c", "s", 400, "unsupported_grant_type", ""},
		{"no secret", url.Values{"grant_type": {"client_credentials"}, "client_id": {"c"}}, "", "", 401, "invalid_client", ""},
		{"bad client id", url.Values{"grant_type": {"client_credentials"}, "client_id": {"a b"}, "client_secret": {"s"}}, "", "", 401, "invalid_client", ""},
		{"two ways", url.Values{"grant_type": {"client_credentials"}, "client_secret": {"s"}}, "c", "s", 400, "invalid_request", ""},
		{"other scope", url.Values{"grant_type": {"client_credentials"}, "scope": {"admin"}}, "c", "s", 400, "invalid_scope", ""},
		{"grant twice", url.Values{"grant_type": {"client_credentials", "client_credentials"}}, "c", "s", 400, "invalid_request", ""},
		{"JSON body", nil, "c", "s", 400, "invalid_request", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r result
			if tt.contentType != "" {
				r = e.call(http.MethodPost, "/connect/token", "", `{"grant_type":"client_credentials"}`)
			} else {
				r = post(tt.form, tt.user, tt.pass)
			}
			if r.Status != tt.status || r.Str("error") != tt.code || r.Str("error_description") == "" {
				t.Errorf("HTTP %d %s, want %d %s", r.Status, r.Raw, tt.status, tt.code)
			}
		})
	}

	closed := newEnv(t, func(o *envOptions) { o.tokens = []string{"team-a"} })
	cc := clientcredentials.Config{ClientID: "c", ClientSecret: "s", TokenURL: closed.URL + "/connect/token"}
	var re *oauth2.RetrieveError
	if _, err := cc.Token(context.Background()); !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("static tokens configured, no merchants: %v, want invalid_client", err)
	}
}

// TestTokenEndpointSlowsGuessing: wrong secrets of one client from one
// source address are answered 401 up to the burst, then 429 with
// Retry-After; the right secret still gets its token from that address,
// and another address's wrong secrets keep their own allowance, as does
// another client.
func TestTokenEndpointSlowsGuessing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.merchants = shopID + ":" + shopSecret + ",shop-2:shop-2-secret-0123456789" })
	token := func(from, id, secret string) result {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
		req := httptest.NewRequest(http.MethodPost, "/connect/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = from
		rec := httptest.NewRecorder()
		e.Web.ServeHTTP(rec, req)
		r := result{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.String()}
		_ = json.Unmarshal(rec.Body.Bytes(), &r.Body)
		return r
	}
	const hostile, shop = "192.0.2.66:40000", "198.51.100.7:50000"
	for i := range auth.FailureBurst {
		if r := token(hostile, shopID, fmt.Sprint("guess-", i)); r.Status != http.StatusUnauthorized {
			t.Fatalf("wrong secret %d: HTTP %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := token(hostile, shopID, "guess-x")
	if r.Status != http.StatusTooManyRequests || r.Str("error") != "invalid_client" || r.Header.Get("Retry-After") == "" ||
		!strings.Contains(r.Str("error_description"), "too many wrong secrets") {
		t.Errorf("beyond the burst: HTTP %d %s, Retry-After %q", r.Status, r.Raw, r.Header.Get("Retry-After"))
	}
	for _, c := range []struct{ name, from, id, secret string }{
		{"the right secret from the guessing address", hostile, shopID, shopSecret},
		{"the right secret from another address", shop, shopID, shopSecret},
		{"another client from the guessing address", hostile, "shop-2", "shop-2-secret-0123456789"},
	} {
		if r := token(c.from, c.id, c.secret); r.Status != http.StatusOK || r.Str("access_token") == "" {
			t.Errorf("%s: HTTP %d %s", c.name, r.Status, r.Raw)
		}
	}
	if r := token(shop, shopID, "a typo"); r.Status != http.StatusUnauthorized {
		t.Errorf("a wrong secret from another address: HTTP %d %s, want 401 (its own allowance)", r.Status, r.Raw)
	}
}

// TestOAuthMetadata: the discovery document has every member OpenID
// Connect Discovery requires, RFC 8414's document is served with the
// same, and the authorization endpoint they name refuses every client.
func TestOAuthMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	oidc := e.call(http.MethodGet, "/.well-known/openid-configuration", "", nil)
	rfc := e.call(http.MethodGet, "/.well-known/oauth-authorization-server", "", nil)
	for _, doc := range []result{oidc, rfc} {
		if doc.Status != http.StatusOK || doc.Str("issuer") != e.URL || doc.Str("token_endpoint") != e.URL+"/connect/token" ||
			doc.Str("authorization_endpoint") != e.URL+"/connect/authorize" {
			t.Errorf("metadata: HTTP %d %s", doc.Status, doc.Raw)
		}
		if types, _ := doc.Body["response_types_supported"].([]any); len(types) == 0 {
			t.Errorf("response_types_supported empty: %s", doc.Raw)
		}
	}
	for _, member := range []string{"subject_types_supported", "id_token_signing_alg_values_supported", "jwks_uri"} {
		if v, _ := oidc.Body[member].([]any); len(v) == 0 && oidc.Str(member) == "" {
			t.Errorf("discovery lacks %s: %s", member, oidc.Raw)
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		if r := e.call(method, "/connect/authorize?response_type=code&client_id=shop-1", "", nil); r.Status != http.StatusBadRequest || r.Str("error") != "unauthorized_client" {
			t.Errorf("%s /connect/authorize: HTTP %d %s", method, r.Status, r.Raw)
		}
	}
}

// TestTokenEndpointUnreadableBasic: an Authorization header that is not
// readable HTTP Basic answers 401 invalid_client with WWW-Authenticate,
// as every other refusal of the client does.
func TestTokenEndpointUnreadableBasic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.merchants = shopID + ":" + shopSecret })
	for _, h := range []string{"Basic !!!not-base64", "Basic " + base64.StdEncoding.EncodeToString([]byte("no-colon")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("shop-1:%zz")), "Bearer abc", "Basic"} {
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/connect/token", strings.NewReader("grant_type=client_credentials"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", h)
		r := e.do(req)
		if r.Status != http.StatusUnauthorized || r.Str("error") != "invalid_client" || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%q: HTTP %d %s, WWW-Authenticate %q", h, r.Status, r.Raw, r.Header.Get("WWW-Authenticate"))
		}
	}
	if r := e.form("/connect/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {shopID}, "client_secret": {"wrong"}}); r.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("a wrong secret in the form: no WWW-Authenticate")
	}
}

// TestIssuerFromRequest: without a public URL the issuer is the URL the
// client reached, in discovery and in the token, and the token is
// accepted whichever host it was issued at.
func TestIssuerFromRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.issuerHost = true })
	at := func(method, path, host string, body io.Reader) result {
		req, _ := http.NewRequest(method, e.URL+path, body)
		req.Host = host
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return e.do(req)
	}
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "sandbox.test"} {
		d := at(http.MethodGet, "/.well-known/openid-configuration", host, nil)
		if d.Str("issuer") != "http://"+host || d.Str("token_endpoint") != "http://"+host+"/connect/token" {
			t.Errorf("discovery at %s: %s", host, d.Raw)
		}
		tok := at(http.MethodPost, "/connect/token", host, strings.NewReader("grant_type=client_credentials&client_id=shop-1&client_secret=s")).Str("access_token")
		parsed, err := jws.Parse(tok)
		var claims auth.AccessClaims
		if err != nil || parsed.Claims(&claims) != nil || claims.Issuer != "http://"+host {
			t.Errorf("token at %s: iss %q, %v", host, claims.Issuer, err)
		}
		if r := e.lookup(tok, testkit.LookupBody(t, e.card("visa-frictionless-y"), nil)); r.Status != http.StatusOK {
			t.Errorf("the token issued at %s, used at %s: HTTP %d %s", host, e.URL, r.Status, r.Raw)
		}
	}
}
