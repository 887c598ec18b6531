package sandboxtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// Client calls one sandbox with one bearer token. It is safe for
// concurrent use.
type Client struct {
	// URL is the sandbox's base URL; Token the bearer token of every
	// call, and so the namespace of what it sees.
	URL, Token string
	// HTTP sends the requests.
	HTTP *http.Client
}

// Error is an answer with an HTTP status of 400 or more.
type Error struct {
	Method, Path string
	// Status is the HTTP status; Body the error body, when the answer is
	// one.
	Status int
	Body   ErrorBody
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d %s (EMV %s, %s): %s", e.Method, e.Path, e.Status, e.Body.ErrorCode,
		e.Body.EMVError.Code, e.Body.EMVError.Detail, e.Body.Error)
}

// LookupBody returns a valid lookup request for card, every optional
// object filled in, as a map the caller may change before Lookup.
func LookupBody(card string) map[string]any { return sample(examples.Lookup(), card) }

// ThreeRIBody returns a valid 3RI lookup request for card (a recurring
// charge, threeRIInd 01), as a map the caller may change before ThreeRI;
// a priorRef other than "" names the prior authentication it relies on
// (the acsTransId or threeDsServerTransId of an earlier lookup).
func ThreeRIBody(card, priorRef string) map[string]any {
	m := sample(examples.ThreeRI(), card)
	if priorRef != "" {
		m["threeDsRequestorPriorAuthenticationInfo"] = map[string]any{"threeDsReqPriorRef": priorRef}
	}
	return m
}

// sample decodes an embedded sample request, with card as its card number.
func sample(body []byte, card string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		panic(fmt.Sprintf("sandboxtest: an example request does not decode: %v", err)) // embedded, tested
	}
	m["card"].(map[string]any)["cardNumber"] = card
	return m
}

// LookupResult is the answer of a lookup: its main fields, and all of it
// in Raw.
type LookupResult struct {
	Status               string `json:"status"`
	ThreeDSServerTransID string `json:"threeDsServerTransId"`
	ACSTransID           string `json:"acsTransId"`
	ExternalReferenceID  string `json:"externalReferenceId"`
	StatusReason         string `json:"statusReason"`
	ECI                  string `json:"eci"`
	AuthenticationValue  string `json:"authenticationValue"`
	CardScheme           string `json:"cardScheme"`
	Version              string `json:"version"`
	// HostedChallengeURL and ChallengeHTML start the challenge of a C.
	HostedChallengeURL string `json:"hostedChallengeUrl"`
	ChallengeHTML      string `json:"challengeHtml"`
	// ScenarioID is the scenario that answered (the X-Scenario-Id header).
	ScenarioID string          `json:"-"`
	Raw        json.RawMessage `json:"-"`
}

// EnquiryResult is the answer of an enquiry: its main fields, and all of
// it in Raw.
type EnquiryResult struct {
	TransactionStatus    string          `json:"transactionStatus"`
	ThreeDSServerTransID string          `json:"threeDsServerTransId"`
	ExternalReferenceID  string          `json:"externalReferenceId"`
	StatusReason         string          `json:"statusReason"`
	ChallengeCancel      string          `json:"challengeCancel"`
	ECI                  string          `json:"eci"`
	AuthenticationValue  string          `json:"authenticationValue"`
	Raw                  json.RawMessage `json:"-"`
}

// Lookup sends a lookup (POST /authentication/brw); body is a map (see
// LookupBody), a struct, or JSON bytes.
func (c *Client) Lookup(ctx context.Context, body any) (*LookupResult, error) {
	return c.lookup(ctx, "/authentication/brw", body)
}

// ThreeRI sends a 3RI lookup (POST /authentication/3ri), the merchant's
// authentication without the cardholder; body is a map (see
// ThreeRIBody), a struct, or JSON bytes. Its answer is final: never a
// challenge.
func (c *Client) ThreeRI(ctx context.Context, body any) (*LookupResult, error) {
	return c.lookup(ctx, "/authentication/3ri", body)
}

// lookup sends a lookup of any channel to path.
func (c *Client) lookup(ctx context.Context, path string, body any) (*LookupResult, error) {
	var out LookupResult
	h, err := c.do(ctx, http.MethodPost, path, body, &out, &out.Raw)
	if err != nil {
		return nil, err
	}
	out.ScenarioID = h.Get(web.ScenarioIDHeader)
	return &out, nil
}

// Enquiry asks for the result of transaction id (POST /enquiry/).
func (c *Client) Enquiry(ctx context.Context, id string) (*EnquiryResult, error) {
	return c.enquiry(ctx, map[string]string{"threeDsServerTransId": id})
}

// EnquiryByReference asks for the result of the newest transaction with
// the externalReferenceId ref.
func (c *Client) EnquiryByReference(ctx context.Context, ref string) (*EnquiryResult, error) {
	return c.enquiry(ctx, map[string]string{"externalReferenceId": ref})
}

func (c *Client) enquiry(ctx context.Context, body map[string]string) (*EnquiryResult, error) {
	var out EnquiryResult
	if _, err := c.do(ctx, http.MethodPost, "/enquiry/", body, &out, &out.Raw); err != nil {
		return nil, err
	}
	return &out, nil
}

// Action is what the cardholder does on the challenge page.
type Action string

// The cardholder's choices; a one-time code goes through EnterOTP, the
// choices of a question through Select.
const (
	Pass   Action = "pass"
	Fail   Action = "fail"
	Cancel Action = "cancel"
	// Resend asks a code entry (ui otp) for a new code: Final false.
	Resend Action = "resend"
	// Approve and Decline answer an out-of-band challenge (ui oob) as
	// the banking app, and end it: Y or N.
	Approve Action = "approve"
	Decline Action = "decline"
	// Continue is the out-of-band page's Continue: Final false until the
	// banking app has answered.
	Continue Action = "continue"
)

