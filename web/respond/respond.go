// Package respond holds how the sandbox writes its HTTP answers, for the
// API server and the console alike: JSON bodies, the nonce of a page's
// Content-Security-Policy, and what a request's Accept header asks for.
package respond

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Header values of every JSON answer, shared rather than allocated per
// request (Header.Set makes a new slice each time). Header.Add appends to
// a full slice, so it never writes into these.
var (
	contentTypeJSON = []string{"application/json"}
	noStore         = []string{"no-store"}
)

// encodeFailure is the body of the one failure no input can cause: a value
// the sandbox itself cannot encode. It is the error body of section 2.16
// of the interface document.
const encodeFailure = `{"status":"U","error":"response encoding failed","errorCode":"SY01","emvError":{"emvErrorCode":"404","emvErrorComponent":"S","emvErrorDescription":"Permanent System Failure","emvErrorDetail":""}}`

// Encode encodes v as JSON with HTML left unescaped (challengeHtml stays
// readable); nil only for values no request can produce.
func Encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return buf.Bytes()
}

// JSON writes v as the JSON answer with status.
func JSON(w http.ResponseWriter, status int, v any) {
	Raw(w, status, Encode(v))
}

// Raw writes an encoded JSON body, not to be cached; a nil body is an
// encoding failure, answered 500 with the error body.
func Raw(w http.ResponseWriter, status int, b []byte) {
	if b == nil {
		status, b = http.StatusInternalServerError, []byte(encodeFailure)
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Cache-Control"] = noStore
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Nonce returns a fresh nonce for a page's Content-Security-Policy: 128
// random bits.
func Nonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return base64.RawStdEncoding.EncodeToString(b[:])
}

// TooBig reports whether reading a body failed because it passed the
// server's limit.
func TooBig(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb) || strings.Contains(err.Error(), "too large")
}

// PrefersHTML reports whether an Accept header ranks text/html above
// application/json: a browser's does, curl's "*/*" does not.
func PrefersHTML(accept string) bool {
	html, jsonQ := -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			html = max(html, q)
		case "application/json":
			jsonQ = max(jsonQ, q)
		}
	}
	return html > 0 && html > jsonQ
}

// WantsJSON reports whether an Accept header asks for JSON rather than a
// page: application/json accepted, and not ranked below text/html.
func WantsJSON(accept string) bool {
	if PrefersHTML(accept) {
		return false
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/json" && params["q"] != "0" {
			return true
		}
	}
	return false
}
