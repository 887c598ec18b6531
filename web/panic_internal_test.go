package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
)

// TestPanicBecomesErrorBody: a handler that panics answers 500 with the
// error body (SY01) and its request id, and the panic is logged with it.
func TestPanicBecomesErrorBody(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&logs, nil)), metrics: NewMetrics(nil)}
	h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/authentication/brw", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	var body adminapi.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.ErrorCode != "SY01" || body.EMVError.Code != "404" {
		t.Fatalf("body = %s (%v), want the error body with SY01", rec.Body, err)
	}
	id := rec.Header().Get("X-Request-Id")
	if id == "" || !strings.Contains(body.Error, id) {
		t.Errorf("the error %q does not carry the request id %q", body.Error, id)
	}
	if !strings.Contains(logs.String(), "panic in handler") || !strings.Contains(logs.String(), id) {
		t.Errorf("the panic is not logged with the request id:\n%s", logs.String())
	}
}
