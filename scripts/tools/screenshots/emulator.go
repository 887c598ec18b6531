package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
)

// emulatorProcess is the emulator served in-process, started exactly as
// the threeds-sandbox command starts it with its defaults.
type emulatorProcess struct {
	URL       string
	sandbox   *sandboxtest.Sandbox
	catalogue []cards.Entry
}

// startEmulator serves the emulator with its embedded scenarios on a
// random loopback port, its warnings and errors logged to log, and reads
// its test cards as its API lists them (GET /scenarios).
func startEmulator(log io.Writer) (*emulatorProcess, error) {
	sb, err := sandboxtest.New(sandboxtest.Flags("--log-level", "warn"), sandboxtest.Log(log))
	if err != nil {
		return nil, err
	}
	p := &emulatorProcess{URL: sb.URL, sandbox: sb}
	var list struct {
		Scenarios []cards.Entry `json:"scenarios"`
	}
	if err := p.get("/scenarios", &list); err != nil {
		sb.Close()
		return nil, err
	}
	p.catalogue = list.Scenarios
	return p, nil
}

// Close shuts the emulator down.
func (p *emulatorProcess) Close() error { return p.sandbox.Close() }

// get reads one JSON document of the emulator.
func (p *emulatorProcess) get(path string, out any) error {
	resp, err := http.Get(p.URL + path)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// card returns the card number of a scenario by id.
func (p *emulatorProcess) card(id string) (string, error) {
	for _, e := range p.catalogue {
		if e.ID == id && e.CardNumber != "" {
			return e.CardNumber, nil
		}
	}
	return "", fmt.Errorf("no card for scenario %s", id)
}

// lookup sends a lookup as a merchant's server would, and returns the
// answer's threeDsServerTransId.
func (p *emulatorProcess) lookup(token, card, merchant, amount, currency string) (string, error) {
	body := map[string]any{
		"externalReferenceId":     fmt.Sprintf("ORD-%d", time.Now().UnixNano()%1_000_000),
		"ddcId":                   "0_6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10",
		"threeDsRequestorAuthInd": "01",
		"browserInfo": map[string]any{
			"acceptHeader": "text/html", "ip": "203.0.113.42", "javascriptEnabled": true, "javaEnabled": false,
			"language": "en-GB", "colorDepth": "24", "screenHeight": "1080", "screenWidth": "1920", "timeZone": "-60",
			"userAgent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36",
		},
		"notificationUrl":     "https://shop.example.com/3ds/notify",
		"challengeWindowSize": 3,
		"acquirerCode":        "3DS Requestor",
		"acquirerBIN":         "412345",
		"merchantCode":        "MERCHANT-0042",
		"deviceChannel":       2,
		"messageCategory":     "01",
		"messageVersion":      "2.2.0",
		"card":                map[string]any{"cardNumber": card, "expiryDate": "2812", "cardholderName": "Jane A. Doe"},
		"merchantName":        merchant,
		"purchase":            map[string]any{"date": time.Now().UTC().Format("2006-01-02 15:04:05"), "amount": json.Number(amount), "currencyCode": currency},
	}
	var out struct {
		ID string `json:"threeDsServerTransId"`
	}
	if err := p.post("/authentication/brw", token, body, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// enquiry asks for the result of a transaction.
func (p *emulatorProcess) enquiry(token, id string) error {
	return p.post("/enquiry/", token, map[string]string{"threeDsServerTransId": id}, nil)
}

// post sends one JSON API request.
func (p *emulatorProcess) post(path, token string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, p.URL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