// CompleteChallenge decides the challenge of transaction id without a
// browser (POST /challenge/{id}), as the page would.
func (c *Client) CompleteChallenge(ctx context.Context, id string, a Action) (*ChallengeResult, error) {
	return c.challenge(ctx, id, map[string]string{"action": string(a)})
}

// EnterOTP types the one-time code otp on the challenge of transaction
// id; a wrong one with attempts left answers Final false.
func (c *Client) EnterOTP(ctx context.Context, id, otp string) (*ChallengeResult, error) {
	return c.challenge(ctx, id, map[string]string{"action": "otp", "otp": otp})
}

// Resend asks the code entry of transaction id for a new code.
func (c *Client) Resend(ctx context.Context, id string) (*ChallengeResult, error) {
	return c.CompleteChallenge(ctx, id, Resend)
}

// Approve approves the out-of-band challenge of transaction id as its
// banking app would, which ends it Y.
func (c *Client) Approve(ctx context.Context, id string) (*ChallengeResult, error) {
	return c.CompleteChallenge(ctx, id, Approve)
}

// Decline declines the out-of-band challenge of transaction id as its
// banking app would, which ends it N.
func (c *Client) Decline(ctx context.Context, id string) (*ChallengeResult, error) {
	return c.CompleteChallenge(ctx, id, Decline)
}

// Select answers the question (ui select or multiselect) of transaction
// id with choices; a wrong answer with attempts left answers Final false.
func (c *Client) Select(ctx context.Context, id string, choices ...string) (*ChallengeResult, error) {
	return c.challenge(ctx, id, map[string]any{"action": "select", "choices": choices})
}

func (c *Client) challenge(ctx context.Context, id string, body any) (*ChallengeResult, error) {
	var out ChallengeResult
	if _, err := c.do(ctx, http.MethodPost, "/challenge/"+url.PathEscape(id), body, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Query selects the token's transactions; its zero value the newest 50.
type Query struct {
	ExternalReferenceID, Status, ScenarioID string
	// Since selects the transactions created at or after it.
	Since time.Time
	// Limit is a page's size (1-1000); Cursor the Next of the page
	// before.
	Limit  int
	Cursor string
}

// Transactions lists the token's transactions, newest first
// (GET /admin/transactions).
func (c *Client) Transactions(ctx context.Context, q Query) (*TransactionList, error) {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("externalReferenceId", q.ExternalReferenceID)
	set("status", q.Status)
	set("scenarioId", q.ScenarioID)
	set("cursor", q.Cursor)
	if !q.Since.IsZero() {
		v.Set("since", q.Since.Format(time.RFC3339Nano))
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	path := "/admin/transactions"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out TransactionList
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Transaction returns transaction id with its events
// (GET /admin/transactions/{id}).
func (c *Client) Transaction(ctx context.Context, id string) (*Transaction, error) {
	return c.transaction(ctx, "/admin/transactions/"+url.PathEscape(id))
}

// Wait returns transaction id once it is final, or as it stands when
// timeout (at most a minute) passes, with Final false.
func (c *Client) Wait(ctx context.Context, id string, timeout time.Duration) (*Transaction, error) {
	return c.transaction(ctx, "/admin/transactions/"+url.PathEscape(id)+"?wait=final&timeout="+url.QueryEscape(timeout.String()))
}

func (c *Client) transaction(ctx context.Context, path string) (*Transaction, error) {
	var out Transaction
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Forget forgets the token's transactions, their references and its
// journal (DELETE /admin/transactions).
func (c *Client) Forget(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodDelete, "/admin/transactions", nil, nil, nil)
	return err
}

// Reset starts the token clean, as a new token would (DELETE
// /admin/state): its transactions, references and journal forgotten, its
// clock at real time, its runtime scenarios and its result callback's
// registration removed.
func (c *Client) Reset(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodDelete, "/admin/state", nil, nil, nil)
	return err
}

// Clock returns the token's clock (GET /admin/clock).
func (c *Client) Clock(ctx context.Context) (*Clock, error) {
	return c.clock(ctx, http.MethodGet, nil)
}

// AdvanceClock moves the token's clock forward by d: every timeout and
// automatic decision of its transactions within d happens at once.
func (c *Client) AdvanceClock(ctx context.Context, d time.Duration) (*Clock, error) {
	return c.clock(ctx, http.MethodPost, map[string]string{"advance": d.String()})
}

// ResetClock sets the token's clock back to real time.
func (c *Client) ResetClock(ctx context.Context) (*Clock, error) {
	return c.clock(ctx, http.MethodDelete, nil)
}

func (c *Client) clock(ctx context.Context, method string, body any) (*Clock, error) {
	var out Clock
	if _, err := c.do(ctx, method, "/admin/clock", body, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// do sends a request with the client's token and decodes a JSON answer
// into out (and keeps it in raw), or returns an *Error.
func (c *Client) do(ctx context.Context, method, path string, body, out any, raw *json.RawMessage) (http.Header, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case json.RawMessage:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("sandboxtest: %s %s: encode the body: %w", method, path, err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: clientTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: %s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode >= 400 {
		e := &Error{Method: method, Path: path, Status: resp.StatusCode}
		if json.Unmarshal(data, &e.Body) != nil {
			e.Body.Error = string(data)
		}
		return nil, e
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("sandboxtest: %s %s: decode the answer: %w", method, path, err)
		}
	}
	if raw != nil {
		*raw = data
	}
	return resp.Header, nil
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
