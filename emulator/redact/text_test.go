package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
)

// TestText: the card numbers of a free-text value are masked, written
// whole or in groups, anywhere in it; a value without one comes back as
// it is, without a copy; a run of more than 19 digits is no card number.
func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Jane A. Doe", "Jane A. Doe"},
		{"4111111111111111", "411111******1111"},
		{"Jane 4000 0000 0000 9003", "Jane 4000 00** **** 9003"},
		{"ORD-4000-0000-0000-9003-X", "ORD-4000-00**-****-9003-X"},
		{"4111111111111112", "4111111111111112"}, // fails the Luhn check
		{"12345678901234567890123", "12345678901234567890123"},
		{"", ""},
	} {
		if got := redact.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = redact.Text("Example Shop 2026-11-28") }); n != 0 {
		t.Errorf("Text of a value without a card number: %v allocations, want 0", n)
	}
}

// TestAnswer: the kept copy of an answer shows no card number, in place
// when it can, and stays JSON.
func TestAnswer(t *testing.T) {
	for _, in := range []string{
		`{"status":"Y","externalReferenceId":"4111111111111111"}`,
		`{"status":"Y","externalReferenceId":"a \"quoted\" 4111111111111111"}`,
		`{"status":"Y","n":4111111111111111}`,
	} {
		got := string(redact.Answer([]byte(in)))
		if strings.Contains(got, "4111111111111111") || !json.Valid([]byte(got)) {
			t.Errorf("Answer(%s) = %s: want valid JSON without the card number", in, got)
		}
	}
	plain := []byte(`{"status":"Y","externalReferenceId":"ORD-1"}`)
	if got := redact.Answer(plain); &got[0] != &plain[0] {
		t.Error("an answer without a card number was copied")
	}
}

// TestSharedAnswer: an answer the transport writes too is never changed:
// the kept copy is a masked clone when it holds a card number, masked as
// Answer masks it, and the answer itself, without a copy, when not.
func TestSharedAnswer(t *testing.T) {
	for _, in := range []string{
		`{"status":"Y","externalReferenceId":"4111111111111111"}`,
		`{"status":"Y","externalReferenceId":"a \"quoted\" 4111111111111111"}`,
		`{"status":"Y","n":4111111111111111}`,
	} {
		b := []byte(in)
		got := redact.SharedAnswer(b)
		if string(b) != in {
			t.Errorf("SharedAnswer(%s) changed its argument to %s", in, b)
		}
		if want := redact.Answer([]byte(in)); string(got) != string(want) {
			t.Errorf("SharedAnswer(%s) = %s, want %s as Answer masks it", in, got, want)
		}
	}
	plain := []byte(`{"status":"Y","externalReferenceId":"ORD-1"}`)
	if got := redact.SharedAnswer(plain); &got[0] != &plain[0] {
		t.Error("an answer without a card number was copied")
	}
}
