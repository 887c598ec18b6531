package respond_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

func TestNegotiation(t *testing.T) {
	tests := []struct {
		accept            string
		prefersHTML, json bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true, false},
		{"application/json", false, true},
		{"*/*", false, false},
		{"", false, false},
		{"application/json;q=0.5, text/html", true, false},
		{"text/html;q=0.5, application/json", false, true},
		{"application/json;q=0", false, false},
		{"text/html;q=0", false, false},
		{"garbage;;;", false, false},
	}
	for _, tt := range tests {
		if got := respond.PrefersHTML(tt.accept); got != tt.prefersHTML {
			t.Errorf("PrefersHTML(%q) = %v, want %v", tt.accept, got, tt.prefersHTML)
		}
		if got := respond.WantsJSON(tt.accept); got != tt.json {
			t.Errorf("WantsJSON(%q) = %v, want %v", tt.accept, got, tt.json)
		}
	}
}

func TestJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	respond.JSON(rec, http.StatusCreated, map[string]string{"html": "<b>&</b>"})
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("got %d %v", rec.Code, rec.Header())
	}
	if got := rec.Body.String(); got != "{\"html\":\"<b>&</b>\"}\n" {
		t.Errorf("body %q: want HTML left unescaped", got)
	}
	rec = httptest.NewRecorder()
	respond.JSON(rec, http.StatusOK, func() {}) // cannot be encoded
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"errorCode":"SY01"`) {
		t.Errorf("unencodable value: got %d %s, want 500 with the error body", rec.Code, rec.Body)
	}
}

func TestNonce(t *testing.T) {
	a, b := respond.Nonce(), respond.Nonce()
	if a == b || len(a) != 22 {
		t.Errorf("nonces %q, %q: want fresh 128-bit values", a, b)
	}
}

func TestTooBig(t *testing.T) {
	if !respond.TooBig(&http.MaxBytesError{Limit: 1}) || respond.TooBig(errors.New("unexpected EOF")) {
		t.Error("TooBig tells a body over the limit from another failure")
	}
}
