package auth_test

import (
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

func TestTokens(t *testing.T) {
	open := auth.NewTokens(nil)
	if open.Required() || !open.Accept("anything") {
		t.Error("with no tokens configured, any token should be accepted")
	}
	closed := auth.NewTokens([]string{" team-a ", "", "team-b"})
	tests := []struct {
		token string
		want  bool
	}{
		{"team-a", true},
		{"team-b", true},
		{"team-c", false},
		{"team-a ", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := closed.Accept(tt.token); got != tt.want {
			t.Errorf("Accept(%q) = %v, want %v", tt.token, got, tt.want)
		}
	}
	if !closed.Required() {
		t.Error("Required() = false with tokens configured")
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  BEARER   abc  ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		tok, ok := auth.BearerToken(tt.header)
		if ok != tt.ok || (ok && tok != tt.token) {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, tok, ok, tt.token, tt.ok)
		}
	}
}
