package sandbox

import (
	"io"
	"strings"
	"testing"
)

// TestParseBackend: --store is read once, into a value that says whether
// replicas share the state and names it without a password.
func TestParseBackend(t *testing.T) {
	tests := []struct {
		store  string
		shared bool
		name   string
		err    string
	}{
		{store: "memory", name: "memory"},
		{store: "redis://127.0.0.1:6379/0", shared: true, name: "redis://127.0.0.1:6379/0"},
		{store: "rediss://user:secret@redis.example:6380/1", shared: true, name: "rediss://user:***@redis.example:6380/1"},
		{store: "Memory", err: "want memory, or a Redis URL"},
		{store: "http://redis:6379", err: "want memory, or a Redis URL"},
		{store: "", err: "want memory, or a Redis URL"},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			b, err := ParseBackend(tt.store)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseBackend(%q) = %v, %v; want an error saying %q", tt.store, b, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Shared() != tt.shared || b.String() != tt.name {
				t.Errorf("ParseBackend(%q): Shared %v, String %q; want %v, %q", tt.store, b.Shared(), b.String(), tt.shared, tt.name)
			}
		})
	}
}

// TestParseReadsSettingsOnce: Parse leaves the values it read in the
// Config, and the drain default follows the backend it read.
func TestParseReadsSettingsOnce(t *testing.T) {
	keys := []string{"--state-hash-key", strings.Repeat("ab", 32), "--state-block-key", strings.Repeat("cd", 32)}
	for _, tt := range []struct {
		store  string
		shared bool
	}{{"memory", false}, {"redis://127.0.0.1:1/0", true}} {
		c, _, err := Parse(append([]string{"--store", tt.store}, keys...), func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if c.parsed == nil || c.parsed.backend == nil || c.parsed.backend.Shared() != tt.shared {
			t.Fatalf("--store %s: parsed %+v, want a backend shared=%v", tt.store, c.parsed, tt.shared)
		}
		if got := c.DrainDelay > 0; got != tt.shared {
			t.Errorf("--store %s: drain delay %v, want one only for a shared store", tt.store, c.DrainDelay)
		}
		if len(c.parsed.hashKey) != 32 || c.parsed.schemes == nil {
			t.Errorf("--store %s: the keys and the card BINs were not kept as read", tt.store)
		}
	}
}
