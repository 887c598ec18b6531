// Command shop is the merchant's server of the example checkout, in Go
// (the standard library only). It signs the device data capture's JWT,
// gets an OAuth token, sends the lookup, receives the CRes and the signed
// result callback, and asks the enquiry for the result.
//
//	THREEDS_SANDBOX_URL=http://localhost:8080 go run .
//
// Settings (environment): THREEDS_SANDBOX_URL (the sandbox's base URL),
// CHECKOUT_CLIENT_ID and CHECKOUT_CLIENT_SECRET (the merchant's OAuth
// client, and the capture JWT's iss and key), PORT (3000).
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	c := &checkout{
		sandbox:      strings.TrimRight(env("THREEDS_SANDBOX_URL", "http://localhost:8080"), "/"),
		clientID:     env("CHECKOUT_CLIENT_ID", "example-shop"),
		clientSecret: env("CHECKOUT_CLIENT_SECRET", "example-shop-secret-0123456789"),
		public:       env("CHECKOUT_PUBLIC_DIR", filepath.Join("..", "public")),
		captures:     map[string]url.Values{}, cres: map[string]map[string]any{}, callbacks: map[string]map[string]any{},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+env("PORT", "3000"))
	if err != nil {
		log.Fatal(err)
	}
	c.url = "http://" + ln.Addr().String()
	go func() { log.Fatal(http.Serve(ln, c.routes())) }()
	if err := c.register(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("Example Shop at " + c.url)
	select {}
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// checkout is the merchant's side: its credentials, its token and what it
// heard from the sandbox.
type checkout struct {
	sandbox, clientID, clientSecret, public, url string

	mu            sync.Mutex
	tokenEndpoint string // from the discovery document
	token         string
	tokenExpires  time.Time
	signingSecret string
	captures      map[string]url.Values
	cres          map[string]map[string]any
	callbacks     map[string]map[string]any
}

// accessToken gets an OAuth access token, kept until a minute before it
// expires, from the token endpoint the OpenID Connect discovery document
// names.
func (c *checkout) accessToken() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && time.Until(c.tokenExpires) > time.Minute {
		return c.token, nil
	}
	if c.tokenEndpoint == "" {
		resp, err := http.Get(c.sandbox + "/.well-known/openid-configuration")
		if err != nil {
			return "", err
		}
		var d struct {
			TokenEndpoint string `json:"token_endpoint"`
		}
		err = json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		if err != nil || d.TokenEndpoint == "" {
			return "", fmt.Errorf("discovery: HTTP %d %v", resp.StatusCode, err)
		}
		c.tokenEndpoint = d.TokenEndpoint
	}
	req, _ := http.NewRequest(http.MethodPost, c.tokenEndpoint, strings.NewReader("grant_type=client_credentials"))
	req.SetBasicAuth(url.QueryEscape(c.clientID), url.QueryEscape(c.clientSecret))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&t); err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token: HTTP %d %v", resp.StatusCode, err)
	}
	c.token, c.tokenExpires = t.AccessToken, time.Now().Add(time.Duration(t.ExpiresIn)*time.Second)
	return c.token, nil
}

// call sends a JSON request to the sandbox's API with the token and
// decodes its answer.
func (c *checkout) call(method, path string, body any) (int, map[string]any, error) {
	tok, err := c.accessToken()
	if err != nil {
		return 0, nil, err
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.sandbox+path, rd)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && !errors.Is(err, io.EOF) {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, out, nil
}

// register tells the sandbox where to send the results, and reads the
// secret that signs them.
func (c *checkout) register() error {
	status, answer, err := c.call(http.MethodPut, "/admin/callback", map[string]string{"url": c.url + "/3ds/result-callback"})
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("register the callback: HTTP %d %v %v", status, answer, err)
	}
	_, answer, err = c.call(http.MethodGet, "/admin/callback", nil)
	if err != nil {
		return err
	}
	secret, _ := answer["signingSecret"].(string)
	c.mu.Lock()
	c.signingSecret = secret
	c.mu.Unlock()
	return nil
}

// signJWT makes a compact JWS with HS256.
func signJWT(claims any, key string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claimsJSON, _ := json.Marshal(claims)
	unsigned := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(claimsJSON)
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(unsigned))
	return unsigned + "." + enc(m.Sum(nil))
}

