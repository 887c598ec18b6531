package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestUnknownTransactionNamesStoreMaxAge: the enquiry of a transaction
// the store no longer has says, with the configured --store-max-age, that
// transactions expire.
func TestUnknownTransactionNamesStoreMaxAge(t *testing.T) {
	t.Parallel()
	p := startDefault(t, "--store-max-age", "90m")
	r := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", testToken, map[string]any{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"})
	if r.Status != http.StatusNotFound {
		t.Fatalf("HTTP %d, want 404: %v", r.Status, r.Body)
	}
	msg, _ := r.Body["error"].(string)
	if !strings.Contains(msg, "transactions expire 1h30m0s after their lookup (--store-max-age)") {
		t.Errorf("error = %q, want it to name --store-max-age and its value", msg)
	}
}
