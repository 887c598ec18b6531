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

// Call sends method url with body encoded as JSON (nil for none) and a
// bearer token ("" for none), and returns the answer. It fails tb when
// the request cannot be made or a JSON answer does not decode.
func Call(tb testing.TB, method, url, token string, body any) Response {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
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
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			tb.Fatalf("%s %s: the answer is not JSON: %v\n%s", method, url, err, raw)
		}
	}
	return r
}