// verifySignature checks the X-3DS-Signature header of a result callback:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, at most 5 minutes old.
func verifySignature(secret, header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want, err := hex.DecodeString(sig)
	return err == nil && hmac.Equal(m.Sum(nil), want)
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sandboxError is what the page learns of the sandbox's error body.
func sandboxError(answer map[string]any) map[string]any {
	return map[string]any{"error": answer["error"], "errorCode": answer["errorCode"]}
}

func (c *checkout) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(c.public, "index.html"))
	})
	mux.HandleFunc("GET /checkout.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(c.public, "checkout.js"))
	})

	// The page asks for a capture: a ddcId of its own and a JWT signed
	// here, never in the browser.
	mux.HandleFunc("POST /api/capture", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Card, Order string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		ddcID, now := newID(), time.Now().Unix()
		jwt := signJWT(map[string]any{
			"iss": c.clientID, "jti": newID(), "iat": now, "exp": now + 600, "OrgUnitId": c.clientID, "ReferenceId": ddcID,
			"Payload": map[string]any{"OrderDetails": map[string]any{"OrderNumber": req.Order, "Amount": "4999", "CurrencyCode": "978"}},
		}, c.clientSecret)
		writeJSON(w, http.StatusOK, map[string]string{"ddcId": ddcID, "jwt": jwt, "bin": req.Card,
			"collectUrl": c.sandbox + "/V2/ddcCollect", "callbackUrl": c.url + "/3ds/ddc-callback"})
	})

	// The capture's iframe lands here with its outcome.
	mux.HandleFunc("POST /3ds/ddc-callback", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		c.mu.Lock()
		c.captures[r.PostForm.Get("ddcId")] = r.PostForm
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!DOCTYPE html><title>capture noted</title><p>capture noted</p>")
	})

	// The lookup (section 4.1), sent from here with the bearer token.
	mux.HandleFunc("POST /api/pay", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Card, Order, DDCID string
			BrowserInfo        map[string]any
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.BrowserInfo == nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "want card, order, ddcId and browserInfo"})
			return
		}
		req.BrowserInfo["acceptHeader"] = r.Header.Get("Accept")
		req.BrowserInfo["ip"] = "127.0.0.1"
		status, answer, err := c.call(http.MethodPost, "/authentication/brw", map[string]any{
			"externalReferenceId": req.Order, "ddcId": req.DDCID, "threeDsRequestorAuthInd": "01",
			"browserInfo": req.BrowserInfo, "notificationUrl": c.url + "/3ds/notify", "challengeWindowSize": 2,
			"acquirerCode": "EXAMPLE-ACQ", "acquirerBin": "412345", "merchantCode": "EXAMPLE-SHOP",
			"deviceChannel": 2, "messageCategory": "01", "messageVersion": "2.2.0",
			"card": map[string]string{"cardNumber": req.Card}, "merchantName": "Example Shop",
			"purchase": map[string]any{"date": time.Now().UTC().Format(time.DateTime), "amount": 49.99, "currencyCode": "EUR"},
		})
		switch {
		case err != nil:
			writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
		case status != http.StatusOK:
			writeJSON(w, status, sandboxError(answer))
		default:
			writeJSON(w, status, answer)
		}
	})

	// The ACS posts the final CRes here, in the challenge iframe; the page
	// answered tells the checkout page, of the same origin.
	mux.HandleFunc("POST /3ds/notify", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimRight(r.PostForm.Get("cres"), "="))
		var cres map[string]any
		_ = json.Unmarshal(raw, &cres)
		id, _ := cres["threeDSServerTransID"].(string)
		status, _ := cres["transStatus"].(string)
		c.mu.Lock()
		c.cres[id] = cres
		c.mu.Unlock()
		msg, _ := json.Marshal(map[string]string{"type": "example-shop:cres", "threeDSServerTransID": id, "transStatus": status})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html><title>challenge done</title><p>Challenge done: %s</p><script>parent.postMessage(%s, location.origin);</script>",
			html.EscapeString(status), msg) // json.Marshal escapes <, > and &
	})

	// The sandbox posts each final result here, signed.
	mux.HandleFunc("POST /3ds/result-callback", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sig := r.Header.Get("X-3DS-Signature")
		c.mu.Lock()
		ok := verifySignature(c.signingSecret, sig, body)
		c.mu.Unlock()
		if !ok && c.register() == nil { // the secret may have changed (a key rotation): read it again, once
			c.mu.Lock()
			ok = verifySignature(c.signingSecret, sig, body)
			c.mu.Unlock()
		}
		if !ok {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var result map[string]any
		_ = json.Unmarshal(body, &result)
		id, _ := result["threeDsServerTransId"].(string)
		attempt, _ := strconv.Atoi(r.Header.Get("X-3DS-Attempt"))
		c.mu.Lock()
		c.callbacks[id] = map[string]any{"verified": true, "transactionStatus": result["transactionStatus"], "attempt": attempt}
		c.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})

	// The result of an order: the enquiry (section 4.2), with what the CRes
	// and the callback said.
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		status, answer, err := c.call(http.MethodPost, "/enquiry/", map[string]string{"threeDsServerTransId": id})
		switch {
		case err != nil:
			writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
			return
		case status != http.StatusOK:
			writeJSON(w, status, sandboxError(answer))
			return
		}
		c.mu.Lock()
		answer["cres"], answer["callback"] = c.cres[id], c.callbacks[id]
		c.mu.Unlock()
		writeJSON(w, http.StatusOK, answer)
	})
	return mux
}
