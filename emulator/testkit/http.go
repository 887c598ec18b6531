package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is an HTTP answer as Call read it: the body decoded when it is
// JSON, and as it came.
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Str returns the string member key of a JSON object answer; "" when it
// has none.
func (r Response) Str(key string) string {
	v, _ := r.Body[key].(string)
	return v
}

// EMV returns the member key of the emvError object of an error body
// (section 2.16 of the interface document); "" when it has none.
func (r Response) EMV(key string) string {
	m, _ := r.Body["emvError"].(map[string]any)
	v, _ := m[key].(string)
	return v
}

// Request makes a request of method url with a bearer token ("" sends
// none) and a body: nil for none, a string or []byte sent as it is,
// anything else encoded as JSON; a body goes with the JSON content type.
func Request(tb testing.TB, method, url, token string, body any) *http.Request {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// Do sends req with client and returns the answer. It fails tb when the
// request fails or a JSON answer does not decode.
func Do(tb testing.TB, client *http.Client, req *http.Request) Response {
	tb.Helper()
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			tb.Fatalf("%s %s: the answer is not JSON: %v\n%s", req.Method, req.URL, err, raw)
		}
	}
	return r
}

// Call sends method url with a bearer token and a body (see Request) and
// returns the answer (see Do).
func Call(tb testing.TB, method, url, token string, body any) Response {
	tb.Helper()
	return Do(tb, http.DefaultClient, Request(tb, method, url, token, body))
}

// Lookup sends a lookup (POST base/authentication/brw) with token and
// fails tb unless it is answered 200.
func Lookup(tb testing.TB, base, token string, body any) Response {
	tb.Helper()
	r := Call(tb, http.MethodPost, base+"/authentication/brw", token, body)
	if r.Status != http.StatusOK {
		tb.Fatalf("lookup: HTTP %d, want 200\n%s", r.Status, r.Raw)
	}
	return r
}

// Enquiry asks the enquiry (POST base/enquiry/) for transaction id with
// token and fails tb unless it is answered 200.
func Enquiry(tb testing.TB, base, token, id string) Response {
	tb.Helper()
	r := Call(tb, http.MethodPost, base+"/enquiry/", token, map[string]any{"threeDsServerTransId": id})
	if r.Status != http.StatusOK {
		tb.Fatalf("enquiry: HTTP %d, want 200\n%s", r.Status, r.Raw)
	}
	return r
}
